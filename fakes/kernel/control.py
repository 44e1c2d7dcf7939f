"""The shared control plane under ``/_fake/``: health, reset, clock, journal, faults, state.

Every operation is also a Python method of :class:`~fakes.kernel.fake.Fake`; these routes only
parse JSON and call those methods (:class:`ControlledFake`, below), so the two faces cannot
drift apart.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from .clock import MAX_EPOCH_MS, Clock, ClockError, ClockRangeError
from .errors import ControlError
from .http import finite_number, json_response, query_int, read_json_object
from .journal import Journal
from .statecheck import parse_state
from .verdicts import SEVERITIES, ClientRule, Verdicts
from .verify import (
    BudgetSpent,
    PatternError,
    RequestPattern,
    find_budget,
    near_miss_dicts,
    off_loop,
    search,
    shown,
    spent_message,
)


class ControlledFake(Protocol):
    """What the control routes use of the fake (or world) a request is for: the Python face of
    each operation, and the clock, journal and verdict log they describe."""

    @property
    def name(self) -> str: ...

    @property
    def client_rules(self) -> tuple[ClientRule, ...]: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def journal(self) -> Journal: ...

    @property
    def verdict_log(self) -> Verdicts: ...

    def reset(self) -> None: ...

    def advance(self, seconds: float) -> int: ...

    def set_time_ms(self, epoch_ms: int) -> int: ...

    def clear_journal(self) -> None: ...

    def verdicts(self, severity: str | None = None) -> list[dict[str, Any]]: ...

    def clear_verdicts(self) -> None: ...

    def add_fault(self, **spec: Any) -> dict[str, Any]: ...

    def list_faults(self) -> list[dict[str, Any]]: ...

    def remove_fault(self, fault_id: str) -> bool: ...

    def clear_faults(self) -> None: ...

    def export_state(self) -> dict[str, Any]: ...

    def import_state(self, state: dict[str, Any]) -> None: ...


T = TypeVar("T")


def fake_of(request: Request) -> ControlledFake:
    """The fake (or world) a control request is for: the kernel puts it in the scope's ``app``."""
    fake: ControlledFake = request.scope["app"]
    return fake


async def health(request: Request) -> Response:
    return json_response({"service": fake_of(request).name, "status": "ok"})


async def reset(request: Request) -> Response:
    """Back to the seeded state; verdicts stay (they judge the client) unless the body asks
    ``{"verdicts": true}``: then they go too, in the same call (docs/verdicts.md)."""
    fake = fake_of(request)
    body = await read_json_object(request, error=ControlError)
    unknown = sorted(set(body) - {"verdicts"})
    if unknown:
        raise ControlError(400, f"reset takes only {{\"verdicts\": true|false}}, not {unknown[0]!r}",
                           code="invalid_reset", field=unknown[0])
    clear_verdicts = body.get("verdicts", False)
    if not isinstance(clear_verdicts, bool):
        raise ControlError(400, "verdicts must be true or false", code="invalid_reset", field="verdicts")
    fake.reset()
    if clear_verdicts:
        fake.clear_verdicts()
    return json_response({"service": fake.name, "status": "reset", "verdicts_cleared": clear_verdicts,
                          "clock": fake.clock.describe()})


async def clock(request: Request) -> Response:
    fake = fake_of(request)
    if request.method == "POST":
        body = await read_json_object(request, error=ControlError)
        if len(body) != 1 or not set(body) <= {"advance_seconds", "set_epoch_ms"}:
            raise ControlError(400, "send exactly one of {\"advance_seconds\": N} or {\"set_epoch_ms\": N}",
                               code="invalid_clock")
        try:
            if "advance_seconds" in body:
                fake.advance(_number(body["advance_seconds"], "advance_seconds"))
            else:
                fake.set_time_ms(_whole(body["set_epoch_ms"], "set_epoch_ms"))
        except ClockRangeError as exc:  # not finite, or past year 9999: nothing moved
            raise ControlError(400, str(exc), code="invalid_clock", field=next(iter(body))) from None
        except ClockError as exc:
            raise ControlError(409, str(exc), code="clock_backwards") from None
    return json_response(fake.clock.describe())


async def journal(request: Request) -> Response:
    fake = fake_of(request)
    if request.method == "DELETE":
        fake.clear_journal()
        return json_response({"cleared": True})
    params = request.query_params
    limit = query_int(params, "limit", minimum=0, maximum=JOURNAL_LIMIT_MAX, error=ControlError)
    details = _flag(params, "details", True)
    warnings_only = _flag(params, "warnings", False)
    journal = fake.journal
    snapshot = list(journal.records())  # read on the search thread (verify.off_loop)
    total = journal.total
    if any(name in params for name in ("status", "header", "body_contains")):
        pattern = journal_pattern(params)

        def work() -> list[dict[str, Any]]:
            budget = find_budget(journal)
            records = [r for r in search(journal, pattern, near_misses=0, budget=budget, records=snapshot).matches
                       if r.warnings or not warnings_only]
            return shown(journal, records[-limit:] if limit else records, details, budget)
    else:
        def work() -> list[dict[str, Any]]:
            records = journal.select(snapshot, method=params.get("method"), path=params.get("path"),
                                     warnings_only=warnings_only, limit=limit or None)
            return shown(journal, records, details, find_budget(journal))
    entries = await _searched(work, len(snapshot))
    return json_response({"entries": entries, "size": journal.size, "total": total})


async def journal_find(request: Request) -> Response:
    """``POST /_fake/journal/find``: the entries matching a request pattern (fakes/kernel/verify.py),
    their count, and the closest entries with the criteria they failed when none matched."""
    fake = fake_of(request)
    body = await read_json_object(request, error=ControlError)
    limit = body.pop("limit", 0)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 0 <= limit <= JOURNAL_LIMIT_MAX:
        raise ControlError(400, f"limit must be a whole number from 0 (all) to {JOURNAL_LIMIT_MAX}",
                           code="invalid_pattern", field="limit")
    details = body.pop("details", True)
    if not isinstance(details, bool):
        raise ControlError(400, "details must be true or false", code="invalid_pattern", field="details")
    pattern = _pattern(lambda: RequestPattern.from_json(body))
    journal = fake.journal
    snapshot = list(journal.records())  # read on the search thread (verify.off_loop)
    total = journal.total

    def work() -> dict[str, Any]:
        budget = find_budget(journal)
        found = search(journal, pattern, budget=budget, records=snapshot)
        matches = found.matches[-limit:] if limit else found.matches
        return {"count": found.count, "entries": shown(journal, matches, details, budget),
                "near_misses": near_miss_dicts(journal, found), "kept": found.kept, "total": total}

    return json_response(await _searched(work, len(snapshot)))


async def _searched(work: Callable[[], T], kept: int) -> T:
    """``work()`` (a search of a journal's snapshot) off the event loop; past its budget a 422."""
    try:
        return await off_loop(work)
    except BudgetSpent as spent:
        raise ControlError(422, spent_message(spent.limit, kept), code="search_too_costly",
                           budget_steps=spent.limit) from None


def _flag(params: Any, name: str, default: bool) -> bool:
    value = params.get(name)
    if value is None:
        return default
    if value not in ("1", "true", "0", "false"):
        raise ControlError(400, f"{name} takes 1, true, 0 or false", code="invalid_parameter", field=name)
    return value in ("1", "true")


def journal_pattern(params: Any) -> RequestPattern:
    """The pattern of ``GET /_fake/journal``'s ``method``, ``path``, ``status``, ``header``
    (``Name: value``, or ``Name``: present) and ``body_contains``: the search of
    ``POST /_fake/journal/find`` from query parameters."""
    headers: dict[str, Any] = {}
    for item in params.getlist("header"):
        name, colon, value = item.partition(":")
        if not name.strip():
            raise ControlError(400, "header takes Name: value (or Name: present)", code="invalid_pattern",
                               field="header")
        headers[name.strip()] = value.strip() if colon else {"present": True}
    status = params.get("status")
    return _pattern(lambda: RequestPattern.build(
        params.get("method"), params.get("path"), headers=headers, body_contains=params.get("body_contains"),
        status=int(status) if status is not None and status.isdigit() and status.isascii() and len(status) <= 3
        else status))


def _pattern(build: Callable[[], RequestPattern]) -> RequestPattern:
    try:
        return build()
    except PatternError as exc:
        raise ControlError(400, str(exc), code="invalid_pattern", field=exc.field) from None


async def faults(request: Request) -> Response:
    fake = fake_of(request)
    if request.method == "POST":
        body = await read_json_object(request, error=ControlError)
        return json_response(fake.add_fault(**body), 201)
    if request.method == "DELETE":
        fake.clear_faults()
        return json_response({"faults": []})
    return json_response({"faults": fake.list_faults()})


async def fault(request: Request) -> Response:
    fault_id = request.path_params["fault_id"]
    if not fake_of(request).remove_fault(fault_id):
        raise ControlError(404, f"no fault {fault_id}", code="not_found")
    return json_response({"deleted": fault_id})


async def verdicts(request: Request) -> Response:
    fake = fake_of(request)
    if request.method == "DELETE":
        fake.clear_verdicts()
        return json_response({"cleared": True})
    severity = request.query_params.get("severity")
    if severity is not None and severity not in SEVERITIES:
        raise ControlError(400, f"severity must be one of {', '.join(SEVERITIES)}", code="invalid_parameter",
                           field="severity")
    log = fake.verdict_log
    return json_response({"verdicts": fake.verdicts(severity), "offences": log.total(),
                          "rules": [rule.to_dict() for rule in fake.client_rules],
                          "silenced": sorted(log.silenced)})


async def state(request: Request) -> Response:
    fake = fake_of(request)
    if request.method == "PUT":  # its body cap is the fake's max_state_bytes (FakeApp._control)
        fake.import_state(parse_state(await request.body()))  # counted before it is parsed
        return json_response({"imported": True})
    return json_response(fake.export_state())


STATE_PATH = "/_fake/state"
#: the shared control routes: one set for every fake and world (the handlers find theirs in the scope)
ROUTES: list[BaseRoute] = [
    Route("/_fake/health", health, methods=["GET"]),
    Route("/_fake/reset", reset, methods=["POST"]),
    Route("/_fake/clock", clock, methods=["GET", "POST"]),
    Route("/_fake/journal", journal, methods=["GET", "DELETE"]),
    Route("/_fake/journal/find", journal_find, methods=["POST"]),
    Route("/_fake/faults", faults, methods=["GET", "POST", "DELETE"]),
    Route("/_fake/faults/{fault_id}", fault, methods=["DELETE"]),
    Route(STATE_PATH, state, methods=["GET", "PUT"]),
    Route("/_fake/verdicts", verdicts, methods=["GET", "DELETE"]),
]


def control_routes(fake: ControlledFake | None = None) -> list[BaseRoute]:
    """The kernel's control routes (shared by every fake: a world holds none of its own)."""
    return ROUTES


JOURNAL_LIMIT_MAX = 2**31 - 1


def _number(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ControlError(400, f"{name} must be a number", code="invalid_clock", field=name)
    number = finite_number(value)  # an integer of 400 digits is refused here, never an OverflowError
    if number is None:
        raise ControlError(400, f"{name} must be a finite number from 0 to {MAX_EPOCH_MS / 1000:g}",
                           code="invalid_clock", field=name)
    return number


def _whole(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ControlError(400, f"{name} must be a whole number of milliseconds", code="invalid_clock", field=name)
    return value
