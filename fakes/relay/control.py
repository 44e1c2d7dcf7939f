"""The relay's additions to the control plane: teams (tools, secrets, top-ups), upstreams,
saturation, and user catalogue additions. Thin: parse the JSON body, call the same methods
:class:`~fakes.relay.RelayFake` offers in Python. Errors use the control plane's own shape.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from fakes.kernel.errors import ControlError
from fakes.kernel.http import json_response, read_json_object

from .teams import amount_field, text_field

if TYPE_CHECKING:
    from . import RelayFake


def _only(body: dict[str, Any], allowed: set[str]) -> None:
    unknown = set(body) - allowed
    if unknown:
        raise ControlError(400, f"unknown field(s): {', '.join(sorted(unknown))}", code="invalid_body")


def routes(fake: RelayFake) -> list[BaseRoute]:
    async def teams(request: Request) -> Response:
        body = await read_json_object(request, error=ControlError)
        _only(body, {"balance_micro", "name"})
        balance = amount_field(body, "balance_micro") if "balance_micro" in body else None
        name = text_field(body, "name") if "name" in body else None
        return json_response(fake.create_team(balance_micro=balance, name=name), 201)

    async def team(request: Request) -> Response:
        return json_response(fake.team_info(request.path_params["team_id"]))

    async def tools(request: Request) -> Response:
        body = await read_json_object(request, error=ControlError)
        _only(body, {"provider", "key"})
        return json_response(fake.add_tool(request.path_params["team_id"], text_field(body, "provider"),
                                           text_field(body, "key")), 201)

    async def secrets(request: Request) -> Response:
        body = await read_json_object(request, error=ControlError)
        _only(body, {"provider", "secret"})
        return json_response(fake.add_secret(request.path_params["team_id"], text_field(body, "provider"),
                                             text_field(body, "secret")), 201)

    async def topup(request: Request) -> Response:
        body = await read_json_object(request, error=ControlError)
        _only(body, {"amount_micro"})
        return json_response(fake.topup(request.path_params["team_id"], amount_field(body, "amount_micro", minimum=1)))

    async def upstreams(request: Request) -> Response:
        body = await read_json_object(request, error=ControlError)
        _only(body, {"provider", "responses", "fake"})
        provider = text_field(body, "provider")
        if ("responses" in body) == ("fake" in body):
            raise ControlError(400, "give exactly one of responses (a canned table) or fake (a served fake's name)",
                               code="invalid_body")
        if "fake" in body:
            return json_response(fake.use_fake_upstream(provider, text_field(body, "fake")), 201)
        return json_response(fake.register_canned_upstream(provider, body["responses"]), 201)

    async def saturation(request: Request) -> Response:
        if request.method == "GET":
            return json_response(fake.model.saturation.describe())
        body = await read_json_object(request, error=ControlError)
        _only(body, {"saturated", "max_in_flight", "max_per_second", "retry_after_s"})
        if "saturated" in body and not isinstance(body["saturated"], bool):
            raise ControlError(400, "saturated must be a boolean", code="invalid_body")
        for name in ("max_in_flight", "max_per_second", "retry_after_s"):
            if name in body:
                amount_field(body, name)
        return json_response(fake.set_saturation(**body))

    async def providers(request: Request) -> Response:
        body = await read_json_object(request, error=ControlError)
        _only(body, {"provider", "host", "display_name"})
        return json_response(fake.add_provider(**body), 201)

    async def entries(request: Request) -> Response:
        body = await read_json_object(request, error=ControlError)
        _only(body, {"id", "method", "path", "params", "cost", "summary", "capability", "kind", "curated"})
        return json_response(fake.add_entry(**body), 201)

    return [
        Route("/teams", teams, methods=["POST"]),
        Route("/teams/{team_id}", team, methods=["GET"]),
        Route("/teams/{team_id}/tools", tools, methods=["POST"]),
        Route("/teams/{team_id}/secrets", secrets, methods=["POST"]),
        Route("/teams/{team_id}/topup", topup, methods=["POST"]),
        Route("/upstreams", upstreams, methods=["POST"]),
        Route("/saturation", saturation, methods=["GET", "PUT"]),
        Route("/providers", providers, methods=["POST"]),
        Route("/catalog/entries", entries, methods=["POST"]),
    ]
