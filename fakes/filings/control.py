"""The filings fake's additions to the control plane (``/_fake/keys``, ``/companies``, ``/filings``).

Thin: parse the JSON body and call the same methods :class:`~fakes.filings.FilingsFake` offers in
Python (:class:`~fakes.filings.served.ControlledFilings`), so the two faces cannot drift apart.
Errors use the control plane's own shape.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from fakes.kernel.errors import ControlError
from fakes.kernel.http import JSON_INT_MAX, InvalidInteger, ascii_int, json_response, read_json_object

if TYPE_CHECKING:
    from .served import ControlledFilings, ServedFilings


def fake_of(request: Request) -> ControlledFilings:
    """The fake (the default one or a world) the kernel's app put in ``scope["app"]``."""
    fake: ControlledFilings = request.scope["app"]
    return fake


async def _keys(request: Request) -> Response:
    fake = fake_of(request)
    if request.method == "GET":
        return json_response({"keys": fake.list_keys()})
    body = await read_json_object(request, error=ControlError)
    unknown = set(body) - {"tier", "quota"}
    if unknown:
        raise ControlError(400, f"unknown field(s): {', '.join(sorted(unknown))}", code="invalid_body")
    if "tier" not in body or not isinstance(body["tier"], str):
        raise ControlError(400, "tier is required: free, standard, level2 or enterprise", code="invalid_body")
    quota: Any = body.get("quota", "default")
    return json_response(fake.create_key_record(body["tier"], quota), 201)


async def _companies(request: Request) -> Response:
    fake = fake_of(request)
    body = await read_json_object(request, error=ControlError)
    return json_response(fake.add_company(**body), 201)


async def _filings(request: Request) -> Response:
    fake = fake_of(request)
    body = await read_json_object(request, error=ControlError)
    base = f"{request.url.scheme}://{request.url.netloc}{fake.prefix}"
    fake.sync()
    found = fake.model.add_filing(body, base)
    fake.sync()
    return json_response(found, 201)


async def _rerelease(request: Request) -> Response:
    fake = fake_of(request)
    body = await read_json_object(request, error=ControlError)
    return json_response(fake.rerelease_filing(_number(request, "filing_id"), **body))


async def _watchlists(request: Request) -> Response:
    fake = fake_of(request)
    return json_response(lock_watchlist(fake, await read_json_object(request, error=ControlError)))


async def _merges(request: Request) -> Response:
    fake = fake_of(request)
    return json_response(fake.model.merge(await read_json_object(request, error=ControlError)), 201)


async def _reverse(request: Request) -> Response:
    fake = fake_of(request)
    return json_response(fake.reverse_merge(_number(request, "merge_id")))


async def _agents(request: Request) -> Response:
    fake = fake_of(request)
    body = await read_json_object(request, error=ControlError)
    unknown = set(body) - {"email", "action"}
    if unknown or not isinstance(body.get("email"), str) or not isinstance(body.get("action"), str):
        raise ControlError(400, "send {email, action}: action confirm, fund, login, block or unblock",
                           code="invalid_body")
    return json_response(fake.agent_owner(body["email"], body["action"]))


async def _claims(request: Request) -> Response:
    fake = fake_of(request)
    body = await read_json_object(request, error=ControlError)
    if set(body) != {"claim_token"} or not isinstance(body["claim_token"], str):
        raise ControlError(400, "send {claim_token}", code="invalid_body")
    return json_response(fake.approve_claim(body["claim_token"]))


async def _deliveries(request: Request) -> Response:
    fake = fake_of(request)
    return json_response({"deliveries": fake.webhook_deliveries(), "dropped": fake.model.webhooks.dropped})


def routes() -> list[BaseRoute]:
    """The control routes, the same objects for every fake of the process: an endpoint finds its
    fake (the default one or a world) in ``scope["app"]``, so a new world builds none of its own."""
    return list(_routes())


@functools.cache
def _routes() -> tuple[BaseRoute, ...]:
    return (
        Route("/keys", _keys, methods=["GET", "POST"]),
        Route("/companies", _companies, methods=["POST"]),
        Route("/filings", _filings, methods=["POST"]),
        Route("/filings/{filing_id}/rerelease", _rerelease, methods=["POST"]),
        Route("/watchlists", _watchlists, methods=["POST"]),
        Route("/merges", _merges, methods=["POST"]),
        Route("/merges/{merge_id}/reverse", _reverse, methods=["POST"]),
        Route("/agents", _agents, methods=["POST"]),
        Route("/claims", _claims, methods=["POST"]),
        Route("/webhook-deliveries", _deliveries, methods=["GET"]),
    )


def _number(request: Request, name: str) -> int:
    try:
        return ascii_int(request.path_params[name], minimum=1, maximum=JSON_INT_MAX)
    except InvalidInteger:
        raise ControlError(404, f"no such {name.split('_')[0]}", code="not_found") from None


def lock_watchlist(fake: ServedFilings, body: dict[str, Any]) -> dict[str, Any]:
    unknown = set(body) - {"api_key", "locked"}
    if unknown or not isinstance(body.get("api_key"), str) or not isinstance(body.get("locked"), bool):
        raise ControlError(400, "send {api_key, locked}: a key and true or false", code="invalid_body")
    if body["api_key"] not in fake.model.keys:
        raise ControlError(404, "no such key", code="not_found")
    watchlist = fake.model.watchlists.lock(body["api_key"], body["locked"])
    fake.model.version += 1
    return {"api_key": body["api_key"], "locked": watchlist.locked, "companies": list(watchlist.companies)}
