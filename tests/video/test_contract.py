"""Schemathesis on this fake's own document with real ids: public operations point at a live video
(half of the time), and the service's control-plane additions run too. tests/contract runs the
public operations with random ids for every fake."""

from __future__ import annotations

from typing import Any

import pytest

from fakes.video import VideoFake
from tests.support.schemathesis_harness import operation_labels, run_operation

from .helpers import CLIP_2S, basic

EXAMPLES = 20
OWN_CONTROL = ("/_fake/projects", "/_fake/usage", "/_fake/webhooks/deliveries", "/_fake/views")


def _fake() -> VideoFake:
    return VideoFake(seed=0, **VideoFake.settings_for_tests())


def _labels() -> list[str]:
    labels = operation_labels(_fake(), with_control_plane=True)
    return [label for label in labels if not label.split(" ", 1)[1].startswith("/_fake/")
            or label.split(" ", 1)[1].startswith(OWN_CONTROL)]


@pytest.mark.parametrize("label", _labels())
def test_operation_keeps_its_documented_contract_with_live_ids(label: str) -> None:
    fake = _fake()
    headers = fake.auth_headers()
    with fake.client(headers=headers) as client:
        played = client.post("/videos", json={"title": "played", "transcript": True,
                                              "transcriptSummary": True}).json()["videoId"]
        client.post(f"/videos/{played}/source", files={"file": ("a.mp4", CLIP_2S.read_bytes())})
        fake.advance(600)
        hook = client.post("/webhooks", json={"url": "http://127.0.0.1:9/x",
                                              "events": ["video.encoding.quality.completed"]}).json()["webhookId"]
        summary = client.get("/summaries").json()["data"][0]["summaryId"]
    ids = {"videoId": played, "webhookId": hook, "summaryId": summary}

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
        if live and isinstance(case.body, dict) and isinstance(case.body.get("videoId"), str) \
                and label.endswith("/_fake/views"):
            case.body["videoId"] = played

    assert basic  # the Basic header of auth_headers is how every case authenticates
    sent = run_operation(fake, label, max_examples=EXAMPLES, tweak=point_at_live_records, with_control_plane=True)
    assert sent >= 1
