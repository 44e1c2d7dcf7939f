"""The video fake's dashboard panels: its videos with their encoding progress and thumbnails, and
its projects' usage.

Read through the fake's public reads (``sync``, the model's videos and ``render``, the status
object of :func:`~fakes.video.videos.status_of`, ``usage``) only, named in :class:`PanelledVideo`
(a protocol the package's ``VideoFake`` satisfies); see docs/dashboard.md for the shapes. A
thumbnail is the picture the fake serves at the video's asset URL, shown once ingested.
"""

from __future__ import annotations

from typing import Any, Protocol

from fakes.kernel.clock import Clock
from fakes.kernel.dashboard.panels import MAX_ROWS, Panel, collect, image, progress, table, when

from .model import VideoModel
from .settings import VideoSettings
from .videos import Video, status_of


class PanelledVideo(Protocol):
    """What the panels read of the fake: its clock, settings and model, the catch-up, the usage report."""

    clock: Clock
    settings: VideoSettings
    model: VideoModel

    def sync(self) -> None: ...

    def usage(self, project: str | None = ...) -> dict[str, Any]: ...


def panels(fake: PanelledVideo) -> list[Panel]:
    fake.sync()  # what the clock has passed happens first, as before any request
    return collect(fake, videos, projects)


def _stage(status: dict[str, Any]) -> str:
    encoding = status["encoding"]
    ingest = status.get("ingest")
    if any(q["status"] == "failed" for q in encoding["qualities"]):
        return "failed"
    if encoding["qualities"] and all(q["status"] == "encoded" for q in encoding["qualities"]):
        return "encoded"
    if encoding["playable"]:
        return "playable, encoding"
    if encoding["qualities"]:
        return "encoding"
    return ingest["status"] if ingest else "no source yet"


def _encoding(status: dict[str, Any]) -> dict[str, Any]:
    qualities = status["encoding"]["qualities"]
    if not qualities:
        return progress(0, _stage(status))
    done = sum(1 for q in qualities if q["status"] == "encoded")
    return progress(done / len(qualities), f"{done} of {len(qualities)} renditions: {_stage(status)}")


def _thumbnail(fake: PanelledVideo, video: Video, status: dict[str, Any]) -> dict[str, Any] | None:
    if status["encoding"]["metadata"]["width"] is None:  # not ingested: the asset answers 404 until then
        return None
    return image(fake.model.render(video, "")["assets"]["thumbnail"], video.title)


def videos(fake: PanelledVideo) -> Panel:
    now = fake.clock.now_ms()
    found = sorted(list(fake.model.videos.values()), key=lambda v: (v.created_ms, v.number), reverse=True)[:MAX_ROWS]
    rows = []
    for video in found:
        status = status_of(video, now)
        duration = status["encoding"]["metadata"]["duration"]
        rows.append([_thumbnail(fake, video, status), video.video_id, video.title, video.project_id,
                     _encoding(status), f"{duration} s" if duration is not None else "-", when(video.created_ms),
                     when(video.deletes_ms)])
    total = len(fake.model.videos)
    return table("Videos", ["thumbnail", "video", "title", "project", "encoding", "duration", "created",
                            "deleted at"], rows, note=f"{total} video{'' if total == 1 else 's'}, newest first",
                 max_rows=MAX_ROWS)


def projects(fake: PanelledVideo) -> Panel:
    model = fake.model
    rows = []
    for project_id in list(model.projects.by_id):
        # a project whose usage nothing counted yet has none: reading its report would make one
        entry = fake.usage(project_id)["projects"][project_id] if project_id in model.usage else None
        usage = entry["usage"] if entry else {}
        rows.append([project_id, sum(1 for v in list(model.videos.values()) if v.project_id == project_id),
                     usage.get("stored_minutes_now"), usage.get("watched_minutes"), usage.get("transcript_minutes"),
                     f"${entry['cost_usd']['total']:.2f}" if entry else None])
    return table("Projects and usage", ["project", "videos", "minutes stored", "minutes watched",
                                        "minutes transcribed", "cost so far"], rows,
                 note=f"environment: {fake.settings.environment}; GET /_fake/usage has every figure")
