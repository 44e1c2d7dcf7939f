"""Fault rules: answer a matching request with a chosen status/body, add latency, or drop it.

A rule matches on method and path (exact, or a glob such as ``/rest/*``), fires for the next
``times`` matches (unlimited when None) and, with ``probability`` < 1, only when the fake's
seeded RNG says so - so a faulty run is repeatable with the same seed.
"""

from __future__ import annotations

import asyncio
import fnmatch
import itertools
import math
import os
import random
import re
import weakref
from dataclasses import asdict, dataclass, field
from typing import Any

from .errors import ControlError
from .http import check_json_value, finite_number, text_problem


class DroppedConnection(Exception):
    """Raised inside the app to make the server cut the connection (a "drop" fault)."""


# Latency faults wait on futures rather than asyncio.sleep, so that a stopping server can end the
# waits at once (the requests then answer the service's 503) instead of cancelling them after its
# grace period (a CancelledError traceback and uvicorn's plain-text 500). Event loops, not fakes:
# every fake served on a stopping loop stops waiting.
_stopping_loops: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()
_waiting: set[asyncio.Future[bool]] = set()


async def fault_delay(seconds: float) -> bool:
    """Wait ``seconds``; False (at once, or as soon as it happens) when the server is stopping."""
    loop = asyncio.get_running_loop()
    if loop in _stopping_loops:
        return False
    waiter: asyncio.Future[bool] = loop.create_future()
    timer = loop.call_later(seconds, _resolve, waiter, True)
    _waiting.add(waiter)
    try:
        return await waiter
    finally:
        timer.cancel()
        _waiting.discard(waiter)


def _resolve(waiter: asyncio.Future[bool], value: bool) -> None:
    if not waiter.done():
        waiter.set_result(value)


def stop_fault_delays() -> None:
    """Called by a stopping server on its loop: every latency fault waiting there ends now."""
    loop = asyncio.get_running_loop()
    _stopping_loops.add(loop)
    for waiter in list(_waiting):
        if waiter.get_loop() is loop:
            _resolve(waiter, False)


@dataclass
class FaultRule:
    id: str
    method: str = "*"
    path: str = "*"
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None
    latency_ms: float = 0.0
    times: int | None = None
    probability: float = 1.0
    drop: bool = False
    fired: int = 0

    def matches(self, method: str, path: str) -> bool:
        if self.method != "*" and self.method != method:
            return False
        if self.path == path:
            return True
        return any(ch in self.path for ch in "*?[") and fnmatch.fnmatchcase(path, self.path)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_FIELDS = {"method", "path", "status", "headers", "body", "latency_ms", "times", "probability", "drop"}

#: The default cap of a fault's latency: a longer one would outlive any client's timeout and hold a
#: stopping server; ``max_fault_latency_ms`` of the fake (or FAKES_MAX_FAULT_LATENCY_MS) changes it.
DEFAULT_MAX_LATENCY_MS = 60_000.0
STATUS_RANGE = (200, 599)          # 1xx are not final answers; a fault must answer
MAX_TIMES = 2**31 - 1
MAX_PATH = 2_000
_METHOD = re.compile(r"\*|[A-Z]{1,20}")
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}")
_HEADER_VALUE = re.compile(r"[\t\x20-\x7e\x80-\xff]{0,4000}")  # no CR, LF or other control characters
FRAMING_HEADERS = frozenset({"content-length", "transfer-encoding"})  # the fake frames the answer itself


def max_latency_from_env() -> float:
    raw = os.environ.get("FAKES_MAX_FAULT_LATENCY_MS")
    if raw is None:
        return DEFAULT_MAX_LATENCY_MS
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"FAKES_MAX_FAULT_LATENCY_MS must be a finite number >= 0, not {raw!r}")
    return value


def _refuse(field_name: str, message: str) -> ControlError:
    return ControlError(400, f"fault {field_name}: {message}", code="invalid_fault", field=field_name)


def _number(spec: dict[str, Any], name: str, default: float, low: float, high: float) -> float:
    value = spec.get(name, default)
    if value is None:
        value = default
    number = finite_number(value)  # None for an integer too large for a float: never an OverflowError
    if number is None:
        raise _refuse(name, "must be a finite number")
    if not low <= number <= high:
        raise _refuse(name, f"must be from {low:g} to {high:g}")
    return number


def _integer(spec: dict[str, Any], name: str, low: int, high: int) -> int | None:
    value = spec.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise _refuse(name, "must be a whole number (or null)")
    if not low <= value <= high:
        raise _refuse(name, f"must be from {low} to {high}")
    return value


def _text(spec: dict[str, Any], name: str, default: str, limit: int) -> str:
    value = spec.get(name, default)
    if not isinstance(value, str) or not 1 <= len(value) <= limit or text_problem(value) is not None:
        raise _refuse(name, f"must be a string of 1 to {limit} characters")
    return value


def _headers(spec: dict[str, Any]) -> dict[str, str]:
    value = spec.get("headers")
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _refuse("headers", "must be an object of header names to string values")
    headers: dict[str, str] = {}
    for name, text in value.items():
        if not isinstance(name, str) or not _HEADER_NAME.fullmatch(name):
            raise _refuse("headers", f"{name!r} is not a header name (letters, digits, -, no spaces)")
        if not isinstance(text, str) or not _HEADER_VALUE.fullmatch(text):
            raise _refuse("headers", f"the value of {name} must be a string without CR, LF or control characters")
        headers[name] = text
    return headers


def parse_rule(rule_id: str, spec: dict[str, Any], *, max_latency_ms: float = DEFAULT_MAX_LATENCY_MS,
               fired: int = 0) -> FaultRule:
    """Validate a fault as sent to ``POST /_fake/faults`` (or passed to ``fake.add_fault``), field
    by field: a refusal is a 400 naming the field, and an accepted rule can always be applied."""
    if not isinstance(spec, dict):
        raise ControlError(400, "a fault must be a JSON object", code="invalid_fault")
    unknown = set(spec) - _FIELDS - {"id", "fired"}
    if unknown:
        raise ControlError(400, f"unknown fault fields: {', '.join(sorted(str(u) for u in unknown))}",
                           code="invalid_fault", field=sorted(str(u) for u in unknown)[0])
    method = _text(spec, "method", "*", 20).upper()
    if not _METHOD.fullmatch(method):
        raise _refuse("method", "must be an HTTP method such as GET, or *")
    drop = spec.get("drop", False)
    if drop is None:
        drop = False
    if not isinstance(drop, bool):
        raise _refuse("drop", "must be true or false")
    body = spec.get("body")
    problem = check_json_value(body, "body")
    if problem is not None:
        raise _refuse("body", problem)
    rule = FaultRule(
        id=rule_id,
        method=method,
        path=_text(spec, "path", "*", MAX_PATH),
        status=_integer(spec, "status", *STATUS_RANGE),
        headers=_headers(spec),
        body=body,
        latency_ms=_number(spec, "latency_ms", 0.0, 0.0, max_latency_ms),
        times=_integer(spec, "times", 1, MAX_TIMES),
        probability=_number(spec, "probability", 1.0, 0.0, 1.0),
        drop=drop,
        fired=fired,
    )
    if rule.status is None and not rule.drop and rule.latency_ms == 0:
        raise ControlError(400, "a fault needs a status, latency_ms or drop", code="invalid_fault", field="status")
    return rule


class FaultSet:
    """The fake's active fault rules, first match wins, with a seeded RNG for probabilities."""

    def __init__(self, seed: int, *, max_latency_ms: float | None = None) -> None:
        self.rules: list[FaultRule] = []
        self.rng = random.Random(seed)
        self._ids = itertools.count(1)
        self.max_latency_ms = max_latency_from_env() if max_latency_ms is None else max_latency_ms

    def add(self, spec: dict[str, Any]) -> FaultRule:
        rule = parse_rule(f"f{self._peek_next_id()}", spec, max_latency_ms=self.max_latency_ms)
        next(self._ids)  # an id is used only by a rule that was accepted
        self.rules.append(rule)
        return rule

    def remove(self, rule_id: str) -> bool:
        before = len(self.rules)
        self.rules = [r for r in self.rules if r.id != rule_id]
        return len(self.rules) != before

    def clear(self) -> None:
        self.rules = []

    def pick(self, method: str, path: str) -> FaultRule | None:
        """The rule that fires for this request, if any (consumes one of its ``times``)."""
        for rule in self.rules:
            if not rule.matches(method, path):
                continue
            if rule.probability < 1.0 and self.rng.random() >= rule.probability:
                continue
            rule.fired += 1
            if rule.times is not None:
                rule.times -= 1
                if rule.times == 0:
                    self.rules.remove(rule)
            return rule
        return None

    def to_state(self) -> dict[str, Any]:
        version, internal, gauss = self.rng.getstate()
        return {"rules": [r.to_dict() for r in self.rules],
                "rng": [version, list(internal), gauss],
                "next_id": self._peek_next_id()}

    def load_state(self, state: dict[str, Any]) -> None:
        """Restore :meth:`to_state`; every rule is validated as if it were posted (ControlError names
        the field), and nothing changes unless all of it is valid."""
        if not isinstance(state, dict):
            raise ControlError(400, "faults must be an object", code="invalid_state", field="faults")
        raw_rules = state.get("rules", [])
        if not isinstance(raw_rules, list):
            raise ControlError(400, "faults.rules must be a list", code="invalid_state", field="faults.rules")
        rules = []
        for index, raw in enumerate(raw_rules):
            where = f"faults.rules[{index}]"
            if not isinstance(raw, dict) or not isinstance(raw.get("id"), str) or not raw["id"]:
                raise ControlError(400, f"{where} must be a fault object with an id", code="invalid_state",
                                   field=where)
            fired = raw.get("fired", 0)
            if isinstance(fired, bool) or not isinstance(fired, int) or not 0 <= fired <= 2**63 - 1:
                raise ControlError(400, f"{where}.fired must be a whole number >= 0", code="invalid_state",
                                   field=f"{where}.fired")
            try:
                rules.append(parse_rule(raw["id"], {k: v for k, v in raw.items() if k not in ("id", "fired")},
                                        max_latency_ms=self.max_latency_ms, fired=fired))
            except ControlError as exc:
                inner = exc.extra.get("field")
                raise ControlError(400, f"{where}: {exc.message}", code="invalid_state",
                                   field=f"{where}.{inner}" if inner else where) from None
        rng = random.Random()
        if "rng" in state:
            try:
                version, internal, gauss = state["rng"]
                if (not isinstance(internal, list) or len(internal) != 625
                        or not all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n < 2**32
                                   for n in internal)):
                    raise ValueError("the generator state must hold 625 unsigned 32-bit integers")
                rng.setstate((version, tuple(internal), gauss))
            except (TypeError, ValueError) as exc:
                raise ControlError(400, f"faults.rng is not a random generator state: {exc}", code="invalid_state",
                                   field="faults.rng") from None
        else:
            rng.setstate(self.rng.getstate())
        next_id = state.get("next_id", len(rules) + 1)
        if isinstance(next_id, bool) or not isinstance(next_id, int) or not 1 <= next_id <= 2**62:
            raise ControlError(400, "faults.next_id must be a whole number >= 1", code="invalid_state",
                               field="faults.next_id")
        self.rules, self.rng, self._ids = rules, rng, itertools.count(next_id)

    def _peek_next_id(self) -> int:
        value = next(self._ids)
        self._ids = itertools.count(value)
        return value
