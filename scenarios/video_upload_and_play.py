"""Video, the documented flow: create a video object, upload its file, wait until it is playable,
then use the delivery URLs (HLS master and media playlist, a segment, the thumbnail, the MP4).

Against the fake the encoding happens on the virtual clock; against the real service (credential
``api_key``, base URL https://sandbox.api.video) the scenario polls the status every 5 seconds,
as the client rule on tight polling asks, for at most 10 minutes.
"""

from __future__ import annotations

import base64
from typing import Any

from fakes.video.media import STAND_IN_MP4

from .runner import Run, Scenario


def flow(run: Run) -> None:
    key = run.credential("api_key", create=lambda: str(run.control("POST", "/_fake/projects", json={})[
        "sandbox_key"]))
    auth = {"Authorization": "Basic " + base64.b64encode(f"{key}:".encode()).decode()}
    video: dict[str, Any] = {}

    with run.step("create the video object"):
        created = run.request("POST", "/videos", json={"title": "scenario upload", "tags": ["scenario"]},
                              headers=auth)
        run.check(created.status_code == 201, "201 with the video object", created.text)
        video.update(created.json())
        run.check(video["videoId"].startswith("vi"), "a videoId like vi...", video["videoId"])
        run.check({"hls", "thumbnail", "player", "iframe"} <= set(video["assets"]), "assets are announced",
                  video["assets"])

    with run.step("upload the file (multipart part 'file')"):
        uploaded = run.request("POST", f"/videos/{video['videoId']}/source", headers=auth,
                               files={"file": ("scenario.mp4", STAND_IN_MP4, "video/mp4")})
        run.check(uploaded.status_code == 201, "the upload is accepted", uploaded.text)
        for name in ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Retry-After"):
            run.check(name in uploaded.headers, f"{name} on the answer", dict(uploaded.headers))

    def playable() -> bool:
        answer = run.request("GET", f"/videos/{video['videoId']}/status", headers=auth)
        return bool(answer.status_code == 200 and answer.json()["encoding"]["playable"])

    with run.step("wait until it is playable"):
        run.wait_until(playable, timeout_s=600, poll_s=5, what="encoding of the first quality")

    with run.step("the delivery URLs serve what they say"):
        master = run.request("GET", video["assets"]["hls"])
        run.check(master.status_code == 200 and master.text.startswith("#EXTM3U"), "an HLS master playlist",
                  master.text[:200])
        variant = next(line for line in master.text.splitlines() if line and not line.startswith("#"))
        base = video["assets"]["hls"].rsplit("/", 1)[0]
        media = run.request("GET", f"{base}/{variant}")
        run.check(media.status_code == 200 and "#EXTINF:" in media.text, "a media playlist", media.text[:200])
        segment = next(line for line in media.text.splitlines() if line and not line.startswith("#"))
        piece = run.request("GET", f"{base}/{variant.rsplit('/', 1)[0]}/{segment}")
        run.check(piece.status_code == 200 and piece.content[:1] == b"\x47", "an MPEG-TS segment",
                  piece.headers.get("content-type"))
        thumbnail = run.request("GET", video["assets"]["thumbnail"])
        run.check(thumbnail.content[:2] == b"\xff\xd8", "a JPEG thumbnail", thumbnail.headers.get("content-type"))
        if "mp4" in video["assets"]:
            run.wait_until(lambda: run.request("GET", video["assets"]["mp4"]).status_code == 200, timeout_s=600,
                           poll_s=5, what="the MP4")

    with run.step("it is listed"):
        listed = run.request("GET", "/videos", params={"tags[]": "scenario"}, headers=auth)
        run.check(listed.status_code == 200, "200", listed.text)
        run.check(video["videoId"] in [v["videoId"] for v in listed.json()["data"]], "the video is in the list",
                  listed.text[:300])
        run.check("pagination" in listed.json(), "the data + pagination envelope", sorted(listed.json()))


SCENARIO = Scenario(name="video-upload-and-play", service="video",
                    summary="create, upload, wait until playable, fetch HLS/thumbnail/MP4, list", flow=flow)
