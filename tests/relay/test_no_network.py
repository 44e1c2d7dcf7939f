"""No socket to anything but loopback: the guard of conftest.py is active in every relay test (it
fails a test that connects elsewhere or resolves another host name); here it is shown to work, and
every kind of upstream runs under it over a real socket."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import httpx
import pytest

from fakes import registry
from fakes.member_export import MemberExportFake
from fakes.relay import RelayFake, UpstreamRequest, UpstreamResponse

from . import conftest


def test_the_guard_refuses_a_non_loopback_connection_and_resolution() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock, pytest.raises(conftest.NonLoopbackConnection):
        sock.connect(("192.0.2.1", 80))  # TEST-NET-1: refused before any packet leaves
    with pytest.raises(conftest.NonLoopbackConnection):
        socket.getaddrinfo("api.mailscout.example", 443)
    with pytest.raises(conftest.NonLoopbackConnection):
        httpx.get("http://api.firmdata.example/", timeout=1)


def test_every_upstream_kind_runs_without_leaving_loopback(fake: RelayFake, team: dict[str, Any],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry.LIVE_FAKES, "member-export", MemberExportFake(seed=0))
    fake.register_upstream("jobsignal", lambda request: UpstreamResponse(201, [], b'{"id": 1}'))

    async def slow(request: UpstreamRequest) -> UpstreamResponse:
        await asyncio.sleep(0)
        return UpstreamResponse(200, [("content-type", "application/json")], b'{"name": "x"}')

    fake.register_upstream("peoplegraph", slow)
    fake.register_canned_upstream("mailscout", [{"status": 200, "body": {"ok": True}}])
    fake.use_fake_upstream("profilescope", "member-export")
    fake.add_tool(team["team_id"], "profilescope", "own")
    del conftest.CONNECTED[:]
    del conftest.RESOLVED[:]
    with fake.serve() as url, httpx.Client(base_url=url, headers={"X-Proxy-Token": team["token"]}) as http:
        answers = [
            http.get("/call/firmdata.companies.enrich", params={"domain": "northwind.com"}),  # simulated
            http.get("/call/https://api.firmdata.example/v1/companies/enrich", params={"domain": "x.com"}),
            http.post("/call/jobsignal.alerts.create", params={"domain": "x.com"}),  # a Python callable
            http.get("/call/peoplegraph.people.enrich", params={"email": "a@b.com"}),  # an async callable
            http.get("/call/mailscout.email.verify", params={"email": "a@b.com"}),  # a canned table
            http.get("/call/https://profiles.relay.internal/_fake/health"),  # another fake, in process
            http.get("/call/https://api.nobody.example/x"),  # a host nobody owns
        ]
    assert [a.status_code for a in answers] == [200, 200, 201, 200, 200, 200, 404]
    assert conftest.CONNECTED and all(conftest._loopback(address) for address in conftest.CONNECTED)
    assert all(host in ("127.0.0.1", "localhost", b"127.0.0.1") for host in conftest.RESOLVED)
