"""Video fake: an api.video lookalike (docs/services/video.md) with the sandbox's 30-second limit and 24-hour deletion.

Projects with a sandbox and a production key; videos created as objects, their files really
received (streamed to disk, probed with mutagen), encoded on the virtual clock quality by quality,
served as real HLS/JPEG/MP4 assets by the fake itself; captions and summaries, usage and cost,
per-class rate limits, signed webhooks delivered to loopback receivers. See docs/services/video.md.
"""

from __future__ import annotations

import base64
from typing import Any

from starlette.routing import BaseRoute

from fakes.kernel.benchops import BenchOperation
from fakes.kernel.errors import ServiceError
from fakes.kernel.fake import Fake
from fakes.kernel.http import dumps

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
#: route lists by settings (immutable once built; like the kernel's parse caches, bounded)
_SHARED_ROUTES: dict[bytes, list[BaseRoute]] = {}
MAX_SHARED_ROUTE_SETS = 32


class VideoFake(Fake):
    name = "video"
    title = "Video API"
    state_required_fields = ("attachments", "buckets", "exported_ms", "live_streams", "players", "plays", "projects",
                             "status_polls", "summaries", "upload_tokens", "usage", "video_count", "videos",
                             "watermarks", "webhooks")
    default_port = 8705
    settings_class = VideoSettings
    client_rules = RULES
    secret_fields = ("refreshToken",)  # the journal redacts it (apiKey and the tokens: the kernel's)

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
        """The service's routes, built once per settings and shared by a fake and its worlds (each
        request reads the fake serving it): a world costs no routes of its own."""
        key = dumps(self.settings.to_dict())
        routes = _SHARED_ROUTES.get(key)
        if routes is None:
            if len(_SHARED_ROUTES) >= MAX_SHARED_ROUTE_SETS:
                _SHARED_ROUTES.clear()
            routes = _SHARED_ROUTES[key] = service_routes(self.settings)
        return routes

    def control_routes(self) -> list[BaseRoute]:
        return control_routes()

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

    def bench_operations(self) -> list[BenchOperation]:
        """One request per public operation (bench.py): the benchmark's ``operations`` part."""
        from .bench import bench_operations

        return bench_operations(self)

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
    def create_project(self, *, rate_limited: bool = True, keeps_discarded: bool | None = None,
                       custom_domains: int = 0) -> dict[str, Any]:
        """A project with one key per environment: ``{"project_id", "sandbox_key", "production_key",
        "keeps_discarded", "custom_domains"}``. ``rate_limited=False``: no rate limit counts or refuses its
        requests (for load tests); ``keeps_discarded``: the Video Restore feature (default: the setting
        ``keep_discarded_videos``); ``custom_domains``: its extra custom domains (billed by the month)."""
        self.model.check_custom_domains(custom_domains)  # before the project is made ({} is not 0)
        created = self.model.create_project(rate_limited=rate_limited, keeps_discarded=keeps_discarded)
        if custom_domains:
            self.model.set_custom_domains(created["project_id"], custom_domains)
        return {**created, "custom_domains": custom_domains}

    def set_custom_domains(self, project_id: Any, count: Any) -> dict[str, Any]:
        """A project's extra custom domains from now on: each is billed ``custom_domain_month_eur``
        (60 euros, api.video's price) a month on the fake's clock, like storage (``usage()``'s ``cost_eur``)."""
        return self.model.set_custom_domains(project_id, count)

    def set_keeps_discarded(self, project_id: Any, keeps_discarded: bool) -> dict[str, Any]:
        """Turn a project's Video Restore feature on or off (deleted videos are discarded, then purged
        after ``discarded_retention_s``); videos discarded already stay discarded."""
        return self.model.set_keeps_discarded(project_id, keeps_discarded)

    def usage(self, project: str | None = None) -> dict[str, Any]:
        """Usage figures and dollars per project (all projects without ``project``)."""
        self.sync()
        return self.model.usage_report(project)

    def webhook_deliveries(self) -> list[dict[str, Any]]:
        """The outbox: every delivery made, oldest first, with its outcome (each delivery made so far
        is attempted first, within ``webhook_timeout_s``, so that what it says does not race the
        sender thread)."""
        self.sync()
        self.dispatcher.wait(self.settings.webhook_timeout_s + 1)
        return self.outbox()

    def outbox(self) -> list[dict[str, Any]]:
        return [d.to_json() for d in list(self.model.webhooks.outbox)]

    def record_view(self, video_id: Any, seconds: Any) -> dict[str, Any]:
        """Count ``seconds`` of ``video_id`` as watched (minutes watched of the usage)."""
        self.sync()
        return self.model.record_view(video_id, seconds)

    def broadcast(self, live_stream_id: Any, seconds: Any, *, record: Any = True, height: Any = 720) -> dict[str, Any]:
        """Broadcast to a live stream for ``seconds`` from now (the fake's stand-in for an RTMP
        client): ``broadcasting`` until then (or until ``complete``), webhooks at start and end, and
        when ``record``, a video of the recording at the end."""
        self.sync()
        try:
            return self.model.start_broadcast(live_stream_id, seconds, record, height)
        finally:
            self.dispatch()

    def add_plays(self, plays: Any) -> dict[str, Any]:
        """Record viewing sessions for analytics and usage: one play ``{"mediaId", "seconds", "viewer",
        "country", "deviceType", "operatingSystem", "browser", "referrer", "at", "ended",
        "impressionTimeMs", "count"}`` or ``{"plays": [...]}`` (all checked before any is kept)."""
        self.sync()
        return self.model.add_plays(plays)

    def wait_for_webhooks(self, timeout: float = 5.0) -> bool:
        """Emit what the clock passed, then wait until every delivery was attempted."""
        self.sync()
        return self.dispatcher.wait(timeout)
