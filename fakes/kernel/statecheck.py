"""Validated reads of an imported state: every value checked for type and range on the way in.

``PUT /_fake/state`` hands a model plain JSON. A model's ``load_state`` reads it through
:class:`StateReader` instead of ``state["x"]``, so a wrong type, a value out of range or a missing
field is refused with a 400 that names the field (``model.members[0].created_ms``) rather than
stored and answered with a 500 by every later request::

    def load_state(self, state: dict[str, Any]) -> None:
        read = StateReader(state, "model")
        self.counter = read.integer("counter", minimum=0)
        self.items = {item.text("id", max_length=40): Item.from_state(item) for item in read.objects("items")}
        self.scope = read.choice("scope", ("read", "write"))

Everything it returns is a plain value or another reader; :func:`refuse` raises the same error
for checks of the model's own (references to records that do not exist, for instance).
"""

from __future__ import annotations

import math
import re
import reprlib
from collections.abc import Iterable, Iterator
from typing import Any, NoReturn, TypeVar

from .errors import ControlError
from .http import JSON_INT_MAX, JSON_INT_MIN, check_json_value, finite_number, parse_json

T = TypeVar("T")


class StateError(ControlError):
    """An imported state refused: 400 ``invalid_state`` with the offending ``field``. Both are cut
    to a few hundred characters (a 10 MB key or value is not echoed back whole)."""

    def __init__(self, field: str, message: str) -> None:
        field, message = cut(field), cut(message, MAX_ECHOED * 2)
        super().__init__(400, f"invalid state: {field} {message}", code="invalid_state", field=field)
        self.field = field


#: the longest text of a client's that a refusal echoes
MAX_ECHOED = 200
_ECHO = reprlib.Repr()
_ECHO.maxstring = _ECHO.maxother = _ECHO.maxlong = MAX_ECHOED
_ECHO.maxlist = _ECHO.maxdict = _ECHO.maxtuple = _ECHO.maxset = 8
_ECHO.maxlevel = 3


def echo(value: Any) -> str:
    """``repr(value)`` for a refusal, cut to a few hundred characters however large the value is."""
    return cut(_ECHO.repr(value), MAX_ECHOED + 20)


def cut(text: str, limit: int = MAX_ECHOED) -> str:
    """``text``, or its start and how long it was."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def refuse(field: str, message: str) -> NoReturn:
    raise StateError(field, message)


#: an imported state holds at most one JSON array or object per STATE_BYTES_PER_CONTAINER of its
#: bytes and one value per STATE_BYTES_PER_VALUE (each plus a margin for small states), so that
#: what it is parsed into stays within a small multiple of its size (an empty array is 2 bytes of
#: JSON and 64 of Python: 60 MiB of them took 3 GB)
STATE_BYTES_PER_CONTAINER = 32
STATE_BYTES_PER_VALUE = 8
STATE_MARGIN_CONTAINERS = 10_000
STATE_MARGIN_VALUES = 100_000


def parse_state(raw: bytes) -> dict[str, Any]:
    """A state to import (``PUT /_fake/state``, a ``--state`` file) parsed from JSON, counted
    before it is parsed: arrays and objects, and values (commas), past the ratios above are a 400
    naming ``state`` at once; then the door's checks (fakes/kernel/http.py: nesting, text,
    numbers) and an object. The brackets and commas are counted with ``bytes.count``, inside
    strings too (a state of prose full of them is the one refused wrongly)."""
    size = len(raw)
    containers = raw.count(b"[") + raw.count(b"{")
    if containers > size // STATE_BYTES_PER_CONTAINER + STATE_MARGIN_CONTAINERS:
        refuse("state", f"holds {containers} arrays and objects in {size} bytes, more than one per "
                        f"{STATE_BYTES_PER_CONTAINER} bytes (plus {STATE_MARGIN_CONTAINERS}): not a state "
                        "GET /_fake/state exports")
    values = raw.count(b",") + containers
    if values > size // STATE_BYTES_PER_VALUE + STATE_MARGIN_VALUES:
        refuse("state", f"holds {values} values in {size} bytes, more than one per {STATE_BYTES_PER_VALUE} "
                        f"bytes (plus {STATE_MARGIN_VALUES}): not a state GET /_fake/state exports")
    state = parse_json(raw, error=ControlError) if raw else {}
    if not isinstance(state, dict):
        raise ControlError(400, "state must be a JSON object from GET /_fake/state", code="invalid_state")
    return state


class StateReader:
    """One JSON object of an imported state, at ``path``; each read validates one field."""

    __slots__ = ("path", "value")

    def __init__(self, value: Any, path: str) -> None:
        if not isinstance(value, dict):
            refuse(path, "must be an object")
        self.value: dict[str, Any] = value
        self.path = path

    def where(self, name: str) -> str:
        return f"{self.path}.{name}" if self.path else name

    def has(self, name: str) -> bool:
        return name in self.value

    def only(self, names: Iterable[str]) -> StateReader:
        """Refuse fields other than ``names`` (a typo in a hand-edited state is not ignored)."""
        unknown = sorted(set(self.value) - set(names))
        if unknown:
            refuse(self.where(unknown[0]), "is not a field of this state")
        return self

    def raw(self, name: str) -> Any:
        if name not in self.value:
            refuse(self.where(name), "is missing")
        return self.value[name]

    # -- scalars -------------------------------------------------------------------------------
    def integer(self, name: str, *, minimum: int | None = JSON_INT_MIN, maximum: int | None = JSON_INT_MAX,
                nullable: bool = False) -> Any:
        return check_integer(self.raw(name), self.where(name), minimum=minimum, maximum=maximum,
                             nullable=nullable)

    def number(self, name: str, *, minimum: float = -math.inf, maximum: float = math.inf) -> float:
        value = self.raw(name)
        number = finite_number(value)  # None for an integer too large for a float
        if number is None:
            refuse(self.where(name), "must be a finite number")
        if not minimum <= number <= maximum:
            refuse(self.where(name), f"must be from {minimum:g} to {maximum:g}")
        # an integer stays one: the restored fake writes 1260 where the original wrote 1260, not 1260.0
        return value if isinstance(value, int) else number

    def boolean(self, name: str) -> bool:
        value = self.raw(name)
        if not isinstance(value, bool):
            refuse(self.where(name), "must be true or false")
        return value

    def text(self, name: str, *, max_length: int = 10_000, min_length: int = 0, pattern: str | None = None,
             nullable: bool = False) -> Any:
        return check_text(self.raw(name), self.where(name), max_length=max_length, min_length=min_length,
                          pattern=pattern, nullable=nullable)

    def choice(self, name: str, choices: Iterable[T]) -> T:
        value = self.raw(name)
        options = list(choices)
        if value not in options or isinstance(value, bool) != isinstance(options[0], bool):
            refuse(self.where(name), f"must be one of {', '.join(map(str, options))}")
        return value  # type: ignore[no-any-return]

    def check_json(self) -> dict[str, Any]:
        """The whole object, checked to be JSON the fake can write back."""
        problem = check_json_value(self.value, self.path)
        if problem is not None:
            refuse(self.path, problem)
        return self.value

    def json(self, name: str) -> Any:
        """Any JSON value the fake can write back (text without lone surrogates, 64-bit integers)."""
        value = self.raw(name)
        problem = check_json_value(value, self.where(name))
        if problem is not None:
            refuse(self.where(name), problem)
        return value

    # -- containers ----------------------------------------------------------------------------
    def object(self, name: str) -> StateReader:
        return StateReader(self.raw(name), self.where(name))

    def array(self, name: str, *, max_items: int = 10_000_000) -> list[Any]:
        value = self.raw(name)
        if not isinstance(value, list):
            refuse(self.where(name), "must be a list")
        if len(value) > max_items:
            refuse(self.where(name), f"holds more than {max_items} items")
        return value

    def objects(self, name: str, *, max_items: int = 10_000_000) -> Iterator[StateReader]:
        """A list of objects, each as a reader (``path[i]``)."""
        for index, item in enumerate(self.array(name, max_items=max_items)):
            yield StateReader(item, f"{self.where(name)}[{index}]")

    def mapping(self, name: str) -> dict[str, Any]:
        value = self.raw(name)
        if not isinstance(value, dict):
            refuse(self.where(name), "must be an object")
        return value


def check_integer(value: Any, where: str, *, minimum: int | None = JSON_INT_MIN,
                  maximum: int | None = JSON_INT_MAX, nullable: bool = False) -> Any:
    if value is None and nullable:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        refuse(where, "must be a whole number" + (" or null" if nullable else ""))
    low = JSON_INT_MIN if minimum is None else minimum
    high = JSON_INT_MAX if maximum is None else maximum
    if not low <= value <= high:
        refuse(where, f"must be from {low} to {high}")
    return value


def check_text(value: Any, where: str, *, max_length: int = 10_000, min_length: int = 0,
               pattern: str | None = None, nullable: bool = False) -> Any:
    if value is None and nullable:
        return None
    if not isinstance(value, str):
        refuse(where, "must be a string" + (" or null" if nullable else ""))
    if not min_length <= len(value) <= max_length:
        refuse(where, f"must be {min_length} to {max_length} characters long")
    problem = check_json_value(value)
    if problem is not None:
        refuse(where, problem.removeprefix("value: "))
    if pattern is not None and not re.fullmatch(pattern, value):
        refuse(where, f"must match {pattern}")
    return value
