"""Issue 23, item 12: every body has a cap, refused with a 413 in the service's own shape before
it is buffered; slow clients (headers a byte at a time, a body that stops) are cut off."""

from __future__ import annotations

import contextlib
import re
import socket
import threading
import time
from collections.abc import Iterator

import httpx
import pytest
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from examples.notes import NotesFake
from fakes import registry
from fakes.kernel.errors import ServiceError
from fakes.kernel.fake import Fake
from fakes.kernel.limits import DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_STATE_BYTES, limit_body
from fakes.kernel.openapi import CONTROL_TAG
from fakes.kernel.protocol import ReadTimeouts
from tests.support.serving import clean_env, fakes_command, free_port, running

from .conftest import make_fake

SERVICES = registry.service_names()
CAP = 4096


def body_operations(fake: Fake) -> list[tuple[str, str]]:
    """(method, path) of every public operation whose document declares a JSON body."""
    found = []
    for path, item in fake.openapi_document()["paths"].items():
        for method, operation in item.items():
            if not isinstance(operation, dict) or CONTROL_TAG in operation.get("tags", ()):
                continue
            content = (operation.get("requestBody") or {}).get("content", {})
            if "application/json" in content:
                found.append((method.upper(), re.sub(r"\{[^}]+\}", "x", path)))
    return found


def service_shape(fake: Fake) -> set[str]:
    return set(fake.error_body(ServiceError(413, "x", code="body_too_large")))


@pytest.mark.parametrize("service", SERVICES)
def test_a_service_body_past_the_cap_is_a_413_in_the_service_shape(service: str) -> None:
    """Every JSON operation that reads its body (an empty object gets past its other checks)
    refuses one past the cap with a 413 in the service's shape, declared or chunked."""
    fake = make_fake(service, max_body_bytes=CAP)
    client = fake.client(headers=fake.auth_headers())
    big = b'{"x": "' + b"a" * (CAP * 2) + b'"}'
    refused = 0
    operations = body_operations(fake)
    if not operations:
        pytest.skip(f"{service} documents no public operation with a JSON body")
    for method, path in operations:
        small = client.request(method, path, content=b"{}", headers={"content-type": "application/json"})
        assert small.status_code < 500, (method, path, small.text[:300])
        if small.status_code in (401, 403, 404, 405, 409, 429):
            continue  # refused before its body is read
        for content in (big, iter([big[:CAP], big[CAP:]])):  # a declared length, then chunked (no length)
            response = client.request(method, path, content=content, headers={"content-type": "application/json"})
            assert response.status_code == 413, (method, path, response.status_code, response.text[:300])
            assert response.headers["connection"] == "close"
            assert set(response.json()) >= service_shape(fake) - {"status"}, response.json()
        refused += 1
    assert refused, f"no JSON operation of {service} reached its body"


@pytest.mark.parametrize("service", SERVICES)
def test_control_bodies_and_state_imports_have_their_own_caps(service: str) -> None:
    fake = make_fake(service, max_control_body_bytes=CAP, max_state_bytes=CAP * 64)
    client = fake.client()
    refused = client.post("/_fake/faults", content=b'{"status": 500, "body": "' + b"a" * CAP + b'"}')
    assert refused.status_code == 413 and refused.json()["error"] == "body_too_large", refused.text
    assert refused.json()["max_bytes"] == CAP
    assert fake.list_faults() == []
    exported = client.get("/_fake/state").content
    assert len(exported) < CAP * 64
    assert client.put("/_fake/state", content=exported).status_code == 200  # the state cap, not the control one
    too_big = client.put("/_fake/state", content=b" " * (CAP * 64 + 1))
    assert too_big.status_code == 413 and too_big.json()["max_bytes"] == CAP * 64


def test_the_defaults() -> None:
    fake = NotesFake()
    assert (fake.max_body_bytes, fake.max_control_body_bytes, fake.max_state_bytes) == (
        DEFAULT_MAX_BODY_BYTES, 1024 * 1024, DEFAULT_MAX_STATE_BYTES)


def test_caps_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKES_MAX_BODY_BYTES", "123")
    monkeypatch.setenv("FAKES_MAX_STATE_BYTES", "456")
    fake = NotesFake()
    assert (fake.max_body_bytes, fake.max_state_bytes) == (123, 456)
    assert fake.world("w").max_body_bytes == 123  # a world has its fake's caps
    monkeypatch.setenv("FAKES_MAX_BODY_BYTES", "0")
    with pytest.raises(ValueError, match="FAKES_MAX_BODY_BYTES"):
        NotesFake()


class UploadingNotes(NotesFake):
    """Notes with a streaming route that declares a cap of its own, as an upload does."""

    def routes(self) -> list[BaseRoute]:
        async def upload(request: Request) -> Response:
            size = 0
            async for chunk in request.stream():
                size += len(chunk)
            return Response(str(size))

        return [*super().routes(), limit_body(Route("/upload", upload, methods=["POST"]), CAP * 10)]


def test_a_route_declares_its_own_cap() -> None:
    fake = UploadingNotes(max_body_bytes=CAP)
    client = fake.client()
    assert client.post("/upload", content=b"a" * (CAP * 5)).text == str(CAP * 5)  # past the fake's, within its own
    refused = client.post("/upload", content=iter([b"a" * CAP] * 11))
    assert refused.status_code == 413 and refused.json()["code"] == "body_too_large"
    assert client.post("/notes", content=b'{"text": "' + b"a" * CAP + b'"}').status_code == 413


# -- over HTTP -------------------------------------------------------------------------------------
def _raw(port: int, head: bytes, body: bytes = b"", *, timeout: float = 5.0) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(head + body)
        return _read_all(sock)


def _read_all(sock: socket.socket) -> bytes:
    chunks = []
    while True:
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, TimeoutError):
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


@pytest.fixture
def served() -> Iterator[tuple[NotesFake, int]]:
    fake = NotesFake(max_body_bytes=CAP, max_state_bytes=CAP * 4)
    with fake.serve(timeouts=ReadTimeouts(header_s=0.5, body_s=0.5)) as url:
        yield fake, int(url.rsplit(":", 1)[1])


def test_a_declared_length_past_the_cap_is_refused_before_any_body_byte(served: tuple[NotesFake, int]) -> None:
    _, port = served
    answer = _raw(port, b"PUT /_fake/state HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                        b"Content-Length: 100000000\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
    assert b"connection: close" in answer.lower()
    assert b'"body_too_large"' in answer


def test_a_chunked_body_is_counted_as_it_arrives(served: tuple[NotesFake, int]) -> None:
    _, port = served
    chunk = b"%x\r\n%s\r\n" % (CAP, b"a" * CAP)
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(b"POST /notes HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n"
                     b"Content-Type: application/json\r\n\r\n" + chunk * 2)
        answer = _read_all(sock)  # the rest never needs to be sent: the fake answered and closed
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]


def test_headers_sent_a_byte_at_a_time_are_cut_off(served: tuple[NotesFake, int]) -> None:
    _, port = served
    request = b"GET /_fake/health HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + b"a" * 200 + b"\r\n\r\n"
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sent = 0
        try:
            for byte in request:
                sock.sendall(bytes([byte]))
                sent += 1
                time.sleep(0.02)
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = _read_all(sock)
    assert time.monotonic() - started < 3
    assert sent < len(request)
    assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]


def test_a_connection_that_never_sends_is_closed(served: tuple[NotesFake, int]) -> None:
    _, port = served
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        answer = _read_all(sock)
    assert time.monotonic() - started < 3
    assert answer.startswith(b"HTTP/1.1 408 ")


def test_a_body_that_stops_arriving_is_cut_off_and_journaled_408(served: tuple[NotesFake, int]) -> None:
    fake, port = served
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(b"POST /notes HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 1000\r\n\r\n{\"text\": \"")
        answer = _read_all(sock)
    assert time.monotonic() - started < 3
    assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
    deadline = time.monotonic() + 2
    while not fake.journal_entries(path="/notes") and time.monotonic() < deadline:
        time.sleep(0.01)
    assert [e["status"] for e in fake.journal_entries(path="/notes")] == [408]
    assert fake.model.first(10) == fake.create_model().first(10)  # nothing was created


def test_a_slow_but_steady_body_is_not_cut_off(served: tuple[NotesFake, int]) -> None:
    _, port = served
    body = b'{"text": "' + b"a" * 100 + b'"}'
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(b"POST /notes HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                     b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(body))
        for start in range(0, len(body), 20):  # 0.8 s in all, never 0.5 s idle
            sock.sendall(body[start:start + 20])
            time.sleep(0.1)
        answer = _read_all(sock)
    assert answer.startswith(b"HTTP/1.1 201 "), answer[:300]


def test_a_fault_delay_before_the_body_is_read_is_not_the_clients_idle_time() -> None:
    fake = NotesFake()
    fake.add_fault(path="/notes", latency_ms=1200)
    with fake.serve(timeouts=ReadTimeouts(header_s=0.5, body_s=0.5)) as url:
        body = b'{"text": "hi", "pad": "' + b"a" * 200_000 + b'"}'  # more than the server reads at once
        response = httpx.post(url + "/notes", content=body, headers={"content-type": "application/json"}, timeout=10)
    assert response.status_code == 201, response.text[:300]


def _rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


def test_forty_stalled_uploads_declaring_100_mb_hold_no_memory(served: tuple[NotesFake, int]) -> None:
    _, port = served
    before = _rss_bytes()
    sockets = []
    answers: list[bytes] = []
    try:
        for _ in range(40):
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            sockets.append(sock)
            sock.sendall(b"PUT /_fake/state HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000000\r\n\r\n")
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                sock.sendall(b" " * 1_000_000)
        threads = [threading.Thread(target=lambda s=sock: answers.append(_read_all(s))) for sock in sockets]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(5)
    finally:
        for sock in sockets:
            sock.close()
    assert len(answers) == 40
    assert all(answer.startswith(b"HTTP/1.1 413 ") for answer in answers), {a[:40] for a in answers}
    assert _rss_bytes() - before < 30 * 1024 * 1024


# -- the command line ------------------------------------------------------------------------------
def test_fakes_serve_takes_the_caps_and_timeouts_from_flags_and_environment() -> None:
    name = SERVICES[0]
    port = free_port()
    env = clean_env({"FAKES_MAX_CONTROL_BODY_BYTES": "100", "FAKES_HEADER_TIMEOUT": "0.5"})
    with running([fakes_command(), "serve", "--only", name, "--port", str(port), "--clock", "manual",
                  "--max-state-bytes", "200"], env) as served_process:
        served_process.wait_until_up([f"http://127.0.0.1:{port}/_fake/health"])
        base = f"http://127.0.0.1:{port}"
        assert httpx.post(base + "/_fake/faults", content=b'{"status": 500, "path": "/' + b"a" * 100 + b'"}'
                          ).status_code == 413
        assert httpx.put(base + "/_fake/state", content=b" " * 201).status_code == 413
        started = time.monotonic()
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(b"GET /_fake/health HTTP/1.1\r\n")
            assert _read_all(sock).startswith(b"HTTP/1.1 408 ")
        assert time.monotonic() - started < 3


@pytest.mark.parametrize("flags", [["--max-body-bytes", "0"], ["--max-state-bytes", "x"],
                                   ["--header-timeout", "0"], ["--body-timeout", "nan"],
                                   ["--max-control-body-bytes", str(2**41)]])
def test_a_bad_cap_or_timeout_flag_is_one_line_and_exit_2(flags: list[str]) -> None:
    import subprocess

    result = subprocess.run([fakes_command(), "serve", "--only", SERVICES[0], *flags], env=clean_env(),
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 2, result.stderr
    assert len(result.stderr.strip().splitlines()) <= 2 and "Traceback" not in result.stderr
