"""Summaries: one per video at most, generated on the clock, editable, deletable.

A summary is asked for at the video's creation (``transcriptSummary``), by a PATCH of the video, or
by ``POST /summaries``. Its source is generated ``summary_delay_s`` after the later of the video's
transcript (timeline.py) and the request itself: ``waiting`` until then, ``missing`` while the
video has no source, ``failed`` when the source is not media. The generation emits
``video.summary.generated`` and counts the summary minutes. ``PATCH /summaries/{id}/source``
replaces what was generated (the summary's ``origin`` becomes ``api``: its text now comes from the
API); a summary still being generated answers 409, as the reference shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fakes.kernel.clock import MAX_EPOCH_MS
from fakes.kernel.statecheck import StateReader, check_text, refuse

from . import data
from .problems import invalid_attribute, not_found, problem
from .settings import VideoSettings
from .videos import SUMMARY_ATTRIBUTES, Video, atom, later

ALREADY = ("summary-already-exists", "A summary already exists or is being created on this video.")
STATUSES = ("missing", "waiting", "failed", "completed", "unprocessable")
MAX_COUNT = 10**12


@dataclass
class Summary:
    summary_id: str
    project_id: str
    video_id: str
    created_ms: int
    attributes: list[str]
    origin: str = "auto"  # auto | api (its text was written through the API)
    edited: dict[str, Any] | None = None  # the source written through PATCH
    edited_ms: int | None = None

    def to_state(self) -> dict[str, Any]:
        return dict(vars(self))


def already_exists(name: str) -> Exception:
    return problem(409, *ALREADY, name=name, detail="You can delete the existing summary and generate a new one.")


def attributes_of(value: Any, name: str) -> list[str]:
    if not isinstance(value, list) or not value or not all(v in SUMMARY_ATTRIBUTES for v in value):
        raise invalid_attribute(name, "a non-empty list of abstract and takeaways")
    return [a for a in SUMMARY_ATTRIBUTES if a in value]


@dataclass
class Summaries:
    seed: int
    settings: VideoSettings
    by_id: dict[str, Summary] = field(default_factory=dict)
    by_video: dict[str, str] = field(default_factory=dict)
    count: int = 0

    def create(self, video: Video, now_ms: int, attributes: list[str]) -> Summary:
        if video.video_id in self.by_video:
            raise already_exists("videoId")
        self.count += 1
        while data.summary_id(self.seed, self.count) in self.by_id:
            self.count += 1  # an imported state may hold ids of numbers ahead of its count
        summary = Summary(data.summary_id(self.seed, self.count), video.project_id, video.video_id, now_ms,
                          list(attributes))
        self._add(summary)
        return summary

    def _add(self, summary: Summary) -> None:
        self.by_id[summary.summary_id] = summary
        self.by_video[summary.video_id] = summary.summary_id

    def of_video(self, video_id: str) -> Summary | None:
        summary_id = self.by_video.get(video_id)
        return None if summary_id is None else self.by_id[summary_id]

    def get(self, project_id: str, summary_id: str) -> Summary:
        summary = self.by_id.get(summary_id)
        if summary is None or summary.project_id != project_id:
            raise not_found("summaryId")
        return summary

    def delete(self, summary: Summary) -> None:
        del self.by_id[summary.summary_id]
        self.by_video.pop(summary.video_id, None)

    def forget_video(self, video_id: str) -> None:
        summary = self.of_video(video_id)
        if summary is not None:
            self.delete(summary)

    # -- the clock -----------------------------------------------------------------------------
    def ready_ms(self, summary: Summary, video: Video) -> int | None:
        """When its source is generated (None: never, or not known before the upload)."""
        timeline = video.timeline
        if timeline is None or timeline.transcribed_ms is None:
            return None
        return later(max(timeline.transcribed_ms, summary.created_ms), round(self.settings.summary_delay_s * 1000))

    def status(self, summary: Summary, video: Video, now_ms: int) -> tuple[str, int]:
        """(sourceStatus, the instant it last changed)."""
        timeline = video.timeline
        if timeline is None:
            return "missing", summary.created_ms
        if timeline.failed:
            return "failed", max(summary.created_ms, timeline.ingested_ms)
        ready = self.ready_ms(summary, video)
        if ready is not None and now_ms >= ready:
            return "completed", summary.edited_ms if summary.edited_ms is not None else ready
        return "waiting", max(summary.created_ms, timeline.uploaded_ms)

    def to_json(self, summary: Summary, video: Video, now_ms: int) -> dict[str, Any]:
        status, updated = self.status(summary, video, now_ms)
        return {"summaryId": summary.summary_id, "createdAt": atom(summary.created_ms), "updatedAt": atom(updated),
                "videoId": summary.video_id, "origin": summary.origin, "sourceStatus": status}

    def source(self, summary: Summary, video: Video, now_ms: int) -> dict[str, Any]:
        if self.status(summary, video, now_ms)[0] != "completed":
            raise not_found("summaryId")
        generated = data.summary(self.seed, video.video_id, video.language or "en", tuple(summary.attributes))
        return {**generated, **(summary.edited or {})}

    def edit(self, summary: Summary, video: Video, body: dict[str, Any], now_ms: int) -> dict[str, Any]:
        unknown = sorted(set(body) - {"abstract", "takeaways"})
        if unknown:
            raise invalid_attribute(unknown[0], "this payload takes abstract and takeaways")
        edited: dict[str, Any] = {}
        if "abstract" in body:
            if not isinstance(body["abstract"], str) or len(body["abstract"]) > 10_000:
                raise invalid_attribute("abstract", "abstract must be a string of at most 10000 characters")
            edited["abstract"] = body["abstract"]
        if "takeaways" in body:
            takeaways = body["takeaways"]
            if not isinstance(takeaways, list) or len(takeaways) > 3 or \
                    not all(isinstance(t, str) and len(t) <= 1000 for t in takeaways):
                raise invalid_attribute("takeaways", "takeaways must be a list of at most 3 strings")
            edited["takeaways"] = list(takeaways)
        if self.status(summary, video, now_ms)[0] != "completed":
            raise problem(409, *ALREADY, detail="The summary is still being generated; edit it once its "
                                                "sourceStatus is completed.")
        summary.edited = {**(summary.edited or {}), **edited}
        summary.edited_ms = now_ms
        summary.origin = "api"
        return self.source(summary, video, now_ms)

    # -- state ---------------------------------------------------------------------------------
    def to_state(self) -> dict[str, Any]:
        return {"summaries": [s.to_state() for s in self.by_id.values()], "count": self.count}

    def load_state(self, read: StateReader, videos: dict[str, Video]) -> None:
        read.only(("summaries", "count"))
        self.count = read.integer("count", minimum=0, maximum=MAX_COUNT)
        for item in read.objects("summaries", max_items=10_000_000):
            item.only(("summary_id", "project_id", "video_id", "created_ms", "attributes", "origin", "edited",
                       "edited_ms"))
            attributes = item.array("attributes", max_items=2)
            if not attributes or any(a not in SUMMARY_ATTRIBUTES for a in attributes) or \
                    len(set(attributes)) != len(attributes):
                refuse(item.where("attributes"), "must be a non-empty list of abstract and takeaways")
            summary = Summary(item.text("summary_id", pattern=r"summary_[0-9A-Za-z]{22}"),
                              item.text("project_id", max_length=64), item.text("video_id", max_length=64),
                              item.integer("created_ms", minimum=0, maximum=MAX_EPOCH_MS), list(attributes),
                              item.choice("origin", ("auto", "api")), _edited(item),
                              item.integer("edited_ms", minimum=0, maximum=MAX_EPOCH_MS, nullable=True))
            video = videos.get(summary.video_id)
            if video is None or video.project_id != summary.project_id:
                refuse(item.where("video_id"), "names no video of the summary's project in this state")
            if summary.summary_id in self.by_id or summary.video_id in self.by_video:
                refuse(item.where("summary_id"), "repeats a summary (or a summarized video) of this state")
            self._add(summary)


def _edited(item: StateReader) -> dict[str, Any] | None:
    if item.raw("edited") is None:
        return None
    edited = item.object("edited").only(("abstract", "takeaways"))
    found: dict[str, Any] = {}
    if edited.has("abstract"):
        found["abstract"] = edited.text("abstract", max_length=10_000)
    if edited.has("takeaways"):
        values = edited.array("takeaways", max_items=3)
        for index, value in enumerate(values):
            check_text(value, f"{edited.where('takeaways')}[{index}]", max_length=1000)
        found["takeaways"] = list(values)
    return found
