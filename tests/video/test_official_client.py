"""Every public method of every API class of api.video's official Python client (``api.video`` 1.4.x,
module ``apivideo``) against the fake served over HTTP, with only the client's host changed."""

from __future__ import annotations

import importlib
import inspect
import io
import pkgutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import apivideo
import pytest
from apivideo import api as apis
from apivideo.model.captions_update_payload import CaptionsUpdatePayload
from apivideo.model.discarded_video_update_payload import DiscardedVideoUpdatePayload
from apivideo.model.filter_by2 import FilterBy2
from apivideo.model.live_stream_creation_payload import LiveStreamCreationPayload
from apivideo.model.live_stream_update_payload import LiveStreamUpdatePayload
from apivideo.model.player_theme_creation_payload import PlayerThemeCreationPayload
from apivideo.model.player_theme_update_payload import PlayerThemeUpdatePayload
from apivideo.model.restreams_request_object import RestreamsRequestObject
from apivideo.model.summary_creation_payload import SummaryCreationPayload
from apivideo.model.summary_update_payload import SummaryUpdatePayload
from apivideo.model.token_creation_payload import TokenCreationPayload
from apivideo.model.video_creation_payload import VideoCreationPayload
from apivideo.model.video_thumbnail_pick_payload import VideoThumbnailPickPayload
from apivideo.model.video_update_payload import VideoUpdatePayload
from apivideo.model.webhooks_creation_payload import WebhooksCreationPayload

from fakes.video import VideoFake

from .helpers import CLIP_2S, JPEG, PNG, VTT

API_CLASSES = [cls for info in pkgutil.iter_modules(apis.__path__)
               for name, cls in inspect.getmembers(importlib.import_module(f"apivideo.api.{info.name}"),
                                                   inspect.isclass)
               if name.endswith("Api") and cls.__module__ == f"apivideo.api.{info.name}"]


def public_methods() -> set[str]:
    return {f"{cls.__name__}.{name}" for cls in API_CLASSES for name, _ in inspect.getmembers(cls, inspect.isfunction)
            if not name.startswith("_")}


class Recorder:
    """An API object that notes each public method called through it."""

    def __init__(self, api: Any, called: set[str]) -> None:
        self._api, self._called = api, called

    def __getattr__(self, name: str) -> Any:
        self._called.add(f"{type(self._api).__name__}.{name}")
        return getattr(self._api, name)


def named_file(directory: Path, name: str, content: bytes) -> io.BufferedReader:
    path = directory / name
    path.write_bytes(content)
    return open(path, "rb")


@pytest.fixture(scope="module")
def tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("official-client")


def test_every_public_method_of_the_official_client_works_with_only_the_host_changed(tmp: Path) -> None:
    assert len(API_CLASSES) == 11
    fake = VideoFake(seed=0, **VideoFake.settings_for_tests())
    keys = fake.create_project(keeps_discarded=True)
    called: set[str] = set()
    with fake.serve() as base_url:
        client = apivideo.AuthenticatedApiClient(keys["sandbox_key"], production=False)
        client.configuration.host = base_url  # the constructor sets the vendor's host
        with client:
            api = {cls.__name__: Recorder(cls(client), called) for cls in API_CLASSES}
            videos, players, live = api["VideosApi"], api["PlayerThemesApi"], api["LiveStreamsApi"]

            theme = players.create(PlayerThemeCreationPayload(name="brand", text="rgba(1, 2, 3, 1)"))
            assert theme.player_id.startswith("pl")
            assert players.get(theme.player_id).name == "brand"
            assert players.update(theme.player_id, PlayerThemeUpdatePayload(hide_title=True)).hide_title is True
            assert players.list(sort_by="name", sort_order="asc").pagination.items_total == 1
            logo = players.upload_logo(theme.player_id, named_file(tmp, "logo.png", PNG), link="https://x.test")
            assert logo.assets.logo.endswith("/logo.png")
            players.delete_logo(theme.player_id)

            mark = api["WatermarksApi"].upload(named_file(tmp, "mark.png", PNG))
            assert api["WatermarksApi"].list().data[0].watermark_id == mark.watermark_id

            created = videos.create(VideoCreationPayload(title="sdk", tags=["sdk"], player_id=theme.player_id,
                                                         transcript=True))
            video_id = created.video_id
            with open(CLIP_2S, "rb") as handle:
                assert videos.upload(video_id, handle).video_id == video_id  # Content-Range: part 1/1
            fake.advance(600)
            assert videos.get_status(video_id).encoding.playable is True
            assert videos.get(video_id).player_id == theme.player_id
            assert videos.update(video_id, VideoUpdatePayload(title="renamed")).title == "renamed"
            assert [v.video_id for v in videos.list(tags=["sdk"]).data] == [video_id]
            assert videos.upload_thumbnail(video_id, named_file(tmp, "thumb.jpg", JPEG)).video_id == video_id
            assert videos.pick_thumbnail(video_id, VideoThumbnailPickPayload(timecode="00:00:01.00")).video_id == \
                video_id

            progressive = videos.create(VideoCreationPayload(title="progressive")).video_id
            session = videos.create_upload_progressive_session(progressive)
            with open(CLIP_2S, "rb") as handle:
                assert session.uploadLastPart(handle).video_id == progressive

            tokens = api["UploadTokensApi"]
            token = tokens.create_token(TokenCreationPayload(ttl=3600))
            assert tokens.get_token(token.token).ttl == 3600
            assert tokens.list(sort_by="ttl").pagination.items_total == 1
            with open(CLIP_2S, "rb") as handle:
                delegated = videos.upload_with_upload_token(token.token, handle)
            assert delegated.title.endswith("clip_2s_240p.mp4")
            token_session = videos.create_upload_with_upload_token_progressive_session(token.token)
            with open(CLIP_2S, "rb") as handle:
                assert token_session.uploadLastPart(handle).video_id.startswith("vi")
            tokens.delete_token(token.token)

            captions = api["CaptionsApi"]
            assert captions.upload(video_id, "fr", named_file(tmp, "fr.vtt", VTT)).srclang == "fr"
            assert captions.get(video_id, "fr").src.endswith("/captions/fr.vtt")
            assert captions.update(video_id, "fr", CaptionsUpdatePayload(default=True)).default is True
            assert [c.srclang for c in captions.list(video_id).data] == ["en", "fr"]
            captions.delete(video_id, "fr")

            chapters = api["ChaptersApi"]
            assert chapters.upload(video_id, "en", named_file(tmp, "en.vtt", VTT)).language == "en"
            assert chapters.get(video_id, "en").src.endswith("/chapters/en.vtt")
            assert chapters.list(video_id).pagination.items_total == 1
            chapters.delete(video_id, "en")

            summaries = api["SummariesApi"]
            summary = summaries.create(SummaryCreationPayload(video_id=video_id, origin="auto"))
            fake.advance(60)
            assert summaries.list(video_id=video_id).data[0].source_status == "completed"
            assert summaries.get_summary_source(summary.summary_id).abstract
            assert summaries.update(summary.summary_id, SummaryUpdatePayload(abstract="mine")).abstract == "mine"
            summaries.delete(summary.summary_id)

            stream = live.create(LiveStreamCreationPayload(name="launch", restreams=[RestreamsRequestObject(
                name="r", server_url="rtmp://broadcast.example.com/app", stream_key="k")]))
            assert live.get(stream.live_stream_id).broadcasting is False
            fake.broadcast(stream.live_stream_id, 20)
            assert live.list(name="launch").data[0].broadcasting is True
            live.complete(stream.live_stream_id)
            assert live.update(stream.live_stream_id, LiveStreamUpdatePayload(name="x")).name == "x"
            assert live.upload_thumbnail(stream.live_stream_id, named_file(tmp, "live.jpg", JPEG)).live_stream_id
            assert live.delete_thumbnail(stream.live_stream_id).live_stream_id == stream.live_stream_id

            fake.add_plays({"mediaId": video_id, "seconds": 2, "country": "FR", "viewer": "sdk"})
            analytics = api["AnalyticsApi"]
            since = datetime(2026, 1, 5, tzinfo=UTC)
            metric = analytics.get_aggregated_metrics("play", "count", _from=since,
                                                      filter_by=FilterBy2(country=["FR"]))
            assert metric.data == 1
            breakdown = analytics.get_metrics_breakdown("play", "country", _from=since)
            assert [(b.dimension_value, b.metric_value) for b in breakdown.data] == [("FR", 1)]
            assert analytics.get_metrics_over_time("play", _from=since, interval="hour").data[-1].metric_value == 1

            assert api["TagsApi"].list().data[0].value == "sdk"
            hooks = api["WebhooksApi"]
            hook = hooks.create(WebhooksCreationPayload(events=["video.encoding.quality.completed"],
                                                        url="http://127.0.0.1:9/hook"))
            assert hooks.get(hook.webhook_id).url == "http://127.0.0.1:9/hook"
            assert hooks.list().pagination.items_total == 1
            hooks.delete(hook.webhook_id)

            videos.delete(video_id)  # the project restores deleted videos: discarded
            assert videos.list_discarded().data[0].video_id == video_id
            assert videos.get_discarded(video_id).discarded is True
            assert videos.update_discarded(video_id, DiscardedVideoUpdatePayload(discarded=False)).discarded is False

            live.delete(stream.live_stream_id)
            api["WatermarksApi"].delete(mark.watermark_id)
            players.delete(theme.player_id)
    assert called >= public_methods(), sorted(public_methods() - called)
    paths = [e["path"] for e in fake.journal_entries()]  # the client's own: /auth/api-key, then /auth/refresh
    assert paths[0] == "/auth/api-key" and paths[-1] == "/auth/refresh"
    assert all(e["status"] < 400 for e in fake.journal_entries()), [
        (e["method"], e["path"], e["status"]) for e in fake.journal_entries() if e["status"] >= 400]
    assert [v["id"] for v in fake.verdicts()] == []
