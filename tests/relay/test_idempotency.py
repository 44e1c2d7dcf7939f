"""Idempotency-Key: replay with the original cost, 422 on a different request, a failed call frees
its key, 24 h expiry on the clock, and 20 concurrent identical calls over a real socket forwarded
and billed once."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import httpx

from fakes.relay import RelayFake, UpstreamRequest, UpstreamResponse

from .conftest import balance

ALERT = "/call/jobsignal.alerts.create"  # POST, per_call $0.001
VERIFY = "/call/mailscout.email.verify"  # GET, per_call $0.003


def _post(http: httpx.Client, key: str, body: bytes = b'{"domain": "northwind.com"}') -> httpx.Response:
    return http.post(ALERT, params={"domain": "northwind.com"}, content=body,
                     headers={"Idempotency-Key": key, "content-type": "application/json"})


def test_a_retry_replays_the_stored_answer_with_the_original_cost(fake: RelayFake, team: dict[str, Any],
                                                                 client: httpx.Client) -> None:
    first = _post(client, "key-1")
    again = _post(client, "key-1")
    assert first.status_code == again.status_code == 201
    assert again.content == first.content
    assert again.headers["X-Proxy-Idempotent-Replay"] == "true"
    assert "X-Proxy-Idempotent-Replay" not in first.headers
    assert again.headers["X-Proxy-Cost-Micro"] == first.headers["X-Proxy-Cost-Micro"] == "1000"
    assert balance(fake, team) == 1_000_000 - 1_000  # billed once
    record = client.get(f"/calls/{again.headers['X-Proxy-Call-Id']}").json()
    assert record["replayed"] is True and record["billed"] is False and record["cost_micro"] == 0


def test_the_same_key_for_a_different_request_is_422(fake: RelayFake, team: dict[str, Any],
                                                     client: httpx.Client) -> None:
    _post(client, "key-1")
    other = _post(client, "key-1", b'{"domain": "other.com"}')
    assert other.status_code == 422
    assert "Idempotency-Key" in other.json()["detail"]
    assert other.headers["X-Proxy-Error"] == "1"
    assert balance(fake, team) == 1_000_000 - 1_000


def test_keys_are_scoped_to_the_team(fake: RelayFake, team: dict[str, Any], client: httpx.Client) -> None:
    _post(client, "shared")
    other = fake.create_team()
    with fake.client(headers={"X-Proxy-Token": other["token"]}) as http:
        theirs = _post(http, "shared")
    assert "X-Proxy-Idempotent-Replay" not in theirs.headers
    assert balance(fake, other) == 1_000_000 - 1_000


def test_a_failed_call_frees_its_key(fake: RelayFake, team: dict[str, Any], client: httpx.Client) -> None:
    fake.set_saturation(saturated=True)
    assert _post(client, "key-2").status_code == 503
    fake.set_saturation(saturated=False)
    served = _post(client, "key-2")
    assert served.status_code == 201 and "X-Proxy-Idempotent-Replay" not in served.headers
    failing = client.get(VERIFY, params={"email": "fail-500@northwind.com"}, headers={"Idempotency-Key": "key-3"})
    assert failing.status_code == 500
    assert "X-Proxy-Idempotent-Replay" not in client.get(
        VERIFY, params={"email": "fail-500@northwind.com"}, headers={"Idempotency-Key": "key-3"}).headers


def test_keys_expire_after_24_hours_on_the_clock(fake: RelayFake, team: dict[str, Any], client: httpx.Client) -> None:
    _post(client, "key-4")
    fake.advance(24 * 3600 - 1)
    assert _post(client, "key-4").headers.get("X-Proxy-Idempotent-Replay") == "true"
    fake.advance(1)
    fresh = _post(client, "key-4")
    assert "X-Proxy-Idempotent-Replay" not in fresh.headers
    assert balance(fake, team) == 1_000_000 - 2 * 1_000


def test_20_concurrent_identical_calls_over_a_socket_are_forwarded_and_billed_once(
        fake: RelayFake, team: dict[str, Any]) -> None:
    forwarded: list[UpstreamRequest] = []
    lock = threading.Lock()

    async def slow_upstream(request: UpstreamRequest) -> UpstreamResponse:
        with lock:
            forwarded.append(request)
        await asyncio.sleep(0.2)  # long enough for every retry to arrive while the first is in flight
        return UpstreamResponse(201, [("content-type", "application/json")], b'{"id": "alert_1"}')

    fake.register_upstream("jobsignal", slow_upstream)

    async def burst(base_url: str) -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=base_url, headers={"X-Proxy-Token": team["token"]},
                                     limits=httpx.Limits(max_connections=20)) as http:
            return await asyncio.gather(*[
                http.post(ALERT, params={"domain": "northwind.com"}, content=b'{"domain": "northwind.com"}',
                          headers={"Idempotency-Key": "burst", "content-type": "application/json"})
                for _ in range(20)])

    with fake.serve() as base_url:
        answers = asyncio.run(burst(base_url))
    assert [a.status_code for a in answers] == [201] * 20
    assert len(forwarded) == 1
    assert {a.content for a in answers} == {b'{"id": "alert_1"}'}
    assert sum(1 for a in answers if a.headers.get("X-Proxy-Idempotent-Replay") == "true") == 19
    assert {a.headers["X-Proxy-Cost-Micro"] for a in answers} == {"1000"}
    assert balance(fake, team) == 1_000_000 - 1_000
