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

from fakes.kernel.clock import utc_datetime

from . import data
from .ingest import UploadSession
from .probe import Probe
from .problems import attribute_required, invalid_attribute
from .timeline import Timeline

SUMMARY_ATTRIBUTES = ("abstract", "takeaways")
COMMON_FIELDS = ("description", "public", "panoramic", "mp4Support", "playerId", "tags", "metadata", "language",
                 "transcript", "transcriptSummary", "transcriptSummaryAttributes")
CREATION_FIELDS = frozenset({"title", "source", "clip", "watermark", *COMMON_FIELDS})
UPDATE_FIELDS = frozenset({"title", *COMMON_FIELDS})
CLIP_FIELDS = frozenset({"startTimecode", "endTimecode"})
WATERMARK_FIELDS = frozenset({"id", "top", "left", "bottom", "right", "width", "height", "opacity"})
MAX_TEXT = 10_000
PLAYER_ID = re.compile(r"pt[0-9A-Za-z]{1,40}")
MAX_ITEMS = 100


def atom(epoch_ms: int) -> str:
    """ATOM timestamp (seconds, ``+00:00``) as the reference writes them."""
    return _atom_seconds(epoch_ms // 1000)


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
    summary_id: str | None = None
    copied_from: str | None = None
    timeline: Timeline | None = None  # derived from the above; rebuilt on load

    def to_state(self) -> dict[str, Any]:
        state = {k: v for k, v in vars(self).items() if k not in ("upload", "probe", "timeline")}
        state["upload"] = self.upload.to_state() if self.upload else None
        state["probe"] = self.probe.to_state() if self.probe else None
        return state

    @classmethod
    def from_state(cls, row: dict[str, Any]) -> Video:
        fields = {k: v for k, v in row.items() if k not in ("upload", "probe", "timeline")}
        video = cls(**fields)
        video.upload = UploadSession.from_state(row["upload"]) if row["upload"] else None
        video.probe = Probe.from_state(row["probe"]) if row["probe"] else None
        if not isinstance(video.video_id, str) or not isinstance(video.title, str):
            raise ValueError("video_id and title must be strings")
        return video


# -- payloads ------------------------------------------------------------------------------------
def _string(body: dict[str, Any], name: str, *, limit: int = MAX_TEXT) -> str | None:
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise invalid_attribute(name, f"{name} must be a string")
    if len(value) > limit:
        raise invalid_attribute(name, f"{name} is longer than {limit} characters")
    return value


def _boolean(body: dict[str, Any], name: str) -> bool | None:
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, bool):
        raise invalid_attribute(name, f"{name} must be a boolean")
    return value


def _tags(body: dict[str, Any]) -> list[str] | None:
    value = body.get("tags")
    if value is None:
        return None
    if not isinstance(value, list) or len(value) > MAX_ITEMS or not all(isinstance(t, str) and len(t) <= 255
                                                                       for t in value):
        raise invalid_attribute("tags", "tags must be a list of at most 100 strings")
    return list(value)


def _metadata(body: dict[str, Any]) -> list[dict[str, str]] | None:
    value = body.get("metadata")
    if value is None:
        return None
    if not isinstance(value, list) or len(value) > MAX_ITEMS:
        raise invalid_attribute("metadata", "metadata must be a list of {key, value} objects")
    pairs = []
    for item in value:
        if (not isinstance(item, dict) or set(item) != {"key", "value"} or not isinstance(item["key"], str)
                or not isinstance(item["value"], str) or not 1 <= len(item["key"]) <= 255
                or len(item["value"]) > 1000):
            raise invalid_attribute("metadata", "each metadata item is {key (1-255 characters), value (a string "
                                                "of at most 1000)}")
        pairs.append({"key": item["key"], "value": item["value"]})
    return pairs


def _language(body: dict[str, Any]) -> str | None:
    value = body.get("language")
    if value is None:
        return None
    if value not in data.LANGUAGES:
        raise invalid_attribute("language", f"language must be one of {', '.join(data.LANGUAGES)}")
    return str(value)


def _attributes(body: dict[str, Any]) -> list[str] | None:
    value = body.get("transcriptSummaryAttributes")
    if value is None:
        return None
    if not isinstance(value, list) or not value or not all(v in SUMMARY_ATTRIBUTES for v in value):
        raise invalid_attribute("transcriptSummaryAttributes", "a non-empty list of abstract and takeaways")
    return [a for a in SUMMARY_ATTRIBUTES if a in value]


def _object(body: dict[str, Any], name: str, allowed: frozenset[str]) -> dict[str, Any] | None:
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, dict) or not set(value) <= allowed or \
            not all(isinstance(v, str) and len(v) <= 100 for v in value.values()):
        raise invalid_attribute(name, f"{name} must be an object of strings with keys among "
                                      f"{', '.join(sorted(allowed))}")
    return dict(value)


def refuse_unknown(body: dict[str, Any], allowed: frozenset[str], nullable: frozenset[str] = frozenset()) -> None:
    """Unknown attributes and nulls where the reference has no null are refused, not ignored."""
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise invalid_attribute(unknown[0], f"unknown attribute; this payload takes {', '.join(sorted(allowed))}")
    nulls = sorted(name for name, value in body.items() if value is None and name not in nullable)
    if nulls:
        raise invalid_attribute(nulls[0], f"{nulls[0]} must not be null")


def _player_id(body: dict[str, Any]) -> str | None:
    value = _string(body, "playerId", limit=64)
    if value is not None and not PLAYER_ID.fullmatch(value):
        raise invalid_attribute("playerId", "playerId must be a player id (pt followed by letters and digits)")
    return value


def creation_fields(body: dict[str, Any]) -> dict[str, Any]:
    """The video's fields from a creation payload (the reference's ``video-creation-payload``)."""
    if "title" not in body or body["title"] is None:
        raise attribute_required("title")
    refuse_unknown(body, CREATION_FIELDS, frozenset({"language"}))
    title = _string(body, "title", limit=1000)
    if not title:
        raise invalid_attribute("title", "title must not be empty")
    fields: dict[str, Any] = {"title": title}
    fields.update(_common(body))
    for name, allowed in (("clip", CLIP_FIELDS), ("watermark", WATERMARK_FIELDS)):
        value = _object(body, name, allowed)
        if value is not None:
            fields[name] = value
    return fields


def update_fields(body: dict[str, Any]) -> dict[str, Any]:
    """Changed fields of a PATCH (``video-update-payload``); ``playerId: null`` detaches the player."""
    refuse_unknown(body, UPDATE_FIELDS, frozenset({"language", "playerId"}))
    fields: dict[str, Any] = {}
    if "title" in body:
        title = _string(body, "title", limit=1000)
        if not title:
            raise invalid_attribute("title", "title must be a non-empty string")
        fields["title"] = title
    fields.update(_common(body))
    if "playerId" in body and body["playerId"] is None:
        fields["player_id"] = None
    if "language" in body and body["language"] is None:
        fields["language"] = None
        fields["language_origin"] = None
    return fields


def _common(body: dict[str, Any]) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    checks: list[tuple[str, str, Any]] = [
        ("description", "description", _string(body, "description")),
        ("public", "public", _boolean(body, "public")),
        ("panoramic", "panoramic", _boolean(body, "panoramic")),
        ("mp4Support", "mp4_support", _boolean(body, "mp4Support")),
        ("playerId", "player_id", _player_id(body)),
        ("tags", "tags", _tags(body)),
        ("metadata", "metadata", _metadata(body)),
        ("language", "language", _language(body)),
        ("transcript", "transcript", _boolean(body, "transcript")),
        ("transcriptSummary", "transcript_summary", _boolean(body, "transcriptSummary")),
        ("transcriptSummaryAttributes", "summary_attributes", _attributes(body)),
    ]
    for _name, attribute, value in checks:
        if value is not None:
            fields[attribute] = value
    if "language" in fields:
        fields["language_origin"] = "api"
    return fields


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
    body: dict[str, Any] = {
        "videoId": video.video_id,
        "createdAt": atom(video.created_ms),
        "title": video.title,
        "description": video.description,
        "publishedAt": atom(video.created_ms),
        "updatedAt": atom(video.updated_ms or video.created_ms),
        "discardedAt": None,
        "deletesAt": atom(video.deletes_ms) if video.deletes_ms is not None else None,
        "discarded": False,
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
    if video.uploaded_ms is not None:
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
    return query.get("liveStreamId") is None  # no video of this fake comes from a live stream
