"""Captions, chapters, thumbnails and summaries of the model: the rules that join a video's
timeline to what is attached to it (attachments.py, summaries.py).

A mixin of :class:`fakes.video.model.VideoModel`. Generated captions exist once the clock passes
the video's transcript instant (language: requested, else detected as ``en``); uploaded ones at
once. A summary's source is generated on the clock (summaries.py); its generation emits
``video.summary.generated`` and counts the summary minutes.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from fakes.kernel.clock import Clock

from . import data
from .attachments import Attachments, check_timecode, language_tag, picked_timecode, webvtt_text
from .images import Image
from .problems import invalid_attribute, not_found
from .projects import Project
from .summaries import Summaries, Summary, attributes_of
from .usage import Usage
from .videos import Video


class MediaRules:
    clock: Clock
    seed: int
    lock: threading.RLock
    version: int
    videos: dict[str, Video]
    attachments: Attachments
    summaries: Summaries

    if TYPE_CHECKING:  # provided by the model or its other mixins
        def video(self, project: Project, video_id: str) -> Video:
            ...

        def catch_up(self) -> None:
            ...

        def _schedule(self, instant: int, subject: str, what: str) -> None:
            ...

        def _emit(self, video: Video, event: str, payload: dict[str, Any], instant: int) -> None:
            ...

        def _usage(self, project_id: str) -> Usage:
            ...

        def _detect_language(self, video: Video) -> None:
            ...

    def _touch(self, video: Video) -> None:
        video.updated_ms = self.clock.now_ms()
        self.version += 1

    # -- captions ------------------------------------------------------------------------------
    def generated_caption(self, video: Video) -> str | None:
        """The tag of the video's generated caption once it exists, else None."""
        timeline = video.timeline
        if not video.transcript or timeline is None or timeline.caption_ms is None \
                or self.clock.now_ms() < timeline.caption_ms:
            return None
        return video.language or "en"

    def captions(self, project: Project, video_id: str, base: str) -> list[dict[str, Any]]:
        video = self.video(project, video_id)
        return self.attachments.caption_list(video_id, self.generated_caption(video), base)

    def caption(self, project: Project, video_id: str, language: str, base: str) -> dict[str, Any]:
        tag = language_tag(language)
        for item in self.captions(project, video_id, base):
            if item["srclang"] == tag:
                return item
        raise not_found("language")

    def upload_caption(self, project: Project, video_id: str, language: str, file: bytes,
                       base: str) -> dict[str, Any]:
        tag = language_tag(language)
        text = webvtt_text(file)
        with self.lock:
            video = self.video(project, video_id)
            self.attachments.upload_caption(video_id, tag, text)
            self._touch(video)
        return self.caption(project, video_id, tag, base)

    def set_caption_default(self, project: Project, video_id: str, language: str, body: dict[str, Any],
                            base: str) -> dict[str, Any]:
        tag = language_tag(language)
        unknown = sorted(set(body) - {"default"})
        if unknown:
            raise invalid_attribute(unknown[0], "this payload takes default")
        if "default" in body and not isinstance(body["default"], bool):
            raise invalid_attribute("default", "default must be a boolean")
        with self.lock:
            self.caption(project, video_id, tag, base)  # 404 unless the video has that caption
            if "default" in body:
                self.attachments.set_default(video_id, tag, body["default"])
                self._touch(self.video(project, video_id))
        return self.caption(project, video_id, tag, base)

    def delete_caption(self, project: Project, video_id: str, language: str) -> None:
        tag = language_tag(language)
        with self.lock:
            video = self.video(project, video_id)
            self.attachments.delete_caption(video_id, tag)
            self._touch(video)

    def caption_text(self, video_id: str, language: str) -> str | None:
        """The WebVTT served at a caption's ``src`` (assets need no key), or None."""
        self.catch_up()
        video = self.videos.get(video_id)
        if video is None or video.discarded:
            return None
        uploaded = self.attachments.caption_text(video_id, language)
        if uploaded is not None:
            return uploaded
        if video.probe is None or language != self.generated_caption(video):
            return None
        return data.webvtt(data.caption_cues(self.seed, video_id, language, video.probe.duration_s))

    # -- chapters ------------------------------------------------------------------------------
    def chapters(self, project: Project, video_id: str, base: str) -> list[dict[str, Any]]:
        self.video(project, video_id)
        return self.attachments.chapter_list(video_id, base)

    def chapter(self, project: Project, video_id: str, language: str, base: str) -> dict[str, Any]:
        tag = language_tag(language)
        for item in self.chapters(project, video_id, base):
            if item["language"] == tag:
                return item
        raise not_found("language")

    def upload_chapter(self, project: Project, video_id: str, language: str, file: bytes,
                       base: str) -> dict[str, Any]:
        tag = language_tag(language)
        text = webvtt_text(file)
        with self.lock:
            video = self.video(project, video_id)
            self.attachments.upload_chapter(video_id, tag, text)
            self._touch(video)
        return self.chapter(project, video_id, tag, base)

    def delete_chapter(self, project: Project, video_id: str, language: str) -> None:
        tag = language_tag(language)
        with self.lock:
            video = self.video(project, video_id)
            self.attachments.delete_chapter(video_id, tag)
            self._touch(video)

    def chapter_text(self, video_id: str, language: str) -> str | None:
        self.catch_up()
        video = self.videos.get(video_id)
        if video is None or video.discarded:
            return None
        return self.attachments.chapter_text(video_id, language)

    # -- thumbnails ----------------------------------------------------------------------------
    def upload_thumbnail(self, project: Project, video_id: str, image: Image) -> Video:
        with self.lock:
            video = self.video(project, video_id)
            self.attachments.upload_thumbnail(video_id, image)
            self._touch(video)
            return video

    def pick_thumbnail(self, project: Project, video_id: str, body: dict[str, Any]) -> Video:
        unknown = sorted(set(body) - {"timecode"})
        if unknown:
            raise invalid_attribute(unknown[0], "this payload takes timecode")
        if "timecode" not in body:
            raise invalid_attribute("timecode", "timecode (hh:mm:ss.ms) is required")
        timecode = check_timecode(body["timecode"])
        with self.lock:
            video = self.video(project, video_id)
            if video.probe is None:
                raise invalid_attribute("timecode", "the video has no encoded source to take a frame from yet")
            self.attachments.pick_thumbnail(video_id, picked_timecode(timecode, video.probe.duration_s,
                                                                      video.probe.framerate))
            self._touch(video)
            return video

    # -- summaries -----------------------------------------------------------------------------
    def add_summary(self, video: Video, attributes: list[str], now: int) -> Summary:
        summary = self.summaries.create(video, now, attributes)
        self.schedule_summary(video)
        return summary

    def schedule_summary(self, video: Video, after_ms: int = -1) -> None:
        summary = self.summaries.of_video(video.video_id)
        ready = None if summary is None else self.summaries.ready_ms(summary, video)
        if summary is not None and ready is not None and ready > after_ms:
            self._schedule(ready, summary.summary_id, "summary")

    def _summary_ready(self, summary_id: str, instant: int) -> None:
        summary = self.summaries.by_id.get(summary_id)
        video = None if summary is None else self.videos.get(summary.video_id)
        if summary is None or video is None or video.discarded or self.summaries.ready_ms(summary, video) != instant:
            return
        if video.deletes_ms is not None and instant >= video.deletes_ms:
            return
        self._detect_language(video)
        minutes = (video.probe.duration_s / 60) if video.probe else 0.0
        usage = self._usage(video.project_id)
        if "abstract" in summary.attributes:
            usage.abstract_minutes += minutes
        if "takeaways" in summary.attributes:
            usage.takeaways_minutes += minutes
        self._emit(video, "video.summary.generated", {"summaryId": summary.summary_id}, instant)

    def create_summary(self, project: Project, body: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(body) - {"videoId", "origin", "attributes"})
        if unknown:
            raise invalid_attribute(unknown[0], "this payload takes videoId, origin and attributes")
        if not isinstance(body.get("videoId"), str):
            raise invalid_attribute("videoId", "videoId (a string) is required")
        if body.get("origin", "auto") != "auto":
            raise invalid_attribute("origin", "origin must be auto")
        attributes = attributes_of(body.get("attributes", ["abstract", "takeaways"]), "attributes")
        with self.lock:
            video = self.video(project, body["videoId"])
            now = self.clock.now_ms()
            summary = self.add_summary(video, attributes, now)
            return self.summaries.to_json(summary, video, now)

    def summary_rows(self, project: Project) -> list[dict[str, Any]]:
        self.catch_up()
        now = self.clock.now_ms()
        rows = []
        for summary in list(self.summaries.by_id.values()):
            video = self.videos.get(summary.video_id)
            if summary.project_id == project.project_id and video is not None and not video.discarded:
                rows.append(self.summaries.to_json(summary, video, now))
        return rows

    def _summary(self, project: Project, summary_id: str) -> tuple[Summary, Video]:
        self.catch_up()
        summary = self.summaries.get(project.project_id, summary_id)
        video = self.videos.get(summary.video_id)
        if video is None or video.discarded:
            raise not_found("summaryId")
        return summary, video

    def summary_source(self, project: Project, summary_id: str) -> dict[str, Any]:
        summary, video = self._summary(project, summary_id)
        return self.summaries.source(summary, video, self.clock.now_ms())

    def edit_summary(self, project: Project, summary_id: str, body: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            summary, video = self._summary(project, summary_id)
            return self.summaries.edit(summary, video, body, self.clock.now_ms())

    def delete_summary(self, project: Project, summary_id: str) -> None:
        with self.lock:
            summary, _ = self._summary(project, summary_id)
            self.summaries.delete(summary)
