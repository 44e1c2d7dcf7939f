"""Every public operation of the video fake as a benchmark request (``VideoFake.bench_operations``).

The requests run as the benchmark's project (``auth_headers``: 100 videos), which is made not
rate-limited here, as for the sample request. A stage of one record of each kind is built once per
model through the model's own methods (an encoded video with captions, chapters, a summary and
plays, a player theme with a logo, a live stream broadcasting, a watermark, an upload token, a
webhook); an operation that consumes what it acts on (a DELETE, an upload, a restore) makes a fresh
record in its untimed ``prepare``. The fake is read as :class:`BenchedVideo`, a protocol of what
the stage uses (the package's ``VideoFake`` satisfies it).
"""

from __future__ import annotations

import itertools
from typing import Any, Protocol

from fakes.kernel.benchops import BenchOperation

from . import media
from .images import Image
from .model import VideoModel
from .projects import Project
from .settings import VideoSettings

VTT = b"WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nhello\n"
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")
SINCE = "2026-01-04T09:00:00Z"  # in a query string a "+" would be a space


class BenchedVideo(Protocol):
    """What the benchmark's stage uses of the fake: its settings and model, the benchmark's headers,
    and the Python control plane's clock, broadcast and plays."""

    settings: VideoSettings
    model: VideoModel

    def auth_headers(self) -> dict[str, str]: ...

    def advance(self, seconds: float) -> int: ...

    def broadcast(self, live_stream_id: Any, seconds: Any, *, record: Any = ..., height: Any = ...
                  ) -> dict[str, Any]: ...

    def add_plays(self, plays: Any) -> dict[str, Any]: ...


class Stage:
    """One record of each kind in the benchmark's project, and makers of fresh ones."""

    def __init__(self, fake: BenchedVideo, project: Project) -> None:
        self.fake, self.project = fake, project
        model = fake.model
        self.counter = itertools.count(1)
        video = model.create_video(project, {"title": "bench", "tags": ["bench"], "transcript": True,
                                             "transcriptSummary": True})
        self.video = video.video_id
        self.upload(self.video)
        fake.advance(600)  # encoded, captions and summary generated
        model.upload_caption(project, self.video, "fr", VTT, "")
        model.upload_chapter(project, self.video, "en", VTT, "")
        summary = model.summaries.of_video(self.video)
        assert summary is not None
        self.summary = summary.summary_id
        self.player = model.create_player(project, {"name": "bench"}).player_id
        model.set_logo(project, self.player, Image("png", PNG), "https://example.com")
        self.live = model.create_live_stream(project, {"name": "bench"}).live_stream_id
        fake.broadcast(self.live, 86_400, record=False)  # live at the benchmark's frozen instant
        self.watermark = model.create_watermark(project, Image("png", PNG)).watermark_id
        self.token = model.upload_tokens.create(project.project_id, {}, model.clock.now_ms()).token
        self.webhook = model.subscribe(project, {"events": ["video.caption.generated"],
                                                 "url": "http://127.0.0.1:9/bench"}).webhook_id
        fake.add_plays({"plays": [{"mediaId": self.video, "seconds": 2, "country": c, "viewer": c}
                                  for c in ("FR", "DE", "US")]})
        self.unsummarized = self.fresh_video()["videoId"]
        self.refresh = model.issue_token({"apiKey": project.key(fake.settings.environment)})["refresh_token"]

    def unspend_refresh(self) -> dict[str, str]:
        """The one refresh token the benchmark sends, usable again (a refresh token works once)."""
        self.fake.model.projects.by_refresh[self.refresh].refreshed = False
        return {}

    def forget_summary(self) -> dict[str, str]:
        """The benchmark's video without a summary again (a video has one at most)."""
        self.fake.model.summaries.forget_video(self.unsummarized)
        return {}

    def upload(self, video_id: str) -> None:
        """Give a video its source through the model (no HTTP): the clip, placed as a request's would be."""
        model = self.fake.model
        path = model.storage.incoming_path(video_id, next(self.counter))
        with open(path, "wb") as handle:
            handle.write(media.STAND_IN_MP4)
        model.finish_upload(self.project, video_id, None, len(media.STAND_IN_MP4), path, [])

    def fresh_video(self) -> dict[str, str]:
        return {"videoId": self.fake.model.create_video(self.project, {"title": "fresh"}).video_id}

    def discarded(self) -> dict[str, str]:
        video = self.fresh_video()["videoId"]
        self.project.keeps_discarded = True
        try:
            self.fake.model.delete_video(self.project, video)
        finally:
            self.project.keeps_discarded = False
        return {"videoId": video}

    def fresh(self, kind: str) -> dict[str, str]:
        model, project = self.fake.model, self.project
        if kind == "player":
            return {"playerId": model.create_player(project, {}).player_id}
        if kind == "logo":
            model.set_logo(project, self.player, Image("png", PNG), None)
            return {"playerId": self.player}
        if kind == "live":
            return {"liveStreamId": model.create_live_stream(project, {"name": "x"}).live_stream_id}
        if kind == "watermark":
            return {"watermarkId": model.create_watermark(project, Image("png", PNG)).watermark_id}
        if kind == "token":
            return {"uploadToken": model.upload_tokens.create(project.project_id, {}, model.clock.now_ms()).token}
        if kind == "webhook":
            return {"webhookId": model.subscribe(project, {"events": ["video.caption.generated"],
                                                           "url": "http://127.0.0.1:9/x"}).webhook_id}
        if kind == "caption":
            model.upload_caption(project, self.video, "de", VTT, "")
            return {"videoId": self.video}
        if kind == "chapter":
            model.upload_chapter(project, self.video, "de", VTT, "")
            return {"videoId": self.video}
        if kind == "summary":
            video = self.fake.model.videos[self.fresh_video()["videoId"]]
            return {"summaryId": model.add_summary(video, ["abstract"], model.clock.now_ms()).summary_id}
        raise ValueError(kind)


def bench_operations(fake: BenchedVideo) -> list[BenchOperation]:
    headers = fake.auth_headers()
    project = fake.model.authenticate(headers["Authorization"])
    project.rate_limited = False  # the benchmark sends thousands of requests at one virtual instant
    stage = Stage(fake, project)
    v, live, player = stage.video, stage.live, stage.player
    clip = {"file": ("clip.mp4", media.STAND_IN_MP4, "video/mp4")}
    jpeg = {"file": ("thumb.jpg", media.THUMBNAIL_JPEG, "image/jpeg")}
    png = {"file": ("logo.png", PNG, "image/png")}
    vtt = {"file": ("track.vtt", VTT, "text/vtt")}

    def op(name: str, method: str, path: str, *, expect: tuple[int, ...] = (200,), **extra: Any) -> BenchOperation:
        return BenchOperation(name=name, method=method, path=path, expect=expect, **extra)

    key = project.key(fake.settings.environment)
    return [
        # with the project's Basic header (the exchange ignores it): the window counted is then the
        # benchmark's project, which is not rate-limited, rather than the address's
        op("POST_auth-api-key", "POST", "/auth/api-key", json={"apiKey": key}),
        op("POST_auth-refresh", "POST", "/auth/refresh", json={"refreshToken": stage.refresh},
           prepare=stage.unspend_refresh),
        op("LIST-videos", "GET", "/videos?pageSize=100", template="/videos"),
        op("POST-video", "POST", "/videos", json={"title": "bench", "tags": ["a"]}, expect=(201,)),
        op("GET-video", "GET", f"/videos/{v}", template="/videos/{videoId}"),
        op("PATCH-video", "PATCH", f"/videos/{v}", template="/videos/{videoId}", json={"description": "d"}),
        op("DELETE-video", "DELETE", "/videos/{videoId}", prepare=stage.fresh_video, expect=(204,)),
        op("POST_videos-videoId-source", "POST", "/videos/{videoId}/source", files=clip,
           prepare=stage.fresh_video, expect=(201,)),
        op("GET-video-status", "GET", f"/videos/{v}/status", template="/videos/{videoId}/status"),
        op("POST_videos-videoId-thumbnail", "POST", f"/videos/{v}/thumbnail", template="/videos/{videoId}/thumbnail",
           files=jpeg),
        op("PATCH_videos-videoId-thumbnail", "PATCH", f"/videos/{v}/thumbnail", template="/videos/{videoId}/thumbnail",
           json={"timecode": "00:00:01.00"}),
        op("LIST-discarded-videos", "GET", "/discarded/videos"),
        op("GET-discarded-video", "GET", "/discarded/videos/{videoId}", prepare=stage.discarded),
        op("PATCH-discarded-video", "PATCH", "/discarded/videos/{videoId}", json={"discarded": False},
           prepare=stage.discarded),
        op("LIST-tags", "GET", "/tags"),
        op("POST_upload", "POST", f"/upload?token={stage.token}", template="/upload", files=clip, auth=False,
           expect=(201,)),
        op("GET_upload-tokens", "GET", "/upload-tokens"),
        op("POST_upload-tokens", "POST", "/upload-tokens", json={"ttl": 3600}),
        op("GET_upload-tokens-uploadToken", "GET", f"/upload-tokens/{stage.token}",
           template="/upload-tokens/{uploadToken}"),
        op("DELETE_upload-tokens-uploadToken", "DELETE", "/upload-tokens/{uploadToken}",
           prepare=lambda: stage.fresh("token"), expect=(204,)),
        op("GET_videos-videoId-captions", "GET", f"/videos/{v}/captions", template="/videos/{videoId}/captions"),
        op("GET_videos-videoId-captions-language", "GET", f"/videos/{v}/captions/en",
           template="/videos/{videoId}/captions/{language}"),
        op("POST_videos-videoId-captions-language", "POST", f"/videos/{v}/captions/it",
           template="/videos/{videoId}/captions/{language}", files=vtt),
        op("PATCH_videos-videoId-captions-language", "PATCH", f"/videos/{v}/captions/fr",
           template="/videos/{videoId}/captions/{language}", json={"default": True}),
        op("DELETE_videos-videoId-captions-language", "DELETE", "/videos/{videoId}/captions/de",
           template="/videos/{videoId}/captions/{language}", prepare=lambda: stage.fresh("caption"), expect=(204,)),
        op("GET_videos-videoId-chapters", "GET", f"/videos/{v}/chapters", template="/videos/{videoId}/chapters"),
        op("GET_videos-videoId-chapters-language", "GET", f"/videos/{v}/chapters/en",
           template="/videos/{videoId}/chapters/{language}"),
        op("POST_videos-videoId-chapters-language", "POST", f"/videos/{v}/chapters/it",
           template="/videos/{videoId}/chapters/{language}", files=vtt),
        op("DELETE_videos-videoId-chapters-language", "DELETE", "/videos/{videoId}/chapters/de",
           template="/videos/{videoId}/chapters/{language}", prepare=lambda: stage.fresh("chapter"), expect=(204,)),
        op("GET_summaries", "GET", "/summaries"),
        op("POST_summaries", "POST", "/summaries", json={"videoId": stage.unsummarized},
           prepare=stage.forget_summary, expect=(201,)),
        op("DELETE_summaries-summaryId", "DELETE", "/summaries/{summaryId}", prepare=lambda: stage.fresh("summary"),
           expect=(204,)),
        op("GET_summaries-summaryId-source", "GET", f"/summaries/{stage.summary}/source",
           template="/summaries/{summaryId}/source"),
        op("PATCH_summaries-summaryId-source", "PATCH", f"/summaries/{stage.summary}/source",
           template="/summaries/{summaryId}/source", json={"abstract": "edited"}, expect=(201,)),
        op("POST_watermark", "POST", "/watermarks", files=png),
        op("LIST-watermarks", "GET", "/watermarks"),
        op("DELETE_watermark", "DELETE", "/watermarks/{watermarkId}", prepare=lambda: stage.fresh("watermark"),
           expect=(204,)),
        op("GET_live-streams", "GET", "/live-streams"),
        op("POST_live-streams", "POST", "/live-streams", json={"name": "bench"}),
        op("GET_live-streams-liveStreamId", "GET", f"/live-streams/{live}", template="/live-streams/{liveStreamId}"),
        op("PATCH_live-streams-liveStreamId", "PATCH", f"/live-streams/{live}", template="/live-streams/{liveStreamId}",
           json={"name": "renamed"}),
        op("DELETE_live-streams-liveStreamId", "DELETE", "/live-streams/{liveStreamId}",
           prepare=lambda: stage.fresh("live"), expect=(204,)),
        op("POST_live-streams-liveStreamId-thumbnail", "POST", f"/live-streams/{live}/thumbnail",
           template="/live-streams/{liveStreamId}/thumbnail", files=jpeg, expect=(201,)),
        op("DELETE_live-streams-liveStreamId-thumbnail", "DELETE", f"/live-streams/{live}/thumbnail",
           template="/live-streams/{liveStreamId}/thumbnail"),
        op("PUT_live-streams-liveStreamId-complete", "PUT", "/live-streams/{liveStreamId}/complete",
           prepare=lambda: stage.fresh("live"), expect=(202,)),
        op("GET_players", "GET", "/players"),
        op("POST_players", "POST", "/players", json={"name": "bench", "text": "rgba(1, 2, 3, 1)"}, expect=(201,)),
        op("GET_players-playerId", "GET", f"/players/{player}", template="/players/{playerId}"),
        op("PATCH_players-playerId", "PATCH", f"/players/{player}", template="/players/{playerId}",
           json={"forceLoop": True}),
        op("DELETE_players-playerId", "DELETE", "/players/{playerId}", prepare=lambda: stage.fresh("player"),
           expect=(204,)),
        op("POST_players-playerId-logo", "POST", f"/players/{player}/logo", template="/players/{playerId}/logo",
           files=png, expect=(201,)),
        op("DELETE_players-playerId-logo", "DELETE", "/players/{playerId}/logo", prepare=lambda: stage.fresh("logo"),
           expect=(204,)),
        op("GET_aggregated-metrics", "GET", f"/data/metrics/play/count?from={SINCE}",
           template="/data/metrics/{metric}/{aggregation}"),
        op("GET_metrics-breakdown", "GET", f"/data/buckets/play/country?from={SINCE}",
           template="/data/buckets/{metric}/{breakdown}"),
        op("GET_metrics-over-time", "GET", f"/data/timeseries/play?from={SINCE}", template="/data/timeseries/{metric}"),
        op("LIST-webhooks", "GET", "/webhooks"),
        op("POST-webhooks", "POST", "/webhooks", json={"events": ["video.caption.generated"],
                                                        "url": "http://127.0.0.1:9/hook"}, expect=(201,)),
        op("GET-Webhook", "GET", f"/webhooks/{stage.webhook}", template="/webhooks/{webhookId}"),
        op("DELETE-webhook", "DELETE", "/webhooks/{webhookId}", prepare=lambda: stage.fresh("webhook"),
           expect=(204,)),
        op("GET /vod/{videoId}", "GET", f"/vod/{v}", template="/vod/{videoId}", auth=False),
        op("GET /vod/{videoId}/hls/manifest.m3u8", "GET", f"/vod/{v}/hls/manifest.m3u8",
           template="/vod/{videoId}/hls/manifest.m3u8", auth=False),
        op("GET /vod/{videoId}/thumbnail.jpg", "GET", f"/vod/{v}/thumbnail.jpg",
           template="/vod/{videoId}/thumbnail.jpg", auth=False),
        op("GET /vod/{videoId}/mp4/source.mp4", "GET", f"/vod/{v}/mp4/source.mp4",
           template="/vod/{videoId}/mp4/source.mp4", auth=False),
        op("GET /live/{liveStreamId}", "GET", f"/live/{live}", template="/live/{liveStreamId}", auth=False),
        op("GET /live/{liveStreamId}.m3u8", "GET", f"/live/{live}.m3u8", template="/live/{liveStreamId}.m3u8",
           auth=False, expect=(200, 404)),
        op("GET /live/{liveStreamId}/thumbnail.jpg", "GET", f"/live/{live}/thumbnail.jpg",
           template="/live/{liveStreamId}/thumbnail.jpg", auth=False, expect=(200, 404)),
    ]
