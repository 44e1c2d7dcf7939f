"""Child processes that serve one app each: a fake, or the bare-Starlette floor answering its bytes."""

from __future__ import annotations

import asyncio
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .measure import BENCH_PACKAGE, proc_status_kb
from .subjects import build_fake


def bare_app(method: str, path: str, body: bytes, status: int, content_type: str,
             headers: dict[str, str] | None = None) -> Any:
    """The floor: a plain Starlette app routing the same path to the same response (status, body
    and the fake's own headers)."""
    from starlette.applications import Starlette
    from starlette.responses import Response
    from starlette.routing import Route

    extra = {k: v for k, v in (headers or {}).items() if k.lower() not in FRAMEWORK_HEADERS}

    async def endpoint(request: Any) -> Response:
        return Response(body, status_code=status, media_type=content_type or None, headers=extra)

    return Starlette(routes=[Route(urlsplit(path).path or "/", endpoint, methods=[method])])


#: response headers that the framework or server sets by itself
FRAMEWORK_HEADERS = ("content-length", "content-type", "date", "server", "transfer-encoding", "connection")


def child_serve(spec: dict[str, Any]) -> int:
    """Serve one app until SIGTERM; print one JSON line (port, pid, sample request) when ready."""
    from fakes.kernel.server import bind_socket, serve_until, settle_startup_objects
    from fakes.kernel.server import run as run_on_fast_loop

    started = time.perf_counter()
    info: dict[str, Any] = {"pid": os.getpid()}
    if spec["kind"] == "fake":
        # "journal_bytes": 0 serves the fake as `--journal-bytes 0` does (no headers and bodies kept)
        extra = {"journal_bytes": spec["journal_bytes"]} if "journal_bytes" in spec else {}
        fake = build_fake(spec["target"], spec["settings"], **extra)
        info["build_s"] = time.perf_counter() - started
        method, path = fake.sample_request()
        headers = dict(fake.auth_headers())
        with fake.client() as client:
            response = client.request(method, path, headers=headers)
        Path(spec["body_file"]).write_bytes(response.content)
        if spec.get("mix_file"):
            Path(spec["mix_file"]).write_text(json.dumps(mix_requests(fake)))
        info.update(method=method, path=path, headers=headers, status=response.status_code,
                    content_type=response.headers.get("content-type", ""), bytes=len(response.content),
                    service=fake.name)
        app = fake.app
        settle_startup_objects()  # as `fakes serve` does before its first request
    else:
        body = Path(spec["body_file"]).read_bytes()
        app = bare_app(spec["method"], spec["path"], body, spec["status"], spec["content_type"],
                       spec.get("response_headers"))
        info.update(bytes=len(body))
    sock = bind_socket("127.0.0.1", 0)  # what `fakes serve` and fake.serve() listen on (TCP_NODELAY)
    info["port"] = sock.getsockname()[1]
    info["setup_s"] = time.perf_counter() - started

    async def run() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        # the floor is a bare app on uvicorn as anyone serves one: uvicorn's own protocol, not the
        # kernel's guarded one (its read timeouts and header cap are part of what the fake costs)
        await serve_until([(app, sock)], stop, on_ready=lambda: print(json.dumps(info), flush=True),
                          plain=spec["kind"] == "bare")

    run_on_fast_loop(run())  # uvloop, as `fakes serve` runs; uvicorn parses with httptools
    return 0


def mix_requests(fake: Any) -> list[dict[str, Any]]:
    """The fake's ``bench_mix()`` as the load generators replay it (:class:`.load.MixRequest` fields)."""
    auth = dict(fake.auth_headers())
    out = []
    for op in fake.bench_mix():
        headers = {**auth, **op.headers} if op.auth else dict(op.headers)
        body = b""
        if op.json is not None:
            body = json.dumps(op.json).encode()
            headers.setdefault("content-type", "application/json")
        elif op.content is not None:
            body = bytes(op.content)
        out.append({"name": op.name, "method": op.method, "path": op.path, "headers": headers,
                    "body": body.decode("latin-1"), "expect": list(op.expect)})
    return out


class Server:
    """A child process serving one app; ``info`` is its ready line."""

    def __init__(self, spec: dict[str, Any], timeout: float = 600.0, cwd: str | None = None,
                 wrapper: list[str] | None = None) -> None:
        """``cwd``: another checkout of the project to serve from (its ``fakes`` and ``scenarios``
        come first on the child's path, being in its working directory). ``wrapper``: a command
        the child runs under (valgrind, for the instructions part); the child keeps its pid."""
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the server
        # another checkout has no fakes.scenarios of its own (only an installed copy has): its top-level one
        package = "scenarios.bench" if cwd else BENCH_PACKAGE
        self.proc = subprocess.Popen([*(wrapper or []), sys.executable, "-m", package, "_serve", json.dumps(spec)],
                                     stdout=subprocess.PIPE, stderr=self._stderr, text=True, cwd=cwd)
        self.info = self._ready_line(timeout)
        self.url = f"http://127.0.0.1:{self.info['port']}"

    def _ready_line(self, timeout: float) -> dict[str, Any]:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.proc.stdout], [], [], 0.2)
            if ready:
                line = self.proc.stdout.readline()
                if line.strip():
                    return json.loads(line)  # type: ignore[no-any-return]
            if self.proc.poll() is not None:
                break
        tail = self.stderr_tail()
        self.stop()
        raise RuntimeError(f"server did not start: {tail or 'timed out'}")

    def stderr_tail(self, lines: int = 6) -> str:
        self._stderr.seek(0)
        text = self._stderr.read().decode(errors="replace").strip().splitlines()
        return " | ".join(text[-lines:])

    def memory(self) -> dict[str, int]:
        return proc_status_kb(self.proc.pid)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        if not self._stderr.closed:
            self._stderr.close()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


