"""Routes of money and the rest: ``/billing/*`` and the simulated checkout pages
(``/checkout/{id}``), ``/referrals``, ``/calls`` (a team's calls, each attributed to its member),
``/runs`` and ``/run``, ``/meta``, ``/health``, onboarding, the landing sandbox and sample skills."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from fakes.kernel.errors import ServiceError
from fakes.kernel.http import JSONBytesResponse, base_url, dumps

from . import billing, misc, schemas
from .formats import iso
from .http import accounts_of, client_of, identity, invalid, member, model_of, ok, query_int, read_body
from .routes_auth import page


async def billing_get(request: Request) -> Response:
    return ok(billing.get(accounts_of(request), member(request)))


async def topup(request: Request) -> Response:
    caller = member(request)
    body = await read_body(request, schemas.TOPUP, optional=True)
    if body.get("amount_usd") is not None and body["amount_usd"] < model_of(request).settings.topup_min_usd:
        raise invalid(["body", "amount_usd"], f"the smallest top-up is ${model_of(request).settings.topup_min_usd}")
    return ok(billing.topup(accounts_of(request), caller, body.get("amount_usd"), base_url(request)))


async def autotopup(request: Request) -> Response:
    caller = member(request)
    body = await read_body(request, schemas.AUTO_TOPUP)
    return ok(billing.autotopup(accounts_of(request), caller, body, base_url(request)))


async def history(request: Request) -> Response:
    caller = member(request)
    limit = query_int(request, "limit", 24)
    assert limit is not None
    if not 1 <= limit <= 100:
        raise invalid(["query", "limit"], "Input should be between 1 and 100", "less_than_equal")
    return ok(billing.history(accounts_of(request), caller, limit))


async def portal(request: Request) -> Response:
    return ok(billing.portal(accounts_of(request), member(request), base_url(request)))


async def checkout(request: Request) -> Response:
    """The simulated hosted checkout: GET shows it, POST pays it (``action=cancel`` abandons it)."""
    acc = accounts_of(request)
    session_id = request.path_params["session_id"]
    found = acc.checkouts.get(session_id)
    if found is None:
        return page("Checkout not found", "This payment link is not known.", status=404)
    if request.method == "GET":
        what = f"Add ${found.amount_micro / 1_000_000:g} to your balance" if found.kind == "topup" else \
            "Save a card for automatic top-ups"
        form = '<form method="post"><button type="submit">Pay</button></form>' if found.status == "open" else ""
        return page(what, f"Status: {found.status}.", body=form)
    form = (await request.body()).decode("utf-8", "replace")
    answer = billing.cancel(acc, session_id) if "action=cancel" in form else billing.pay(acc, session_id)
    return page("Payment received" if answer["status"] == "paid" else f"Checkout {answer['status']}",
                "You can close this tab.")


async def referrals(request: Request) -> Response:
    return ok(billing.summary(accounts_of(request), identity(request), base_url(request)))


async def referral_code(request: Request) -> Response:
    return ok(billing.code_view(accounts_of(request), identity(request), base_url(request)))


# -- calls and runs --------------------------------------------------------------------------------------
_TIERS = {"own_tool": "tool", "secret": "credential", "relay_key": "platform"}


def call_row(record: dict[str, Any]) -> dict[str, Any]:
    return {"id": record.get("seq"), "call_ref": record["call_id"], "user_email": record.get("user_email", ""),
            "tool_name": record.get("endpoint_id") or record.get("provider") or "",
            "method": record.get("method", "GET"), "path": record.get("endpoint_id") or "",
            "status_code": record["status"], "kind": "call", "client": record.get("client", ""),
            "endpoint_id": record.get("endpoint_id"), "provider": record.get("provider"),
            "credential_tier": _TIERS.get(record.get("credential") or ""),
            "cost_estimated_micro": None, "cost_observed_micro": None,
            "cost_charged_micro": record["cost_micro"] if record.get("credential") == "relay_key" else None,
            "duration_ms": 0, "response_bytes": None, "params_hash": None, "refused_by": None,
            "call_ref_replay_of": record.get("replay_of"), "budget_dim": "", "budget_val": "",
            "tags": record.get("tags"), "created_at": iso(record["epoch_ms"])}


def encoded_call_row(record: dict[str, Any]) -> bytes:
    return dumps(call_row(record))


async def calls(request: Request) -> Response:
    caller = member(request)
    limit = query_int(request, "limit", 50)
    days = query_int(request, "days", None)
    before = query_int(request, "before_id", None)
    assert limit is not None
    model = model_of(request)
    since = 0
    if days is not None:
        days = max(1, min(days, 365))
        since = (model.clock.now_ms() // 86_400_000 - (days - 1)) * 86_400_000
    rows = model.calls.rendered_of_team(caller.team.team_id, max(1, min(limit, 500)), encoded_call_row,
                                        before_seq=before, since_ms=since)
    return JSONBytesResponse(b"[" + b",".join(rows) + b"]")  # what orjson makes of the list of rows


async def call_one(request: Request) -> Response:
    """One call by the call id it answered, with the ledger's view of the same id."""
    caller = member(request)
    model = model_of(request)
    call_ref = request.path_params["call_ref"]
    record = model.calls.get(call_ref)
    if record is not None and record["team_id"] != caller.team.team_id:
        record = None
    ledger = [{"kind": "settle" if row["kind"] == "call" else row["kind"], "amount_micro": row["amount_micro"],
               "endpoint_id": row["endpoint_id"], "created_at": row["at"]}
              for row in caller.team.ledger_rows_of(call_ref)]
    if record is None and not ledger:
        raise ServiceError(404, f"no call {call_ref!r} of this team", code="not_found")
    view = None
    if record is not None:
        view = {**call_row(record), "call_id": record["call_id"], "credential": record["credential"],
                "status": record["status"], "cost_micro": record["cost_micro"], "billed": record["billed"],
                "replayed": record["replayed"]}
    return ok({"call": view, "ledger": ledger,
               "charged_micro": sum(-row["amount_micro"] for row in ledger if row["kind"] == "settle"),
               **({k: view[k] for k in ("call_id", "endpoint_id", "provider", "credential", "status", "cost_micro",
                                        "billed", "replayed")} if view is not None else {})})


async def runs(request: Request) -> Response:
    caller = member(request)
    limit = query_int(request, "limit", 50)
    assert limit is not None
    return ok(misc.runs(accounts_of(request), caller, limit))


async def run(request: Request) -> Response:
    caller = member(request)
    body = await read_body(request, schemas.RUN)
    return ok(misc.server_run(accounts_of(request), caller, body, client_of(request)))


# -- the rest ------------------------------------------------------------------------------------------------
async def meta(request: Request) -> Response:
    return ok(misc.meta(accounts_of(request), base_url(request)))


async def health(request: Request) -> Response:
    return ok(misc.health(member(request)))


async def health_run(request: Request) -> Response:
    caller = member(request)
    all_orgs = request.query_params.get("all_orgs", "false").lower()
    if all_orgs not in ("true", "false", "1", "0", "yes", "no", "on", "off"):
        raise invalid(["query", "all_orgs"], "Input should be a valid boolean", "bool_parsing")
    return ok(misc.run_health(accounts_of(request), caller, all_orgs in ("true", "1", "yes", "on")))


async def onboard(request: Request) -> Response:
    user = identity(request)
    acc = accounts_of(request)
    action = request.url.path.rstrip("/").rsplit("/", 1)[-1]
    if action == "demo":
        body = await read_body(request, schemas.ONBOARD, optional=True)
        return ok(misc.onboard_demo(acc, user, body.get("team_name", "Acme Design")))
    if action == "skip":
        return ok(misc.onboard_skip(user))
    return ok(misc.onboard_reset(acc, user))


async def seed_tool(request: Request) -> Response:
    return ok(misc.seed_tool(accounts_of(request), member(request)))


async def sandbox(request: Request) -> Response:
    client = request.headers.get("x-forwarded-for", request.client.host if request.client else "?").split(",")[0]
    return ok(misc.sandbox_mint(accounts_of(request), client.strip()))


async def sandbox_live(request: Request) -> Response:
    return ok(misc.sandbox_live(member(request)))


async def sandbox_skill(request: Request) -> Response:
    return ok(misc.sandbox_skill(member(request), base_url(request)))


async def samples(request: Request) -> Response:
    return ok(misc.samples(base_url(request)))


ROUTES: list[BaseRoute] = [
    Route("/billing", billing_get, methods=["GET"]),
    Route("/billing/topup", topup, methods=["POST"]),
    Route("/billing/autotopup", autotopup, methods=["POST"]),
    Route("/billing/history", history, methods=["GET"]),
    Route("/billing/portal", portal, methods=["POST"]),
    Route("/checkout/{session_id}", checkout, methods=["GET", "POST"]),
    Route("/referrals", referrals, methods=["GET"]),
    Route("/referrals/code", referral_code, methods=["POST"]),
    Route("/calls", calls, methods=["GET"]),
    Route("/calls/{call_ref}", call_one, methods=["GET"]),
    Route("/runs", runs, methods=["GET"]),
    Route("/run", run, methods=["POST"]),
    Route("/meta", meta, methods=["GET"]),
    Route("/health", health, methods=["GET"]),
    Route("/health/run", health_run, methods=["POST"]),
    Route("/onboard/demo", onboard, methods=["POST"]),
    Route("/onboard/skip", onboard, methods=["POST"]),
    Route("/onboard/reset", onboard, methods=["POST"]),
    Route("/onboard/seed-tool", seed_tool, methods=["POST"]),
    Route("/demo/sandbox", sandbox, methods=["POST"]),
    Route("/demo/sandbox/live", sandbox_live, methods=["GET"]),
    Route("/demo/sandbox/skill", sandbox_skill, methods=["GET"]),
    Route("/skills/samples", samples, methods=["GET"]),
]
