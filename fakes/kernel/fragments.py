"""JSON fragments: whether a request body contains a fragment (the ``json`` criterion), and where
not. An object contains a fragment object when each of its keys is there with a value containing
the fragment's; an array contains a fragment array when each fragment item is contained by some
item (looked up through an index of the array: scalars by value, objects by the value of a
member, never item against item); anything else when equal (``1`` is not ``true``, ``1`` is ``1.0``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from .budget import STEP_CALL, STEP_ITEM, Budget
from .redaction import REDACTED, Redactor


def json_mismatch(expected: Any, actual: Any, where: str, redactor: Redactor | None = None,
                  secret: bool = False, *, budget: Budget | None = None) -> str | None:
    """Where ``actual`` fails to contain the fragment ``expected`` (None: it contains it)."""
    return _mismatch(expected, actual, where, redactor, secret, budget or Budget(), {})


def _mismatch(expected: Any, actual: Any, where: str, redactor: Redactor | None, secret: bool, budget: Budget,
              indexes: dict[int, _ArrayIndex]) -> str | None:
    budget.spend(STEP_CALL)
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return f"at {where}: expected an object, got {_kind(actual)}"
        for key, value in expected.items():
            if key not in actual:
                return f"at {where}.{key}: missing"
            hidden = secret or (redactor is not None and redactor.is_secret_field(key))
            problem = _mismatch(value, actual[key], f"{where}.{key}", redactor, hidden, budget, indexes)
            if problem is not None:
                return problem
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return f"at {where}: expected an array, got {_kind(actual)}"
        index = _index(actual, budget, indexes)
        for item in expected:
            if not index.has(item, budget, indexes):
                return f"at {where}: no item contains {short(item)}"
        return None
    if not _equal(expected, actual):
        return f"at {where}: expected {short(expected)}, got {REDACTED if secret else short(actual)}"
    return None


def contains(expected: Any, actual: Any, budget: Budget, indexes: dict[int, _ArrayIndex]) -> bool:
    """Whether ``actual`` contains the fragment ``expected`` (:func:`json_mismatch` without the why)."""
    budget.spend(STEP_CALL)
    if isinstance(expected, dict):  # (a Python caller's Mapping goes the slower way below)
        if type(actual) is not dict:
            return False
        for key, value in expected.items():
            if key not in actual or not contains(value, actual[key], budget, indexes):
                return False
        return True
    if isinstance(expected, Mapping):
        return _mismatch(expected, actual, "$", None, False, budget, indexes) is None
    if isinstance(expected, list):
        if type(actual) is not list:
            return False
        index = _index(actual, budget, indexes)
        return all(index.has(item, budget, indexes) for item in expected)
    return _equal(expected, actual)


def json_equal(expected: Any, actual: Any) -> bool:
    """Whether two JSON values are the same (``1`` is ``1.0``, not ``true``; arrays in order)."""
    if isinstance(expected, Mapping):
        return (isinstance(actual, Mapping) and len(actual) == len(expected)
                and all(key in actual and json_equal(value, actual[key]) for key, value in expected.items()))
    if isinstance(expected, (list, tuple)):
        return (isinstance(actual, list) and len(actual) == len(expected)
                and all(json_equal(a, b) for a, b in zip(expected, actual, strict=True)))
    return _equal(expected, actual)


def _equal(expected: Any, actual: Any) -> bool:
    return (isinstance(expected, bool) == isinstance(actual, bool) and not isinstance(actual, (Mapping, list))
            and expected == actual)


def _scalar_key(value: Any) -> tuple[int, Any] | None:
    """What a scalar is equal by (``1`` is not ``true``; ``1`` is ``1.0``); None for an object or array."""
    kind = type(value)
    if kind is str:
        return (3, value)
    if kind is int or kind is float or value is None:
        return (2, value)
    if kind is bool:
        return (1, value)
    if kind is dict or kind is list:
        return None
    return _scalar_key_of_other(value)


def _scalar_key_of_other(value: Any) -> tuple[int, Any] | None:
    """:func:`_scalar_key` of what a Python caller's fragment may hold (subclasses, mappings, tuples)."""
    if isinstance(value, str):
        return (3, str(value))
    if isinstance(value, bool):
        return (1, bool(value))
    if isinstance(value, (int, float)):
        return (2, value)
    return None


def _index(actual: list[Any], budget: Budget, indexes: dict[int, _ArrayIndex]) -> _ArrayIndex:
    index = indexes.get(id(actual))
    if index is None:
        index = indexes[id(actual)] = _ArrayIndex(actual)
    return index


class _ArrayIndex:
    """A body's array, indexed for the fragment items looked up in it (each part built when first
    needed, once): its scalars by value, its objects by the value of a member (an object item is
    tried only against the objects sharing its most selective scalar member), its arrays."""

    __slots__ = ("_arrays", "_by_member", "_objects", "_scalars", "items")

    def __init__(self, items: list[Any]) -> None:
        self.items = items
        self._scalars: set[tuple[int, Any]] | None = None
        self._objects: list[dict[str, Any]] | None = None
        self._arrays: list[list[Any]] | None = None
        self._by_member: dict[str, dict[tuple[int, Any], list[dict[str, Any]]]] = {}

    def has(self, expected: Any, budget: Budget, indexes: dict[int, _ArrayIndex]) -> bool:
        """Whether some item contains ``expected``."""
        budget.spend(STEP_CALL)
        key = _scalar_key(expected)
        if key is not None:
            return key in self.scalars(budget)
        if type(expected) is dict or isinstance(expected, Mapping):
            candidates = self.objects(budget)
            for name, member in expected.items():
                member_key = _scalar_key(member)
                if member_key is not None:
                    sharing = self.sharing(name, budget).get(member_key)
                    if sharing is None:
                        return False
                    if len(sharing) < len(candidates):
                        candidates = sharing
            return any(contains(expected, candidate, budget, indexes) for candidate in candidates)
        return any(contains(expected, candidate, budget, indexes) for candidate in self.arrays(budget))

    def scalars(self, budget: Budget) -> set[tuple[int, Any]]:
        if self._scalars is None:
            budget.spend(STEP_ITEM * len(self.items))
            self._scalars = {(3, v) if type(v) is str else (1, v) if type(v) is bool else (2, v)
                             for v in self.items if type(v) is not dict and type(v) is not list}
        return self._scalars

    def objects(self, budget: Budget) -> list[dict[str, Any]]:
        if self._objects is None:
            budget.spend((STEP_ITEM >> 2) * len(self.items))
            self._objects = [item for item in self.items if type(item) is dict]
        return self._objects

    def arrays(self, budget: Budget) -> list[list[Any]]:
        if self._arrays is None:
            budget.spend((STEP_ITEM >> 2) * len(self.items))
            self._arrays = [item for item in self.items if type(item) is list]
        return self._arrays

    def sharing(self, name: str, budget: Budget) -> dict[tuple[int, Any], list[dict[str, Any]]]:
        """The objects of the array by the value of their scalar member ``name``."""
        found = self._by_member.get(name)
        if found is None:
            objects = self.objects(budget)
            budget.spend(STEP_ITEM * len(objects))
            found = self._by_member[name] = {}
            for item in objects:
                key = _scalar_key(item[name]) if name in item else None
                if key is not None:
                    found.setdefault(key, []).append(item)
        return found


def _kind(value: Any) -> str:
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return short(value)


def short(value: Any, limit: int = 80) -> str:
    if isinstance(value, (Mapping, list)) and len(value) > limit:
        value = list(value)[:limit] if isinstance(value, list) else dict(list(value.items())[:limit])
    try:
        text = orjson.dumps(value).decode()
    except TypeError:  # a Python caller's fragment (a tuple, an int past 64 bits)
        text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."
