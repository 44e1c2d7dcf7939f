"""Watermarks: images uploaded once and named at video creation (``watermark.id``).

A watermark is a JPEG or PNG of the project (``watermark_`` and 22 letters and digits); a video
created with ``watermark: {id, top, left, ...}`` must name one of them. Deleting a watermark
leaves the videos made with it as they are (their encoding is done).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fakes.kernel.clock import MAX_EPOCH_MS
from fakes.kernel.statecheck import StateReader, refuse

from . import data
from .images import Image
from .problems import not_found

WATERMARK_ID_PATTERN = r"watermark_[0-9A-Za-z]{22}"
MAX_COUNT = 10**12


@dataclass
class Watermark:
    watermark_id: str
    project_id: str
    created_ms: int
    image: Image

    def to_json(self, atom: Any) -> dict[str, Any]:
        return {"watermarkId": self.watermark_id, "createdAt": atom(self.created_ms)}

    def to_state(self) -> dict[str, Any]:
        return {"watermark_id": self.watermark_id, "project_id": self.project_id, "created_ms": self.created_ms,
                "image": self.image.to_state()}


@dataclass
class Watermarks:
    seed: int
    by_id: dict[str, Watermark] = field(default_factory=dict)
    count: int = 0

    def create(self, project_id: str, image: Image, now_ms: int) -> Watermark:
        self.count += 1
        while data.watermark_id(self.seed, self.count) in self.by_id:
            self.count += 1
        mark = Watermark(data.watermark_id(self.seed, self.count), project_id, now_ms, image)
        self.by_id[mark.watermark_id] = mark
        return mark

    def get(self, project_id: str, watermark_id: str) -> Watermark:
        mark = self.by_id.get(watermark_id)
        if mark is None or mark.project_id != project_id:
            raise not_found("watermarkId")
        return mark

    def check_reference(self, project_id: str, watermark: dict[str, Any] | None) -> None:
        """``watermark.id`` of a video creation must name a watermark of the project (404)."""
        if watermark is None:
            return
        mark = self.by_id.get(watermark.get("id", ""))
        if mark is None or mark.project_id != project_id:
            raise not_found("watermark")

    def delete(self, project_id: str, watermark_id: str) -> None:
        del self.by_id[self.get(project_id, watermark_id).watermark_id]

    def of_project(self, project_id: str) -> list[Watermark]:
        return [m for m in self.by_id.values() if m.project_id == project_id]

    def to_state(self) -> dict[str, Any]:
        return {"watermarks": [m.to_state() for m in self.by_id.values()], "count": self.count}

    def load_state(self, read: StateReader, projects: dict[str, Any]) -> None:
        read.only(("watermarks", "count"))
        self.count = read.integer("count", minimum=0, maximum=MAX_COUNT)
        for item in read.objects("watermarks", max_items=1_000_000):
            item.only(("watermark_id", "project_id", "created_ms", "image"))
            mark = Watermark(item.text("watermark_id", pattern=WATERMARK_ID_PATTERN),
                             item.text("project_id", max_length=64),
                             item.integer("created_ms", minimum=0, maximum=MAX_EPOCH_MS),
                             Image.from_state(item.object("image")))
            if mark.project_id not in projects:
                refuse(item.where("project_id"), "names no project of this state")
            if mark.watermark_id in self.by_id:
                refuse(item.where("watermark_id"), "repeats a watermark of this state")
            self.by_id[mark.watermark_id] = mark
