"""The relay's additions to the control plane: teams (tools, secrets, top-ups), upstreams,
saturation, and user catalogue additions. Thin: parse the JSON body, call the same methods
:class:`~fakes.relay.RelayFake` offers in Python (read as :class:`ControlledRelay`: the fake imports
this module). Errors use the control plane's own shape.
"""

from __future__ import annotations

import functools
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from fakes.kernel.errors import ControlError
from fakes.kernel.http import json_response, read_json_object

from . import bodies
from .model import RelayModel


class ControlledRelay(Protocol):
    """The fake's Python control methods each route calls (the routes are thin: they parse the body)."""

    model: RelayModel

    def create_team(self, balance_micro: int | None = None, name: str | None = None, *,
                    upstream_rate_limited: bool = True) -> dict[str, Any]: ...

    def team_info(self, team_id: str) -> dict[str, Any]: ...

    def add_tool(self, team_id: str, provider: str, key: str) -> dict[str, Any]: ...

    def add_secret(self, team_id: str, provider: str, secret: str) -> dict[str, Any]: ...

    def topup(self, team_id: str, amount_micro: int) -> dict[str, Any]: ...

    def register_canned_upstream(self, provider: str, responses: Any) -> dict[str, Any]: ...

    def use_fake_upstream(self, provider: str, fake_name: str) -> dict[str, Any]: ...

    def set_saturation(self, **changes: Any) -> dict[str, Any]: ...

    def upstream_requests(self, provider: str | None = None) -> dict[str, Any]: ...

    def clear_upstream_requests(self, provider: str | None = None) -> dict[str, Any]: ...

    def record_simulated_upstreams(self, on: bool = True) -> dict[str, Any]: ...

    def add_provider(self, **fields: Any) -> dict[str, Any]: ...

    def add_entry(self, **fields: Any) -> dict[str, Any]: ...

    def pending_logins(self) -> list[dict[str, Any]]: ...

    def approve_login(self, login_id: str, email: str, org: str | None = None) -> dict[str, Any]: ...

    def outbox(self) -> list[dict[str, Any]]: ...

    def checkouts(self) -> list[dict[str, Any]]: ...

    def pay_checkout(self, session_id: str) -> dict[str, Any]: ...

    def cancel_checkout(self, session_id: str) -> dict[str, Any]: ...

    def consent(self, state: str, grant: bool = True) -> dict[str, Any]: ...


async def _body(request: Request, schema: bodies.Schema) -> dict[str, Any]:
    """The request body, read with the kernel's checks and then held to its published schema."""
    body = await read_json_object(request, error=ControlError)
    bodies.check(body, schema)
    return body


def _fake(request: Request) -> ControlledRelay:
    fake: ControlledRelay = request.scope["app"]
    return fake


async def teams(request: Request) -> Response:
    body = await _body(request, bodies.TEAM)
    return json_response(_fake(request).create_team(balance_micro=body.get("balance_micro"), name=body.get("name")),
                         201)


async def team(request: Request) -> Response:
    return json_response(_fake(request).team_info(request.path_params["team_id"]))


async def tools(request: Request) -> Response:
    body = await _body(request, bodies.TOOL)
    return json_response(_fake(request).add_tool(request.path_params["team_id"], body["provider"], body["key"]), 201)


async def secrets(request: Request) -> Response:
    body = await _body(request, bodies.SECRET)
    return json_response(_fake(request).add_secret(request.path_params["team_id"], body["provider"], body["secret"]),
                         201)


async def topup(request: Request) -> Response:
    body = await _body(request, bodies.TOPUP)
    return json_response(_fake(request).topup(request.path_params["team_id"], body["amount_micro"]))


async def upstreams(request: Request) -> Response:
    body = await _body(request, bodies.UPSTREAM)
    fake = _fake(request)
    if "fake" in body:
        return json_response(fake.use_fake_upstream(body["provider"], body["fake"]), 201)
    return json_response(fake.register_canned_upstream(body["provider"], body["responses"]), 201)


async def upstream_requests(request: Request) -> Response:
    """What the upstreams were sent: all of them, or one provider's (``/upstreams/{provider}/requests``)."""
    fake = _fake(request)
    provider = request.path_params.get("provider")
    if request.method == "DELETE":
        return json_response(fake.clear_upstream_requests(provider))
    return json_response(fake.upstream_requests(provider))


async def recording(request: Request) -> Response:
    fake = _fake(request)
    if request.method == "GET":
        return json_response({"recording_simulated": fake.model.upstream_log.simulated})
    body = await _body(request, bodies.RECORDING)
    return json_response(fake.record_simulated_upstreams(body["simulated"]))


async def saturation(request: Request) -> Response:
    fake = _fake(request)
    if request.method == "GET":
        return json_response(fake.model.saturation.describe())
    body = await _body(request, bodies.SATURATION)
    return json_response(fake.set_saturation(**body))


async def providers(request: Request) -> Response:
    body = await _body(request, bodies.PROVIDER)
    return json_response(_fake(request).add_provider(**body), 201)


async def entries(request: Request) -> Response:
    body = await _body(request, bodies.ENTRY)
    return json_response(_fake(request).add_entry(**body), 201)


async def logins(request: Request) -> Response:
    return json_response(_fake(request).pending_logins())


async def approve_login(request: Request) -> Response:
    body = await _body(request, bodies.LOGIN_APPROVE)
    return json_response(_fake(request).approve_login(request.path_params["login_id"], body["email"],
                                                      body.get("org")))


async def outbox(request: Request) -> Response:
    return json_response(_fake(request).outbox())


async def checkouts(request: Request) -> Response:
    return json_response(_fake(request).checkouts())


async def pay(request: Request) -> Response:
    return json_response(_fake(request).pay_checkout(request.path_params["session_id"]))


async def cancel(request: Request) -> Response:
    return json_response(_fake(request).cancel_checkout(request.path_params["session_id"]))


async def consent(request: Request) -> Response:
    body = await _body(request, bodies.CONSENT)
    return json_response(_fake(request).consent(request.path_params["state"], body.get("grant", True)))


@functools.cache
def routes() -> list[BaseRoute]:
    """The relay's control routes, built once per process and shared by every fake and world."""
    return [
        Route("/teams", teams, methods=["POST"]),
        Route("/teams/{team_id}", team, methods=["GET"]),
        Route("/teams/{team_id}/tools", tools, methods=["POST"]),
        Route("/teams/{team_id}/secrets", secrets, methods=["POST"]),
        Route("/teams/{team_id}/topup", topup, methods=["POST"]),
        Route("/upstreams", upstreams, methods=["POST"]),
        Route("/upstreams/requests", upstream_requests, methods=["GET", "DELETE"]),
        Route("/upstreams/recording", recording, methods=["GET", "PUT"]),
        Route("/upstreams/{provider}/requests", upstream_requests, methods=["GET", "DELETE"]),
        Route("/saturation", saturation, methods=["GET", "PUT"]),
        Route("/providers", providers, methods=["POST"]),
        Route("/catalog/entries", entries, methods=["POST"]),
        Route("/logins", logins, methods=["GET"]),
        Route("/logins/{login_id}/approve", approve_login, methods=["POST"]),
        Route("/outbox", outbox, methods=["GET"]),
        Route("/checkouts", checkouts, methods=["GET"]),
        Route("/checkouts/{session_id}/pay", pay, methods=["POST"]),
        Route("/checkouts/{session_id}/cancel", cancel, methods=["POST"]),
        Route("/connects/{state}/consent", consent, methods=["POST"]),
    ]
