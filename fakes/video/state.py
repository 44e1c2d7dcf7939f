"""The video model's exported state, and its import: every field read through the kernel's
``StateReader`` (type, range and reference checks; a refusal is a 400 naming the field).

The import builds a fresh model's parts from the state and fails before anything is kept (the
kernel swaps the model in only when this returns). Derived data (timelines, the agenda) is rebuilt
from the instants: what is still ahead of the clock is scheduled again, what the exporter's clock
passed was emitted there. The model is read and filled as :class:`ModelParts`, a protocol of its
parts (model.py's ``VideoModel``, which calls this module, satisfies it).
"""

from __future__ import annotations

from typing import Any, Protocol

from fakes.kernel.clock import MAX_EPOCH_MS, Clock
from fakes.kernel.statecheck import StateReader, check_integer, refuse

from .analytics import Analytics
from .attachments import Attachments
from .live_streams import LiveStreams
from .players import Players
from .projects import Projects
from .summaries import Summaries
from .timeline import Timeline
from .upload_tokens import UploadTokens
from .usage import Usage
from .videos import Video
from .watermarks import Watermarks
from .webhooks import Delivery, Webhooks

PARTS = ("exported_ms", "projects", "videos", "video_count", "summaries", "attachments", "players", "watermarks",
         "upload_tokens", "live_streams", "plays", "webhooks", "usage", "buckets", "status_polls")
BUCKET_KINDS = ("uploads", "writes", "reads")


class ModelParts(Protocol):
    """What the export reads and the import fills of the model: one part per concept, the rate
    windows and status polls, and the agenda the import schedules again."""

    clock: Clock
    projects: Projects
    videos: dict[str, Video]
    video_count: int
    summaries: Summaries
    attachments: Attachments
    players: Players
    watermarks: Watermarks
    upload_tokens: UploadTokens
    live: LiveStreams
    analytics: Analytics
    webhooks: Webhooks
    usage: dict[str, Usage]
    buckets: dict[tuple[str, str], list[int]]
    status_polls: dict[str, int]
    pending: list[Delivery]

    def _schedule(self, instant: int, subject: str, what: str) -> None: ...

    def _timeline(self, video: Video) -> Timeline: ...

    def schedule_timeline(self, video: Video, after_ms: int = ...) -> None: ...


def export(model: ModelParts) -> dict[str, Any]:
    return {
        # the instant the clock had passed: an import schedules only what comes after it (the kernel
        # restores the clock only once the model is loaded)
        "exported_ms": model.clock.now_ms(),
        "projects": model.projects.to_state(),
        "videos": [v.to_state() for v in model.videos.values()],
        "video_count": model.video_count,
        "summaries": model.summaries.to_state(),
        "attachments": model.attachments.to_state(),
        "players": model.players.to_state(),
        "watermarks": model.watermarks.to_state(),
        "upload_tokens": model.upload_tokens.to_state(),
        "live_streams": model.live.to_state(),
        "plays": model.analytics.to_state(),
        "webhooks": model.webhooks.to_state(),
        "usage": {pid: u.to_state() for pid, u in model.usage.items()},
        "buckets": [[bucket, kind, *window] for (bucket, kind), window in model.buckets.items()],
        "status_polls": dict(model.status_polls),
    }


def load(model: ModelParts, state: dict[str, Any]) -> None:
    read = StateReader(state, "model").only(PARTS)
    model.projects.load_state(read.object("projects"))
    projects = model.projects.by_id
    model.video_count = read.integer("video_count", minimum=0, maximum=10**12)
    for item in read.objects("videos", max_items=10_000_000):
        video = Video.from_state(item)
        if video.project_id not in projects:
            refuse(item.where("project_id"), "names no project of this state")
        if video.video_id in model.videos:
            refuse(item.where("video_id"), "repeats a video of this state")
        model.videos[video.video_id] = video
    model.players.load_state(read.object("players"), projects)
    model.watermarks.load_state(read.object("watermarks"), projects)
    model.live.load_state(read.object("live_streams"), projects)
    model.summaries.load_state(read.object("summaries"), model.videos)
    model.attachments.load_state(read.object("attachments"), model.videos)
    model.upload_tokens.load_state(read.object("upload_tokens"), projects, model.videos)
    model.analytics.load_state(read.array("plays", max_items=10_000_000), read.where("plays"), projects)
    model.webhooks.load_state(read.object("webhooks"), projects)
    model.pending.extend(model.webhooks.unsent())  # the restored fake sends what the original had not yet
    usage = read.object("usage")
    for project_id in usage.value:
        if project_id not in projects:
            refuse(usage.where(project_id), "names no project of this state")
        model.usage[project_id] = Usage.from_state(usage.object(project_id))
    for index, row in enumerate(read.array("buckets", max_items=10_000_000)):
        where = f"{read.where('buckets')}[{index}]"
        if not isinstance(row, list) or len(row) != 4 or not isinstance(row[0], str) or len(row[0]) > 300 \
                or row[1] not in BUCKET_KINDS:
            refuse(where, "must be [bucket, uploads|writes|reads, window start ms, count]")
        start = check_integer(row[2], where, minimum=0, maximum=MAX_EPOCH_MS)
        model.buckets[(row[0], row[1])] = [start, check_integer(row[3], where, minimum=0, maximum=10**9)]
    polls = read.object("status_polls")
    for video_id in polls.value:
        if video_id not in model.videos:
            refuse(polls.where(video_id), "names no video of this state")
        model.status_polls[video_id] = polls.integer(video_id, minimum=0, maximum=MAX_EPOCH_MS)
    _check_references(model, read)
    _schedule(model, read.integer("exported_ms", minimum=0, maximum=MAX_EPOCH_MS))


def _check_references(model: ModelParts, read: StateReader) -> None:
    for index, video in enumerate(model.videos.values()):
        where = f"{read.where('videos')}[{index}]"
        if video.player_id is not None and (video.player_id not in model.players.by_id
                                            or model.players.by_id[video.player_id].project_id != video.project_id):
            refuse(f"{where}.player_id", "names no player theme of the video's project")
        if video.copied_from is not None and not video.copied_from.startswith("vi"):
            refuse(f"{where}.copied_from", "must be a video id")
    for index, stream in enumerate(model.live.by_id.values()):
        if stream.player_id is not None and stream.player_id not in model.players.by_id:
            refuse(f"{read.where('live_streams')}.streams[{index}].player_id", "names no player theme of this state")


def _schedule(model: ModelParts, now: int) -> None:
    """Rebuild timelines and the agenda: only what is still ahead of the exporter's clock."""
    for video in model.videos.values():
        if video.deletes_ms is not None:
            model._schedule(video.deletes_ms, video.video_id, "delete")
        if video.purge_ms is not None:
            model._schedule(video.purge_ms, video.video_id, "purge")
        if video.uploaded_ms is not None:
            video.timeline = model._timeline(video)
            model.schedule_timeline(video, after_ms=now)
    for stream in model.live.by_id.values():
        cast = stream.broadcast
        if cast is not None and not cast.ended:
            model._schedule(cast.end_ms, stream.live_stream_id, "broadcast-end")
