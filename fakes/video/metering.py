"""Usage and plays of the model: minutes stored and watched, and the play sessions of analytics.

A mixin of :class:`fakes.video.model.VideoModel`. Minutes watched come from the fake's own
deliveries (HLS segments, MP4s, live segments), from ``POST /_fake/plays`` and from
``POST /_fake/views``; the first two are also analytics sessions (analytics.py). Minutes stored
are integrated over virtual time (usage.py).
"""

from __future__ import annotations

import hashlib
import math
import threading
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from fakes.kernel.clock import MAX_EPOCH_MS, Clock
from fakes.kernel.errors import ControlError, ServiceError

from .analytics import DEVICE_TYPES, Analytics, Query, Session, user_agent_facts
from .geo import CONTINENT_OF
from .live_streams import LiveStreams
from .projects import MAX_CUSTOM_DOMAINS, Projects
from .settings import VideoSettings
from .usage import Usage, report
from .videos import Video

PLAY_FIELDS = frozenset({"mediaId", "seconds", "viewer", "country", "deviceType", "operatingSystem", "browser",
                         "referrer", "at", "ended", "impressionTimeMs", "count"})
MAX_PLAYS = 10_000  # one request's plays (count included)


def bad_play(field: str, message: str) -> ControlError:
    return ControlError(400, f"{field}: {message}", code="invalid_play", field=field)


class MeteringRules:
    clock: Clock
    settings: VideoSettings
    lock: threading.RLock
    videos: dict[str, Video]
    projects: Projects
    live: LiveStreams
    analytics: Analytics
    usage: dict[str, Usage]

    # -- minutes watched -----------------------------------------------------------------------
    if TYPE_CHECKING:  # provided by the model or its other mixins
        def catch_up(self) -> None:
            ...

        def _usage(self, project_id: str) -> Usage:
            ...

    def watched(self, project_id: str, seconds: float) -> None:
        with self.lock:
            self._usage(project_id).watched_seconds += max(0.0, seconds)

    def record_view(self, video_id: Any, seconds: Any) -> dict[str, Any]:
        if not isinstance(video_id, str) or video_id not in self.videos:
            raise ServiceError(404, f"no video {video_id!r}", code="not_found")
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds <= 10**9:
            raise ServiceError(400, "seconds must be a number between 0 and 1e9", code="invalid_view")
        video = self.videos[video_id]
        self.watched(video.project_id, float(seconds))
        return {"videoId": video_id, "project_id": video.project_id,
                "watched_seconds": self._usage(video.project_id).watched_seconds}

    def delivered(self, media: Video | Any, *, client: str, agent: str, referrer: str, seconds: float,
                  ended: bool = False, impression: bool = False) -> None:
        """A delivery of the fake's player or HLS: minutes watched and the viewer's session."""
        is_video = isinstance(media, Video)
        media_id = str(media.video_id if is_video else media.live_stream_id)
        device, os_name, browser = user_agent_facts(agent)
        viewer = "v-" + hashlib.sha256(f"{client}|{agent}".encode()).hexdigest()[:16]
        now = self.clock.now_ms()
        with self.lock:
            if seconds:
                self._usage(media.project_id).watched_seconds += seconds
            template = Session(now, now, media.project_id, media_id, "video" if is_video else "live-stream", viewer,
                               self.settings.playback_country, device, os_name, browser, referrer[:2048],
                               delivered=True)
            self.analytics.delivered(template, seconds, ended=ended, impression=impression)

    # -- plays set up through the control plane ------------------------------------------------
    def add_plays(self, body: Any) -> dict[str, Any]:
        """``{"mediaId", "seconds", ...}`` or ``{"plays": [...]}``: every play checked first, then all
        recorded (or none)."""
        self.catch_up()
        batch = isinstance(body, dict) and set(body) == {"plays"}
        items = body["plays"] if batch else [body]
        if not isinstance(items, list) or not items:
            raise bad_play("plays", "must be a non-empty list of plays")
        sessions: list[Session] = []
        for index, item in enumerate(items):
            prefix = f"plays[{index}]." if batch else ""
            sessions += self._plays_of(item, prefix, MAX_PLAYS - len(sessions))
        with self.lock:
            for session in sessions:
                self.analytics.add(session)
                self._usage(session.project_id).watched_seconds += session.seconds
        return {"recorded": len(sessions), "watched_seconds": round(sum(s.seconds for s in sessions), 3)}

    def _plays_of(self, item: Any, prefix: str, room: int) -> list[Session]:
        if not isinstance(item, dict):
            raise bad_play(prefix.rstrip(".") or "body", "a play is an object")
        unknown = sorted(set(item) - PLAY_FIELDS)
        if unknown:
            raise bad_play(prefix + unknown[0], f"is not a field of a play ({', '.join(sorted(PLAY_FIELDS))})")
        media_id = item.get("mediaId")
        if not isinstance(media_id, str):
            raise bad_play(prefix + "mediaId", "is required: the videoId or liveStreamId played")
        video = self.videos.get(media_id)
        stream = self.live.by_id.get(media_id)
        if video is None and stream is None:
            raise ControlError(404, f"{prefix}mediaId: no video or live stream {str(media_id)[:60]!r}",
                               code="not_found", field=prefix + "mediaId")
        duration = video.probe.duration_s if video is not None and video.probe is not None else None
        seconds = _number(item, "seconds", prefix, duration if duration is not None else 0.0, 0, 86_400)
        now = self.clock.now_ms()
        at = _instant(item.get("at"), prefix + "at", now)
        count = _number(item, "count", prefix, 1, 1, MAX_PLAYS)
        if count != int(count) or count > room:
            raise bad_play(prefix + "count", f"must be a whole number; one request records at most {MAX_PLAYS} plays")
        # watched to the end: by default, a play that reached the video's last second
        ended = item.get("ended", duration is not None and seconds >= duration - 1)
        if not isinstance(ended, bool):
            raise bad_play(prefix + "ended", "must be true or false")
        country = _text(item, "country", prefix, self.settings.playback_country, 2)
        if country not in CONTINENT_OF:
            raise bad_play(prefix + "country", "must be an ISO 3166 alpha-2 country code, e.g. FR")
        device = _text(item, "deviceType", prefix, "computer", 20)
        if device not in DEVICE_TYPES:
            raise bad_play(prefix + "deviceType", f"must be one of {', '.join(DEVICE_TYPES)}")
        impression_ms = _number(item, "impressionTimeMs", prefix, 500, 0, 3_600_000)
        media = video if video is not None else stream
        assert media is not None
        project = media.project_id
        facts = (_text(item, "operatingSystem", prefix, "windows", 100), _text(item, "browser", prefix, "chrome", 100),
                 _text(item, "referrer", prefix, "", 2048))
        viewer = item.get("viewer")
        if viewer is not None and (not isinstance(viewer, str) or not 1 <= len(viewer) <= 200):
            raise bad_play(prefix + "viewer", "must be a text of 1 to 200 characters")
        made = []
        for number in range(int(count)):
            who = viewer or f"viewer-{sum(len(s) for s in self.analytics.sessions.values()) + number + 1}"
            made.append(Session(at, at, project, str(media_id), "video" if video is not None else "live-stream", who,
                                country, device, facts[0], facts[1], facts[2], float(seconds), ended,
                                int(impression_ms)))
        return made

    # -- analytics queries ---------------------------------------------------------------------
    def analytics_value(self, project_id: str, metric: str, aggregation: str, query: Query) -> float:
        self.catch_up()
        return self.analytics.value(project_id, metric, aggregation, query)

    def tagged_media(self, project_id: str, tag: str) -> frozenset[str]:
        return frozenset(v.video_id for v in self.videos.values() if v.project_id == project_id and tag in v.tags)

    # -- usage ---------------------------------------------------------------------------------
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
            project = self.projects.by_id[pid]
            domains = (project.custom_domains, project.custom_domains * max(0, now - project.domains_since_ms))
            reports[pid] = report(self._usage(pid), open_ms, minutes_now, self.settings.price_table(), domains,
                                  self.settings.custom_domain_month_eur)
        return {"environment": self.settings.environment, "projects": reports}

    @staticmethod
    def check_custom_domains(count: Any) -> None:
        if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= MAX_CUSTOM_DOMAINS:
            raise ControlError(400, f"custom_domains must be a whole number from 0 to {MAX_CUSTOM_DOMAINS}",
                               code="invalid_project", field="custom_domains")

    def set_custom_domains(self, project_id: Any, count: Any) -> dict[str, Any]:
        """A project's extra custom domains from now on (the time before is billed at the count it had)."""
        project = self.projects.by_id.get(project_id) if isinstance(project_id, str) else None
        if project is None:
            raise ControlError(404, f"no project {str(project_id)[:60]!r}", code="not_found")
        self.check_custom_domains(count)
        with self.lock:
            now = self.clock.now_ms()
            self._usage(project.project_id).closed_domain_ms += \
                project.custom_domains * max(0, now - project.domains_since_ms)
            project.custom_domains, project.domains_since_ms = count, now
        return {"project_id": project.project_id, "custom_domains": count}


def _number(item: dict[str, Any], name: str, prefix: str, default: float, low: float, high: float) -> float:
    value = item.get(name, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not low <= value <= high:
        raise bad_play(prefix + name, f"must be a number from {low:g} to {high:g}")
    return float(value)


def _text(item: dict[str, Any], name: str, prefix: str, default: str, limit: int) -> str:
    value = item.get(name, default)
    if not isinstance(value, str) or len(value) > limit:
        raise bad_play(prefix + name, f"must be a text of at most {limit} characters")
    return value


def _instant(value: Any, field: str, now_ms: int) -> int:
    """A play's instant: ISO 8601 text or epoch milliseconds, not after now (default: now)."""
    if value is None:
        return now_ms
    if isinstance(value, int) and not isinstance(value, bool):
        instant = value
    elif isinstance(value, str) and len(value) <= 40:
        parsed = parse_instant(value)
        if parsed is None:
            raise bad_play(field, "must be an ISO 8601 date-time (2026-01-05T09:00:00+00:00) or epoch milliseconds")
        instant = parsed
    else:
        raise bad_play(field, "must be an ISO 8601 date-time or epoch milliseconds")
    if not 0 <= instant <= now_ms:
        raise bad_play(field, "must be an instant from 1970 up to the fake's now (plays happen in the past)")
    return instant


def parse_instant(text: str, *, clamp: bool = False) -> int | None:
    """Epoch ms of an ISO 8601 date or date-time (``Z``, ``+01:00`` or ``+0100``; no offset: UTC);
    None if it is none, or (unless ``clamp``: then the nearest) outside 1970 to year 9999."""
    text = text.upper() if "T" in text.upper() else text  # RFC 3339 allows a lower-case t and z
    try:
        moment = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        instant = round(moment.timestamp() * 1000)
    except (OverflowError, ValueError):
        return None
    if clamp:
        return min(max(instant, 0), MAX_EPOCH_MS)
    return instant if 0 <= instant <= MAX_EPOCH_MS else None
