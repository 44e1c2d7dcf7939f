"""Live streams, player themes and watermarks of the model: the rules that join them to videos.

A mixin of :class:`fakes.video.model.VideoModel`. A broadcast (live_streams.py) starts through the
control plane and ends on the clock or by ``complete``; its end emits the webhook and, when it
records, makes a video of the recording (encoded like an upload from that instant). A deleted
player theme is detached from the videos and live streams that named it.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from fakes.kernel.clock import Clock
from fakes.kernel.errors import ControlError

from .images import Image
from .ingest import UploadSession
from .live_streams import Broadcast, LiveStream, LiveStreams, stream_fields
from .players import Players, PlayerTheme
from .probe import Probe
from .problems import not_found
from .projects import Project
from .settings import VideoSettings
from .videos import Video, later
from .watermarks import Watermark, Watermarks

RECORDING_BITRATE = 2_500_000.0  # bits a second of a recording, for its file size and status


class LiveRules:
    clock: Clock
    settings: VideoSettings
    lock: threading.RLock
    version: int
    videos: dict[str, Video]
    players: Players
    watermarks: Watermarks
    live: LiveStreams

    # -- player themes -------------------------------------------------------------------------
    if TYPE_CHECKING:  # provided by the model or its other mixins
        def catch_up(self) -> None:
            ...

        def _schedule(self, instant: int, subject: str, what: str) -> None:
            ...

        def emit(self, project_id: str, event: str, payload: dict[str, Any], instant: int) -> None:
            ...

        def new_video(self, project_id: str, fields: dict[str, Any], at_ms: int | None = None) -> Video:
            ...

        def _start_timeline(self, video: Video, now: int, found: Probe | None) -> None:
            ...

    def create_player(self, project: Project, body: dict[str, Any]) -> PlayerTheme:
        with self.lock:
            return self.players.create(project.project_id, body, self.clock.now_ms())

    def update_player(self, project: Project, player_id: str, body: dict[str, Any]) -> PlayerTheme:
        with self.lock:
            theme = self.players.get(project.project_id, player_id)
            return self.players.update(theme, body, self.clock.now_ms())

    def delete_player(self, project: Project, player_id: str) -> None:
        with self.lock:
            theme = self.players.get(project.project_id, player_id)
            del self.players.by_id[theme.player_id]
            for video in self.videos.values():
                if video.player_id == player_id:
                    video.player_id = None
                    self.version += 1
            for stream in self.live.by_id.values():
                if stream.player_id == player_id:
                    stream.player_id = None

    def set_logo(self, project: Project, player_id: str, image: Image | None, link: str | None) -> PlayerTheme:
        with self.lock:
            theme = self.players.get(project.project_id, player_id)
            if image is None and theme.logo is None:
                raise not_found("logo")
            theme.logo, theme.logo_link = image, link if image is not None else None
            theme.updated_ms = self.clock.now_ms()
            return theme

    # -- watermarks ----------------------------------------------------------------------------
    def create_watermark(self, project: Project, image: Image) -> Watermark:
        with self.lock:
            return self.watermarks.create(project.project_id, image, self.clock.now_ms())

    def delete_watermark(self, project: Project, watermark_id: str) -> None:
        with self.lock:
            self.watermarks.delete(project.project_id, watermark_id)

    # -- live streams --------------------------------------------------------------------------
    def live_stream(self, project: Project, live_stream_id: str) -> LiveStream:
        self.catch_up()
        return self.live.get(project.project_id, live_stream_id)

    def create_live_stream(self, project: Project, body: dict[str, Any]) -> LiveStream:
        fields = stream_fields(body, creating=True)
        with self.lock:
            self.players.check_reference(project.project_id, fields.get("player_id"))
            return self.live.create(project.project_id, fields, self.clock.now_ms())

    def update_live_stream(self, project: Project, live_stream_id: str, body: dict[str, Any]) -> LiveStream:
        fields = stream_fields(body, creating=False)
        with self.lock:
            stream = self.live_stream(project, live_stream_id)
            self.players.check_reference(project.project_id, fields.get("player_id"))
            self.live.apply(stream, fields, self.clock.now_ms())
            return stream

    def delete_live_stream(self, project: Project, live_stream_id: str) -> None:
        """Gone at once, a broadcast in progress included (it emits nothing more, records nothing)."""
        with self.lock:
            del self.live.by_id[self.live_stream(project, live_stream_id).live_stream_id]

    def set_live_thumbnail(self, project: Project, live_stream_id: str, image: Image | None) -> LiveStream:
        with self.lock:
            stream = self.live_stream(project, live_stream_id)
            stream.thumbnail = image
            stream.updated_ms = self.clock.now_ms()
            return stream

    def complete_live_stream(self, project: Project, live_stream_id: str) -> None:
        """End the broadcast in progress now (nothing to do when none is)."""
        with self.lock:
            stream = self.live_stream(project, live_stream_id)
            now = self.clock.now_ms()
            if stream.broadcast is not None and stream.broadcast.live(now):
                stream.broadcast.end_ms = now
                self._broadcast_end(stream.live_stream_id, now)

    def start_broadcast(self, live_stream_id: Any, seconds: Any, record: Any, height: Any) -> dict[str, Any]:
        """The control plane's simulated RTMP client: a broadcast of ``seconds`` from now."""
        with self.lock:
            self.catch_up()
            stream = self.live.by_id.get(live_stream_id) if isinstance(live_stream_id, str) else None
            if stream is None:
                raise ControlError(404, f"no live stream {str(live_stream_id)[:60]!r}", code="not_found")
            if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 < seconds <= 86_400:
                raise ControlError(400, "seconds must be a number from 0 (excluded) to 86400", code="invalid_broadcast",
                                   field="seconds")
            if not isinstance(record, bool):
                raise ControlError(400, "record must be true or false", code="invalid_broadcast", field="record")
            if isinstance(height, bool) or not isinstance(height, int) or not 144 <= height <= 2160:
                raise ControlError(400, "height must be an integer from 144 to 2160", code="invalid_broadcast",
                                   field="height")
            now = self.clock.now_ms()
            if stream.broadcasting(now):
                raise ControlError(409, f"{stream.live_stream_id} is broadcasting already", code="broadcasting")
            if self.settings.sandbox:
                seconds = min(seconds, self.settings.sandbox_max_duration_s)
            end = later(now, max(1, round(seconds * 1000)))
            stream.broadcast = Broadcast(now, end, record, height)
            self._schedule(end, stream.live_stream_id, "broadcast-end")
            self.emit(stream.project_id, "live-stream.broadcast.started", {"liveStreamId": stream.live_stream_id}, now)
            return self.broadcast_json(stream)

    @staticmethod
    def broadcast_json(stream: LiveStream) -> dict[str, Any]:
        cast = stream.broadcast
        assert cast is not None
        return {"liveStreamId": stream.live_stream_id, "start_ms": cast.start_ms, "end_ms": cast.end_ms,
                "record": cast.record, "height": cast.height, "ended": cast.ended}

    def _broadcast_end(self, live_stream_id: str, instant: int) -> None:
        stream = self.live.by_id.get(live_stream_id)
        cast = None if stream is None else stream.broadcast
        if stream is None or cast is None or cast.ended or cast.end_ms != instant:
            return
        cast.ended = True
        self.emit(stream.project_id, "live-stream.broadcast.ended", {"liveStreamId": live_stream_id}, instant)
        if cast.record:
            video = self._record(stream, cast)
            self.emit(stream.project_id, "video.source.recorded",
                      {"liveStreamId": live_stream_id, "videoId": video.video_id}, instant)

    def _record(self, stream: LiveStream, cast: Broadcast) -> Video:
        """The recording of a broadcast: a video whose source is complete at the broadcast's end."""
        duration = (cast.end_ms - cast.start_ms) / 1000
        width = round(cast.height * 16 / 9) // 2 * 2
        found = Probe(duration, width, cast.height, RECORDING_BITRATE, 30, 48_000, "h264", "aac")
        fields: dict[str, Any] = {"title": stream.name, "public": stream.public,
                                  "live_stream_id": stream.live_stream_id}
        if stream.player_id is not None:
            fields["player_id"] = stream.player_id
        video = self.new_video(stream.project_id, fields, cast.end_ms)
        size = max(1, round(duration * RECORDING_BITRATE / 8))
        video.upload = UploadSession("single", size, [(0, size - 1)])
        self._start_timeline(video, cast.end_ms, found)
        return video
