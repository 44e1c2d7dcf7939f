"""What the assets advertise, served by the fake itself (the vendor's embed and CDN hosts in one).

No key is needed, as a player needs none. Each asset exists once the timeline says so: the
thumbnail once ingested, the HLS master once playable (listing the encoded qualities), a quality's
media playlist and segments once that quality is encoded, the MP4 once its step is encoded, the
WebVTT once the captions are generated (or at once when uploaded, as chapters are). A live
stream's player, its HLS while it broadcasts (a sliding window of the last segments) and its
thumbnail; a player theme's logo. Each player page load is an impression and each segment or MP4
minutes watched and a play of the viewer's analytics session (metering.py). Answers that are not
there are a CDN's plain 404, without rate-limit headers (the CDN is not the API).
"""

from __future__ import annotations

import html
import math
import os
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send

from fakes.kernel.http import header_value

from . import media
from .browser import cors_policy
from .endpoints import ServedVideo, request_base
from .settings import VideoSettings
from .timeline import BANDWIDTH, RESOLUTION
from .videos import Video

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


def _not_yet(status: int) -> Response:
    """A manifest or MP4 that encoding will make but has not made yet: 202 with an empty body (the
    ``not_ready_status`` setting; docs/services/video.md, "From a browser"), or the plain 404."""
    if status == 404:
        return _missing()
    return Response(b"", status_code=status, headers={"cache-control": "no-store"})


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


def player_page(title: str, poster: str, source: str) -> str:
    """The embed page; every value is escaped (the URLs carry the request's Host header)."""
    title, poster, source = (html.escape(text, quote=True) for text in (title, poster, source))
    return (f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{title}</title></head>\n'
            f'<body style="margin:0"><video controls playsinline width="100%" height="100%" '
            f'poster="{poster}" src="{source}"></video></body></html>\n')


def live_playlist(first: int, last: int) -> str:
    """A live media playlist: the last segments of a broadcast in progress (no end list)."""
    lines = ["#EXTM3U", "#EXT-X-VERSION:3", f"#EXT-X-TARGETDURATION:{media.SEGMENT_TS_SECONDS}",
             f"#EXT-X-MEDIA-SEQUENCE:{first}"]
    for index in range(first, last + 1):
        if index > first:
            lines.append("#EXT-X-DISCONTINUITY")
        lines += [f"#EXTINF:{media.SEGMENT_TS_SECONDS:.3f},", f"segment-{index}.ts"]
    return "\n".join(lines) + "\n"


def asset_routes(settings: VideoSettings) -> list[BaseRoute]:
    """The assets' routes (shared by a fake and its worlds: each request reads its own fake)."""

    def fake_of(request: Request) -> ServedVideo:
        return request.scope["app"]  # type: ignore[no-any-return]

    def current(request: Request) -> tuple[Video, int] | None:
        fake = fake_of(request)
        fake.sync()
        video = fake.model.playable(request.path_params["video_id"])
        fake.dispatch()
        if video is None:
            return None
        return video, fake.model.clock.now_ms()

    def base_of(request: Request) -> str:
        return settings.public_base_url.rstrip("/") or request_base(request)

    def not_yet() -> Response:
        return _not_yet(settings.not_ready_status)

    def deliver(request: Request, media: Any, seconds: float, *, ended: bool = False, impression: bool = False) -> None:
        """Minutes watched and the viewer's analytics session (viewer: address and user agent)."""
        fake_of(request).model.delivered(media, client=request.client.host if request.client else "-",
                             agent=header_value(request, b"user-agent") or "",
                             referrer=header_value(request, b"referer") or "", seconds=seconds, ended=ended,
                             impression=impression)

    async def player(request: Request) -> Response:
        found = current(request)
        if found is None:
            return _missing()
        video, base = found[0], base_of(request)
        deliver(request, video, 0.0, impression=True)
        return Response(player_page(video.title, f"{base}/vod/{video.video_id}/thumbnail.jpg",
                                    f"{base}/vod/{video.video_id}/hls/manifest.m3u8"), media_type="text/html")

    async def master(request: Request) -> Response:
        found = current(request)
        if found is None or found[0].timeline is None:
            return _missing()
        video, now = found
        assert video.timeline is not None
        qualities = video.timeline.encoded_hls(now)
        if not qualities:
            return not_yet() if video.timeline.will_encode("hls") else _missing()
        return Response(master_playlist(qualities), media_type=HLS)

    def encoded_quality(request: Request) -> Video | None:
        found = current(request)
        if found is None or found[0].timeline is None or found[0].probe is None:
            return None
        video, now = found
        assert video.timeline is not None
        return video if request.path_params["quality"] in video.timeline.encoded_hls(now) else None

    async def playlist(request: Request) -> Response:
        found = current(request)
        if found is None or found[0].timeline is None or found[0].probe is None:
            return _missing()
        (video, now), quality = found, request.path_params["quality"]
        assert video.timeline is not None and video.probe is not None
        if quality not in video.timeline.encoded_hls(now):
            return not_yet() if video.timeline.will_encode("hls", quality) else _missing()
        return Response(media_playlist(video.probe.duration_s), media_type=HLS)

    async def segment(request: Request) -> Response:
        video = encoded_quality(request)
        index = request.path_params["index"]
        if video is None or video.probe is None:
            return _missing()
        count = segment_count(video.probe.duration_s)
        if index >= count:
            return _missing()
        seconds = min(media.SEGMENT_TS_SECONDS, video.probe.duration_s - index * media.SEGMENT_TS_SECONDS)
        deliver(request, video, max(seconds, 0.0), ended=index == count - 1)
        return Response(media.SEGMENT_TS, media_type="video/mp2t")

    async def thumbnail(request: Request) -> Response:
        fake = fake_of(request)
        found = current(request)
        if found is None:
            return _missing()
        video, now = found
        uploaded = fake.model.attachments.thumbnails.get(video.video_id)
        if uploaded is not None:
            return Response(uploaded.data, media_type=uploaded.media_type)
        if video.timeline is None or video.probe is None or now < video.timeline.ingested_ms:
            return _missing()
        return Response(media.THUMBNAIL_JPEG, media_type="image/jpeg")

    async def mp4(request: Request) -> Response:
        fake = fake_of(request)
        found = current(request)
        if found is None or found[0].timeline is None or found[0].probe is None or not found[0].mp4_support:
            return _missing()
        video, now = found
        assert video.timeline is not None and video.probe is not None
        if not video.timeline.mp4_ready(now):
            return not_yet() if video.timeline.will_encode("mp4") else _missing()
        deliver(request, video, video.probe.duration_s, ended=True)
        path = fake.model.storage.source_path(video.video_id)
        if fake.model.storage.exists(video.video_id) and os.path.getsize(path) > 0:
            return FileChunks(path, "video/mp4")
        return Response(media.STAND_IN_MP4, media_type="video/mp4")

    def webvtt(kind: str) -> Callable[[Request], Awaitable[Response]]:
        async def vtt(request: Request) -> Response:
            fake = fake_of(request)
            fake.sync()
            read = fake.model.caption_text if kind == "captions" else fake.model.chapter_text
            text = read(request.path_params["video_id"], request.path_params["language"])
            fake.dispatch()
            if text is None:
                return _missing()
            return Response(text, media_type="text/vtt")

        return vtt

    # -- live streams --------------------------------------------------------------------------
    def live(request: Request) -> tuple[Any, int] | None:
        fake = fake_of(request)
        fake.sync()
        stream = fake.model.live.by_id.get(request.path_params["live_id"])
        fake.dispatch()
        return None if stream is None else (stream, fake.model.clock.now_ms())

    def live_window(stream: Any, now: int) -> tuple[int, int] | None:
        """(first, last) segment numbers of a broadcast in progress, or None."""
        if not stream.broadcasting(now):
            return None
        last = (now - stream.broadcast.start_ms) // (media.SEGMENT_TS_SECONDS * 1000)
        return max(0, last - 2), last

    async def live_player(request: Request) -> Response:
        found = live(request)
        if found is None:
            return _missing()
        stream, base = found[0], base_of(request)
        deliver(request, stream, 0.0, impression=True)
        return Response(player_page(stream.name, f"{base}/live/{stream.live_stream_id}/thumbnail.jpg",
                                    f"{base}/live/{stream.live_stream_id}.m3u8"), media_type="text/html")

    async def live_manifest(request: Request) -> Response:
        found = live(request)
        window = None if found is None else live_window(*found)
        if window is None:
            return _missing()
        return Response(live_playlist(*window), media_type=HLS)

    async def live_segment(request: Request) -> Response:
        found = live(request)
        window = None if found is None else live_window(*found)
        if found is None or window is None or not 0 <= request.path_params["index"] <= window[1]:
            return _missing()
        deliver(request, found[0], float(media.SEGMENT_TS_SECONDS))
        return Response(media.SEGMENT_TS, media_type="video/mp2t")

    async def live_thumbnail(request: Request) -> Response:
        found = live(request)
        if found is None:
            return _missing()
        stream = found[0]
        if stream.thumbnail is not None:
            return Response(stream.thumbnail.data, media_type=stream.thumbnail.media_type)
        if stream.broadcast is None:
            return _missing()
        return Response(media.THUMBNAIL_JPEG, media_type="image/jpeg")

    async def logo(request: Request) -> Response:
        fake = fake_of(request)
        fake.sync()
        theme = fake.model.players.by_id.get(request.path_params["player_id"])
        if theme is None or theme.logo is None or request.path_params["extension"] != theme.logo.extension:
            return _missing()
        return Response(theme.logo.data, media_type=theme.logo.media_type)

    cors = cors_policy(settings)

    def get(path: str, endpoint: Callable[[Request], Awaitable[Response]]) -> BaseRoute:
        """A GET route; answering pages of other origins where the settings say (browser.py)."""
        return cors.route(path, endpoint, ["GET"]) if cors is not None else Route(path, endpoint, methods=["GET"])

    return [
        get("/vod/{video_id}", player),
        get("/vod/{video_id}/hls/manifest.m3u8", master),
        get("/vod/{video_id}/hls/{quality}/manifest.m3u8", playlist),
        get("/vod/{video_id}/hls/{quality}/segment-{index:int}.ts", segment),
        get("/vod/{video_id}/thumbnail.jpg", thumbnail),
        get("/vod/{video_id}/mp4/source.mp4", mp4),
        get("/vod/{video_id}/captions/{language}.vtt", webvtt("captions")),
        get("/vod/{video_id}/chapters/{language}.vtt", webvtt("chapters")),
        get("/live/{live_id}.m3u8", live_manifest),
        get("/live/{live_id}/segment-{index:int}.ts", live_segment),
        get("/live/{live_id}/thumbnail.jpg", live_thumbnail),
        get("/live/{live_id}", live_player),
        get("/assets/players/{player_id}/logo.{extension}", logo),
    ]
