"""Schemathesis on this fake's own document with real ids: public operations point at a live video
(half of the time), and the service's control-plane additions run too. tests/contract runs the
public operations with random ids for every fake."""

from __future__ import annotations

import re
from typing import Any

import pytest

from fakes.video import VideoFake
from tests.support.schemathesis_harness import operation_labels, run_operation

from .helpers import CLIP_2S, PNG, VTT, basic

EXAMPLES = 12
OWN_CONTROL = ("/_fake/projects", "/_fake/usage", "/_fake/webhooks/deliveries", "/_fake/views", "/_fake/plays",
               "/_fake/live-streams")


def _fake() -> VideoFake:
    return VideoFake(seed=0, **VideoFake.settings_for_tests())


def _labels() -> list[str]:
    """The operations that take ids (the others answer as in tests/contract) and the own control ones."""
    labels = operation_labels(_fake(), with_control_plane=True)
    return [label for label in labels if label.split(" ", 1)[1].startswith(OWN_CONTROL)
            or ("{" in label and not label.split(" ", 1)[1].startswith("/_fake/"))]


@pytest.mark.parametrize("label", _labels())
def test_operation_keeps_its_documented_contract_with_live_ids(label: str) -> None:
    fake = _fake()
    headers = fake.auth_headers()
    with fake.client(headers=headers) as client:
        played = client.post("/videos", json={"title": "played", "transcript": True,
                                              "transcriptSummary": True}).json()["videoId"]
        client.post(f"/videos/{played}/source", files={"file": ("a.mp4", CLIP_2S.read_bytes())})
        fake.advance(600)
        client.post(f"/videos/{played}/chapters/en", files={"file": ("c.vtt", VTT)})
        hook = client.post("/webhooks", json={"url": "http://127.0.0.1:9/x",
                                              "events": ["video.encoding.quality.completed"]}).json()["webhookId"]
        summary = client.get("/summaries").json()["data"][0]["summaryId"]
        player = client.post("/players", json={"name": "p"}).json()["playerId"]
        client.post(f"/players/{player}/logo", files={"file": ("logo.png", PNG)})
        live = client.post("/live-streams", json={"name": "live"}).json()["liveStreamId"]
        mark = client.post("/watermarks", files={"file": ("w.png", PNG)}).json()["watermarkId"]
        token = client.post("/upload-tokens", json={}).json()["token"]
    ids = {"videoId": played, "webhookId": hook, "summaryId": summary, "playerId": player, "liveStreamId": live,
           "watermarkId": mark, "uploadToken": token, "language": "en"}

    project = fake.model.authenticate(headers["Authorization"])

    def point_at_live_records(case: Any, live: bool) -> None:
        if label.endswith("/source"):
            # an upload needs a video without a source; the reference refuses an empty file
            ids["videoId"] = fake.model.create_video(project, {"title": "fresh"}).video_id
            if isinstance(case.body, dict) and case.body.get("file") in (b"", ""):
                case.body["file"] = b"\0"
        if live and case.path_parameters:
            for name, value in ids.items():
                if name in case.path_parameters:
                    case.path_parameters[name] = value
        if live and isinstance(case.body, dict):
            if isinstance(case.body.get("videoId"), str) and label.endswith("/_fake/views"):
                case.body["videoId"] = played
            if isinstance(case.body.get("mediaId"), str):
                case.body["mediaId"] = played
            timecode = case.body.get("timecode")
            if isinstance(timecode, str) and re.fullmatch(r"[0-9]{2}:[0-5][0-9]:[0-5][0-9](\.[0-9]{2})?", timecode):
                case.body["timecode"] = "00:00:01.00"  # a valid one stays valid: within the 2-second source

    assert basic  # the Basic header of auth_headers is how every case authenticates
    sent = run_operation(fake, label, max_examples=EXAMPLES, tweak=point_at_live_records, with_control_plane=True)
    assert sent >= 1
