"""The kernel's HTTP protocol answers byte for byte as uvicorn's own does (fakes/kernel/cycle.py,
fakes/kernel/protocol.py): the head written with the body, header lines kept per pair, the
forwarded headers read once per request. Each request goes to a server on uvicorn's protocol and
to one on the kernel's, over a raw socket, and both byte streams must be equal."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from fakes.kernel import cycle
from fakes.kernel.server import ServerThread

FIXED = [(b"content-type", b"application/json"), (b"content-length", b"7"), (b"X-Call-Id", b"abc")]


async def _body(receive: Any) -> bytes:
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            return body


async def app(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    path = scope["path"]
    request_body = await _body(receive)

    async def start(status: int, headers: Any) -> None:
        await send({"type": "http.response.start", "status": status, "headers": headers})

    async def body(data: bytes, more: bool = False) -> None:
        await send({"type": "http.response.body", "body": data, "more_body": more})

    if path == "/fixed":
        await start(200, FIXED)
        await body(b'{"a":1}')
    elif path == "/new-id":  # a header pair no answer had before
        await start(200, [(b"content-length", b"2"), (b"x-call-id", str(time.monotonic_ns()).encode())])
        await body(b"ok")
    elif path in ("/no-content", "/not-modified"):
        await start(204 if path == "/no-content" else 304, [(b"x-a", b"b")])
        await body(b"")
    elif path == "/stream":
        await start(200, [(b"content-type", b"text/plain")])
        await body(b"one,", more=True)
        await body(b"two", more=True)
        await body(b"")
    elif path == "/chunked-said":
        await start(200, [(b"Transfer-Encoding", b"chunked")])
        await body(b"abc", more=True)
        await body(b"")
    elif path == "/close":
        await start(200, [(b"Connection", b"keep-alive, Close"), (b"content-length", b"2")])
        await body(b"ok")
    elif path == "/lists":
        await start(200, [[b"content-length", b"2"], [b"x-a", b"b"]])
        await body(b"ok")
    elif path == "/parts":
        await start(200, [(b"content-length", b"6")])
        for piece in (b"ab", b"cd", b"ef"):
            await body(piece, more=piece != b"ef")
    elif path == "/large":
        await start(200, [(b"content-length", b"200000")])
        await body(b"x" * 200_000)
    elif path == "/two-lengths":
        await start(200, [(b"content-length", b"2"), (b"content-length", b"not a number")])
        await body(b"ok")
    elif path == "/bad-name":
        await start(200, [(b"bad name", b"v"), (b"content-length", b"2")])
        await body(b"ok")
    elif path == "/bad-value":
        await start(200, [(b"x-a", b"a\nb"), (b"content-length", b"2")])
        await body(b"ok")
    elif path == "/bad-length":
        await start(200, [(b"content-length", b"two")])
        await body(b"ok")
    elif path == "/too-long":
        await start(200, [(b"content-length", b"2")])
        await body(b"abc")
    elif path == "/too-short":
        await start(200, [(b"content-length", b"5")])
        await body(b"ab")
    elif path == "/no-answer":
        return
    elif path == "/raise":
        raise RuntimeError("the app failed")
    elif path == "/echo":
        text = json.dumps({"scheme": scope["scheme"], "client": scope["client"][0] if scope["client"] else None,
                           "body": request_body.decode()}).encode()
        await start(200, [(b"content-length", str(len(text)).encode())])
        await body(text)
    else:
        await start(404, [(b"content-length", b"0")])
        await body(b"")


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, int]]:
    with ServerThread([(app, "127.0.0.1", 0)], plain=True) as uvicorns, \
            ServerThread([(app, "127.0.0.1", 0)]) as kernels:
        yield {"uvicorn": uvicorns[0][1], "kernel": kernels[0][1]}


def _exchange(port: int, raw: bytes) -> bytes:
    """Send ``raw`` and read until the server closes the connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(raw)
        received = b""
        while True:
            try:
                piece = sock.recv(65536)
            except ConnectionResetError:
                break
            if not piece:
                break
            received += piece
    return received


def _request(path: str, method: str = "GET", extra: str = "", version: str = "1.1") -> bytes:
    return f"{method} {path} HTTP/{version}\r\nHost: t\r\n{extra}Connection: close\r\n\r\n".encode()


PATHS = ["/fixed", "/no-content", "/not-modified", "/stream", "/chunked-said", "/close", "/lists", "/parts",
         "/large", "/two-lengths", "/bad-name", "/bad-value", "/bad-length", "/too-long", "/too-short",
         "/no-answer", "/raise", "/missing"]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_each_kind_of_answer_is_the_same_bytes_as_uvicorns(servers: dict[str, int], path: str,
                                                           method: str) -> None:
    raw = _request(path, method)
    ours = _exchange(servers["kernel"], raw)
    assert ours == _exchange(servers["uvicorn"], raw)
    assert ours.startswith(b"HTTP/1.1 ") or path in ("/bad-name", "/bad-value", "/bad-length")


def test_a_pair_seen_before_is_written_from_its_kept_line(servers: dict[str, int]) -> None:
    for _ in range(3):
        assert _exchange(servers["kernel"], _request("/fixed")) == _exchange(servers["uvicorn"], _request("/fixed"))
    assert cycle._LINES[(b"X-Call-Id", b"abc")] == b"x-call-id: abc\r\n"
    assert cycle._LENGTHS[(b"content-length", b"7")] == (b"content-length: 7\r\n", 7)


def test_a_new_pair_on_every_answer_keeps_the_tables_bounded(servers: dict[str, int],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cycle, "MAX_KEPT_LINES", 4)
    monkeypatch.setattr(cycle, "VOLATILE_AFTER", 1_000_000)
    for _ in range(12):
        answer = _exchange(servers["kernel"], _request("/new-id"))
        assert answer.startswith(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nx-call-id: ") and answer.endswith(b"ok")
    assert len(cycle._LINES) <= 4


def test_a_header_whose_value_is_new_on_every_answer_stops_being_kept(servers: dict[str, int],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cycle, "VOLATILE_AFTER", 3)
    monkeypatch.setattr(cycle, "_LINES", {})
    monkeypatch.setattr(cycle, "_KEPT_PER_NAME", {})
    monkeypatch.setattr(cycle, "_VOLATILE", set())
    answers = [_exchange(servers["kernel"], _request("/new-id")) for _ in range(8)]
    assert all(answer.startswith(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nx-call-id: ") for answer in answers)
    assert len(set(answers)) == 8  # each its own id, written as it came
    assert sorted(cycle._VOLATILE) == [b"x-call-id"]
    assert not [pair for pair in cycle._LINES if pair[0] == b"x-call-id"]
    assert _exchange(servers["kernel"], _request("/fixed")) == _exchange(servers["uvicorn"], _request("/fixed"))
    assert cycle._LINES[(b"X-Call-Id", b"abc")] == b"x-call-id: abc\r\n"  # another name is kept as before


@pytest.mark.parametrize("version", ["1.0", "1.1"])
def test_keep_alive_pipelining_and_http_1_0_are_the_same(servers: dict[str, int], version: str) -> None:
    keep = f"GET /fixed HTTP/{version}\r\nHost: t\r\nConnection: keep-alive\r\n\r\n".encode()
    raw = keep + b"GET /parts HTTP/1.1\r\nHost: t\r\n\r\n" + _request("/stream")
    ours = _exchange(servers["kernel"], raw)
    assert ours == _exchange(servers["uvicorn"], raw)
    assert ours.count(b"HTTP/1.1 200 OK") == (3 if version == "1.1" else 1)


def test_a_request_body_and_expect_100_continue_are_the_same(servers: dict[str, int]) -> None:
    raw = (b"POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 5\r\n"
           b"Connection: close\r\n\r\nhello")
    ours = _exchange(servers["kernel"], raw)
    assert ours == _exchange(servers["uvicorn"], raw)
    assert ours.endswith(b'"body": "hello"}')


def test_a_stream_gets_its_head_before_its_body_is_ready() -> None:
    """The head waits for the body's first message only within one turn of the event loop."""
    released = threading.Event()

    async def slow(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"4")]})
        while not released.is_set():
            await asyncio.sleep(0.005)
        await send({"type": "http.response.body", "body": b"done"})

    with ServerThread([(slow, "127.0.0.1", 0)]) as addresses, \
            socket.create_connection(addresses[0], timeout=10) as sock:
        sock.sendall(_request("/"))
        head = b""
        while b"\r\n\r\n" not in head:
            piece = sock.recv(65536)
            assert piece, "closed before the head came"
            head += piece
        assert head == b"HTTP/1.1 200 OK\r\ncontent-length: 4\r\nconnection: close\r\n\r\n"
        released.set()
        rest = b""
        while piece := sock.recv(65536):
            rest += piece
        assert rest == b"done"


FORWARDED = [
    "",
    "X-Forwarded-Proto: https\r\n",
    "X-Forwarded-Proto: HTTPS \r\n",
    "X-Forwarded-Proto: ftp\r\n",
    "X-Forwarded-For: 203.0.113.7\r\n",
    "X-Forwarded-For: 203.0.113.7, 127.0.0.1\r\nX-Forwarded-Proto: https\r\n",
    "X-Forwarded-For: 198.51.100.1\r\nX-Forwarded-For: 203.0.113.7:8080\r\n",
    "X-Forwarded-For: \r\n",
    "x-forwarded-for: [2001:db8::1]:443\r\n",
    "X-Forwarded-For: 127.0.0.1\r\n",
]


@pytest.mark.parametrize("trusted", [None, "10.0.0.1", "*", "127.0.0.0/8", "none"])
@pytest.mark.parametrize("headers", FORWARDED)
def test_forwarded_headers_are_believed_as_uvicorns_middleware_believes_them(trusted: str | None,
                                                                             headers: str) -> None:
    raw = _request("/echo", extra=headers)
    answers = []
    for plain in (True, False):
        with ServerThread([(app, "127.0.0.1", 0)], plain=plain, forwarded=trusted) as addresses:
            answers.append(_exchange(addresses[0][1], raw))
    assert answers[0] == answers[1]
    assert answers[1].startswith(b"HTTP/1.1 200 OK")


def test_an_access_log_that_is_on_still_gets_its_line(servers: dict[str, int],
                                                      caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="uvicorn.access"):
        ours = _exchange(servers["kernel"], _request("/fixed"))
    assert ours == _exchange(servers["uvicorn"], _request("/fixed"))
    lines = [record.args[1:4] for record in caplog.records if record.name == "uvicorn.access"]
    assert lines == [("GET", "/fixed", "1.1")]


class _Transport:
    """What the cycle writes, call by call."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, bytes]] = []

    def write(self, data: bytes) -> None:
        self.calls.append(("write", data))

    def writelines(self, pieces: Any) -> None:
        self.calls.append(("writelines", b"".join(pieces)))

    def is_closing(self) -> bool:
        return False

    def close(self) -> None:
        self.calls.append(("close", b""))


class _Flow:
    write_paused = False


def _cycle(transport: _Transport, loop: asyncio.AbstractEventLoop, method: str = "GET") -> cycle.CoalescingCycle:
    return cycle.CoalescingCycle({"method": method}, transport, _Flow(), None, None, False, [],  # type: ignore[arg-type]
                                 asyncio.Event(), False, True, lambda: None, loop)


@pytest.mark.parametrize("size", [7, cycle.JOIN_BYTES + 1])
def test_the_head_and_the_body_go_out_in_one_call(size: int) -> None:
    transport = _Transport()
    body = b"x" * size

    async def answer() -> None:
        sent = _cycle(transport, asyncio.get_running_loop())
        await sent.send({"type": "http.response.start", "status": 200,
                         "headers": [(b"content-length", str(size).encode())]})
        assert transport.calls == []  # held for the body
        await sent.send({"type": "http.response.body", "body": body})
        assert sent.response_complete
        await asyncio.sleep(0)  # the held head's next-turn write was cancelled

    asyncio.run(answer())
    head = f"HTTP/1.1 200 OK\r\ncontent-length: {size}\r\n\r\n".encode()
    assert transport.calls == [("write" if size <= cycle.JOIN_BYTES else "writelines", head + body)]


def test_a_long_header_line_is_written_but_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cycle, "_LINES", {})
    long_value = b"v" * (cycle.MAX_KEPT_LINE_BYTES + 1)
    transport = _Transport()

    async def answer() -> None:
        sent = _cycle(transport, asyncio.get_running_loop())
        await sent.send({"type": "http.response.start", "status": 200,
                         "headers": [(b"content-length", b"0"), (b"x-echo", long_value), (b"x-short", b"s")]})
        await sent.send({"type": "http.response.body", "body": b""})

    asyncio.run(answer())
    assert b"x-echo: " + long_value + b"\r\n" in transport.calls[0][1]
    assert list(cycle._LINES) == [(b"x-short", b"s")]
