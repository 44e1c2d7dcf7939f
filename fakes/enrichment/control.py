"""The service's additions to the control plane (paths relative to ``/_fake``).

Each route parses JSON and calls the fake's Python method of the same meaning. Errors use the
kernel's control shape ``{"error", "message"}``.
"""

from __future__ import annotations

import functools
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from fakes.kernel.errors import ControlError
from fakes.kernel.http import json_response, read_json_object

ACCOUNT_FIELDS = frozenset({"plan", "credits", "rate_limited", "api_key"})
PURCHASE_FIELDS = frozenset({"pack_usd"})


async def body_with(request: Request, allowed: frozenset[str] | None) -> dict[str, Any]:
    body = await read_json_object(request, error=ControlError)
    nulls = sorted(name for name, value in body.items() if value is None)
    if nulls:
        raise ControlError(400, f"field(s) {', '.join(nulls)} must not be null; omit them for the default",
                           code="invalid_field")
    if allowed is not None:
        unknown = sorted(set(body) - allowed)
        if unknown:
            raise ControlError(400, f"unknown field(s) {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}",
                               code="unknown_field")
    return body


class ControlledFake(Protocol):
    """The fake's Python control methods each route calls."""

    def create_account(self, plan: str = ..., credits: Any = ..., *, rate_limited: bool = ...,
                       api_key: str | None = ...) -> dict[str, Any]: ...

    def account(self, api_key: str) -> dict[str, Any]: ...

    def purchase(self, api_key: str, pack_usd: Any) -> dict[str, Any]: ...

    def add_company(self, website: Any = ..., **fields: Any) -> dict[str, Any]: ...

    def add_person(self, **fields: Any) -> dict[str, Any]: ...


def _fake(request: Request) -> ControlledFake:
    fake: ControlledFake = request.scope["app"]  # the fake or world serving the request
    return fake


def control_routes() -> list[BaseRoute]:
    """The routes, the same objects for every fake and world of the process: an endpoint finds
    the fake serving it in ``scope["app"]``, so a new world builds none of its own."""
    return list(_control_routes())


@functools.cache
def _control_routes() -> tuple[BaseRoute, ...]:
    async def create_account(request: Request) -> Response:
        fake = _fake(request)
        body = await body_with(request, ACCOUNT_FIELDS)
        return json_response(fake.create_account(**body), 201)

    async def account(request: Request) -> Response:
        fake = _fake(request)
        return json_response(fake.account(request.path_params["api_key"]))

    async def purchase(request: Request) -> Response:
        fake = _fake(request)
        body = await body_with(request, PURCHASE_FIELDS)
        if "pack_usd" not in body:
            raise ControlError(400, "'pack_usd' is required", code="invalid_field")
        return json_response(fake.purchase(request.path_params["api_key"], body["pack_usd"]), 201)

    async def add_company(request: Request) -> Response:
        fake = _fake(request)
        body = await body_with(request, None)
        return json_response(fake.add_company(**body), 201)

    async def add_person(request: Request) -> Response:
        fake = _fake(request)
        body = await body_with(request, None)
        return json_response(fake.add_person(**body), 201)

    return (
        Route("/accounts", create_account, methods=["POST"]),
        Route("/accounts/{api_key}", account, methods=["GET"]),
        Route("/accounts/{api_key}/purchases", purchase, methods=["POST"]),
        Route("/companies", add_company, methods=["POST"]),
        Route("/people", add_person, methods=["POST"]),
    )
