"""A manifest or MP4 that encoding will make answers 202 with an empty body until the clock passes
its step (what api.video's uploader polls in onPlayable), a plain 404 when it will never come; the
not_ready_status setting chooses 404 instead."""

from __future__ import annotations

import httpx

from fakes.video import VideoFake

from .helpers import CLIP_2S, client_for, create, upload


def fetch_all(fake: VideoFake, video_id: str) -> dict[str, httpx.Response]:
    paths = {"master": f"/vod/{video_id}/hls/manifest.m3u8", "240p": f"/vod/{video_id}/hls/240p/manifest.m3u8",
             "1080p": f"/vod/{video_id}/hls/1080p/manifest.m3u8", "mp4": f"/vod/{video_id}/mp4/source.mp4"}
    with fake.client() as player:
        return {name: player.get(path) for name, path in paths.items()}


def statuses(answers: dict[str, httpx.Response]) -> dict[str, int]:
    return {name: answer.status_code for name, answer in answers.items()}


def test_manifest_and_mp4_answer_202_until_encoded_then_their_content() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        video = create(client)
        vid = video["videoId"]
        assert statuses(fetch_all(fake, vid)) == {"master": 404, "240p": 404, "1080p": 404, "mp4": 404}  # no source
        upload(client, vid, CLIP_2S.read_bytes())
        waiting = fetch_all(fake, vid)
        assert statuses(waiting) == {"master": 202, "240p": 202, "1080p": 404, "mp4": 202}  # 240-pixel source
        assert all(waiting[name].content == b"" for name in ("master", "240p", "mp4"))
        assert waiting["master"].headers["cache-control"] == "no-store"
        playable_at = None
        for step in range(60):
            answers = fetch_all(fake, vid)
            playable = client.get(f"/videos/{vid}/status").json()["encoding"]["playable"]
            assert (answers["master"].status_code == 200) == playable, step  # the manifest and the status agree
            if playable and playable_at is None:
                playable_at = step
                assert answers["master"].text.startswith("#EXTM3U")
            fake.advance(0.5)
        assert playable_at is not None and playable_at > 0
        done = fetch_all(fake, vid)
    assert statuses(done) == {"master": 200, "240p": 200, "1080p": 404, "mp4": 200}
    assert done["mp4"].content == CLIP_2S.read_bytes()


def test_what_never_comes_stays_404() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        no_mp4 = create(client, mp4Support=False)
        upload(client, no_mp4["videoId"], CLIP_2S.read_bytes())
        not_media = create(client)
        upload(client, not_media["videoId"], b"this is no video at all")
    assert fetch_all(fake, no_mp4["videoId"])["mp4"].status_code == 404
    assert fetch_all(fake, no_mp4["videoId"])["master"].status_code == 202
    fake.advance(600)
    assert statuses(fetch_all(fake, not_media["videoId"])) == {"master": 404, "240p": 404, "1080p": 404, "mp4": 404}


def test_the_setting_can_make_a_not_yet_encoded_asset_a_404() -> None:
    fake = VideoFake(seed=0, not_ready_status=404)
    with client_for(fake) as client:
        video = create(client)
        upload(client, video["videoId"], CLIP_2S.read_bytes())
    assert statuses(fetch_all(fake, video["videoId"])) == {"master": 404, "240p": 404, "1080p": 404, "mp4": 404}
    fake.advance(600)
    assert fetch_all(fake, video["videoId"])["master"].status_code == 200
