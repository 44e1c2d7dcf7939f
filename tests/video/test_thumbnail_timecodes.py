"""Picking a thumbnail by timecode as api.video's document describes it (the pick payload's
``timecode``: "hh:mm:ss.ms", "hh:mm:ss:frameNumber", a bare number of seconds such as "124", and
"if selection is out of range, 00:00:00.00 will be chosen"), through the official client's
``pick_thumbnail`` with the document's own example and over HTTP for the forms the client's
pattern does not let through."""

from __future__ import annotations

from collections.abc import Iterator

import apivideo
import httpx
import pytest
from apivideo.api.videos_api import VideosApi
from apivideo.model.video_thumbnail_pick_payload import VideoThumbnailPickPayload

from fakes.video import VideoFake

from .helpers import CLIP_2S, basic, create, upload


@pytest.fixture
def fake() -> VideoFake:
    return VideoFake(seed=0, **VideoFake.settings_for_tests())


@pytest.fixture
def http(fake: VideoFake) -> Iterator[httpx.Client]:
    with fake.client(headers=basic(fake.create_project()["sandbox_key"])) as client:
        yield client


def _encoded_video(fake: VideoFake, http: httpx.Client) -> str:
    video_id = str(create(http)["videoId"])
    assert upload(http, video_id, CLIP_2S.read_bytes()).status_code == 201
    fake.advance(600)
    return video_id


def _picked(fake: VideoFake, video_id: str) -> str:
    return fake.model.attachments.picked[video_id]


def test_the_official_client_picks_the_document_s_example_timecode(fake: VideoFake) -> None:
    keys = fake.create_project()
    with fake.serve() as base_url:
        client = apivideo.AuthenticatedApiClient(keys["sandbox_key"], production=False)
        client.configuration.host = base_url
        with client:
            videos = VideosApi(client)
            with httpx.Client(base_url=base_url, headers=basic(keys["sandbox_key"])) as http:
                video_id = _encoded_video(fake, http)
            for timecode in ("00:00:01.000", "00:00:00.000", "00:01:00.000"):  # the document's examples
                picked = videos.pick_thumbnail(video_id, VideoThumbnailPickPayload(timecode=timecode))
                assert picked.video_id == video_id
    assert _picked(fake, video_id) == "00:00:00.00"  # a minute into a 2-second video: out of range


@pytest.mark.parametrize(("timecode", "chosen"), [
    ("00:00:01", "00:00:01.00"),
    ("00:00:01.5", "00:00:01.50"),
    ("00:00:01.50", "00:00:01.50"),
    ("00:00:01.250", "00:00:01.25"),
    ("00:00:01:00", "00:00:01.00"),  # hh:mm:ss:frameNumber (the clip has one frame a second)
    ("1", "00:00:01.00"),  # a bare number of seconds
    ("2.1", "00:00:02.10"),
    ("124", "00:00:00.00"),  # out of range: past the end of a 2-second video
    ("00:00:05.00", "00:00:00.00"),
    ("00:00:01:07", "00:00:00.00"),  # no frame 7 in a one-frame second
    ("04:80:72", "00:00:00.00"),  # the document's own Python example
])
def test_the_document_s_forms_pick_a_frame_or_00_00_00_00(fake: VideoFake, http: httpx.Client, timecode: str,
                                                         chosen: str) -> None:
    video_id = _encoded_video(fake, http)
    answer = http.patch(f"/videos/{video_id}/thumbnail", json={"timecode": timecode})
    assert answer.status_code == 200, answer.text
    assert answer.json()["videoId"] == video_id
    assert _picked(fake, video_id) == chosen


@pytest.mark.parametrize("timecode", ["", "1:2:3", "00:00", "ab:cd:ef", "00:00:01.", "-1", "00:00:01,5", 12, None,
                                      "1e3", "00:00:01:"])
def test_a_malformed_timecode_is_still_the_400(fake: VideoFake, http: httpx.Client, timecode: object) -> None:
    video_id = _encoded_video(fake, http)
    answer = http.patch(f"/videos/{video_id}/thumbnail", json={"timecode": timecode})
    assert answer.status_code == 400, answer.text
    assert answer.json()["name"] == "timecode"
    assert video_id not in fake.model.attachments.picked


def test_the_picked_frame_survives_the_state(fake: VideoFake, http: httpx.Client) -> None:
    video_id = _encoded_video(fake, http)
    http.patch(f"/videos/{video_id}/thumbnail", json={"timecode": "00:00:01:00"})
    copy = VideoFake(seed=0, **VideoFake.settings_for_tests())
    copy.import_state(fake.export_state())
    assert _picked(copy, video_id) == "00:00:01.00"
