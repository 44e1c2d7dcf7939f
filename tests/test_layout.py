"""The package reads bottom-up: no module imports, even only for its annotations, a module that
imports it back, directly or around a circle; and no module grows past 600 lines.

A circle means neither side can be read (or changed) without the other: the kernel's pieces
depend on small protocols of what they need, defined below them, and each service's routes on a
protocol of its fake rather than on the class that imports them. Imports under ``if
TYPE_CHECKING:`` and inside functions count: they hide a circle from the interpreter, not from
the reader.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("fakes", "scenarios")
MAX_LINES = 600


def _modules(package: str) -> dict[str, Path]:
    found = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imported(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules ``module`` imports (the longest module each imported name is in)."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
                package = package[:len(package) - (node.level - 1)]
                base = ".".join(package + ([base] if base else []))
            names += [f"{base}.{alias.name}" for alias in node.names] + ([base] if node.module else [])
    found = set()
    for name in names:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name and name != module:
            found.add(name)
    return found


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        circles.append(sorted(component))
    return circles


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_imports_its_importer(package: str) -> None:
    modules = _modules(package)
    graph = {module: _imported(module, path, modules) for module, path in modules.items()}
    circles = _circles(graph)
    described = [
        " <-> ".join(circle) + ":\n      " + "\n      ".join(
            f"{module} imports {', '.join(sorted(graph[module] & set(circle)))}" for module in circle)
        for circle in circles]
    assert not circles, "modules importing each other in a circle:\n  " + "\n  ".join(described)


def test_the_circle_finder_finds_circles() -> None:
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("package", PACKAGES)
def test_modules_stay_under_600_lines(package: str) -> None:
    long = {str(path.relative_to(ROOT)): n for path in _modules(package).values()
            if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert not long, f"split these along their concepts: {long}"
