"""The service's modules read bottom-up: no module imports one that imports it back (annotations
and function-level imports count too), and none passes the project's 600-line limit."""

from __future__ import annotations

import ast
from pathlib import Path

import fakes.enrichment

PACKAGE = Path(fakes.enrichment.__file__).parent
MAX_LINES = 600


def module_imports() -> dict[str, set[str]]:
    """Each module of the package -> the modules of the package it imports (``__init__`` for ``.``)."""
    modules = {path.stem for path in PACKAGE.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for name in modules:
        tree = ast.parse((PACKAGE / f"{name}.py").read_text())
        found: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    found.add(node.module.split(".")[0])
                else:  # from . import x: the module x, or a name of the package's __init__
                    found |= {alias.name if alias.name in modules else "__init__" for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("fakes.enrichment."):
                found.add(str(node.module).split(".")[2])
        graph[name] = found - {name}
    return graph


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of the graph, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*stack[stack.index(target):], target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state:
            found = visit(start)
            if found:
                return found
    return None


def test_the_modules_import_each_other_without_a_circle() -> None:
    graph = module_imports()
    assert {"model", "lookups", "mcp", "mcp_tools"} <= set(graph)
    assert cycle(graph) is None, " -> ".join(cycle(graph) or [])


def test_the_cycle_finder_finds_a_circle() -> None:
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set()}) is None


def test_no_module_passes_the_line_limit() -> None:
    long = {path.name: n for path in PACKAGE.glob("*.py")
            if (n := len(path.read_text().splitlines())) >= MAX_LINES}
    assert not long, long
