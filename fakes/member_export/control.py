"""The service's additions to the control plane (paths relative to ``/_fake``).

Each route only parses JSON and calls the fake's Python method of the same meaning, so the two
faces cannot drift apart. Errors use the kernel's control shape ``{"error", "message"}``.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from fakes.kernel.errors import ControlError
from fakes.kernel.http import json_response, read_json_object

if TYPE_CHECKING:
    from .served import ControlledMemberExport

MEMBER_FIELDS = frozenset({"region", "name", "sizes", "build_times"})
CONSENT_FIELDS = frozenset({"expires_in"})
TOKEN_FIELDS = frozenset({"member_id", "expires_in", "scope", "client_id"})
AUTHORIZE_FIELDS = frozenset({"client_id", "member_id", "scope", "redirect_uri", "state"})
REVOKE_FIELDS = frozenset({"client_id"})


async def json_object(request: Request) -> dict[str, Any]:
    """The body as a JSON object; no body at all means ``{}`` (whitespace is not JSON)."""
    body = await read_json_object(request, error=ControlError)
    nulls = sorted(name for name, value in body.items() if value is None)
    if nulls:  # the Python API reads None as "use the default"; JSON clients must leave the field out
        raise ControlError(400, f"field(s) {', '.join(nulls)} must not be null; omit them for the default",
                           code="invalid_field")
    return body


async def body_with(request: Request, allowed: frozenset[str]) -> dict[str, Any]:
    """The JSON object body; unknown fields are refused so that a typo does not go unnoticed."""
    body = await json_object(request)
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise ControlError(400, f"unknown field(s) {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}",
                           code="unknown_field")
    return body


def _fake(request: Request) -> ControlledMemberExport:
    fake: ControlledMemberExport = request.scope["app"]  # the fake or world serving the request
    return fake


def control_routes() -> list[BaseRoute]:
    """The routes, the same objects for every fake and world of the process: an endpoint finds
    the fake serving it in ``scope["app"]``, so a new world builds none of its own."""
    return list(_control_routes())


@functools.cache
def _control_routes() -> tuple[BaseRoute, ...]:
    async def create_member(request: Request) -> Response:
        fake = _fake(request)
        body = await body_with(request, MEMBER_FIELDS)
        return json_response(fake.create_member(**body), 201)

    async def member(request: Request) -> Response:
        fake = _fake(request)
        return json_response(fake.member_info(request.path_params["member_id"]))

    async def consent(request: Request) -> Response:
        fake = _fake(request)
        body = await body_with(request, CONSENT_FIELDS)
        return json_response(fake.consent(request.path_params["member_id"], **body))

    async def act(request: Request) -> Response:
        fake = _fake(request)
        details = await json_object(request)
        action = details.pop("action", None)
        return json_response(fake.act(request.path_params["member_id"], action, **details), 201)

    async def issue_token(request: Request) -> Response:
        fake = _fake(request)
        body = await body_with(request, TOKEN_FIELDS)
        if "member_id" not in body:
            raise ControlError(400, "'member_id' is required", code="invalid_token")
        member_id = body.pop("member_id")
        return json_response(fake.issue_token(member_id, **body), 201)

    async def applications(request: Request) -> Response:
        fake = _fake(request)
        if request.method == "POST":
            return json_response(fake.register_application(**await json_object(request)), 201)
        return json_response({"applications": [app.describe() for app in fake.model.applications.values()]})

    async def application(request: Request) -> Response:
        fake = _fake(request)
        return json_response(fake.application_info(request.path_params["client_id"]))

    async def sign_in(request: Request) -> Response:
        fake = _fake(request)
        body = await read_json_object(request, error=ControlError)  # null member_id: sign out
        unknown = sorted(set(body) - {"member_id"})
        if unknown or "member_id" not in body:
            raise ControlError(400, "the body is {\"member_id\": \"<id>\"} (null: nobody is signed in)",
                               code="invalid_field")
        return json_response(fake.sign_in(body["member_id"]))

    async def authorize(request: Request) -> Response:
        fake = _fake(request)
        body = await body_with(request, AUTHORIZE_FIELDS)
        if "client_id" not in body or "member_id" not in body:
            raise ControlError(400, "'client_id' and 'member_id' are required", code="invalid_authorization")
        return json_response(fake.authorize(body.pop("client_id"), body.pop("member_id"), **body), 201)

    async def revoke(request: Request) -> Response:
        fake = _fake(request)
        body = await body_with(request, REVOKE_FIELDS)
        return json_response(fake.revoke(request.path_params["member_id"], body.get("client_id")))

    return (
        Route("/applications", applications, methods=["GET", "POST"]),
        Route("/applications/{client_id}", application, methods=["GET"]),
        Route("/oauth/sign-in", sign_in, methods=["POST"]),
        Route("/oauth/authorize", authorize, methods=["POST"]),
        Route("/members/{member_id}/revoke", revoke, methods=["POST"]),
        Route("/members", create_member, methods=["POST"]),
        Route("/members/{member_id}", member, methods=["GET"]),
        Route("/members/{member_id}/consent", consent, methods=["POST"]),
        Route("/members/{member_id}/actions", act, methods=["POST"]),
        Route("/tokens", issue_token, methods=["POST"]),
    )
