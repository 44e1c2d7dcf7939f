from __future__ import annotations

import asyncio
import time

import httpx

from examples.notes import NotesFake


def test_serve_gives_a_live_base_url_and_stops_fast() -> None:
    fake = NotesFake(prefix="/api")
    with fake.serve() as base_url:
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/api")
        assert httpx.post(base_url + "/notes", json={"text": "live"}).status_code == 201
        assert httpx.get(base_url + "/_fake/health").json()["service"] == "notes"
        started_stop = time.perf_counter()
    assert time.perf_counter() - started_stop < 0.5
    assert fake.model.notes["n1"]["text"] == "live"  # the same state in process and over HTTP


def test_two_served_fakes_get_different_free_ports() -> None:
    with NotesFake().serve() as first, NotesFake().serve() as second:
        assert first != second


def test_async_client() -> None:
    fake = NotesFake()

    async def go() -> int:
        async with fake.async_client() as client:
            await client.post("/notes", json={"text": "a"})
            return (await client.get("/notes/n1")).status_code

    assert asyncio.run(go()) == 200


def test_sync_client_works_inside_a_running_event_loop() -> None:
    fake = NotesFake()

    async def go() -> int:
        return fake.client().get("/notes").status_code

    assert asyncio.run(go()) == 200


def test_fresh_fake_answers_within_milliseconds() -> None:
    NotesFake().client().get("/notes")  # warm imports
    start = time.perf_counter()
    fake = NotesFake()
    assert fake.client().get("/notes").status_code == 200
    assert time.perf_counter() - start < 0.5  # generous bound; the benchmark reports the real figure
