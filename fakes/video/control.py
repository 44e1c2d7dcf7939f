"""The service's additions to the control plane (paths relative to ``/_fake``).

Each route only parses JSON and calls the fake's Python method of the same meaning. Errors use the
kernel's control shape ``{"error", "message"}``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from fakes.kernel.errors import ControlError
from fakes.kernel.http import json_response, read_json_object

if TYPE_CHECKING:
    from . import VideoFake

VIEW_FIELDS = frozenset({"videoId", "seconds"})


def control_routes(fake: VideoFake) -> list[BaseRoute]:
    async def projects(request: Request) -> Response:
        body = await read_json_object(request, error=ControlError)
        if body:
            raise ControlError(400, "POST /_fake/projects takes an empty object {}", code="unknown_field")
        return json_response(fake.create_project(), 201)

    async def usage(request: Request) -> Response:
        unknown = sorted(set(request.query_params) - {"project"})
        if unknown:
            raise ControlError(400, f"unknown query parameter(s) {', '.join(unknown)}; allowed: project",
                               code="invalid_parameter")
        return json_response(fake.usage(request.query_params.get("project")))

    async def deliveries(request: Request) -> Response:
        return json_response({"deliveries": fake.webhook_deliveries()})

    async def views(request: Request) -> Response:
        body = await read_json_object(request, error=ControlError)
        unknown = sorted(set(body) - VIEW_FIELDS)
        missing = sorted(VIEW_FIELDS - set(body))
        if unknown or missing:
            raise ControlError(400, "send {\"videoId\": \"vi...\", \"seconds\": N}", code="invalid_view")
        return json_response(fake.record_view(body["videoId"], body["seconds"]), 201)

    return [
        Route("/projects", projects, methods=["POST"]),
        Route("/usage", usage, methods=["GET"]),
        Route("/webhooks/deliveries", deliveries, methods=["GET"]),
        Route("/views", views, methods=["POST"]),
    ]
