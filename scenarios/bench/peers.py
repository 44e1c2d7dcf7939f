"""Peers: other mock servers answering a fake's sample request with the very same bytes.

Each peer runs only when it is installed on the machine (none is a dependency of the project):

- WireMock 3 standalone (Java 17+): ``npm install -g wiremock`` bundles the jar; or point
  ``WIREMOCK_JAR`` at a downloaded ``wiremock-standalone-*.jar``. One stub (method + URL path),
  request journal off, the JIT warmed by a longer unmeasured run.
- Prism (``npm install -g @stoplight/prism-cli``): ``prism mock`` of a one-operation OpenAPI
  document whose example is the body, CORS headers off, logging at ``error``.
- mountebank (``npm install -g mountebank``): one imposter whose stub answers the body in binary
  mode (the bytes as they are), request recording off.

Every peer is asked once before the load and the bench records whether its body is byte-identical
(``same_bytes``); Prism re-serialises the example JSON, which may differ in the last digits of
large numbers or in escapes.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

#: the measured load starts only after this much unmeasured load on a peer running on a JIT
JIT_WARMUP_S = 5.0
START_TIMEOUT_S = 60.0


@dataclass
class Sample:
    """The answer every contender must give: the fake's sample request over HTTP."""

    method: str
    path: str  # with the query
    status: int
    headers: dict[str, str]  # content-type and the service's own headers
    body: bytes


@dataclass
class Peer:
    name: str
    version: Callable[[], str | None]  # None: not installed
    serve: Callable[[Sample], contextlib.AbstractContextManager[str]]  # yields the base URL
    warmup_s: float = 0.0  # extra unmeasured load before its runs (JIT)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _get(url: str, timeout: float = 2.0, *, method: str = "GET", body: bytes | None = None,
         content_type: str = "application/json") -> tuple[int, bytes]:
    import http.client

    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=timeout)
    try:
        headers = {"Content-Type": content_type} if body is not None else {}
        connection.request(method, parts.path + (f"?{parts.query}" if parts.query else ""), body=body,
                           headers=headers)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def _wait(url: str, proc: subprocess.Popen[bytes], timeout: float = START_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"exited with status {proc.returncode} before it answered")
        with contextlib.suppress(OSError):
            status, _ = _get(url, timeout=1.0)
            if status < 500:
                return
        time.sleep(0.1)
    raise RuntimeError(f"did not answer {url} within {timeout:g} s")


@contextlib.contextmanager
def _process(argv: list[str], cwd: str | None = None) -> Iterator[subprocess.Popen[bytes]]:
    """A peer in its own process group, ended (the group: Node and Java spawn helpers) on exit."""
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd,
                            start_new_session=True)
    try:
        yield proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _version_of(argv: list[str]) -> str | None:
    if shutil.which(argv[0]) is None:
        return None
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (done.stdout or done.stderr).strip().splitlines()
    return text[-1] if done.returncode == 0 and text else None


# -- WireMock -----------------------------------------------------------------------------------------

def wiremock_jar() -> Path | None:
    """``WIREMOCK_JAR``, else the jar that the npm package ``wiremock`` bundles."""
    if os.environ.get("WIREMOCK_JAR"):
        jar = Path(os.environ["WIREMOCK_JAR"])
        return jar if jar.is_file() else None
    launcher = shutil.which("wiremock")
    if launcher is None:
        return None
    jars = sorted((Path(launcher).resolve().parent / "build").glob("wiremock-standalone-*.jar"))
    return jars[-1] if jars else None


def wiremock_version() -> str | None:
    jar = wiremock_jar()
    if jar is None or shutil.which("java") is None:
        return None
    return jar.name.removeprefix("wiremock-standalone-").removesuffix(".jar")


@contextlib.contextmanager
def serve_wiremock(sample: Sample) -> Iterator[str]:
    jar = wiremock_jar()
    assert jar is not None
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as root, _process(
            ["java", "-jar", str(jar), "--port", str(port), "--bind-address", "127.0.0.1", "--no-request-journal",
             "--disable-banner", "--root-dir", root]) as proc:
        _wait(f"{base}/__admin/mappings", proc)
        stub = {"request": {"method": sample.method, "urlPath": urlsplit(sample.path).path},
                "response": {"status": sample.status, "headers": sample.headers,
                             "base64Body": base64.b64encode(sample.body).decode()}}
        status, answer = _get(f"{base}/__admin/mappings", method="POST", body=json.dumps(stub).encode())
        if status != 201:
            raise RuntimeError(f"WireMock refused the stub: {status} {answer[:200]!r}")
        yield base


# -- Prism ----------------------------------------------------------------------------------------------

def prism_version() -> str | None:
    return _version_of(["prism", "--version"])


def prism_document(sample: Sample) -> dict[str, Any]:
    """One operation whose only response has the sample's body as its example."""
    content_type = sample.headers.get("content-type", "application/json").split(";")[0].strip()
    try:
        example: Any = json.loads(sample.body)
    except ValueError:
        example = sample.body.decode("utf-8", "replace")
    headers = {name: {"schema": {"type": "string", "example": value}}
               for name, value in sample.headers.items() if name.lower() != "content-type"}
    response: dict[str, Any] = {"description": "the fake's sample answer",
                                "content": {content_type: {"example": example}}}
    if headers:
        response["headers"] = headers
    return {"openapi": "3.0.3", "info": {"title": "bench peer", "version": "1"},
            "paths": {urlsplit(sample.path).path: {sample.method.lower(): {
                "responses": {str(sample.status): response}}}}}


@contextlib.contextmanager
def serve_prism(sample: Sample) -> Iterator[str]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        document = Path(tmp) / "openapi.json"
        document.write_text(json.dumps(prism_document(sample)))
        with _process(["prism", "mock", "-h", "127.0.0.1", "-p", str(port), "-v", "error", "--cors", "false",
                       str(document)], cwd=tmp) as proc:
            _wait(base + sample.path, proc)
            yield base


# -- mountebank -------------------------------------------------------------------------------------------

def mountebank_version() -> str | None:
    return _version_of(["mb", "--version"])


@contextlib.contextmanager
def serve_mountebank(sample: Sample) -> Iterator[str]:
    admin_port, port = free_port(), free_port()
    with tempfile.TemporaryDirectory() as tmp, _process(
            ["mb", "start", "--port", str(admin_port), "--localOnly", "--nologfile", "--loglevel", "error",
             "--pidfile", str(Path(tmp) / "mb.pid")], cwd=tmp) as proc:
        admin = f"http://127.0.0.1:{admin_port}"
        _wait(f"{admin}/imposters", proc)
        imposter = {"port": port, "protocol": "http", "recordRequests": False, "stubs": [{"responses": [{"is": {
            "statusCode": sample.status, "headers": sample.headers,
            "body": base64.b64encode(sample.body).decode(), "_mode": "binary"}}]}]}
        status, answer = _get(f"{admin}/imposters", method="POST", body=json.dumps(imposter).encode())
        if status != 201:
            raise RuntimeError(f"mountebank refused the imposter: {status} {answer[:200]!r}")
        yield f"http://127.0.0.1:{port}"


PEERS = (
    Peer("WireMock", wiremock_version, serve_wiremock, warmup_s=JIT_WARMUP_S),
    Peer("Prism", prism_version, serve_prism),
    Peer("mountebank", mountebank_version, serve_mountebank),
)


def installed_peers() -> tuple[list[tuple[Peer, str]], dict[str, str]]:
    """([(peer, version)], {peer name: why it is skipped})."""
    found, missing = [], {}
    for peer in PEERS:
        version = peer.version()
        if version is None:
            missing[peer.name] = "not installed (see docs/benchmark.md, Peers)"
        else:
            found.append((peer, version))
    return found, missing
