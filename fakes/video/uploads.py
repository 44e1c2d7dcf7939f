"""The upload rules of the model: where a request's bytes go, and what the completing request does.

A mixin of :class:`fakes.video.model.VideoModel` (kept apart to keep the model readable): the
checks that need no body run before the route streams it; the ones that need its size, the join
of parts, the probe, the sandbox's 30-second limit and the start of the timeline run after.
"""

from __future__ import annotations

import contextlib
import os
import threading

from fakes.kernel.clock import Clock
from fakes.kernel.errors import ServiceError
from fakes.kernel.verdicts import ClientRule

from . import rules
from .ingest import ContentRange, Storage, apply, check_range, check_received
from .probe import Probe, probe
from .problems import upload_error
from .projects import Project
from .settings import VideoSettings
from .timeline import Timeline, build
from .videos import Video

Flagged = list[tuple[ClientRule, str]]


class UploadRules:
    clock: Clock
    settings: VideoSettings
    storage: Storage
    lock: threading.RLock
    version: int

    def video(self, project: Project, video_id: str) -> Video:
        raise NotImplementedError

    def _schedule(self, instant: int, video_id: str, what: str) -> None:
        raise NotImplementedError

    def upload_target(self, project: Project, video_id: str, cr: ContentRange | None, attempt: int) -> tuple[str, int]:
        """Where this request's file bytes go (path, offset), after the checks that need no body."""
        with self.lock:
            video = self.video(project, video_id)
            if video.uploaded_ms is not None:
                raise upload_error("video-source-already-uploaded", "This video source has already been uploaded.",
                                   name="videoId")
            session = video.upload
            if cr is None and session is not None:
                raise upload_error("video-content-range-already-initiated", "This video source has already been "
                                   'initiated with a "Content-Range" upload.', name="Content-Range")
            if cr is None:
                return self.storage.incoming_path(video_id, attempt), 0
            check_range(session, cr, self.settings)
            if cr.kind == "bytes":
                return self.storage.source_path(video_id), cr.first
            return self.storage.part_path(video_id, cr.first), 0

    def finish_upload(self, project: Project, video_id: str, cr: ContentRange | None, size: int, path: str,
                      flagged: Flagged) -> Video:
        """Record the received bytes; on the completing request, probe and start the timeline."""
        with self.lock:
            video = self.video(project, video_id)
            session = video.upload
            try:
                # a concurrent request may have completed or changed the upload while this body streamed
                if video.uploaded_ms is not None:
                    raise upload_error("video-source-already-uploaded",
                                       "This video source has already been uploaded.", name="videoId")
                if cr is not None:
                    check_range(session, cr, self.settings)
                if size == 0:
                    raise upload_error("uploaded-file-empty", "The uploaded file is empty.")
                check_received(session, cr, size, self.settings)
            except ServiceError:
                if cr is None or cr.kind == "part":
                    remove_file(path)
                raise
            updated = apply(session, cr, size)
            if not updated.complete():
                video.upload = updated
                video.updated_ms = self.clock.now_ms()
                self.version += 1
                return video
            if updated.mode == "single":
                os.replace(path, self.storage.source_path(video_id))
            elif updated.mode == "part":
                self.storage.join_parts(video_id, sorted(updated.parts))
            source = self.storage.source_path(video_id)
            total = os.path.getsize(source)
            with open(source, "rb") as handle:
                found = probe(handle, total)
            limit = self.settings.sandbox_max_duration_s
            if self.settings.sandbox and found is not None and found.duration_s > limit:
                self.storage.discard(video_id)
                video.upload = None
                self.version += 1
                flagged.append((rules.SANDBOX_SOURCE_TOO_LONG,
                                f"{video_id}: a {found.duration_s:g} s source sent to the sandbox"))
                raise upload_error("uploaded-file-invalid-file", "The uploaded file is invalid.",
                                   f"Sandbox videos are limited to {limit:g} seconds (the sandbox's 30-second "
                                   f"limit); this source lasts {found.duration_s:g} seconds. Use the production "
                                   "environment for longer videos.")
            video.upload = updated
            self._start_timeline(video, self.clock.now_ms(), found)
            self.version += 1
            return video

    def _start_timeline(self, video: Video, now: int, found: Probe | None) -> None:
        video.uploaded_ms = now
        video.updated_ms = now
        video.probe = found
        video.failed = found is None
        video.timeline = self._timeline(video)
        timeline = video.timeline
        for step in timeline.steps:
            self._schedule(step.end_ms, video.video_id, f"quality:{step.encoding}:{step.quality}")
        if timeline.caption_ms is not None:
            self._schedule(timeline.caption_ms, video.video_id, "caption")
        if timeline.summary_ms is not None:
            self._schedule(timeline.summary_ms, video.video_id, "summary")

    def _timeline(self, video: Video) -> Timeline:
        assert video.uploaded_ms is not None
        found = video.probe
        return build(self.settings, video.uploaded_ms, found.duration_s if found else None,
                     found.height if found else None, mp4=video.mp4_support, transcript=video.transcript,
                     summary=video.transcript_summary)


def remove_file(path: str) -> None:
    with contextlib.suppress(OSError):
        os.remove(path)
