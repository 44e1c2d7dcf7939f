"""The shared control plane under ``/_fake/``: health, reset, clock, journal, faults, state.

Every operation is also a Python method of :class:`~fakes.kernel.fake.Fake`; these routes only
parse JSON and call those methods, so the two faces cannot drift apart.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from .clock import MAX_EPOCH_MS, ClockError, ClockRangeError
from .errors import ControlError
from .http import finite_number, json_response, query_int, read_json, read_json_object
from .limits import limit_body
from .verdicts import SEVERITIES

if TYPE_CHECKING:
    from .fake import Fake


def control_routes(fake: Fake) -> list[BaseRoute]:
    async def health(request: Request) -> Response:
        return json_response({"service": fake.name, "status": "ok"})

    async def reset(request: Request) -> Response:
        fake.reset()
        return json_response({"service": fake.name, "status": "reset", "clock": fake.clock.describe()})

    async def clock(request: Request) -> Response:
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
        if request.method == "DELETE":
            fake.clear_journal()
            return json_response({"cleared": True})
        params = request.query_params
        limit = query_int(params, "limit", minimum=0, maximum=JOURNAL_LIMIT_MAX, error=ControlError)
        entries = fake.journal_entries(
            method=params.get("method"), path=params.get("path"),
            warnings_only=params.get("warnings") in ("1", "true"),
            limit=limit or None,
        )
        return json_response({"entries": entries, "size": fake.journal.size, "total": fake.journal.total})

    async def faults(request: Request) -> Response:
        if request.method == "POST":
            body = await read_json_object(request, error=ControlError)
            return json_response(fake.add_fault(**body), 201)
        if request.method == "DELETE":
            fake.clear_faults()
            return json_response({"faults": []})
        return json_response({"faults": fake.list_faults()})

    async def fault(request: Request) -> Response:
        fault_id = request.path_params["fault_id"]
        if not fake.remove_fault(fault_id):
            raise ControlError(404, f"no fault {fault_id}", code="not_found")
        return json_response({"deleted": fault_id})

    async def verdicts(request: Request) -> Response:
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
        if request.method == "PUT":
            body = await read_json(request, error=ControlError)
            if not isinstance(body, dict):
                raise ControlError(400, "state must be a JSON object from GET /_fake/state", code="invalid_state")
            fake.import_state(body)
            return json_response({"imported": True})
        return json_response(fake.export_state())

    return [
        Route("/_fake/health", health, methods=["GET"]),
        Route("/_fake/reset", reset, methods=["POST"]),
        Route("/_fake/clock", clock, methods=["GET", "POST"]),
        Route("/_fake/journal", journal, methods=["GET", "DELETE"]),
        Route("/_fake/faults", faults, methods=["GET", "POST", "DELETE"]),
        Route("/_fake/faults/{fault_id}", fault, methods=["DELETE"]),
        limit_body(Route("/_fake/state", state, methods=["GET", "PUT"]), fake.max_state_bytes),
        Route("/_fake/verdicts", verdicts, methods=["GET", "DELETE"]),
    ]


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
