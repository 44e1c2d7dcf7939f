"""The video service's state and rules: the model object composing the service's concepts.

Plain Python, no HTTP; time only from the fake's clock. The concepts live in their own modules
and the model holds one of each: projects and keys (projects.py), videos (videos.py), uploads
(uploads.py, ingest.py), summaries, attachments (captions, chapters, thumbnails), player themes,
watermarks, upload tokens, live streams, analytics, webhooks and usage; the rules that span
several concepts are the model's own, grouped in mixins (uploads.py, media_rules.py,
live_rules.py, metering.py) and this module (videos, discarding, tags, status).

Transitions are instants: every timeline instant (quality encoded, captions), summary, broadcast
end, sandbox deletion and discarded-video purge goes into one heap, and :meth:`catch_up` pops what
the clock has passed, in time order, emitting webhook deliveries and counting usage. Reads call it
first, so they always see the present; the fake also calls it when its clock is moved and, while
webhooks are subscribed, from its delivery thread.
"""

from __future__ import annotations

import contextlib
import heapq
import os
import re
import shutil
import threading
from collections.abc import Callable
from typing import Any

from fakes.kernel.clock import Clock
from fakes.kernel.errors import ControlError, ServiceError
from fakes.kernel.verdicts import ClientRule

from . import data, rules, state
from .analytics import Analytics
from .attachments import Attachments
from .ingest import Storage, UploadSession, storage_room
from .live_rules import LiveRules
from .live_streams import LiveStreams
from .media_rules import MediaRules
from .metering import MeteringRules
from .payloads import creation_fields, refuse_unknown, update_fields
from .players import Players
from .problems import invalid_attribute, not_found, too_many_requests
from .projects import Project, Projects
from .settings import VideoSettings
from .summaries import Summaries, already_exists
from .upload_tokens import UploadTokens
from .uploads import UploadRules
from .usage import Usage
from .videos import Video, atom, later, matches, status_of, tag_counts, to_json
from .watermarks import Watermarks
from .webhooks import Delivery, Subscription, Webhooks

Flagged = list[tuple[ClientRule, str]]
WINDOW_MS = 60_000
#: the longest query + base URL of a list page kept rendered
MAX_CACHED_LIST_KEY = 2048
VIDEO_ID = re.compile(r"vi[0-9A-Za-z]{22}")
SORT_FIELDS = ("title", "createdAt", "publishedAt", "updatedAt")
_SORT_KEYS: dict[str, Callable[[Video], Any]] = {
    "title": lambda v: (v.title, v.number),
    "createdAt": lambda v: (v.created_ms, v.number),
    "publishedAt": lambda v: (v.created_ms, v.number),
    "updatedAt": lambda v: (v.updated_ms, v.number),
}


class VideoModel(UploadRules, MediaRules, LiveRules, MeteringRules):
    def __init__(self, clock: Clock, settings: VideoSettings, seed: int) -> None:
        self.clock = clock
        self.settings = settings
        self.limits = settings.limits()  # per kind of request; settings never change under a model
        self.seed = seed
        self.lock = threading.RLock()
        self.projects = Projects(seed, settings.environment, settings.token_lifetime_s)
        self.videos: dict[str, Video] = {}
        self.video_count = 0
        self.summaries = Summaries(seed, settings)
        self.attachments = Attachments()
        self.players = Players(seed)
        self.watermarks = Watermarks(seed)
        self.upload_tokens = UploadTokens(seed)
        self.live = LiveStreams(seed)
        self.analytics = Analytics()
        self.webhooks = Webhooks(seed)
        self.storage = Storage()
        self.usage: dict[str, Usage] = {}
        self.buckets: dict[tuple[str, str], list[int]] = {}
        self.status_polls: dict[str, int] = {}
        self.version = 0  # bumped by every change a video list could show
        self.pending: list[Delivery] = []  # made by catch-up, not yet handed to the sender
        self._agenda: list[tuple[int, int, str, str]] = []  # (instant, order, subject id, what)
        self._agenda_seq = 0
        self._list_cache: dict[tuple[str, str, str], tuple[int, bytes]] = {}
        self._tag_cache: dict[tuple[str, str | None, str, bool], tuple[int, list[dict[str, Any]]]] = {}

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
                instant, _, subject, what = heapq.heappop(agenda)
                self._apply(instant, subject, what)

    def _schedule(self, instant: int, subject: str, what: str) -> None:
        self._agenda_seq += 1
        heapq.heappush(self._agenda, (instant, self._agenda_seq, subject, what))

    def _apply(self, instant: int, subject: str, what: str) -> None:
        if what == "summary":
            self._summary_ready(subject, instant)
            return
        if what == "broadcast-end":
            self._broadcast_end(subject, instant)
            return
        video = self.videos.get(subject)
        if video is None:
            return
        if what == "delete" or (what == "purge" and video.purge_ms == instant):
            self._remove(video, instant)
        elif what.startswith(("quality", "caption")) and not video.discarded and \
                (video.deletes_ms is None or instant < video.deletes_ms):
            self._transition(video, what, instant)

    def _transition(self, video: Video, what: str, instant: int) -> None:
        kind, _, detail = what.partition(":")
        if kind == "quality":
            encoding, _, quality = detail.partition(":")
            self._emit(video, "video.encoding.quality.completed", {"encoding": encoding, "quality": quality}, instant)
        elif kind == "caption":
            self._detect_language(video)
            if video.transcript:
                self._usage(video.project_id).transcript_minutes += self._minutes(video)
                self._emit(video, "video.caption.generated", {"language": video.language}, instant)

    def _detect_language(self, video: Video) -> None:
        if video.language is None:
            video.language, video.language_origin = "en", "auto"
            self.version += 1

    def _emit(self, video: Video, event: str, payload: dict[str, Any], instant: int) -> None:
        self.emit(video.project_id, event, {"videoId": video.video_id, **payload}, instant)

    def emit(self, project_id: str, event: str, payload: dict[str, Any], instant: int) -> None:
        self.pending.extend(self.webhooks.emit(project_id, event, payload, instant, atom(instant)))

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
        self.attachments.forget(video.video_id)
        self.summaries.forget_video(video.video_id)
        self.upload_tokens.forget_video(video.video_id)
        self.version += 1

    def _usage(self, project_id: str) -> Usage:
        usage = self.usage.get(project_id)
        if usage is None:
            usage = self.usage[project_id] = Usage()
        return usage

    @staticmethod
    def _minutes(video: Video) -> float:
        return (video.probe.duration_s / 60) if video.probe else 0.0

    # -- projects and auth ---------------------------------------------------------------------
    def create_project(self, *, rate_limited: bool = True, keeps_discarded: bool | None = None) -> dict[str, Any]:
        keep = self.settings.keep_discarded_videos if keeps_discarded is None else keeps_discarded
        with self.lock:
            project = self.projects.create(self.clock.now_ms(), rate_limited=rate_limited, keeps_discarded=keep)
            return {"project_id": project.project_id, "sandbox_key": project.sandbox_key,
                    "production_key": project.production_key, "keeps_discarded": project.keeps_discarded}

    def set_keeps_discarded(self, project_id: Any, keeps_discarded: bool) -> dict[str, Any]:
        project = self.projects.by_id.get(project_id) if isinstance(project_id, str) else None
        if project is None:
            raise ControlError(404, f"no project {str(project_id)[:60]!r}", code="not_found")
        with self.lock:
            project.keeps_discarded = keeps_discarded
        return {"project_id": project.project_id, "keeps_discarded": keeps_discarded}

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
        """A video of the project (a discarded one is not found here: see discarded_video)."""
        self.catch_up()
        video = self.videos.get(video_id)
        if video is None or video.project_id != project.project_id or video.discarded_ms is not None:
            raise not_found("videoId")
        return video

    def create_video(self, project: Project, body: dict[str, Any]) -> Video:
        fields = creation_fields(body)
        source = body.get("source")
        with self.lock:
            self.catch_up()
            self.players.check_reference(project.project_id, fields.get("player_id"))
            self.watermarks.check_reference(project.project_id, fields.get("watermark"))
            origin = None
            if source is not None:
                if not isinstance(source, str) or not VIDEO_ID.fullmatch(source):
                    raise invalid_attribute("source", "this fake copies the source of an uploaded video of the "
                                                      "project (its videoId); it cannot download URLs")
                origin = self.videos.get(source)
                if origin is None or origin.project_id != project.project_id or origin.discarded:
                    raise not_found("source")
                if origin.uploaded_ms is None or origin.failed:
                    raise invalid_attribute("source", "the video to copy has no playable source")
            copied = self._copy_file(origin) if origin is not None and origin.probe is not None else None
            video = self.new_video(project.project_id, fields)
            if origin is not None and origin.probe is not None:
                self._copy_source(origin, video, video.created_ms, copied)
            return video

    def new_video(self, project_id: str, fields: dict[str, Any], at_ms: int | None = None) -> Video:
        """A new video of the project from checked fields (its summary too, when asked for),
        created now or at ``at_ms`` (a recording: the instant its broadcast ended)."""
        now = self.clock.now_ms() if at_ms is None else at_ms
        self.video_count += 1
        while data.video_id(self.seed, self.video_count) in self.videos:
            self.video_count += 1  # an imported state may hold ids of numbers ahead of its count
        video = Video(data.video_id(self.seed, self.video_count), project_id, self.video_count, now,
                      updated_ms=now, **fields)
        if self.settings.sandbox:
            video.deletes_ms = later(now, self.settings.sandbox_retention_s * 1000)
            self._schedule(video.deletes_ms, video.video_id, "delete")
        self.videos[video.video_id] = video
        if video.transcript_summary:
            self.summaries.create(video, now, video.summary_attributes)
        self.version += 1
        return video

    def _copy_file(self, origin: Video) -> str | None:
        """A copy of the origin's source file, made before the new video exists (a full directory
        refuses the request with nothing created); None when it has no file."""
        if not self.storage.exists(origin.video_id):
            return None
        copy = self.storage.trial_path(f"copy-{origin.video_id}")
        with storage_room():
            try:
                shutil.copyfile(self.storage.source_path(origin.video_id), copy)
            except OSError:
                with contextlib.suppress(OSError):
                    os.remove(copy)
                raise
        return copy

    def _copy_source(self, origin: Video, video: Video, now: int, copied: str | None) -> None:
        if copied is not None:
            os.replace(copied, self.storage.source_path(video.video_id))
        video.copied_from = origin.video_id
        assert origin.upload is not None
        video.upload = UploadSession("single", origin.upload.received_bytes, [(0, origin.upload.received_bytes - 1)])
        self._start_timeline(video, now, origin.probe)

    def update_video(self, project: Project, video_id: str, body: dict[str, Any]) -> Video:
        fields = update_fields(body)
        with self.lock:
            video = self.video(project, video_id)
            self.players.check_reference(project.project_id, fields.get("player_id"))
            summary_asked = fields.get("transcript_summary") is True
            if summary_asked and self.summaries.of_video(video_id) is not None:
                raise already_exists("transcriptSummary")
            now = self.clock.now_ms()
            for name, value in fields.items():
                setattr(video, name, value)
            if summary_asked:
                self.add_summary(video, video.summary_attributes, now)
            video.updated_ms = now
            self.version += 1
            return video

    def delete_video(self, project: Project, video_id: str) -> None:
        """Delete, or discard where the project keeps discarded videos (restorable until purged)."""
        with self.lock:
            video = self.video(project, video_id)
            now = self.clock.now_ms()
            if not project.keeps_discarded:
                self._remove(video, now)
                return
            video.discarded_ms = now
            video.purge_ms = later(now, self.settings.discarded_retention_s * 1000)
            self._schedule(video.purge_ms, video.video_id, "purge")
            self.status_polls.pop(video_id, None)
            self.version += 1

    def playable(self, video_id: str) -> Video | None:
        """A video whose assets can be served now (any project: assets need no key), or None."""
        self.catch_up()
        video = self.videos.get(video_id)
        return None if video is None or video.discarded else video

    def discarded_video(self, project: Project, video_id: str) -> Video:
        self.catch_up()
        video = self.videos.get(video_id)
        if video is None or video.project_id != project.project_id or video.discarded_ms is None:
            raise not_found("videoId")
        return video

    def update_discarded(self, project: Project, video_id: str, body: dict[str, Any]) -> Video:
        refuse_unknown(body, frozenset({"discarded"}))
        if "discarded" in body and body["discarded"] is not False:
            raise invalid_attribute("discarded", "Value must be false.")
        with self.lock:
            video = self.discarded_video(project, video_id)
            if body.get("discarded") is False:
                video.discarded_ms = video.purge_ms = None
                video.updated_ms = self.clock.now_ms()
                self.version += 1
            return video

    def render(self, video: Video, base: str) -> dict[str, Any]:
        return to_json(video, base, self.settings.sandbox)

    def cached_list(self, project: Project, base: str, cache_key: str) -> bytes | None:
        """The rendered list page for this exact query if nothing changed since it was rendered."""
        self.catch_up()
        cached = self._list_cache.get((project.project_id, base, cache_key))
        if cached is not None and cached[0] == self.version:
            return cached[1]
        return None

    def list_videos(self, project: Project, query: dict[str, Any], *, discarded: bool = False) -> list[Video]:
        """The matching videos (or discarded videos) in the requested order."""
        self.catch_up()
        mine = project.project_id
        videos = [v for v in list(self.videos.values())
                  if v.project_id == mine and (v.discarded_ms is not None) == discarded and matches(v, query)]
        videos.sort(key=_SORT_KEYS[query.get("sortBy") or "createdAt"], reverse=query.get("sortOrder") == "desc")
        return videos

    def cache_list(self, project: Project, base: str, cache_key: str, body: bytes, version: int) -> None:
        """Keep a rendered page for the version it was computed at (the sender thread may have moved on);
        not a page of a long query or base (a client's, they would fill the keys)."""
        if len(cache_key) + len(base) > MAX_CACHED_LIST_KEY:
            return
        if len(self._list_cache) > 256:
            self._list_cache.clear()
        self._list_cache[(project.project_id, base, cache_key)] = (version, body)

    def tags(self, project: Project, value: str | None, sort_by: str, descending: bool) -> list[dict[str, Any]]:
        """The project's tags with the number of (not discarded) videos carrying each (kept, like a
        list page, while no video changes: shared, read only)."""
        self.catch_up()
        key = (project.project_id, value, sort_by, descending)
        cached = self._tag_cache.get(key)
        if cached is not None and cached[0] == self.version:
            return cached[1]
        rows = tag_counts(self.list_videos(project, {}), value, sort_by, descending)
        if len(self._tag_cache) > 256:
            self._tag_cache.clear()
        self._tag_cache[key] = (self.version, rows)
        return rows

    # -- status --------------------------------------------------------------------------------
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

    # -- state ---------------------------------------------------------------------------------
    def to_state(self) -> dict[str, Any]:
        self.catch_up()
        with self.lock:
            return state.export(self)

    def load_state(self, exported: dict[str, Any]) -> None:
        state.load(self, exported)
