"""The video object: its fields, the creation and update payloads, and its JSON.

Field names, types and URL shapes follow the reference's ``video`` schema; timestamps are ATOM
(``2024-05-28T11:15:07+00:00``). Asset URLs point at the base the fake is served on (or the
``public_base_url`` setting), never at the vendor's CDN.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

from fakes.kernel.clock import MAX_EPOCH_MS, utc_datetime
from fakes.kernel.statecheck import StateReader, check_text, refuse

from . import data
from .ingest import UploadSession
from .probe import Probe
from .timeline import Timeline

SUMMARY_ATTRIBUTES = ("abstract", "takeaways")
COMMON_FIELDS = ("description", "public", "panoramic", "mp4Support", "playerId", "tags", "metadata", "language",
                 "transcript", "transcriptSummary", "transcriptSummaryAttributes")
CREATION_FIELDS = frozenset({"title", "source", "clip", "watermark", *COMMON_FIELDS})
UPDATE_FIELDS = frozenset({"title", *COMMON_FIELDS})
CLIP_FIELDS = frozenset({"startTimecode", "endTimecode"})
WATERMARK_FIELDS = frozenset({"id", "top", "left", "bottom", "right", "width", "height", "opacity"})
MAX_TEXT = 10_000
PLAYER_ID = re.compile(r"pl[0-9A-Za-z]{22}")
MAX_ITEMS = 100


def atom(epoch_ms: int) -> str:
    """ATOM timestamp (seconds, ``+00:00``) as the reference writes them (instants past the end
    of year 9999, which a derived instant could reach, are written as its last second)."""
    return _atom_seconds(min(max(epoch_ms, 0), MAX_EPOCH_MS) // 1000)


def later(now_ms: int, delay_ms: int) -> int:
    """An instant ``delay_ms`` after ``now_ms``, never past the last instant the clock may reach."""
    return min(MAX_EPOCH_MS, now_ms + delay_ms)


@functools.lru_cache(maxsize=4096)
def _atom_seconds(epoch_s: int) -> str:
    # a video renders the same few instants over and over (on a manual clock, all the same one)
    # the kernel's exact, clamped conversion: a deletesAt past year 9999 is still written
    return utc_datetime(epoch_s * 1000).strftime("%Y-%m-%dT%H:%M:%S+00:00")


@dataclass
class Video:
    video_id: str
    project_id: str
    number: int
    created_ms: int
    title: str
    description: str = ""
    tags: list[str] = field(default_factory=list)
    metadata: list[dict[str, str]] = field(default_factory=list)
    public: bool = True
    panoramic: bool = False
    mp4_support: bool = True
    player_id: str | None = None
    language: str | None = None
    language_origin: str | None = None
    transcript: bool = False
    transcript_summary: bool = False
    summary_attributes: list[str] = field(default_factory=lambda: list(SUMMARY_ATTRIBUTES))
    clip: dict[str, Any] | None = None
    watermark: dict[str, Any] | None = None
    updated_ms: int = 0
    deletes_ms: int | None = None
    upload: UploadSession | None = None
    uploaded_ms: int | None = None  # the instant the source became complete
    probe: Probe | None = None
    failed: bool = False  # the source is not media: ingested, then encoding failed
    copied_from: str | None = None
    live_stream_id: str | None = None  # the live stream this video recorded
    discarded_ms: int | None = None  # deleted with the project's discarded-video retention on
    purge_ms: int | None = None  # when a discarded video goes for good
    timeline: Timeline | None = None  # derived from the above; rebuilt on load

    @property
    def discarded(self) -> bool:
        return self.discarded_ms is not None

    def to_state(self) -> dict[str, Any]:
        state = {k: v for k, v in vars(self).items() if k not in ("upload", "probe", "timeline")}
        state["upload"] = self.upload.to_state() if self.upload else None
        state["probe"] = self.probe.to_state() if self.probe else None
        return state

    @classmethod
    def from_state(cls, read: StateReader) -> Video:
        """A video of an imported state, every field checked (a refusal names it)."""
        read.only((*STATE_FIELDS, "upload", "probe"))
        def instant(name: str) -> int:
            return read.integer(name, minimum=0, maximum=MAX_EPOCH_MS)  # type: ignore[no-any-return]

        def optional_instant(name: str) -> int | None:
            return read.integer(name, minimum=0, maximum=MAX_EPOCH_MS, nullable=True)  # type: ignore[no-any-return]

        video = cls(
            video_id=read.text("video_id", pattern=VIDEO_ID_PATTERN),
            project_id=read.text("project_id", max_length=64),
            number=read.integer("number", minimum=1, maximum=MAX_COUNT),
            created_ms=instant("created_ms"),
            title=read.text("title", min_length=1, max_length=1000),
            description=read.text("description", max_length=MAX_TEXT),
            tags=_state_tags(read),
            metadata=_state_metadata(read),
            public=read.boolean("public"),
            panoramic=read.boolean("panoramic"),
            mp4_support=read.boolean("mp4_support"),
            player_id=read.text("player_id", pattern=PLAYER_ID.pattern, nullable=True),
            language=_state_choice(read, "language", data.LANGUAGES),
            language_origin=_state_choice(read, "language_origin", ("api", "auto")),
            transcript=read.boolean("transcript"),
            transcript_summary=read.boolean("transcript_summary"),
            summary_attributes=_state_attributes(read),
            clip=_state_strings(read, "clip", CLIP_FIELDS),
            watermark=_state_strings(read, "watermark", WATERMARK_FIELDS),
            updated_ms=instant("updated_ms"),
            deletes_ms=optional_instant("deletes_ms"),
            uploaded_ms=optional_instant("uploaded_ms"),
            failed=read.boolean("failed"),
            copied_from=read.text("copied_from", pattern=VIDEO_ID_PATTERN, nullable=True),
            live_stream_id=read.text("live_stream_id", pattern=r"li[0-9A-Za-z]{22}", nullable=True),
            discarded_ms=optional_instant("discarded_ms"),
            purge_ms=optional_instant("purge_ms"),
        )
        video.upload = None if read.raw("upload") is None else UploadSession.from_state(read.object("upload"))
        video.probe = None if read.raw("probe") is None else Probe.from_state(read.object("probe"))
        if video.uploaded_ms is not None and video.upload is None:
            refuse(read.where("upload"), "must describe the received source of an uploaded video")
        if video.uploaded_ms is None and (video.probe is not None or video.failed):
            refuse(read.where("uploaded_ms"), "is null but the video has a probed source")
        if video.uploaded_ms is not None and video.probe is None and not video.failed:
            refuse(read.where("probe"), "is null for an uploaded source that did not fail")
        if (video.discarded_ms is None) != (video.purge_ms is None):
            refuse(read.where("purge_ms"), "is set exactly when discarded_ms is")
        return video


STATE_FIELDS = ("video_id", "project_id", "number", "created_ms", "title", "description", "tags", "metadata",
                "public", "panoramic", "mp4_support", "player_id", "language", "language_origin", "transcript",
                "transcript_summary", "summary_attributes", "clip", "watermark", "updated_ms", "deletes_ms",
                "uploaded_ms", "failed", "copied_from", "live_stream_id", "discarded_ms", "purge_ms")
VIDEO_ID_PATTERN = r"vi[0-9A-Za-z]{22}"
MAX_COUNT = 10**12


def _state_tags(read: StateReader) -> list[str]:
    tags = read.array("tags", max_items=MAX_ITEMS)
    for index, tag in enumerate(tags):
        check_text(tag, f"{read.where('tags')}[{index}]", max_length=255)
    return list(tags)


def _state_metadata(read: StateReader) -> list[dict[str, str]]:
    pairs = []
    for item in read.objects("metadata", max_items=MAX_ITEMS):
        item.only(("key", "value"))
        pairs.append({"key": item.text("key", min_length=1, max_length=255),
                      "value": item.text("value", max_length=1000)})
    return pairs


def _state_choice(read: StateReader, name: str, choices: tuple[str, ...]) -> str | None:
    return None if read.raw(name) is None else read.choice(name, choices)


def _state_attributes(read: StateReader) -> list[str]:
    values = read.array("summary_attributes", max_items=len(SUMMARY_ATTRIBUTES))
    if not values or any(v not in SUMMARY_ATTRIBUTES for v in values) or len(set(values)) != len(values):
        refuse(read.where("summary_attributes"), "must be a non-empty list of abstract and takeaways")
    return list(values)


def _state_strings(read: StateReader, name: str, allowed: frozenset[str]) -> dict[str, Any] | None:
    if read.raw(name) is None:
        return None
    inner = read.object(name).only(allowed)
    return {key: inner.text(key, max_length=100) for key in inner.value}


# -- rendering -----------------------------------------------------------------------------------
def assets(video_id: str, base: str, mp4: bool) -> dict[str, str]:
    player = f"{base}/vod/{video_id}"
    found = {
        "iframe": f'<iframe src="{player}" width="100%" height="100%" frameborder="0" scrolling="no" '
                  'allowfullscreen=""></iframe>',
        "player": player,
        "hls": f"{base}/vod/{video_id}/hls/manifest.m3u8",
        "thumbnail": f"{base}/vod/{video_id}/thumbnail.jpg",
    }
    if mp4:
        found["mp4"] = f"{base}/vod/{video_id}/mp4/source.mp4"
    return found


def to_json(video: Video, base: str, sandbox: bool) -> dict[str, Any]:
    """The reference's video object (plus ``watermarked``, the sandbox's watermark flag)."""
    deletes = video.deletes_ms
    if video.purge_ms is not None:
        deletes = video.purge_ms if deletes is None else min(deletes, video.purge_ms)
    body: dict[str, Any] = {
        "videoId": video.video_id,
        "createdAt": atom(video.created_ms),
        "title": video.title,
        "description": video.description,
        "publishedAt": atom(video.created_ms),
        "updatedAt": atom(video.updated_ms or video.created_ms),
        "discardedAt": atom(video.discarded_ms) if video.discarded_ms is not None else None,
        "deletesAt": atom(deletes) if deletes is not None else None,
        "discarded": video.discarded,
        "languageOrigin": video.language_origin,
        "tags": list(video.tags),
        "metadata": [dict(pair) for pair in video.metadata],
        "source": {"uri": f"/videos/{video.video_id}/source"},
        "assets": assets(video.video_id, base, video.mp4_support),
        "public": video.public,
        "panoramic": video.panoramic,
        "mp4Support": video.mp4_support,
        "watermarked": sandbox,
    }
    if video.language is not None:
        body["language"] = video.language
    if video.player_id is not None:
        body["playerId"] = video.player_id
    if video.live_stream_id is not None:
        body["source"]["type"] = "live"
        body["source"]["liveStream"] = {"liveStreamId": video.live_stream_id, "links": [
            {"rel": "self", "uri": f"/live-streams/{video.live_stream_id}"}]}
    elif video.uploaded_ms is not None:
        body["source"]["type"] = "upload"
    if video.clip is not None:
        body["clip"] = video.clip
    if video.watermark is not None:
        body["watermark"] = video.watermark
    return body


def status_of(video: Video, now: int) -> dict[str, Any]:
    """The reference's status object at ``now``."""
    empty_metadata = {"width": None, "height": None, "bitrate": None, "duration": None, "framerate": None,
                      "samplerate": None, "videoCodec": None, "audioCodec": None, "aspectRatio": None}
    session = video.upload
    timeline = video.timeline
    body: dict[str, Any] = {}
    if session is not None:
        ingest = {"status": "uploading" if timeline is None else timeline.ingest_status(now),
                  **session.ingest_figures()}
        body["ingest"] = ingest
    if timeline is None:
        body["encoding"] = {"playable": False, "qualities": [], "metadata": empty_metadata}
        return body
    ingested = now >= timeline.ingested_ms
    metadata = video.probe.metadata() if (video.probe is not None and ingested) else empty_metadata
    playable = timeline.playable_ms is not None and now >= timeline.playable_ms
    body["encoding"] = {"playable": playable, "qualities": timeline.qualities(now), "metadata": metadata}
    return body


def matches(video: Video, query: dict[str, Any]) -> bool:
    title = query.get("title")
    if title is not None and title.lower() not in video.title.lower():
        return False
    description = query.get("description")
    if description is not None and description.lower() not in video.description.lower():
        return False
    tags = query.get("tags")
    if tags and not set(tags) <= set(video.tags):
        return False
    metadata = query.get("metadata")
    if metadata:
        pairs = {(m["key"], m["value"]) for m in video.metadata}
        if not all((k, v) in pairs for k, v in metadata.items()):
            return False
    live = query.get("liveStreamId")
    return live is None or live == video.live_stream_id


def tag_counts(videos: list[Video], value: str | None, sort_by: str, descending: bool) -> list[dict[str, Any]]:
    """``[{value, videoCount}]`` of these videos' tags (``value``: a case-insensitive substring)."""
    counts: dict[str, int] = {}
    for video in videos:
        for tag in dict.fromkeys(video.tags):
            counts[tag] = counts.get(tag, 0) + 1
    wanted = (value or "").lower()
    rows: list[dict[str, Any]] = [{"value": tag, "videoCount": count} for tag, count in counts.items()
                                  if wanted in tag.lower()]
    if sort_by == "videoCount":  # ties by value, A to Z either way
        rows.sort(key=lambda r: (-r["videoCount"] if descending else r["videoCount"], r["value"]))
    else:
        rows.sort(key=lambda r: r["value"], reverse=descending)
    return rows
