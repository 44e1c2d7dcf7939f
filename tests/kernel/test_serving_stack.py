"""The serving stack: uvloop + httptools everywhere, said at start-up, and a serve cycle that does
not wait for uvicorn's 0.1 s shutdown sleep (the benchmark's start-up part measures it)."""

from __future__ import annotations

import asyncio
import http.client
import socket
import statistics
import threading
import time

import httpx
import pytest
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from examples.notes import NotesFake
from fakes.kernel import server
from tests.support.serving import clean_env, fakes_command, free_port, ready_services, running


def test_the_stack_is_uvloop_and_httptools() -> None:
    assert server.LOOP_NAME == "uvloop"
    assert server.stack_description() == "uvloop event loop, httptools HTTP parser, orjson"
    protocol = server._server(NotesFake().app).config.http_protocol_class
    assert issubclass(protocol, HttpToolsProtocol)  # with the kernel's read timeouts (protocol.py)


def test_fakes_serve_says_which_loop_and_parser_it_runs_on() -> None:
    name = ready_services()[0]
    port = free_port()
    with running([fakes_command(), "serve", "--only", name, "--port", str(port)], clean_env()) as served:
        text = served.wait_banner()
        assert "serving on: uvloop event loop, httptools HTTP parser, orjson" in text.splitlines()
        served.wait_until_up([f"http://127.0.0.1:{port}/_fake/health"])


def test_a_served_fake_runs_on_uvloop() -> None:
    seen: list[str] = []
    fake = NotesFake()
    app = fake.app

    async def spy(scope: dict, receive: object, send: object) -> None:  # type: ignore[type-arg]
        seen.append(type(asyncio.get_running_loop()).__module__)
        await app(scope, receive, send)  # type: ignore[arg-type]

    with server.ServerThread([(spy, "127.0.0.1", 0)]) as ((host, port),):
        assert httpx.get(f"http://{host}:{port}/_fake/health").status_code == 200
    assert seen == ["uvloop"]


def _cycle(fake: NotesFake) -> float:
    started = time.perf_counter()
    with fake.serve() as url:
        host, port = url[len("http://"):].split(":")
        connection = http.client.HTTPConnection(host, int(port))
        connection.request("GET", "/_fake/health")
        assert connection.getresponse().read()
        # the keep-alive connection stays open: stop must close it rather than wait for it
        stopping = time.perf_counter()
    stopped = time.perf_counter()
    connection.close()
    assert stopping > started
    return stopped - stopping


def test_stop_does_not_wait_for_uvicorns_tick() -> None:
    fake = NotesFake()
    _cycle(fake)
    stops = [_cycle(fake) for _ in range(5)]
    # uvicorn's own shutdown sleeps 0.1 s; ours is well under a millisecond when idle
    assert statistics.median(stops) < 0.05, stops


def test_stop_closes_the_listener_and_lets_an_in_flight_response_finish() -> None:
    """No fixed waits (they fail on a busy machine): the app holds its response until the stop has
    begun, looks at the listener from inside the stop, and only then answers."""
    arrived = threading.Event()
    listener_during_stop: list[str] = []
    thread: server.ServerThread

    async def slow(scope: dict, receive: object, send: object) -> None:  # type: ignore[type-arg]
        arrived.set()
        stopping = thread._stop  # the server loop's own stop event: set when stop() is called
        assert stopping is not None
        await asyncio.wait_for(stopping.wait(), 30)  # work in progress when the server is asked to stop
        await asyncio.sleep(0)  # the stop (queued first on the same event) has closed the listener now
        try:
            _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 5)
            writer.close()
            listener_during_stop.append("open")
        except OSError:
            listener_during_stop.append("closed")
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})  # type: ignore[operator]
        await send({"type": "http.response.body", "body": b"ok"})  # type: ignore[operator]

    thread = server.ServerThread([(slow, "127.0.0.1", 0)])
    ((host, port),) = thread.start()
    answers: list[bytes] = []
    client = threading.Thread(target=lambda: answers.append(httpx.get(f"http://{host}:{port}/", timeout=60).content))
    client.start()
    assert arrived.wait(30)  # the request is in (building the client alone can take 0.1 s)
    thread.stop(timeout=30)
    client.join(30)
    assert listener_during_stop == ["closed"]  # no new connection while the last response was still on its way
    assert answers == [b"ok"]  # and that response went out whole
    with pytest.raises(OSError), socket.create_connection((host, port), timeout=1):
        pass
