"""Video fake: an api.video lookalike (seed 002) with the sandbox's 30-second limit and 24-hour deletion.

Projects with a sandbox and a production key; videos created as objects, their files really
received (streamed to disk, probed with mutagen), encoded on the virtual clock quality by quality,
served as real HLS/JPEG/MP4 assets by the fake itself; captions and summaries, usage and cost,
per-class rate limits, signed webhooks delivered to loopback receivers. See docs/services/video.md.
"""

from __future__ import annotations

import base64
from typing import Any

from starlette.routing import BaseRoute

from fakes.kernel.errors import ServiceError
from fakes.kernel.fake import Fake

from . import problems
from .control import control_routes
from .delivery import Dispatcher
from .model import VideoModel
from .openapi import openapi_document
from .routes import service_routes
from .rules import RULES
from .settings import VideoSettings

__all__ = ["VideoFake", "VideoModel", "VideoSettings"]

SAMPLE_VIDEOS = 100


class VideoFake(Fake):
    name = "video"
    title = "Video API"
    default_port = 8705
    settings_class = VideoSettings
    client_rules = RULES

    settings: VideoSettings
    model: VideoModel
    _auth_for: VideoModel | None = None
    _auth_headers: dict[str, str]

    def __init__(self, **kwargs: Any) -> None:
        self.dispatcher = Dispatcher(self)
        super().__init__(**kwargs)

    # -- kernel hooks -------------------------------------------------------------------------
    def create_model(self) -> VideoModel:
        return VideoModel(self.clock, self.settings, self.seed)

    def routes(self) -> list[BaseRoute]:
        return service_routes(self)

    def control_routes(self) -> list[BaseRoute]:
        return control_routes(self)

    def error_body(self, err: ServiceError) -> dict[str, Any]:
        """The reference's problem shape: ``{type, title, status, name?, detail?, problems?}``."""
        return problems.render(err)

    def openapi_document(self) -> dict[str, Any]:
        return openapi_document(self.settings, self.title)

    def dashboard_panels(self) -> list[dict[str, Any]]:
        from .panel import panels  # imported when a browser first asks (fakes/kernel/dashboard)
        return panels(self)

    def demo_credentials(self) -> dict[str, str]:
        created = self.create_project()
        key = created[f"{self.settings.environment}_key"]
        return {"environment": self.settings.environment, "api_key": key,
                "curl": f"curl -u {key}: <base URL>/videos"}

    def auth_headers(self) -> dict[str, str]:
        """Basic auth with a project's key, made once per model (reset/import replace it). The
        project holds 100 videos, the state of :meth:`sample_request`, so that everything the
        benchmark and the generic suites need exists before they export or compare states."""
        if self._auth_for is not self.model:
            key = self.create_project()[f"{self.settings.environment}_key"]
            self._auth_headers = {"Authorization": "Basic " + base64.b64encode(f"{key}:".encode()).decode()}
            project = self.model.authenticate(self._auth_headers["Authorization"])
            for number in range(SAMPLE_VIDEOS):
                self.model.create_video(project, {"title": f"Sample video {number:03d}", "tags": ["sample"],
                                                  "metadata": [{"key": "n", "value": str(number)}]})
            self._auth_for = self.model
        return dict(self._auth_headers)

    @classmethod
    def settings_for_tests(cls) -> dict[str, Any]:
        """Generous rate limits: the generic suites send hundreds of requests at one virtual instant
        (the limits themselves are tested in tests/video)."""
        return {"rate_limits": {"uploads": 1_000_000, "writes": 1_000_000, "reads": 1_000_000}}

    def sample_request(self) -> tuple[str, str]:
        """``GET /videos`` of a project holding 100 videos (a full page; see :meth:`auth_headers`).
        That project is no longer rate-limited (a flag in its own state), so the request answers 200
        any number of times at one virtual instant; every other project keeps the reads limit."""
        headers = self.auth_headers()
        self.model.authenticate(headers["Authorization"]).rate_limited = False
        return ("GET", f"/videos?pageSize={SAMPLE_VIDEOS}")

    # -- the clock's consequences -------------------------------------------------------------
    def sync(self) -> None:
        """Apply what the clock has passed and hand new webhook deliveries to the sender thread."""
        self.model.catch_up()
        self.dispatch()

    def dispatch(self) -> None:
        pending = self.model.take_pending() if self.model.pending else []
        if pending:
            self.dispatcher.submit(pending)

    def advance(self, seconds: float) -> int:
        now = super().advance(seconds)
        self.sync()
        return now

    def set_time_ms(self, epoch_ms: int) -> int:
        now = super().set_time_ms(epoch_ms)
        self.sync()
        return now

    # -- control plane as Python --------------------------------------------------------------
    def create_project(self, *, rate_limited: bool = True) -> dict[str, Any]:
        """A project with one key per environment: ``{"project_id", "sandbox_key", "production_key"}``.
        ``rate_limited=False``: no rate limit counts or refuses its requests (for load tests)."""
        return self.model.create_project(rate_limited=rate_limited)

    def usage(self, project: str | None = None) -> dict[str, Any]:
        """Usage figures and dollars per project (all projects without ``project``)."""
        self.sync()
        return self.model.usage_report(project)

    def webhook_deliveries(self) -> list[dict[str, Any]]:
        """The outbox: every delivery made, oldest first, with its outcome."""
        self.sync()
        return [d.to_json() for d in list(self.model.webhooks.outbox)]

    def record_view(self, video_id: Any, seconds: Any) -> dict[str, Any]:
        """Count ``seconds`` of ``video_id`` as watched (minutes watched of the usage)."""
        self.sync()
        return self.model.record_view(video_id, seconds)

    def wait_for_webhooks(self, timeout: float = 5.0) -> bool:
        """Emit what the clock passed, then wait until every delivery was attempted."""
        self.sync()
        return self.dispatcher.wait(timeout)
