"""The video fake answers web pages of other origins as api.video does for its browser uploader and
players (fakes/video/browser.py over fakes/kernel/cors.py): preflights at once, before rate limits
and credentials; Access-Control-Allow-Origin on every answer of the API and the assets, refusals
included; never on the control plane."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from fakes.kernel.settings import SettingsError
from fakes.video import VideoFake

from .helpers import CLIP_2S, client_for, create, upload

PAGE = "http://127.0.0.1:5173"  # a web app's dev server: another origin than the fake's
UPLOADER_PREFLIGHT = {"Origin": PAGE, "Access-Control-Request-Method": "POST",
                      "Access-Control-Request-Headers": "av-origin-client,content-range"}


def preflight(client: httpx.Client, path: str, **headers: str) -> httpx.Response:
    return client.options(path, headers={**UPLOADER_PREFLIGHT, **headers})


def allowed(response: httpx.Response) -> set[str]:
    return {item.strip().lower() for item in response.headers.get("access-control-allow-headers", "").split(",")}


def test_the_uploaders_preflight_is_answered_at_once_with_what_it_sends() -> None:
    fake = VideoFake(seed=0)
    with fake.client() as browser:
        answer = preflight(browser, "/upload?token=to-unknown-token")
    assert answer.status_code == 204 and answer.content == b""
    assert answer.headers["access-control-allow-origin"] == "*"
    assert answer.headers["access-control-allow-methods"] == "POST"
    assert {"av-origin-client", "content-range", "authorization", "content-type", "av-origin-app",
            "av-origin-sdk"} <= allowed(answer)
    assert int(answer.headers["access-control-max-age"]) > 0
    assert "x-ratelimit-limit" not in answer.headers  # nothing counted


def test_preflights_are_never_rate_limited_nor_journaled_as_client_errors() -> None:
    fake = VideoFake(seed=0, rate_limits={"uploads": 3, "reads": 3, "writes": 3})
    with client_for(fake) as client:
        token = client.post("/upload-tokens", json={"ttl": 3600}).json()["token"]
    with fake.client() as browser:
        for _ in range(20):
            assert preflight(browser, f"/upload?token={token}").status_code == 204
            assert preflight(browser, "/videos", **{"Access-Control-Request-Method": "GET",
                                                    "Access-Control-Request-Headers": "authorization"}
                             ).status_code == 204
        made = browser.post(f"/upload?token={token}", files={"file": ("a.mp4", CLIP_2S.read_bytes())},
                            headers={"Origin": PAGE})
    assert made.status_code == 201, made.text
    assert made.headers["x-ratelimit-remaining"] == "2"  # the first counted upload of the window
    entries = fake.journal_entries(method="OPTIONS")
    assert len(entries) == 40 and {entry["status"] for entry in entries} == {204}
    assert fake.verdicts() == []


def test_every_api_answer_carries_the_origin_header_refusals_included() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        video = create(client)
        answers: dict[str, Any] = {
            "listed": client.get("/videos", headers={"Origin": PAGE}),
            "unknown path": client.get("/no-such-endpoint", headers={"Origin": PAGE}),
            "wrong method": client.put("/videos", headers={"Origin": PAGE}),
            "not found": client.get("/videos/vi0000000000000000000000", headers={"Origin": PAGE}),
            "uploaded": upload(client, video["videoId"], CLIP_2S.read_bytes(), headers={"Origin": PAGE}),
        }
    with fake.client() as browser:
        answers["bad token"] = browser.post("/upload?token=nope", files={"file": ("a.mp4", b"x")},
                                            headers={"Origin": PAGE})
        answers["no key"] = browser.get("/videos", headers={"Origin": PAGE})
    statuses = {name: answer.status_code for name, answer in answers.items()}
    assert statuses == {"listed": 200, "unknown path": 404, "wrong method": 405, "not found": 404, "uploaded": 201,
                        "bad token": 401, "no key": 401}
    for name, answer in answers.items():
        assert answer.headers.get("access-control-allow-origin") == "*", name
        assert "X-RateLimit-Remaining" in answer.headers["access-control-expose-headers"], name
    assert answers["bad token"].json()["status"] == 401  # what the page reads


def test_assets_and_player_pages_answer_other_origins_and_their_preflights() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        video = create(client)
        upload(client, video["videoId"], CLIP_2S.read_bytes())
    fake.advance(600)
    vid = video["videoId"]
    with fake.client() as browser:
        for path in (f"/vod/{vid}", f"/vod/{vid}/hls/manifest.m3u8", f"/vod/{vid}/hls/240p/manifest.m3u8",
                     f"/vod/{vid}/hls/240p/segment-0.ts", f"/vod/{vid}/thumbnail.jpg", f"/vod/{vid}/mp4/source.mp4",
                     "/vod/vi-none/hls/manifest.m3u8"):
            answer = browser.get(path, headers={"Origin": PAGE})
            assert answer.headers.get("access-control-allow-origin") == "*", (path, answer.status_code)
        ranged = browser.options(f"/vod/{vid}/mp4/source.mp4", headers={
            "Origin": PAGE, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "range"})
    assert ranged.status_code == 204 and "range" in allowed(ranged)
    assert ranged.headers["access-control-allow-methods"] == "GET"


def test_a_world_answers_preflights_on_its_own_path() -> None:
    fake = VideoFake(seed=0)
    with fake.client() as browser:
        answer = preflight(browser, "/_w/page-test/upload?token=t")
    assert answer.status_code == 204 and answer.headers["access-control-allow-origin"] == "*"


def test_the_control_plane_stays_closed_to_other_origins() -> None:
    fake = VideoFake(seed=0)
    with fake.client() as browser:
        asked = browser.options("/_fake/clock", headers={"Origin": PAGE, "Access-Control-Request-Method": "POST",
                                                         "Access-Control-Request-Headers": "content-type"})
        read = browser.get("/_fake/health", headers={"Origin": PAGE})
    assert asked.status_code != 204
    for answer in (asked, read):
        assert not any(name.startswith("access-control-") for name in answer.headers), answer.headers


def test_listed_origins_are_echoed_and_others_get_no_permission() -> None:
    fake = VideoFake(seed=0, cors_origins=["https://app.example", "http://localhost:3000"])
    with fake.client() as browser:
        listed = preflight(browser, "/upload?token=t", Origin="https://app.example")
        other = preflight(browser, "/upload?token=t", Origin="https://evil.example")
        read = browser.get("/vod/vi-none/hls/manifest.m3u8", headers={"Origin": "http://localhost:3000"})
    assert listed.headers["access-control-allow-origin"] == "https://app.example"
    assert listed.headers["vary"] == "Origin" and "av-origin-client" in allowed(listed)
    assert other.status_code == 204 and "access-control-allow-origin" not in other.headers
    assert "access-control-allow-methods" not in other.headers
    assert read.headers["access-control-allow-origin"] == "http://localhost:3000"


def test_no_origins_means_no_cors_at_all() -> None:
    fake = VideoFake(seed=0, cors_origins=[])
    with fake.client() as browser:
        answer = preflight(browser, "/upload?token=t")
        asset = browser.get("/vod/vi-none/hls/manifest.m3u8", headers={"Origin": PAGE})
    assert answer.status_code == 405  # the API's own answer to an OPTIONS it does not take
    assert "x-ratelimit-limit" in answer.headers
    for response in (answer, asset):
        assert "access-control-allow-origin" not in response.headers


@pytest.mark.parametrize("settings, message", [
    ({"cors_origins": ["app.example"]}, "cors_origins"),
    ({"cors_origins": ["https://app.example/path"]}, "cors_origins"),
    ({"not_ready_status": 500}, "not_ready_status must be 202 or 404"),
])
def test_bad_browser_settings_are_refused(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        VideoFake(seed=0, **settings)
