"""The shape of a JSON value: what a client relies on, with the values that must differ left out.

A shape keeps, at every place of a JSON document, the JSON types seen there, an object's keys, the
merged shape of an array's items, the *form* of its strings (a date-time, a URL, an e-mail address
... rather than the text) and the tokens seen there (enum-like values, up to a few dozen). Two
answers from two services with different data (other ids, times, URLs, another order of keys or
items) have the same shape when a client could read both with the same code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

#: strings that look like one enum value: a word, snake_case, kebab-case or CONSTANT_CASE
TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9_\-]{0,39}")
#: the most distinct tokens one place keeps (beyond it: not an enum)
MAX_TOKENS = 40
#: where an object's key is data, not a field name (an id the request named: ``{"vi123": {...}}``)
DATA_KEY = "{*}"

_FORMS = (
    ("datetime", re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?", re.I)),
    ("date", re.compile(r"\d{4}-\d{2}-\d{2}")),
    ("url", re.compile(r"[a-z][a-z0-9+.\-]*://\S+", re.I)),
    ("path", re.compile(r"/[^\s]*")),
    ("email", re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")),
    ("uuid", re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)),
)
#: forms that say what a value is; two sides whose strings have none of them (free text, ids,
#: numbers as text) are not told apart by form
STRONG_FORMS = frozenset(name for name, _ in _FORMS)


def string_form(value: str) -> str:
    """``"2026-01-05T09:00:00Z"`` -> ``"datetime"``; ``""`` -> ``""``; free text -> ``"text"``."""
    if not value:
        return ""
    for name, pattern in _FORMS:
        if pattern.fullmatch(value):
            return name
    return "text"


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"  # 1 and 1.5 are both numbers: whether a price has cents is data
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def token_style(value: str) -> str:
    """``"READY"`` -> ``"upper"``, ``"ready"`` / ``"in_progress"`` -> ``"lower"``, else ``"mixed"``."""
    if value.upper() == value:
        return "upper"
    if value.lower() == value:
        return "lower"
    return "mixed"


@dataclass
class Shape:
    """The merged shape of every value seen at one place of a JSON document."""

    types: set[str] = field(default_factory=set)
    keys: dict[str, Shape] = field(default_factory=dict)
    items: Shape | None = None
    forms: set[str] = field(default_factory=set)
    #: the distinct token values seen (None once a value was not a token, or there were too many)
    tokens: set[str] | None = field(default_factory=set)
    strings: int = 0

    def add(self, value: Any, data_keys: frozenset[str] = frozenset()) -> Shape:
        """Merge ``value`` in; keys in ``data_keys`` (ids the request named) count as one data key."""
        kind = json_type(value)
        self.types.add(kind)
        if kind == "object":
            for key, item in value.items():
                self.keys.setdefault(DATA_KEY if key in data_keys else key, Shape()).add(item, data_keys)
        elif kind == "array":
            if self.items is None:
                self.items = Shape()
            for item in value:
                self.items.add(item, data_keys)
        elif kind == "string":
            self.strings += 1
            form = string_form(value)
            if form:
                self.forms.add(form)
            if self.tokens is not None:
                if TOKEN.fullmatch(value) and len(self.tokens) < MAX_TOKENS:
                    self.tokens.add(value)
                else:
                    self.tokens = None
        return self

    @property
    def has_items(self) -> bool:
        return self.items is not None and bool(self.items.types)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description (for reports and debugging)."""
        described: dict[str, Any] = {"types": sorted(self.types)}
        if self.keys:
            described["keys"] = {key: shape.to_dict() for key, shape in sorted(self.keys.items())}
        if self.has_items and self.items is not None:
            described["items"] = self.items.to_dict()
        if self.forms:
            described["forms"] = sorted(self.forms)
        if self.tokens:
            described["tokens"] = sorted(self.tokens)
        return described


def shape_of(value: Any, data_keys: frozenset[str] = frozenset()) -> Shape:
    return Shape().add(value, data_keys)


def child_path(path: str, key: str) -> str:
    """``$.data[]`` + ``assets`` -> ``$.data[].assets`` (keys that are not plain names quoted)."""
    plain = key == DATA_KEY or re.fullmatch(r"[A-Za-z_][A-Za-z0-9_\-]*", key)
    return f"{path}.{key}" if plain else f"{path}[{key!r}]"
