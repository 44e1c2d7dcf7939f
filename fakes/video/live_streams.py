"""Live streams: the objects, their restreams, and broadcasts simulated on the clock.

The fake has no RTMP server: a broadcast is started through the control plane
(``POST /_fake/live-streams/{id}/broadcast {"seconds": N}``, see control.py) and lasts N virtual
seconds, or until ``PUT /live-streams/{id}/complete``. ``broadcasting`` is true from its start to
its end; the start emits ``live-stream.broadcast.started``, the end ``live-stream.broadcast.ended``
and, when the broadcast records (the default), a new video of the recording whose source is ready
at that instant (``video.source.recorded``; then encoded like an upload, timeline.py). In the
sandbox a broadcast ends after ``sandbox_max_duration_s`` (30 s), as its videos do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from fakes.kernel.clock import MAX_EPOCH_MS
from fakes.kernel.statecheck import StateReader, check_text, refuse

from . import data
from .images import Image, optional_image
from .problems import attribute_required, invalid_attribute, not_found

LIVE_ID_PATTERN = r"li[0-9A-Za-z]{22}"
MAX_RESTREAMS = 5
MAX_COUNT = 10**12
SORT_FIELDS = ("name", "createdAt", "updatedAt")
FIELDS = frozenset({"name", "public", "playerId", "restreams"})
BLANK = " \t\r\n"  # what a blank name is made of (the document's pattern says the same)
_RTMP = re.compile(r"rtmps?://[^/\s]+(/[^\s]*)?")
_RTMP_APP = re.compile(r"rtmps?://[^/\s]+/[^\s/][^\s]*")


@dataclass
class Broadcast:
    start_ms: int
    end_ms: int  # planned, or the instant it was completed
    record: bool = True
    height: int = 720
    ended: bool = False  # its end was applied (webhook sent, recording made)

    def live(self, now_ms: int) -> bool:
        return not self.ended and self.start_ms <= now_ms < self.end_ms

    def to_state(self) -> dict[str, Any]:
        return dict(vars(self))


@dataclass
class LiveStream:
    live_stream_id: str
    project_id: str
    number: int
    created_ms: int
    updated_ms: int
    name: str
    stream_key: str
    public: bool = True
    player_id: str | None = None
    restreams: list[dict[str, str]] = field(default_factory=list)
    thumbnail: Image | None = None
    broadcast: Broadcast | None = None  # the current or last one

    def broadcasting(self, now_ms: int) -> bool:
        return self.broadcast is not None and self.broadcast.live(now_ms)

    def to_json(self, base: str, now_ms: int, atom: Any) -> dict[str, Any]:
        player = f"{base}/live/{self.live_stream_id}"
        body: dict[str, Any] = {
            "liveStreamId": self.live_stream_id, "name": self.name, "streamKey": self.stream_key,
            "public": self.public,
            "assets": {"hls": f"{base}/live/{self.live_stream_id}.m3u8",
                       "iframe": f'<iframe src="{player}" width="100%" height="100%" frameborder="0" '
                                 'scrolling="no" allowfullscreen=""></iframe>',
                       "player": player, "thumbnail": f"{base}/live/{self.live_stream_id}/thumbnail.jpg"},
            "broadcasting": self.broadcasting(now_ms), "restreams": [dict(r) for r in self.restreams],
            "createdAt": atom(self.created_ms), "updatedAt": atom(self.updated_ms),
        }
        if self.player_id is not None:
            body["playerId"] = self.player_id
        return body

    def to_state(self) -> dict[str, Any]:
        state = {k: v for k, v in vars(self).items() if k not in ("thumbnail", "broadcast", "restreams")}
        state["restreams"] = [dict(r) for r in self.restreams]
        state["thumbnail"] = self.thumbnail.to_state() if self.thumbnail else None
        state["broadcast"] = self.broadcast.to_state() if self.broadcast else None
        return state


def restreams_of(value: Any) -> list[dict[str, str]]:
    """The checked ``restreams`` of a payload (the reference's wording for each refusal)."""
    if not isinstance(value, list):
        raise invalid_attribute("restreams", "restreams must be a list of {name, serverUrl, streamKey}")
    if len(value) > MAX_RESTREAMS:
        raise invalid_attribute("restreams", f"This collection should contain {MAX_RESTREAMS} elements or less.")
    found = []
    for index, item in enumerate(value):
        if not isinstance(item, dict):
            raise invalid_attribute(f"restreams[{index}]", "each restream is {name, serverUrl, streamKey}")
        unknown = sorted(set(item) - {"name", "serverUrl", "streamKey"})
        if unknown:
            raise invalid_attribute(f"restreams[{index}][{unknown[0][:40]}]", "unknown attribute of a restream")
        for name in ("name", "serverUrl", "streamKey"):
            where = f"restreams[{index}][{name}]"
            text = item.get(name)
            if text is None:
                raise invalid_attribute(where, "This value should not be null.")
            if not isinstance(text, str) or len(text) > 2048:
                raise invalid_attribute(where, "This value should be a string of at most 2048 characters.")
            if not text.strip(BLANK):
                raise invalid_attribute(where, "This value should not be blank.")
        url = item["serverUrl"]
        if not _RTMP.fullmatch(url):
            raise invalid_attribute(f"restreams[{index}][serverUrl]",
                                    "RTMP URL should have the following format: [rtmp|rtmps]://[host]/[app name].")
        if not _RTMP_APP.fullmatch(url):
            raise invalid_attribute(f"restreams[{index}][serverUrl]",
                                    "Missing app name: [rtmp|rtmps]://[host]/[app name].")
        found.append({"name": item["name"], "serverUrl": url, "streamKey": item["streamKey"]})
    return found


def stream_fields(body: dict[str, Any], *, creating: bool) -> dict[str, Any]:
    unknown = sorted(set(body) - FIELDS)
    if unknown:
        raise invalid_attribute(unknown[0], f"unknown attribute; a live stream takes {', '.join(sorted(FIELDS))}")
    if creating and body.get("name") is None:
        raise attribute_required("name")
    fields: dict[str, Any] = {}
    if "name" in body:
        if not isinstance(body["name"], str) or not body["name"].strip(BLANK) or len(body["name"]) > 1000:
            raise invalid_attribute("name", "name must be a non-blank string of at most 1000 characters")
        fields["name"] = body["name"]
    if "public" in body:
        if not isinstance(body["public"], bool):
            raise invalid_attribute("public", "public must be a boolean")
        fields["public"] = body["public"]
    if "playerId" in body:
        value = body["playerId"]
        if value is not None and (not isinstance(value, str) or not re.fullmatch(r"pl[0-9A-Za-z]{22}", value)):
            raise invalid_attribute("playerId", "playerId must be a player theme's id (pl and 22 letters and digits)")
        if value is None and creating:
            raise invalid_attribute("playerId", "playerId must not be null")
        fields["player_id"] = value
    if "restreams" in body:
        fields["restreams"] = restreams_of(body["restreams"])
    return fields


@dataclass
class LiveStreams:
    seed: int
    by_id: dict[str, LiveStream] = field(default_factory=dict)
    count: int = 0

    def create(self, project_id: str, fields: dict[str, Any], now_ms: int) -> LiveStream:
        self.count += 1
        while data.live_stream_id(self.seed, self.count) in self.by_id:
            self.count += 1
        stream = LiveStream(data.live_stream_id(self.seed, self.count), project_id, self.count, now_ms, now_ms,
                            fields["name"], data.stream_key(self.seed, self.count))
        self.apply(stream, fields, now_ms)
        self.by_id[stream.live_stream_id] = stream
        return stream

    @staticmethod
    def apply(stream: LiveStream, fields: dict[str, Any], now_ms: int) -> None:
        for name, value in fields.items():
            setattr(stream, name, value)
        stream.updated_ms = now_ms

    def get(self, project_id: str, live_stream_id: str) -> LiveStream:
        stream = self.by_id.get(live_stream_id)
        if stream is None or stream.project_id != project_id:
            raise not_found("liveStreamId")
        return stream

    def of_project(self, project_id: str, query: dict[str, Any]) -> list[LiveStream]:
        name = (query.get("name") or "").lower()
        key = query.get("streamKey")
        found = [s for s in self.by_id.values() if s.project_id == project_id
                 and (not name or name in s.name.lower()) and (key is None or s.stream_key == key)]
        sort_by = query.get("sortBy") or "createdAt"
        sort_key = {"name": lambda s: (s.name, s.number), "createdAt": lambda s: (s.created_ms, s.number),
                    "updatedAt": lambda s: (s.updated_ms, s.number)}[sort_by]
        found.sort(key=sort_key, reverse=query.get("sortOrder") == "desc")
        return found

    # -- state ---------------------------------------------------------------------------------
    def to_state(self) -> dict[str, Any]:
        return {"streams": [s.to_state() for s in self.by_id.values()], "count": self.count}

    def load_state(self, read: StateReader, projects: dict[str, Any]) -> None:
        read.only(("streams", "count"))
        self.count = read.integer("count", minimum=0, maximum=MAX_COUNT)
        for item in read.objects("streams", max_items=1_000_000):
            item.only(("live_stream_id", "project_id", "number", "created_ms", "updated_ms", "name", "stream_key",
                       "public", "player_id", "restreams", "thumbnail", "broadcast"))
            stream = LiveStream(item.text("live_stream_id", pattern=LIVE_ID_PATTERN),
                                item.text("project_id", max_length=64),
                                item.integer("number", minimum=1, maximum=MAX_COUNT),
                                item.integer("created_ms", minimum=0, maximum=MAX_EPOCH_MS),
                                item.integer("updated_ms", minimum=0, maximum=MAX_EPOCH_MS),
                                item.text("name", min_length=1, max_length=1000),
                                item.text("stream_key", pattern=r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-"
                                                                r"[0-9a-f]{12}"),
                                item.boolean("public"),
                                item.text("player_id", pattern=r"pl[0-9A-Za-z]{22}", nullable=True))
            try:
                stream.restreams = restreams_of(item.raw("restreams"))
            except Exception as exc:  # the API's refusal, as the state's
                refuse(item.where("restreams"), str(getattr(exc, "extra", {}).get("detail", "is not valid")))
            for index, restream in enumerate(stream.restreams):
                for value in restream.values():
                    check_text(value, f"{item.where('restreams')}[{index}]", max_length=2048)
            stream.thumbnail = optional_image(item, "thumbnail")
            if item.raw("broadcast") is not None:
                cast = item.object("broadcast").only(("start_ms", "end_ms", "record", "height", "ended"))
                start = cast.integer("start_ms", minimum=0, maximum=MAX_EPOCH_MS)
                stream.broadcast = Broadcast(start, cast.integer("end_ms", minimum=start, maximum=MAX_EPOCH_MS),
                                             cast.boolean("record"), cast.integer("height", minimum=1, maximum=4320),
                                             cast.boolean("ended"))
            if stream.project_id not in projects:
                refuse(item.where("project_id"), "names no project of this state")
            if stream.live_stream_id in self.by_id:
                refuse(item.where("live_stream_id"), "repeats a live stream of this state")
            self.by_id[stream.live_stream_id] = stream
