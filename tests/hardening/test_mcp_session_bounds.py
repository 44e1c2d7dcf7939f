"""Issue 33, item 5: an open enrichment MCP SSE session cannot make the fake hold without bound.

The SDK answers each POSTed message ``202`` at once and keeps its answer until the session's
event stream carries it. A client that posts and never reads its stream made the fake keep every
answer (12,000 ``tools/list`` in 17 s: 272 -> 717 MB) and the memory stayed after the session
closed. Now a session may have at most ``MAX_PENDING`` answers waiting; more messages are refused
with 429 before the SDK sees them, and a closed session leaves nothing behind.

The server's socket gets a small send buffer here (and the client a small receive buffer), so
that the stream backs up after a few answers instead of after the kernel's megabytes.
"""

from __future__ import annotations

import gc
import socket
import time
import tracemalloc
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from fakes.enrichment import EnrichmentFake
from fakes.enrichment.mcp import MAX_PENDING
from fakes.kernel import server

SMALL_BUFFER = 8192
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": "2025-03-26", "capabilities": {},
                         "clientInfo": {"name": "t", "version": "1"}}}


@pytest.fixture
def small_buffers(monkeypatch: pytest.MonkeyPatch) -> None:
    real_bind = server.bind_socket

    def bind_small(host: str, port: int) -> socket.socket:
        sock = real_bind(host, port)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SMALL_BUFFER)  # accepted sockets inherit it
        return sock

    monkeypatch.setattr(server, "bind_socket", bind_small)


def _open_unread_stream(base: str, key: str) -> tuple[socket.socket, str]:
    """An SSE session opened over a raw socket that reads the endpoint event and then nothing."""
    host, port = base.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SMALL_BUFFER)
    sock.connect((host, int(port)))
    sock.sendall(f"GET /mcp/sse?api_key={key} HTTP/1.1\r\nHost: {host}:{port}\r\n"
                 "Accept: text/event-stream\r\n\r\n".encode())
    seen = b""
    deadline = time.monotonic() + 60  # the first MCP request of a process builds the SDK's server
    while b"session_id=" not in seen or b"\r\n" not in seen.split(b"session_id=", 1)[1]:
        assert time.monotonic() < deadline, seen
        seen += sock.recv(4096)
    endpoint = seen.split(b"data: ", 1)[1].split(b"\r\n", 1)[0].decode()
    return sock, endpoint


@pytest.fixture
def session(small_buffers: None) -> Iterator[tuple[EnrichmentFake, httpx.Client, socket.socket, str]]:
    fake = EnrichmentFake(seed=0, journal_size=8, journal_bytes=0)  # what the journal keeps is bounded apart
    key = fake.auth_headers()["Authorization"].split()[1]
    with fake.serve() as base:
        sock, endpoint = _open_unread_stream(base, key)
        try:
            with httpx.Client(base_url=base, timeout=30) as client:
                assert client.post(endpoint, json=INITIALIZE).status_code == 202
                assert client.post(endpoint, json={"jsonrpc": "2.0",
                                                   "method": "notifications/initialized"}).status_code == 202
                yield fake, client, sock, endpoint
        finally:
            sock.close()


def _tools_list(client: httpx.Client, endpoint: str, number: int) -> httpx.Response:
    return client.post(endpoint, json={"jsonrpc": "2.0", "id": number, "method": "tools/list"})


def test_a_session_that_never_reads_is_refused_past_its_bound(session: Any) -> None:
    fake, client, _sock, endpoint = session
    statuses = []
    for number in range(1, 400):
        statuses.append(_tools_list(client, endpoint, number).status_code)
        if statuses[-1] == 429:
            break
    assert statuses[-1] == 429, f"no refusal after {len(statuses)} unread answers"
    assert len(statuses) <= MAX_PENDING + 40  # the bound, plus what the small buffers took
    refused = _tools_list(client, endpoint, 1000)
    assert refused.status_code == 429 and "read the stream" in refused.json()["error"]
    assert refused.headers["retry-after"] == "1"
    gate = fake._mcp
    assert gate is not None and max(gate.pending.values()) <= MAX_PENDING
    # from here on the fake holds nothing more, however many messages come
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for number in range(2000, 2300):
            assert _tools_list(client, endpoint, number).status_code == 429
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 1_000_000, f"{grown} bytes held after 300 refused messages"


def test_a_closed_session_leaves_nothing_behind(session: Any) -> None:
    fake, client, sock, endpoint = session
    for number in range(1, MAX_PENDING + 60):
        if _tools_list(client, endpoint, number).status_code == 429:
            break
    gate = fake._mcp
    transport = gate.inner  # the SDK's SSE app of this fake
    sock.close()  # the client goes away
    deadline = time.monotonic() + 10
    while (gate.sessions or gate.pending) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gate.sessions == {} and gate.pending == {}
    assert _tools_list(client, endpoint, 5000).status_code == 404  # the SDK forgot the session too
    assert transport is gate.inner


def test_a_client_that_reads_its_stream_is_never_refused() -> None:
    fake = EnrichmentFake(seed=0)
    key = fake.auth_headers()["Authorization"].split()[1]
    with fake.serve() as base, httpx.Client(timeout=30) as stream_client, \
            stream_client.stream("GET", f"{base}/mcp/sse", params={"api_key": key}) as stream:
        lines = stream.iter_lines()
        endpoint = next(line[6:] for line in lines if line.startswith("data: "))
        with httpx.Client(base_url=base, timeout=30) as client:
            assert client.post(endpoint, json=INITIALIZE).status_code == 202
            for number in range(1, 2 * MAX_PENDING + 10):
                assert _tools_list(client, endpoint, number).status_code == 202
                answer = next(line for line in lines if line.startswith("data: "))
                assert f'"id":{number - 1}' in answer or f'"id": {number - 1}' in answer or '"result"' in answer
        assert max(fake._mcp.pending.values(), default=0) <= 2  # type: ignore[union-attr]
