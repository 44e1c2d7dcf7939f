"""Shared helpers of the video tests: media files, authenticated clients, uploads."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import httpx

from fakes.video import VideoFake

MEDIA = Path(__file__).parent / "media"
CLIP_2S = MEDIA / "clip_2s_240p.mp4"
CLIP_31S = MEDIA / "clip_31s_240p.mp4"
CLIP_40S = MEDIA / "clip_40s_240p.mp4"
CLIP_720P = MEDIA / "clip_3s_720p.mov"


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
