"""The video service's state and rules: projects, videos, uploads (uploads.py), the timeline, captions and
summaries (transcripts.py), webhooks, usage.

Plain Python, no HTTP; time only from the fake's clock. Transitions are instants: every timeline
instant (quality encoded, captions, summary) and every sandbox deletion goes into one heap, and
:meth:`VideoModel.catch_up` pops what the clock has passed, in time order, emitting webhook
deliveries and counting usage. Reads call it first, so they always see the present; the fake also
calls it when its clock is moved and, while webhooks are subscribed, from its delivery thread.
"""

from __future__ import annotations

import heapq
import re
import threading
from collections.abc import Callable
from typing import Any

from fakes.kernel.clock import Clock
from fakes.kernel.errors import ServiceError
from fakes.kernel.verdicts import ClientRule

from . import data, rules
from .ingest import Storage, UploadSession
from .problems import invalid_attribute, not_found, too_many_requests
from .projects import Project, Projects
from .settings import VideoSettings
from .transcripts import TranscriptReads
from .uploads import UploadRules
from .usage import Usage, report
from .videos import Video, atom, creation_fields, matches, refuse_unknown, status_of, to_json, update_fields
from .webhooks import Delivery, Subscription, Webhooks

Flagged = list[tuple[ClientRule, str]]
WINDOW_MS = 60_000
VIDEO_ID = re.compile(r"vi[0-9A-Za-z]{22}")
SORT_FIELDS = ("title", "createdAt", "publishedAt", "updatedAt")


class VideoModel(UploadRules, TranscriptReads):
    def __init__(self, clock: Clock, settings: VideoSettings, seed: int) -> None:
        self.clock = clock
        self.settings = settings
        self.limits = settings.limits()  # per kind of request; settings never change under a model
        self.seed = seed
        self.lock = threading.RLock()
        self.projects = Projects(seed, settings.environment, settings.token_lifetime_s)
        self.videos: dict[str, Video] = {}
        self.video_count = 0
        self.summary_count = 0
        self.webhooks = Webhooks(seed)
        self.storage = Storage()
        self.usage: dict[str, Usage] = {}
        self.buckets: dict[tuple[str, str], list[int]] = {}
        self.status_polls: dict[str, int] = {}
        self.version = 0  # bumped by every change a video list could show
        self.pending: list[Delivery] = []  # made by catch-up, not yet handed to the sender
        self._agenda: list[tuple[int, int, str, str]] = []  # (instant, order, video id, what)
        self._agenda_seq = 0
        self._list_cache: dict[tuple[str, str, str], tuple[int, bytes]] = {}

    # -- the clock's consequences --------------------------------------------------------------
    def next_due_ms(self) -> int | None:
        return self._agenda[0][0] if self._agenda else None

    def catch_up(self) -> None:
        """Apply every transition whose instant the clock has reached, oldest first."""
        agenda = self._agenda
        if not agenda or agenda[0][0] > self.clock.now_ms():
            return
        with self.lock:
            now = self.clock.now_ms()
            while agenda and agenda[0][0] <= now:
                instant, _, video_id, what = heapq.heappop(agenda)
                video = self.videos.get(video_id)
                if video is None:
                    continue
                if what == "delete":
                    self._remove(video, instant)
                    continue
                if video.deletes_ms is not None and instant >= video.deletes_ms:
                    continue
                self._transition(video, what, instant)

    def _schedule(self, instant: int, video_id: str, what: str) -> None:
        self._agenda_seq += 1
        heapq.heappush(self._agenda, (instant, self._agenda_seq, video_id, what))

    def _transition(self, video: Video, what: str, instant: int) -> None:
        usage = self._usage(video.project_id)
        minutes = (video.probe.duration_s / 60) if video.probe else 0.0
        kind, _, detail = what.partition(":")
        if kind == "quality":
            encoding, _, quality = detail.partition(":")
            self._emit(video, "video.encoding.quality.completed", {"encoding": encoding, "quality": quality}, instant)
        elif kind == "caption":
            if video.language is None:
                video.language, video.language_origin = "en", "auto"
                self.version += 1
            if video.transcript:
                usage.transcript_minutes += minutes
                self._emit(video, "video.caption.generated", {"language": video.language}, instant)
        elif kind == "summary":
            if "abstract" in video.summary_attributes:
                usage.abstract_minutes += minutes
            if "takeaways" in video.summary_attributes:
                usage.takeaways_minutes += minutes
            self._emit(video, "video.summary.generated", {"summaryId": video.summary_id}, instant)

    def _emit(self, video: Video, event: str, payload: dict[str, Any], instant: int) -> None:
        self.pending.extend(self.webhooks.emit(video.project_id, event, {"videoId": video.video_id, **payload},
                                               instant, atom(instant)))

    def take_pending(self) -> list[Delivery]:
        with self.lock:
            pending, self.pending = self.pending, []
        return pending

    def _remove(self, video: Video, instant: int) -> None:
        usage = self._usage(video.project_id)
        usage.closed_stored_minute_ms += self._stored_minute_ms(video, instant)
        del self.videos[video.video_id]
        self.status_polls.pop(video.video_id, None)
        self.storage.discard(video.video_id)
        self.version += 1

    def _usage(self, project_id: str) -> Usage:
        usage = self.usage.get(project_id)
        if usage is None:
            usage = self.usage[project_id] = Usage()
        return usage

    # -- projects and auth ---------------------------------------------------------------------
    def create_project(self, *, rate_limited: bool = True) -> dict[str, Any]:
        with self.lock:
            project = self.projects.create(self.clock.now_ms(), rate_limited=rate_limited)
            return {"project_id": project.project_id, "sandbox_key": project.sandbox_key,
                    "production_key": project.production_key}

    def authenticate(self, header: str | None) -> Project:
        return self.projects.authenticate(header, self.clock.now_ms())

    def issue_token(self, body: dict[str, Any]) -> dict[str, Any]:
        refuse_unknown(body, frozenset({"apiKey"}))
        with self.lock:
            return self.projects.issue(body.get("apiKey"), self.clock.now_ms())

    def refresh_token(self, body: dict[str, Any]) -> dict[str, Any]:
        refuse_unknown(body, frozenset({"refreshToken"}))
        with self.lock:
            return self.projects.refresh(body.get("refreshToken"), self.clock.now_ms())

    # -- rate limits ---------------------------------------------------------------------------
    def rate(self, bucket: str, kind: str, counted: bool = True) -> tuple[dict[str, str], bool]:
        """Count one request of ``kind`` against ``bucket``: (headers, allowed). Not ``counted`` (a
        project that is not rate-limited): always allowed, the window untouched."""
        limit = self.limits[kind]
        now = self.clock.now_ms()
        with self.lock:
            window = self.buckets.get((bucket, kind))
            if window is None or now >= window[0] + WINDOW_MS:
                window = [now, 0]
                if counted:
                    self.buckets[(bucket, kind)] = window
            allowed = window[1] < limit or not counted
            if allowed and counted:
                window[1] += 1
            retry_after = max(0, -(-(window[0] + WINDOW_MS - now) // 1000))
        headers = {"X-RateLimit-Limit": str(limit), "X-RateLimit-Remaining": str(limit - window[1]),
                   "X-RateLimit-Retry-After": str(retry_after)}
        return headers, allowed

    @staticmethod
    def refuse_rate(headers: dict[str, str]) -> ServiceError:
        return too_many_requests(dict(headers))

    # -- videos --------------------------------------------------------------------------------
    def video(self, project: Project, video_id: str) -> Video:
        self.catch_up()
        video = self.videos.get(video_id)
        if video is None or video.project_id != project.project_id:
            raise not_found("videoId")
        return video

    def create_video(self, project: Project, body: dict[str, Any]) -> Video:
        fields = creation_fields(body)
        source = body.get("source")
        with self.lock:
            self.catch_up()
            origin = None
            if source is not None:
                if not isinstance(source, str) or not VIDEO_ID.fullmatch(source):
                    raise invalid_attribute("source", "this fake copies the source of an uploaded video of the "
                                                      "project (its videoId); it cannot download URLs")
                origin = self.videos.get(source)
                if origin is None or origin.project_id != project.project_id:
                    raise not_found("source")
                if origin.uploaded_ms is None or origin.failed:
                    raise invalid_attribute("source", "the video to copy has no playable source")
            now = self.clock.now_ms()
            self.video_count += 1
            video = Video(data.video_id(self.seed, self.video_count), project.project_id, self.video_count, now,
                          updated_ms=now, **fields)
            if self.settings.sandbox:
                video.deletes_ms = now + self.settings.sandbox_retention_s * 1000
                self._schedule(video.deletes_ms, video.video_id, "delete")
            if video.transcript_summary:
                self.summary_count += 1
                video.summary_id = data.summary_id(self.seed, self.summary_count)
            self.videos[video.video_id] = video
            if origin is not None and origin.probe is not None:
                self._copy_source(origin, video, now)
            self.version += 1
            return video

    def _copy_source(self, origin: Video, video: Video, now: int) -> None:
        if self.storage.exists(origin.video_id):
            with open(self.storage.source_path(origin.video_id), "rb") as src, \
                    open(self.storage.source_path(video.video_id), "wb") as dst:
                while chunk := src.read(1024 * 1024):
                    dst.write(chunk)
        video.copied_from = origin.video_id
        assert origin.upload is not None
        video.upload = UploadSession("single", origin.upload.received_bytes, [(0, origin.upload.received_bytes - 1)])
        self._start_timeline(video, now, origin.probe)

    def update_video(self, project: Project, video_id: str, body: dict[str, Any]) -> Video:
        fields = update_fields(body)
        with self.lock:
            video = self.video(project, video_id)
            for name, value in fields.items():
                setattr(video, name, value)
            video.updated_ms = self.clock.now_ms()
            self.version += 1
            return video

    def delete_video(self, project: Project, video_id: str) -> None:
        with self.lock:
            video = self.video(project, video_id)
            self._remove(video, self.clock.now_ms())

    def render(self, video: Video, base: str) -> dict[str, Any]:
        return to_json(video, base, self.settings.sandbox)

    def cached_list(self, project: Project, base: str, cache_key: str) -> bytes | None:
        """The rendered list page for this exact query if nothing changed since it was rendered."""
        self.catch_up()
        cached = self._list_cache.get((project.project_id, base, cache_key))
        if cached is not None and cached[0] == self.version:
            return cached[1]
        return None

    def list_videos(self, project: Project, query: dict[str, Any]) -> list[Video]:
        """The matching videos in the requested order."""
        self.catch_up()
        mine = project.project_id
        videos = [v for v in list(self.videos.values()) if v.project_id == mine and matches(v, query)]
        sort_by = query.get("sortBy") or "createdAt"
        reverse = query.get("sortOrder") == "desc"
        key: Callable[[Video], Any] = {
            "title": lambda v: (v.title, v.number),
            "createdAt": lambda v: (v.created_ms, v.number),
            "publishedAt": lambda v: (v.created_ms, v.number),
            "updatedAt": lambda v: (v.updated_ms, v.number),
        }[sort_by]
        videos.sort(key=key, reverse=reverse)
        return videos

    def cache_list(self, project: Project, base: str, cache_key: str, body: bytes, version: int) -> None:
        """Keep a rendered page for the version it was computed at (the sender thread may have moved on)."""
        if len(self._list_cache) > 256:
            self._list_cache.clear()
        self._list_cache[(project.project_id, base, cache_key)] = (version, body)

    # -- status (captions and summaries: transcripts.py) ----------------------------------------
    def status(self, project: Project, video_id: str, flagged: Flagged) -> dict[str, Any]:
        video = self.video(project, video_id)
        now = self.clock.now_ms()
        previous = self.status_polls.get(video_id)
        self.status_polls[video_id] = now
        if previous is not None and now - previous < self.settings.status_poll_interval_s * 1000:
            flagged.append((rules.STATUS_TIGHT_POLLING,
                            f"{video_id}: polled again after {(now - previous) / 1000:g} virtual seconds"))
        return status_of(video, now)

    # -- webhooks ------------------------------------------------------------------------------
    def subscribe(self, project: Project, body: dict[str, Any]) -> Subscription:
        refuse_unknown(body, frozenset({"events", "url"}))
        with self.lock:
            return self.webhooks.subscribe(project.project_id, body, self.clock.now_ms(),
                                           other_hosts=self.settings.webhook_other_hosts,
                                           allowed_hosts=self.settings.webhook_hosts)

    def subscription(self, project: Project, webhook_id: str) -> Subscription:
        sub = self.webhooks.subscriptions.get(webhook_id)
        if sub is None or sub.project_id != project.project_id:
            raise not_found("webhookId")
        return sub

    def unsubscribe(self, project: Project, webhook_id: str) -> None:
        with self.lock:
            self.subscription(project, webhook_id)
            del self.webhooks.subscriptions[webhook_id]

    # -- playback and usage --------------------------------------------------------------------
    def playable(self, video_id: str) -> Video | None:
        """A video whose assets can be served now (any project: assets need no key), or None."""
        self.catch_up()
        return self.videos.get(video_id)

    def watched(self, video: Video, seconds: float) -> None:
        with self.lock:
            self._usage(video.project_id).watched_seconds += max(0.0, seconds)

    def record_view(self, video_id: Any, seconds: Any) -> dict[str, Any]:
        if not isinstance(video_id, str) or video_id not in self.videos:
            raise ServiceError(404, f"no video {video_id!r}", code="not_found")
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds <= 10**9:
            raise ServiceError(400, "seconds must be a number between 0 and 1e9", code="invalid_view")
        video = self.videos[video_id]
        self.watched(video, float(seconds))
        return {"videoId": video_id, "project_id": video.project_id,
                "watched_seconds": self._usage(video.project_id).watched_seconds}

    def _stored_minute_ms(self, video: Video, until_ms: int) -> float:
        if video.probe is None or video.uploaded_ms is None:
            return 0.0
        return video.probe.duration_s / 60 * max(0, until_ms - video.uploaded_ms)

    def usage_report(self, project_id: str | None) -> dict[str, Any]:
        self.catch_up()
        now = self.clock.now_ms()
        ids = [project_id] if project_id is not None else list(self.projects.by_id)
        reports = {}
        for pid in ids:
            if pid not in self.projects.by_id:
                raise ServiceError(404, f"no project {pid!r}", code="not_found")
            kept = [v for v in list(self.videos.values()) if v.project_id == pid]
            open_ms = sum(self._stored_minute_ms(v, now) for v in kept)
            minutes_now = sum(v.probe.duration_s / 60 for v in kept if v.probe is not None)
            reports[pid] = report(self._usage(pid), open_ms, minutes_now, self.settings.price_table())
        return {"environment": self.settings.environment, "projects": reports}

    # -- state ---------------------------------------------------------------------------------
    def to_state(self) -> dict[str, Any]:
        self.catch_up()
        with self.lock:
            return {
                "projects": self.projects.to_state(),
                "videos": [v.to_state() for v in self.videos.values()],
                "video_count": self.video_count,
                "summary_count": self.summary_count,
                "webhooks": self.webhooks.to_state(),
                "usage": {pid: u.to_state() for pid, u in self.usage.items()},
                "buckets": [[bucket, kind, *window] for (bucket, kind), window in self.buckets.items()],
                "status_polls": dict(self.status_polls),
            }

    def load_state(self, state: dict[str, Any]) -> None:
        self.projects.load_state(state["projects"])
        for row in state["videos"]:
            video = Video.from_state(row)
            if video.project_id not in self.projects.by_id:
                raise ValueError(f"video {video.video_id} of unknown project")
            self.videos[video.video_id] = video
            if video.deletes_ms is not None:
                self._schedule(video.deletes_ms, video.video_id, "delete")
            if video.uploaded_ms is not None:
                video.timeline = self._timeline(video)
                # only what is still ahead: what the exporter's clock passed was emitted there
                now = self.clock.now_ms()
                for step in video.timeline.steps:
                    if step.end_ms > now:
                        self._schedule(step.end_ms, video.video_id, f"quality:{step.encoding}:{step.quality}")
                for instant, what in ((video.timeline.caption_ms, "caption"), (video.timeline.summary_ms, "summary")):
                    if instant is not None and instant > now:
                        self._schedule(instant, video.video_id, what)
        self.video_count = int(state["video_count"])
        self.summary_count = int(state["summary_count"])
        self.webhooks.load_state(state["webhooks"])
        self.usage = {str(pid): Usage.from_state(row) for pid, row in state["usage"].items()}
        self.buckets = {(str(b), str(k)): [int(start), int(count)] for b, k, start, count in state["buckets"]}
        self.status_polls = {str(k): int(v) for k, v in state["status_polls"].items()}
