"""Over real HTTP: the official api.video client with only its host changed, and a 20 MB upload
received as a stream (memory bounded by a chunk, not by the file)."""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Iterator

import apivideo
import httpx
from apivideo.api.videos_api import VideosApi
from apivideo.api.webhooks_api import WebhooksApi
from apivideo.model.video_creation_payload import VideoCreationPayload
from apivideo.model.webhooks_creation_payload import WebhooksCreationPayload

from fakes.video import VideoFake

from .helpers import CLIP_2S, basic

MB = 1024 * 1024


def test_the_official_client_creates_uploads_and_lists_with_only_its_host_changed() -> None:
    fake = VideoFake(seed=0)
    key = fake.create_project()["sandbox_key"]
    with fake.serve() as base_url:
        client = apivideo.AuthenticatedApiClient(key, production=False)
        client.configuration.host = base_url  # the constructor sets the vendor's host
        with client:
            videos = VideosApi(client)
            created = videos.create(VideoCreationPayload(title="made by apivideo", tags=["sdk"]))
            assert created.video_id.startswith("vi") and created.assets.hls.startswith(base_url)
            with open(CLIP_2S, "rb") as handle:
                uploaded = videos.upload(created.video_id, handle)  # Content-Range: part 1/1
            assert uploaded.video_id == created.video_id
            fake.advance(600)
            status = videos.get_status(created.video_id)
            assert status.encoding.playable is True and status.ingest.status == "ingested"
            assert status.encoding.metadata.duration == 2
            listed = videos.list()
            assert [v.video_id for v in listed.data] == [created.video_id]
            assert listed.pagination.items_total == 1
            hooks = WebhooksApi(client).create(WebhooksCreationPayload(
                events=["video.encoding.quality.completed"], url="http://127.0.0.1:9/hook"))
            assert hooks.webhook_id.startswith("webhook_")
    calls = [(e["method"], e["path"], e["status"]) for e in fake.journal_entries()]
    assert calls[0] == ("POST", "/auth/api-key", 200)
    assert ("POST", f"/videos/{created.video_id}/source", 201) in calls
    assert calls[-1] == ("POST", "/auth/refresh", 200)  # the client refreshes when it closes
    assert fake.verdicts() == []


def _multipart(boundary: str, size: int, chunk: int = MB) -> Iterator[bytes]:
    yield (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.mp4\"\r\n"
           "Content-Type: video/mp4\r\n\r\n").encode()
    block = bytes(range(256)) * (chunk // 256)
    sent = 0
    while sent < size:
        piece = block[:min(chunk, size - sent)]
        sent += len(piece)
        yield piece
    yield f"\r\n--{boundary}--\r\n".encode()


def test_a_20_mb_upload_streams_to_disk_with_memory_bounded_by_a_chunk() -> None:
    fake = VideoFake(seed=0, environment="production")
    key = fake.create_project()["production_key"]
    size = 20 * MB
    with fake.serve() as base_url, httpx.Client(base_url=base_url, headers=basic(key), timeout=60) as client:
        video_id = client.post("/videos", json={"title": "big"}).json()["videoId"]
        tracemalloc.start()
        try:
            started = time.perf_counter()
            response = client.post(f"/videos/{video_id}/source", content=_multipart("bOuNdArY", size),
                                   headers={"Content-Type": "multipart/form-data; boundary=bOuNdArY"})
            elapsed = time.perf_counter() - started
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert response.status_code == 201, response.text
        assert client.get(f"/videos/{video_id}/status").json()["ingest"]["filesize"] == size
    # client and server in this process together: a few 1 MB chunks, never the 20 MB file
    assert peak < 8 * MB, f"peak {peak / MB:.1f} MB"
    assert size / elapsed > 20 * MB, f"{size / elapsed / MB:.0f} MB/s"  # loose: CI machines vary
