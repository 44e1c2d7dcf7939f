"""Reading the JSON of a fault or stub rule field by field: each refusal names the field.

Shared by :mod:`fakes.kernel.faults` and :mod:`fakes.kernel.stubs`: the same checks of numbers,
whole numbers, texts, switches and answer headers, each raising what its ``refuse(field, message)``
makes (a 400 ``invalid_fault`` or ``invalid_stub``) with the field's full name (``where`` + name).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from .http import finite_number, text_problem

HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}")
HEADER_VALUE = re.compile(r"[\t\x20-\x7e\xa0-\xff]{0,4000}")  # printable Latin-1: no CR, LF, C0 or C1 controls
#: what a header value may not hold once a template filled it in (replaced by ?)
NOT_IN_HEADER = re.compile(r"[^\t\x20-\x7e\xa0-\xff]")

Refuse = Callable[[str, str], Exception]


class SpecReader:
    """One JSON object of a rule (``where``: its path, ``""`` at the top)."""

    __slots__ = ("refuse", "spec", "where")

    def __init__(self, spec: Mapping[str, Any], refuse: Refuse, where: str = "") -> None:
        self.spec, self.refuse, self.where = spec, refuse, where

    def field(self, name: str) -> str:
        return f"{self.where}.{name}" if self.where else name

    def fail(self, name: str, message: str) -> Exception:
        return self.refuse(self.field(name), message)

    def only(self, names: set[str] | frozenset[str], what: str) -> None:
        unknown = sorted(str(name) for name in self.spec if name not in names)
        if unknown:
            raise self.fail(unknown[0][:200], f"is not a field of {what}; known: {', '.join(sorted(names))}")

    def number(self, name: str, default: float, low: float, high: float) -> float:
        value = self.spec.get(name, default)
        if value is None:
            value = default
        number = finite_number(value)  # None for an integer too large for a float: never an OverflowError
        if number is None:
            raise self.fail(name, "must be a finite number")
        if not low <= number <= high:
            raise self.fail(name, f"must be from {low:g} to {high:g}")
        return number

    def integer(self, name: str, low: int, high: int, default: int | None = None) -> int | None:
        value = self.spec.get(name)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(name, "must be a whole number (or null)")
        if not low <= value <= high:
            raise self.fail(name, f"must be from {low} to {high}")
        return value

    def text(self, name: str, default: str | None, limit: int) -> Any:
        value = self.spec.get(name, default)
        if value is None and default is None:
            return None
        if not isinstance(value, str) or not 1 <= len(value) <= limit or text_problem(value) is not None:
            raise self.fail(name, f"must be a string of 1 to {limit} characters")
        return value

    def switch(self, name: str, default: bool) -> bool:
        value = self.spec.get(name, default)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.fail(name, "must be true or false")
        return value

    def headers(self, name: str = "headers") -> dict[str, str]:
        value = self.spec.get(name)
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise self.fail(name, "must be an object of header names to string values")
        headers: dict[str, str] = {}
        for key, text in value.items():
            if not isinstance(key, str) or not HEADER_NAME.fullmatch(key):
                raise self.fail(name, f"{str(key)[:100]!r} is not a header name (letters, digits, -, no spaces)")
            if not isinstance(text, str) or not HEADER_VALUE.fullmatch(text):
                raise self.fail(name, f"the value of {key} must be a string without CR, LF or control characters")
            headers[key] = text
        return headers
