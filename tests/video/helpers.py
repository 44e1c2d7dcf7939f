"""Shared helpers of the video tests: media files, authenticated clients, uploads."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import httpx

from fakes.video import VideoFake
from fakes.video.media import THUMBNAIL_JPEG

MEDIA = Path(__file__).parent / "media"
CLIP_2S = MEDIA / "clip_2s_240p.mp4"
CLIP_31S = MEDIA / "clip_31s_240p.mp4"
CLIP_40S = MEDIA / "clip_40s_240p.mp4"
CLIP_720P = MEDIA / "clip_3s_720p.mov"
#: a 1x1 PNG and the fake's own 426x240 JPEG: real images for thumbnails, logos and watermarks
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")
JPEG = THUMBNAIL_JPEG
VTT = b"WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nhello\n"


def basic(key: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{key}:".encode()).decode()}


def client_for(fake: VideoFake, environment: str | None = None) -> httpx.Client:
    """A client of a new project, authenticated with the key of the fake's environment."""
    created = fake.create_project()
    key = created[f"{environment or fake.settings.environment}_key"]
    return fake.client(headers=basic(key))


def create(client: httpx.Client, **fields: Any) -> dict[str, Any]:
    response = client.post("/videos", json={"title": "a video", **fields})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def upload(client: httpx.Client, video_id: str, content: bytes, *, name: str = "clip.mp4",
           headers: dict[str, str] | None = None) -> httpx.Response:
    return client.post(f"/videos/{video_id}/source", files={"file": (name, content, "video/mp4")},
                       headers=headers or {})


def status(client: httpx.Client, video_id: str) -> dict[str, Any]:
    response = client.get(f"/videos/{video_id}/status")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body
