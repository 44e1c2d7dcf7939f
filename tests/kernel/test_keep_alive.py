"""Keep-alive on the kernel's protocol (fakes/kernel/protocol.py): one timer per connection, the
same outcome as uvicorn's timer per answer - an idle connection is closed the keep-alive delay
after its last answer, never while it is busy or sooner."""

from __future__ import annotations

import gc
import socket
import time
import weakref
from collections.abc import Iterator
from typing import Any

import pytest

from fakes.kernel import server
from fakes.kernel.protocol import GuardedHttpToolsProtocol
from fakes.kernel.server import ServerThread

DELAY_S = 0.4


async def app(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    await receive()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


@pytest.fixture
def port(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    monkeypatch.setattr(server, "KEEP_ALIVE_S", DELAY_S)
    with ServerThread([(app, "127.0.0.1", 0)]) as addresses:
        yield addresses[0][1]


def _ask(sock: socket.socket) -> None:
    sock.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
    answer = b""
    while not answer.endswith(b"ok"):
        piece = sock.recv(4096)
        assert piece, "closed while a request was under way"
        answer += piece


def _closed_after(sock: socket.socket) -> float:
    """Seconds until the server closes the connection."""
    started = time.monotonic()
    sock.settimeout(10)
    assert sock.recv(4096) == b""
    return time.monotonic() - started


def test_an_idle_connection_is_closed_the_delay_after_its_last_answer(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        _ask(sock)
        waited = _closed_after(sock)
    assert DELAY_S * 0.9 <= waited < DELAY_S + 1.0


def test_a_connection_in_use_is_kept_past_the_delay_and_closed_after_its_last_answer(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        started = time.monotonic()
        while time.monotonic() - started < DELAY_S * 3:  # a request every quarter of the delay
            _ask(sock)
            time.sleep(DELAY_S / 4)
        _ask(sock)
        waited = _closed_after(sock)
    assert DELAY_S * 0.9 <= waited < DELAY_S + 1.0


def test_a_request_slower_than_the_delay_is_not_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server, "KEEP_ALIVE_S", DELAY_S)

    async def slow(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        await receive()
        if scope["path"] == "/slow":
            import asyncio

            await asyncio.sleep(DELAY_S * 2.5)
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"ok"})

    with ServerThread([(slow, "127.0.0.1", 0)]) as addresses, \
            socket.create_connection(addresses[0]) as sock:
        _ask(sock)  # arms the connection's timer
        time.sleep(DELAY_S / 2)
        sock.sendall(b"GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")  # busy when the timer comes due
        answer = b""
        while not answer.endswith(b"ok"):
            piece = sock.recv(4096)
            assert piece, "the keep-alive timer cut a request under way"
            answer += piece
        assert answer.startswith(b"HTTP/1.1 200 OK")
        waited = _closed_after(sock)
    assert DELAY_S * 0.9 <= waited < DELAY_S + 1.0


def test_a_closed_connection_leaves_no_timer_behind(monkeypatch: pytest.MonkeyPatch) -> None:
    """A connection the client closed cancels its keep-alive timer (which would hold the protocol,
    its parser and its last request for the whole delay). The delay never comes due during the
    test: on a loaded machine a short one could close the connection first (finding the protocol
    walks every object of the process)."""
    monkeypatch.setattr(server, "KEEP_ALIVE_S", 60)
    with ServerThread([(app, "127.0.0.1", 0)]) as addresses:  # serving while the closed connection is followed
        with socket.create_connection(addresses[0]) as sock:
            _ask(sock)
            time.sleep(0.02)
            (protocol,) = [p for p in gc.get_objects() if isinstance(p, GuardedHttpToolsProtocol) and p.parser]
            held = weakref.ref(protocol)
            armed_by = time.monotonic() + 5  # the answer's bookkeeping runs on the server's thread
            while protocol.timeout_keep_alive_task is None and time.monotonic() < armed_by:
                time.sleep(0.01)
            assert protocol.timeout_keep_alive_task is not None  # armed after the answer
            del protocol
        deadline = time.monotonic() + 5
        while (current := held()) is not None and current.parser is not None and time.monotonic() < deadline:
            del current
            time.sleep(0.01)  # uvicorn drops the parser when the connection is lost
        current = held()
        assert current is None or (current.parser is None and current.timeout_keep_alive_task is None)


def test_a_connection_keeps_one_timer_across_its_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    """uvicorn makes a timer after every answer; the kernel's protocol keeps the first one (a delay
    long enough that it never comes due during the test, which would re-arm it)."""
    monkeypatch.setattr(server, "KEEP_ALIVE_S", 60)
    with ServerThread([(app, "127.0.0.1", 0)]) as addresses, socket.create_connection(addresses[0]) as sock:
        timers = []
        for _ in range(4):
            _ask(sock)
            time.sleep(0.02)  # the answer's bookkeeping is done on the server's loop
            (protocol,) = [p for p in gc.get_objects() if isinstance(p, GuardedHttpToolsProtocol) and p.parser]
            timers.append(protocol.timeout_keep_alive_task)
    assert timers[0] is not None and all(timer is timers[0] for timer in timers)
