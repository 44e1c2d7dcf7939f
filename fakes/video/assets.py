"""What the assets advertise, served by the fake itself (the vendor's embed and CDN hosts in one).

No key is needed, as a player needs none. Each asset exists once the timeline says so: the
thumbnail once ingested, the HLS master once playable (listing the encoded qualities), a quality's
media playlist and segments once that quality is encoded, the MP4 once its step is encoded, the
WebVTT once the captions are generated. Segments and the MP4 count as minutes watched. Answers
that are not there are a CDN's plain 404, without rate-limit headers (the CDN is not the API).
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send

from . import media
from .timeline import BANDWIDTH, RESOLUTION
from .videos import Video

if TYPE_CHECKING:
    from . import VideoFake

HLS = "application/vnd.apple.mpegurl"


class FileChunks(Response):
    """A file sent in chunks, read as they are sent (never whole in memory); unlike Starlette's
    FileResponse it does not race the body against a disconnect listener."""

    chunk_size = 256 * 1024

    def __init__(self, path: str, media_type: str) -> None:
        super().__init__(media_type=media_type)
        self.path = path
        self.headers["content-length"] = str(os.path.getsize(path))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        with open(self.path, "rb") as handle:
            while True:
                chunk = handle.read(self.chunk_size)
                more = len(chunk) == self.chunk_size
                await send({"type": "http.response.body", "body": chunk, "more_body": more})
                if not more:
                    return


def _missing() -> Response:
    return Response("Not Found\n", status_code=404, media_type="text/plain")


def master_playlist(qualities: list[str]) -> str:
    lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-INDEPENDENT-SEGMENTS"]
    for quality in qualities:
        width, height = RESOLUTION[quality]
        lines += [f"#EXT-X-STREAM-INF:BANDWIDTH={BANDWIDTH[quality]},RESOLUTION={width}x{height}",
                  f"{quality}/manifest.m3u8"]
    return "\n".join(lines) + "\n"


def segment_count(duration_s: float) -> int:
    return max(1, math.ceil(duration_s / media.SEGMENT_TS_SECONDS))


def media_playlist(duration_s: float) -> str:
    """A VOD playlist of the stand-in segment repeated over the source's length; a discontinuity
    before each repetition makes its restarting timestamps legal."""
    count = segment_count(duration_s)
    lines = ["#EXTM3U", "#EXT-X-VERSION:3", f"#EXT-X-TARGETDURATION:{media.SEGMENT_TS_SECONDS}",
             "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD"]
    for index in range(count):
        length = min(media.SEGMENT_TS_SECONDS, duration_s - index * media.SEGMENT_TS_SECONDS)
        if index:
            lines.append("#EXT-X-DISCONTINUITY")
        lines += [f"#EXTINF:{max(length, 0.001):.3f},", f"segment-{index}.ts"]
    lines.append("#EXT-X-ENDLIST")
    return "\n".join(lines) + "\n"


def player_page(video: Video, base: str) -> str:
    title = video.title.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    return (f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{title}</title></head>\n'
            f'<body style="margin:0"><video controls playsinline width="100%" height="100%" '
            f'poster="{base}/vod/{video.video_id}/thumbnail.jpg" '
            f'src="{base}/vod/{video.video_id}/hls/manifest.m3u8"></video></body></html>\n')


def asset_routes(fake: VideoFake) -> list[BaseRoute]:
    def current(request: Request) -> tuple[Video, int] | None:
        fake.sync()
        video = fake.model.playable(request.path_params["video_id"])
        fake.dispatch()
        if video is None:
            return None
        return video, fake.model.clock.now_ms()

    def base_of(request: Request) -> str:
        from .routes import request_base

        return fake.settings.public_base_url.rstrip("/") or request_base(request)

    async def player(request: Request) -> Response:
        found = current(request)
        if found is None:
            return _missing()
        return Response(player_page(found[0], base_of(request)), media_type="text/html")

    async def master(request: Request) -> Response:
        found = current(request)
        if found is None or found[0].timeline is None:
            return _missing()
        video, now = found
        assert video.timeline is not None
        qualities = video.timeline.encoded_hls(now)
        if not qualities:
            return _missing()
        return Response(master_playlist(qualities), media_type=HLS)

    def encoded_quality(request: Request) -> Video | None:
        found = current(request)
        if found is None or found[0].timeline is None or found[0].probe is None:
            return None
        video, now = found
        assert video.timeline is not None
        return video if request.path_params["quality"] in video.timeline.encoded_hls(now) else None

    async def playlist(request: Request) -> Response:
        video = encoded_quality(request)
        if video is None or video.probe is None:
            return _missing()
        return Response(media_playlist(video.probe.duration_s), media_type=HLS)

    async def segment(request: Request) -> Response:
        video = encoded_quality(request)
        index = request.path_params["index"]
        if video is None or video.probe is None or index >= segment_count(video.probe.duration_s):
            return _missing()
        seconds = min(media.SEGMENT_TS_SECONDS, video.probe.duration_s - index * media.SEGMENT_TS_SECONDS)
        fake.model.watched(video, seconds)
        return Response(media.SEGMENT_TS, media_type="video/mp2t")

    async def thumbnail(request: Request) -> Response:
        found = current(request)
        if found is None or found[0].timeline is None or found[0].probe is None:
            return _missing()
        video, now = found
        assert video.timeline is not None
        if now < video.timeline.ingested_ms:
            return _missing()
        return Response(media.THUMBNAIL_JPEG, media_type="image/jpeg")

    async def mp4(request: Request) -> Response:
        found = current(request)
        if found is None or found[0].timeline is None or found[0].probe is None or not found[0].mp4_support:
            return _missing()
        video, now = found
        assert video.timeline is not None and video.probe is not None
        if not video.timeline.mp4_ready(now):
            return _missing()
        fake.model.watched(video, video.probe.duration_s)
        path = fake.model.storage.source_path(video.video_id)
        if fake.model.storage.exists(video.video_id) and os.path.getsize(path) > 0:
            return FileChunks(path, "video/mp4")
        return Response(media.STAND_IN_MP4, media_type="video/mp4")

    async def vtt(request: Request) -> Response:
        fake.sync()
        text = fake.model.caption_text(request.path_params["video_id"], request.path_params["language"])
        fake.dispatch()
        if text is None:
            return _missing()
        return Response(text, media_type="text/vtt")

    return [
        Route("/vod/{video_id}", player, methods=["GET"]),
        Route("/vod/{video_id}/hls/manifest.m3u8", master, methods=["GET"]),
        Route("/vod/{video_id}/hls/{quality}/manifest.m3u8", playlist, methods=["GET"]),
        Route("/vod/{video_id}/hls/{quality}/segment-{index:int}.ts", segment, methods=["GET"]),
        Route("/vod/{video_id}/thumbnail.jpg", thumbnail, methods=["GET"]),
        Route("/vod/{video_id}/mp4/source.mp4", mp4, methods=["GET"]),
        Route("/vod/{video_id}/captions/{language}.vtt", vtt, methods=["GET"]),
    ]
