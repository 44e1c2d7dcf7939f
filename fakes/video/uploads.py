"""The upload rules of the model: what a request may send, and what its accepted bytes become.

A mixin of :class:`fakes.video.model.VideoModel`. Every request's file part is first streamed to a
file of its own (forms.py); the checks that need no body run before that, the ones that need its
size after. Only an accepted request's bytes are placed: renamed into the source (one request) or
into their part file, or written at their offset into the source (a byte range). A refused request
leaves nothing behind, on disk included. The completing request joins the parts, probes the source,
applies the sandbox's 30-second limit and starts the timeline. Delegated uploads (``POST /upload``
with an upload token) go through the same rules for the video the token's request names or creates.
"""

from __future__ import annotations

import heapq
import os
import shutil
import threading
from typing import TYPE_CHECKING, Any

from fakes.kernel.clock import Clock
from fakes.kernel.errors import ServiceError
from fakes.kernel.verdicts import ClientRule

from . import rules
from .forms import remove_file
from .ingest import ContentRange, Storage, apply, check_range, check_received
from .probe import Probe, probe
from .problems import not_found, upload_error
from .projects import Project
from .settings import VideoSettings
from .summaries import Summaries
from .timeline import Timeline, build
from .upload_tokens import UploadToken, UploadTokens
from .videos import Video

Flagged = list[tuple[ClientRule, str]]


def already_uploaded() -> ServiceError:
    return upload_error("video-source-already-uploaded", "This video source has already been uploaded.",
                        name="videoId")


class UploadRules:
    clock: Clock
    settings: VideoSettings
    storage: Storage
    lock: threading.RLock
    version: int
    videos: dict[str, Video]
    video_count: int
    summaries: Summaries
    upload_tokens: UploadTokens
    _agenda: list[tuple[int, int, str, str]]

    if TYPE_CHECKING:  # provided by the model or its other mixins
        def video(self, project: Project, video_id: str) -> Video:
            ...

        def new_video(self, project_id: str, fields: dict[str, Any], at_ms: int | None = None) -> Video:
            ...

        def _schedule(self, instant: int, subject: str, what: str) -> None:
            ...

        def schedule_summary(self, video: Video, after_ms: int = -1) -> None:
            ...

    def check_upload(self, project: Project, video_id: str, cr: ContentRange | None) -> None:
        """The refusals that need no body (before it is read)."""
        with self.lock:
            self._check_session(self.video(project, video_id), cr)

    @staticmethod
    def _check_session(video: Video, cr: ContentRange | None) -> None:
        if video.uploaded_ms is not None:
            raise already_uploaded()
        if cr is None and video.upload is not None:
            raise upload_error("video-content-range-already-initiated", "This video source has already been "
                               'initiated with a "Content-Range" upload.', name="Content-Range")

    def finish_upload(self, project: Project, video_id: str, cr: ContentRange | None, size: int, path: str,
                      flagged: Flagged) -> Video:
        """Judge a received file part (at ``path``) and place it; the completing request probes."""
        with self.lock:
            return self._finish(self.video(project, video_id), cr, size, path, flagged)

    def _finish(self, video: Video, cr: ContentRange | None, size: int, path: str, flagged: Flagged) -> Video:
        # a concurrent request may have completed or changed the upload while this body streamed
        self._check_session(video, cr)
        session = video.upload
        if cr is not None:
            check_range(session, cr, self.settings)
        if size == 0:
            raise upload_error("uploaded-file-empty", "The uploaded file is empty.")
        check_received(session, cr, size, self.settings)
        updated = apply(session, cr, size)
        video_id = video.video_id
        complete = updated.complete()
        probed: tuple[Probe | None] | None = None
        if complete and self.settings.sandbox:  # judged before anything is placed
            probed = (self._probe_completed(video_id, updated, cr, path),)
            self._refuse_too_long(video, probed[0], flagged)
        self._place(video_id, cr, path)
        if not complete:
            video.upload = updated
            video.updated_ms = self.clock.now_ms()
            self.version += 1
            return video
        if updated.mode == "part":
            self.storage.join_parts(video_id, sorted(updated.parts))
        if probed is None:
            source = self.storage.source_path(video_id)
            with open(source, "rb") as handle:
                probed = (probe(handle, os.path.getsize(source)),)
        found = probed[0]
        video.upload = updated
        self._start_timeline(video, self.clock.now_ms(), found)
        self.version += 1
        return video

    def _probe_completed(self, video_id: str, updated: Any, cr: ContentRange | None, path: str) -> Probe | None:
        """The probe of the source this request would complete, read before anything is placed (a
        refusal must leave the received chunks as they were): a single file or a last part by
        itself, else the bytes as they would be joined (parts) or written (a range), in a copy."""
        if cr is None:
            with open(path, "rb") as handle:
                return probe(handle, os.path.getsize(path))
        trial = self.storage.trial_path(video_id)
        try:
            if cr.kind == "part":
                with open(trial, "wb") as out:
                    for number in sorted(updated.parts):
                        piece = path if number == cr.first else self.storage.part_path(video_id, number)
                        with open(piece, "rb") as handle:
                            shutil.copyfileobj(handle, out, 1024 * 1024)
            else:
                if self.storage.exists(video_id):
                    shutil.copyfile(self.storage.source_path(video_id), trial)
                write_at(path, trial, cr.first)
            with open(trial, "rb") as handle:
                return probe(handle, os.path.getsize(trial))
        finally:
            remove_file(trial)

    def _refuse_too_long(self, video: Video, found: Probe | None, flagged: Flagged) -> None:
        limit = self.settings.sandbox_max_duration_s
        if found is None or found.duration_s <= limit:
            return
        # the upload ends refused: the received chunks go, a shorter file may follow
        self.storage.discard(video.video_id)
        video.upload = None
        self.version += 1
        flagged.append((rules.SANDBOX_SOURCE_TOO_LONG,
                        f"{video.video_id}: a {found.duration_s:g} s source sent to the sandbox"))
        raise upload_error("uploaded-file-invalid-file", "The uploaded file is invalid.",
                           f"Sandbox videos are limited to {limit:g} seconds (the sandbox's 30-second limit); "
                           f"this source lasts {found.duration_s:g} seconds. Use the production environment "
                           "for longer videos.")

    def _place(self, video_id: str, cr: ContentRange | None, path: str) -> None:
        if cr is None:
            os.replace(path, self.storage.source_path(video_id))
        elif cr.kind == "part":
            os.replace(path, self.storage.part_path(video_id, cr.first))
        else:
            write_at(path, self.storage.source_path(video_id), cr.first)
            remove_file(path)

    def _start_timeline(self, video: Video, now: int, found: Probe | None) -> None:
        video.uploaded_ms = now
        video.updated_ms = now
        video.probe = found
        video.failed = found is None
        video.timeline = self._timeline(video)
        self.schedule_timeline(video)

    def schedule_timeline(self, video: Video, after_ms: int = -1) -> None:
        """Schedule the video's timeline instants later than ``after_ms`` (an imported state: what
        the exporter's clock passed was emitted there already)."""
        timeline = video.timeline
        assert timeline is not None
        for step in timeline.steps:
            if step.end_ms > after_ms:
                self._schedule(step.end_ms, video.video_id, f"quality:{step.encoding}:{step.quality}")
        transcript = timeline.transcribed_ms
        wanted = video.transcript or self.summaries.of_video(video.video_id) is not None
        if transcript is not None and wanted and transcript > after_ms:
            self._schedule(transcript, video.video_id, "caption")
        self.schedule_summary(video, after_ms)

    def _timeline(self, video: Video) -> Timeline:
        assert video.uploaded_ms is not None
        found = video.probe
        return build(self.settings, video.uploaded_ms, found.duration_s if found else None,
                     found.height if found else None, mp4=video.mp4_support, transcript=video.transcript)

    # -- delegated uploads ---------------------------------------------------------------------
    def token_upload(self, token: UploadToken, named_video: str | None, filename: str | None,
                     cr: ContentRange | None, size: int, path: str, flagged: Flagged) -> Video:
        """A ``POST /upload`` body received at ``path``: to the video the request names, the
        token's chunked upload in progress, or a new video (which a refusal takes back)."""
        with self.lock:
            project_id = token.project_id
            if named_video is not None:
                video = self.videos.get(named_video)
                if video is None or video.project_id != project_id or video.discarded:
                    raise not_found("videoId")
            elif token.open_video is not None and token.open_video in self.videos and cr is not None:
                video = self.videos[token.open_video]
            else:
                return self._token_new_video(token, filename, cr, size, path, flagged)
            video = self._finish(video, cr, size, path, flagged)
            token.open_video = video.video_id if video.uploaded_ms is None else None
            return video

    def _token_new_video(self, token: UploadToken, filename: str | None, cr: ContentRange | None, size: int,
                         path: str, flagged: Flagged) -> Video:
        title = os.path.basename(filename or "")[:1000] or "video"
        counters = (self.video_count, self.version, self.summaries.count)
        video = self.new_video(token.project_id, {"title": title})
        try:
            video = self._finish(video, cr, size, path, flagged)
        except (ServiceError, OSError):  # OSError: a full directory (the route's 507)
            self._unmake(video)
            self.video_count, self.version, self.summaries.count = counters
            raise
        token.open_video = video.video_id if video.uploaded_ms is None else None
        return video

    def _unmake(self, video: Video) -> None:
        """Take back a video made by a request that was then refused (nothing of it remains)."""
        del self.videos[video.video_id]
        self.storage.discard(video.video_id)
        self._agenda[:] = [entry for entry in self._agenda if entry[2] != video.video_id]
        heapq.heapify(self._agenda)


def write_at(source: str, target: str, offset: int) -> None:
    """Copy the file ``source`` into ``target`` at ``offset`` (creating ``target`` if need be)."""
    descriptor = os.open(target, os.O_RDWR | os.O_CREAT, 0o600)
    with os.fdopen(descriptor, "r+b") as out, open(source, "rb") as handle:
        out.seek(offset)
        shutil.copyfileobj(handle, out, 1024 * 1024)
