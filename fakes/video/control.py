"""The service's additions to the control plane (paths relative to ``/_fake``).

Each route only parses JSON and calls the fake's Python method of the same meaning (the fake as
:class:`ControlledVideo`, a protocol of those methods, which the package's ``VideoFake`` has).
Errors use the kernel's control shape ``{"error", "message"}``.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from fakes.kernel.errors import ControlError
from fakes.kernel.http import json_response, read_json_object

from .delivery import Dispatcher
from .settings import VideoSettings

VIEW_FIELDS = frozenset({"videoId", "seconds"})
PROJECT_FIELDS = frozenset({"keeps_discarded", "custom_domains"})
BROADCAST_FIELDS = frozenset({"seconds", "record", "height"})


class ControlledVideo(Protocol):
    """What the control routes call of the fake: its Python control plane, and the webhook sender
    whose deliveries ``GET /webhooks/deliveries`` waits for."""

    settings: VideoSettings
    dispatcher: Dispatcher

    def sync(self) -> None: ...

    def outbox(self) -> list[dict[str, Any]]: ...

    def create_project(self, *, keeps_discarded: bool | None = ..., custom_domains: int = ...) -> dict[str, Any]: ...

    def set_keeps_discarded(self, project_id: Any, keeps_discarded: bool) -> dict[str, Any]: ...

    def set_custom_domains(self, project_id: Any, count: Any) -> dict[str, Any]: ...

    def usage(self, project: str | None = ...) -> dict[str, Any]: ...

    def record_view(self, video_id: Any, seconds: Any) -> dict[str, Any]: ...

    def broadcast(self, live_stream_id: Any, seconds: Any, *, record: Any = ..., height: Any = ...
                  ) -> dict[str, Any]: ...

    def add_plays(self, plays: Any) -> dict[str, Any]: ...


def _fake(request: Request) -> ControlledVideo:
    fake: ControlledVideo = request.scope["app"]  # the fake or world serving the request
    return fake


def control_routes() -> list[BaseRoute]:
    """The routes, the same objects for every fake and world of the process: an endpoint finds
    the fake serving it in ``scope["app"]``, so a new world builds none of its own."""
    return list(_control_routes())


@functools.cache
def _control_routes() -> tuple[BaseRoute, ...]:
    async def projects(request: Request) -> Response:
        fake = _fake(request)
        body = await read_json_object(request, error=ControlError) if await request.body() else {}
        unknown = sorted(set(body) - PROJECT_FIELDS)
        if unknown:
            raise ControlError(400, "POST /_fake/projects takes {} or {\"keeps_discarded\": true|false, "
                                    "\"custom_domains\": N}", code="unknown_field", field=unknown[0][:100])
        keeps = body.get("keeps_discarded")
        if "keeps_discarded" in body and not isinstance(keeps, bool):
            raise ControlError(400, "keeps_discarded must be true or false", code="invalid_project",
                               field="keeps_discarded")
        return json_response(fake.create_project(keeps_discarded=keeps, custom_domains=body.get("custom_domains", 0)),
                             201)

    async def usage(request: Request) -> Response:
        fake = _fake(request)
        unknown = sorted(set(request.query_params) - {"project"})
        if unknown:
            raise ControlError(400, f"unknown query parameter(s) {', '.join(unknown)}; allowed: project",
                               code="invalid_parameter")
        return json_response(fake.usage(request.query_params.get("project")))

    async def deliveries(request: Request) -> Response:
        fake = _fake(request)
        # the deliveries made so far are attempted first, waited for off the event loop (a receiver
        # may be this very server)
        fake.sync()
        await asyncio.to_thread(fake.dispatcher.wait, fake.settings.webhook_timeout_s + 1)
        return json_response({"deliveries": fake.outbox()})

    async def views(request: Request) -> Response:
        fake = _fake(request)
        body = await read_json_object(request, error=ControlError)
        unknown = sorted(set(body) - VIEW_FIELDS)
        missing = sorted(VIEW_FIELDS - set(body))
        if unknown or missing:
            raise ControlError(400, "send {\"videoId\": \"vi...\", \"seconds\": N}", code="invalid_view")
        return json_response(fake.record_view(body["videoId"], body["seconds"]), 201)

    async def project(request: Request) -> Response:
        fake = _fake(request)
        body = await read_json_object(request, error=ControlError)
        if not body or set(body) - PROJECT_FIELDS or not isinstance(body.get("keeps_discarded", True), bool):
            raise ControlError(400, "send {\"keeps_discarded\": true|false} and/or {\"custom_domains\": N}",
                               code="invalid_project", field=(sorted(set(body) - PROJECT_FIELDS) or
                                                              ["keeps_discarded"])[0][:100])
        project_id = request.path_params["project_id"]
        answer: dict[str, Any] = {}
        if "custom_domains" in body:
            answer.update(fake.set_custom_domains(project_id, body["custom_domains"]))
        if "keeps_discarded" in body:
            answer.update(fake.set_keeps_discarded(project_id, body["keeps_discarded"]))
        return json_response(answer)

    async def broadcast(request: Request) -> Response:
        fake = _fake(request)
        body = await read_json_object(request, error=ControlError)
        unknown = sorted(set(body) - BROADCAST_FIELDS)
        if unknown or "seconds" not in body:
            raise ControlError(400, "send {\"seconds\": N, \"record\": true, \"height\": 720}",
                               code="invalid_broadcast", field=(unknown or ["seconds"])[0][:100])
        return json_response(fake.broadcast(request.path_params["live_stream_id"], body["seconds"],
                                            record=body.get("record", True), height=body.get("height", 720)), 201)

    async def plays(request: Request) -> Response:
        fake = _fake(request)
        body = await read_json_object(request, error=ControlError)
        return json_response(fake.add_plays(body), 201)

    return (
        Route("/projects", projects, methods=["POST"]),
        Route("/projects/{project_id}", project, methods=["PATCH"]),
        Route("/live-streams/{live_stream_id}/broadcast", broadcast, methods=["POST"]),
        Route("/plays", plays, methods=["POST"]),
        Route("/usage", usage, methods=["GET"]),
        Route("/webhooks/deliveries", deliveries, methods=["GET"]),
        Route("/views", views, methods=["POST"]),
    )
