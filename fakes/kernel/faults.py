"""Fault rules: answer a matching request with a chosen status/body, add latency, or drop it.

A rule matches on method and path (exact, a glob such as ``/rest/*``, a template such as
``/items/{id}``) and on the further criteria of its ``request`` (query, headers, form, json,
json_equals, body_contains, url: the journal's, :mod:`fakes.kernel.live`), fires for the next
``times`` matches (unlimited when None) and, with ``probability`` < 1, only when the fake's seeded
RNG says so - so a faulty run is repeatable with the same seed. A rule whose ``times`` ran out
stays listed, ``spent``, with its ``fired`` count, until it is removed or the fake reset.
"""

from __future__ import annotations

import asyncio
import math
import os
import random
import re
import weakref
from dataclasses import dataclass, field
from typing import Any

from .criteria import PatternError
from .errors import ControlError
from .http import check_json_value
from .live import LiveRequest
from .ruleindex import EMPTY_INDEX, RuleCriteria, RuleIndex, RuleList
from .rulespec import SpecReader


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
    #: criteria beyond method and path (query, headers, json ...), as given
    request: dict[str, Any] = field(default_factory=dict)
    criteria: RuleCriteria = field(default=RuleCriteria(None, None, None, {}), compare=False, repr=False)
    rank: tuple[int, ...] = (0,)

    @property
    def spent(self) -> bool:
        """Its ``times`` ran out: listed, never matched again."""
        return self.times == 0

    @property
    def tag(self) -> tuple[str, str, str]:
        """What the journal says of a request it answered (``answered_by``)."""
        return ("fault", self.id, "drop" if self.drop else "status" if self.status is not None else "latency")

    def matches(self, method: str, path: str) -> bool:
        """Whether its method and path (only) allow this request."""
        criteria = self.criteria
        return ((criteria.method is None or criteria.method == method)
                and (criteria.path is None or criteria.path.matches(path)))

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "method": self.method, "path": self.path, "request": dict(self.request),
                "status": self.status, "headers": dict(self.headers), "body": self.body,
                "latency_ms": self.latency_ms, "times": self.times, "probability": self.probability,
                "drop": self.drop, "fired": self.fired, "spent": self.spent}


_FIELDS = {"method", "path", "request", "status", "headers", "body", "latency_ms", "times", "probability", "drop"}

#: The default cap of a fault's latency: a longer one would outlive any client's timeout and hold a
#: stopping server; ``max_fault_latency_ms`` of the fake (or FAKES_MAX_FAULT_LATENCY_MS) changes it.
DEFAULT_MAX_LATENCY_MS = 60_000.0
STATUS_RANGE = (200, 599)          # 1xx are not final answers; a fault must answer
MAX_TIMES = 2**31 - 1
MAX_FIRED = 2**63 - 1
MAX_PATH = 2_000
_METHOD = re.compile(r"\*|[A-Z]{1,20}")
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


def _criteria(method: str, path: str, spec: dict[str, Any]) -> tuple[dict[str, Any], RuleCriteria]:
    """The ``request`` criteria of a fault, compiled with its method and path."""
    request = spec.get("request")
    if request is None:
        request = {}
    if not isinstance(request, dict):
        raise _refuse("request", "must be an object of criteria (query, headers, form, json, json_equals, "
                                 "body_contains, url)")
    for name in ("method", "path"):
        if name in request:
            raise _refuse(f"request.{name}", f"give {name} at the top of the fault")
    try:
        RuleCriteria.parse(request)  # its own refusals name request.<criterion>
    except PatternError as exc:
        raise _refuse(f"request.{exc.field}" if exc.field else "request", exc.message) from None
    try:
        return request, RuleCriteria.parse({**({"method": method} if method != "*" else {}),
                                            **({"path": path} if path != "*" else {}), **request})
    except PatternError as exc:
        raise _refuse(exc.field, exc.message) from None


def parse_rule(rule_id: str, spec: dict[str, Any], *, max_latency_ms: float = DEFAULT_MAX_LATENCY_MS,
               fired: int = 0, min_times: int = 1, rank: int = 0) -> FaultRule:
    """Validate a fault as sent to ``POST /_fake/faults`` (or passed to ``fake.add_fault``), field
    by field: a refusal is a 400 naming the field, and an accepted rule can always be applied.
    ``min_times`` 0: a spent rule of an imported state."""
    if not isinstance(spec, dict):
        raise ControlError(400, "a fault must be a JSON object", code="invalid_fault")
    unknown = set(spec) - _FIELDS - {"id", "fired", "spent"}
    if unknown:
        raise ControlError(400, f"unknown fault fields: {', '.join(sorted(str(u) for u in unknown))}",
                           code="invalid_fault", field=sorted(str(u) for u in unknown)[0])
    read = SpecReader(spec, _refuse)
    method = read.text("method", "*", 20).upper()
    if not _METHOD.fullmatch(method):
        raise _refuse("method", "must be an HTTP method such as GET, or *")
    drop = read.switch("drop", False)
    body = spec.get("body")
    # integers of any size are answered as sent (the document's "any JSON"; fakes.kernel.http.dumps)
    problem = check_json_value(body, "body", integers=False)
    if problem is not None:
        raise _refuse("body", problem)
    path = read.text("path", "*", MAX_PATH)
    request, criteria = _criteria(method, path, spec)
    rule = FaultRule(
        id=rule_id,
        method=method,
        path=path,
        status=read.integer("status", *STATUS_RANGE),
        headers=read.headers(),
        body=body,
        latency_ms=read.number("latency_ms", 0.0, 0.0, max_latency_ms),
        times=read.integer("times", min_times, MAX_TIMES),
        probability=read.number("probability", 1.0, 0.0, 1.0),
        drop=drop,
        fired=fired,
        request=request,
        criteria=criteria,
        rank=(rank,),
    )
    if rule.status is None and not rule.drop and rule.latency_ms == 0:
        raise ControlError(400, "a fault needs a status, latency_ms or drop", code="invalid_fault", field="status")
    return rule


class FaultSet(RuleList[FaultRule]):
    """The fake's active fault rules, first match wins, with a seeded RNG for probabilities."""

    # one per fake and world: no __dict__ each
    __slots__ = ("_index", "_rng", "armed", "max_latency_ms", "seed")

    def __init__(self, seed: int, *, max_latency_ms: float | None = None) -> None:
        super().__init__()
        #: whether a request may meet one (a rule that is not spent): the app's one check per request
        self.armed = False
        self._index: RuleIndex[FaultRule] = EMPTY_INDEX
        self.seed = seed
        self._rng: random.Random | None = None  # made on first use: its 2.5 KB state is per world
        self.max_latency_ms = max_latency_from_env() if max_latency_ms is None else max_latency_ms

    @property
    def rng(self) -> random.Random:
        """The seeded generator of ``probability`` draws (made when first needed)."""
        if self._rng is None:
            self._rng = random.Random(self.seed)
        return self._rng

    def add(self, spec: dict[str, Any]) -> FaultRule:
        number = self.next_id
        return self._added(parse_rule(f"f{number}", spec, max_latency_ms=self.max_latency_ms, rank=number))

    def clear(self) -> None:
        self.rules = []
        self._reindex()

    def _reindex(self) -> None:
        live = [rule for rule in self.rules if not rule.spent]
        self._index = RuleIndex(live)
        self.armed = bool(live)

    async def pick(self, live: LiveRequest) -> FaultRule | None:
        """The rule that fires for this request, if any (consumes one of its ``times``); the
        first added of those that match."""
        sent = live.sent
        found = await live.first(self._index.candidates(sent, live.budget), self._drawn)
        if found is None:
            return None
        rule = found[0]
        rule.fired = min(rule.fired + 1, MAX_FIRED)  # a count an export can always import again
        if rule.times is not None:
            rule.times -= 1
            if rule.times == 0:
                self._reindex()  # spent: listed, never matched again
        return rule

    def _drawn(self, rule: FaultRule) -> bool:
        return rule.probability >= 1.0 or self.rng.random() < rule.probability

    def to_state(self) -> dict[str, Any]:
        version, internal, gauss = (self._rng or random.Random(self.seed)).getstate()  # kept unmade
        return {"rules": [r.to_dict() for r in self.rules],
                "rng": [version, list(internal), gauss],
                "next_id": self.next_id}

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
            if isinstance(fired, bool) or not isinstance(fired, int) or not 0 <= fired <= MAX_FIRED:
                raise ControlError(400, f"{where}.fired must be a whole number >= 0", code="invalid_state",
                                   field=f"{where}.fired")
            try:
                rules.append(parse_rule(raw["id"], {k: v for k, v in raw.items() if k not in ("id", "fired", "spent")},
                                        max_latency_ms=self.max_latency_ms, fired=fired, min_times=0,
                                        rank=index))
            except ControlError as exc:
                inner = exc.extra.get("field")
                raise ControlError(400, f"{where}: {exc.message}", code="invalid_state",
                                   field=f"{where}.{inner}" if inner else where) from None
        rng: random.Random | None = None  # no generator state given: this set's (made or not)
        if "rng" in state:
            rng = random.Random()
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
        elif self._rng is not None:
            rng = random.Random()
            rng.setstate(self._rng.getstate())
        next_id = state.get("next_id", len(rules) + 1)
        if isinstance(next_id, bool) or not isinstance(next_id, int) or not 1 <= next_id <= 2**62:
            raise ControlError(400, "faults.next_id must be a whole number >= 1", code="invalid_state",
                               field="faults.next_id")
        self.rules, self._rng, self.next_id = rules, rng, next_id
        self._reindex()

