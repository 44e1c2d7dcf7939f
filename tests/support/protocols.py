"""Checks that an object has what a ``typing.Protocol`` names, for the pieces mypy cannot follow
(a route reads its fake from the request's scope): each member present, each attribute of its
declared type, each method taking the protocol's parameters. Used by the packages' protocol tests."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import types
import typing
from pathlib import Path
from types import ModuleType
from typing import Any

from mypy import api

ROOT = Path(__file__).resolve().parents[2]


def protocols_of(package: ModuleType) -> set[type]:
    """Every Protocol class defined in ``package`` and its subpackages."""
    found = set()
    for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if inspect.isclass(value) and value.__module__ == module.__name__ \
                    and getattr(value, "_is_protocol", False):
                found.add(value)
    return found


def _is_a(value: Any, hint: Any) -> bool:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_is_a(value, arg) for arg in typing.get_args(hint))
    if hint is None or hint is type(None):
        return value is None
    return hint is Any or isinstance(value, origin or hint)


def missing(protocol: type, implementation: object, localns: dict[str, Any] | None = None) -> list[str]:
    """What ``implementation`` lacks of ``protocol`` (its bases' members too): members, attribute
    types, method parameters. ``localns`` resolves names annotations import only for type checking."""
    problems = []
    for name, hint in typing.get_type_hints(protocol, localns=localns).items():
        if not hasattr(implementation, name):
            problems.append(f"attribute {name}")
        elif not _is_a(getattr(implementation, name), hint):
            problems.append(f"attribute {name} is a {type(getattr(implementation, name)).__name__}")
    methods = {name: declared for klass in reversed(protocol.__mro__) for name, declared in vars(klass).items()
               if inspect.isfunction(declared) and not name.startswith("__")}
    for name, declared in methods.items():
        bound = getattr(implementation, name, None)
        if not callable(bound):
            problems.append(f"method {name}")
            continue
        wanted = list(inspect.signature(declared).parameters.values())[1:]
        offered = inspect.signature(bound).parameters
        for parameter in wanted:
            given = offered.get(parameter.name)
            if given is None or given.kind != parameter.kind:
                problems.append(f"method {name} takes no {parameter.kind.description} {parameter.name}")
            elif parameter.default is not inspect.Parameter.empty and given.default is inspect.Parameter.empty:
                problems.append(f"method {name} requires {parameter.name}")
        problems += [f"method {name} requires {extra.name}" for extra in offered.values()
                     if extra.default is inspect.Parameter.empty and extra.name not in {p.name for p in wanted}
                     and extra.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)]
    return problems


def run_mypy(*paths: str) -> tuple[int, str]:
    """mypy with the project's configuration on ``paths``: (exit status, report)."""
    out, err, status = api.run(["--config-file", str(ROOT / "pyproject.toml"), "--no-error-summary", *paths])
    return status, out + err
