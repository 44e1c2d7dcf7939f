"""Video, webhooks instead of polling: subscribe to encoding events, upload, and find one signed
``video.encoding.quality.completed`` per quality (HLS, then the MP4) once encoding is over.

Against the fake the subscription points at a loopback URL and the scenario reads the deliveries
from the fake's outbox (``GET /_fake/webhooks/deliveries``) and checks each HMAC-SHA256
signature with the subscription's ``signatureSecret``. Against the real service (credential
``api_key``) it only subscribes, reads the subscription back and unsubscribes: receiving
deliveries needs a public URL.
"""

from __future__ import annotations

import base64
import hashlib
import hmac

from fakes.video.media import STAND_IN_MP4

from .runner import Run, Scenario

EVENT = "video.encoding.quality.completed"


def flow(run: Run) -> None:
    key = run.credential("api_key", create=lambda: str(run.control("POST", "/_fake/projects", json={})[
        "sandbox_key"]))
    auth = {"Authorization": "Basic " + base64.b64encode(f"{key}:".encode()).decode()}
    url = "http://127.0.0.1:9/video-webhooks" if run.is_fake else run.credentials.get(
        "webhook_url", "https://example.com/video-webhooks")

    with run.step("subscribe to the encoding events"):
        created = run.request("POST", "/webhooks", json={"events": [EVENT], "url": url}, headers=auth)
        run.check(created.status_code == 201, "201", created.text)
        hook = created.json()
        run.check(bool(hook.get("signatureSecret")), "a signature secret comes back", hook)
        again = run.request("GET", f"/webhooks/{hook['webhookId']}", headers=auth)
        run.check(again.status_code == 200 and again.json()["url"] == url, "it reads back", again.text)

    if not run.is_fake:
        with run.step("unsubscribe"):
            gone = run.request("DELETE", f"/webhooks/{hook['webhookId']}", headers=auth)
            run.check(gone.status_code == 204, "204", gone.text)
        return

    with run.step("create and upload a video"):
        video = run.request("POST", "/videos", json={"title": "webhook scenario"}, headers=auth).json()
        uploaded = run.request("POST", f"/videos/{video['videoId']}/source", headers=auth,
                               files={"file": ("clip.mp4", STAND_IN_MP4, "video/mp4")})
        run.check(uploaded.status_code == 201, "201", uploaded.text)

    with run.step("after encoding, one signed event per quality is in the outbox"):
        run.wait(600)
        deliveries = [d for d in run.control("GET", "/_fake/webhooks/deliveries")["deliveries"]
                      if d["webhookId"] == hook["webhookId"]]
        qualities = [(d["body"]["encoding"], d["body"]["quality"]) for d in deliveries]
        run.check(qualities == [("hls", "240p"), ("mp4", "240p")], "hls 240p then the mp4", qualities)
        for delivery in deliveries:
            expected = hmac.new(hook["signatureSecret"].encode(), delivery["raw_body"].encode(),
                                hashlib.sha256).hexdigest()
            run.check(delivery["headers"]["X-Api-Video-Signature"] == expected, "a valid HMAC-SHA256 signature",
                      delivery["headers"])
            run.check(delivery["body"]["videoId"] == video["videoId"], "the video's id", delivery["body"])


SCENARIO = Scenario(name="video-webhooks", service="video",
                    summary="subscribe, upload, one signed quality event per encoded quality", flow=flow)
