"""Benchmark of the fakes: HTTP throughput and latency against the bare-Starlette floor, in-process
call rates, fresh-fake start-up, and scale (memory, deep pages, a bounded journal).

    python -m scenarios bench [--duration 5] [--connections 32] [--only filings] [--json out.json]
    python -m scenarios bench --quick          # short runs, small data: a smoke test of the harness

Every figure comes from one run on one machine; see notes/bench.md for what each one means.

How the HTTP figures are taken: each server (a fake, or the bare Starlette app returning the
fake's exact response bytes) runs in its own process (``python -m scenarios.bench _serve``) with
uvicorn, one worker, on 127.0.0.1, exactly as ``fakes serve`` runs it; the load generator is
``wrk`` when it is on PATH (C, another process), else a raw-socket asyncio generator in yet another
process. The services are discovered from :mod:`fakes.registry`: a new service is benchmarked
through its ``sample_request()`` and ``auth_headers()`` hooks with nothing to add here.

The targets of issue 7 are reported with pass/miss marks; nothing here asserts them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import importlib
import importlib.util
import json
import os
import platform
import select
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

# -- targets of issue 7 (reported, never asserted) ----------------------------------------------
TARGET_HTTP_RATIO = 0.7  # each fake endpoint >= 0.7 x the bare-Starlette floor over HTTP
TARGET_FRESH_MS = 20.0  # a fresh fake created and answering its first request
TARGET_FILINGS_RSS_MB = 300.0  # full-scale filings, resident
TARGET_PAGE_MS = 10.0  # any page of the full-scale filings catalogue
JOURNAL_GROWTH_LIMIT_MB = 8.0  # RSS growth allowed once the journal ring is full ("bounded")

#: settings the benchmark applies unless ``--set`` says otherwise (service -> key -> CLI value)
BENCH_SETTINGS: dict[str, dict[str, str]] = {"filings": {"scale": "full"}}
QUICK_SETTINGS: dict[str, dict[str, str]] = {"filings": {"scale": "small"}}

KERNEL = "(kernel)"  # the row of the kernel-only fake defined below
PARTS = ("http", "inprocess", "scale")


# =================================================================================================
# Fakes: the services of the registry, extra ones given as module:Class, and the kernel's own
# =================================================================================================

@functools.cache
def kernel_fake_class() -> type:
    """A fake with one constant JSON route and one raw ASGI route: the kernel's cost and nothing
    else (FakeApp dispatch, fault check, journal), to set beside the services."""
    from starlette.routing import Route

    from fakes.kernel.fake import Fake
    from fakes.kernel.http import json_response

    payload = {"id": "k1", "status": "ready", "items": [{"n": i, "name": f"item {i}"} for i in range(5)]}
    raw_body = b'{"ok":true}'

    class RawEndpoint:  # an instance, not a function: Starlette routes it as plain ASGI
        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"application/json"), (b"content-length", b"11")]})
            await send({"type": "http.response.body", "body": raw_body})

    class KernelBenchFake(Fake):
        name = "kernel-bench"
        title = "kernel-only benchmark fake"

        def create_model(self) -> Any:
            return _NoModel()

        def routes(self) -> list[Any]:
            return [Route("/ping", self._ping, methods=["GET"]), Route("/raw", RawEndpoint())]

        def sample_request(self) -> tuple[str, str]:
            return ("GET", "/ping?page=1")

        async def _ping(self, request: Any) -> Any:
            return json_response(payload)

    return KernelBenchFake


class _NoModel:
    def to_state(self) -> dict[str, Any]:
        return {}

    def load_state(self, state: dict[str, Any]) -> None:
        pass


def load_fake_class(target: str) -> type:
    """A registry name (``filings``), ``module:Class``, or ``(kernel)``."""
    if target == KERNEL:
        return kernel_fake_class()
    if ":" in target:
        module, _, cls = target.partition(":")
        return getattr(importlib.import_module(module), cls)  # type: ignore[no-any-return]
    from fakes import registry

    return registry.fake_class(target)


def build_fake(target: str, settings: dict[str, dict[str, str]], **kwargs: Any) -> Any:
    """A fake on a manual clock with the benchmark's settings for its service."""
    cls = load_fake_class(target)
    return cls(seed=0, clock="manual", overrides=settings.get(cls.name, {}), **kwargs)


# =================================================================================================
# Small measuring helpers
# =================================================================================================

def percentile(sorted_values: Sequence[float], q: float) -> float:
    if not sorted_values:
        return 0.0
    k = (len(sorted_values) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


def proc_status_kb(pid: int | str = "self") -> dict[str, int]:
    """VmRSS / VmHWM (peak) of a process in kB, from /proc (Linux); {} elsewhere."""
    found: dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    found[key] = int(value.split()[0])
    except OSError:
        pass
    return found


def mb(kb: int | None) -> float | None:
    return None if kb is None else round(kb / 1024, 1)


def loadavg() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def machine_info() -> dict[str, Any]:
    cpu = ""
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as handle:
        for line in handle:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    versions = {}
    for package in ("starlette", "uvicorn", "httpx"):
        with contextlib.suppress(Exception):
            versions[package] = importlib.import_module(package).__version__
    uvicorn_impl = ("uvloop" if importlib.util.find_spec("uvloop") else "asyncio") + "+" + (
        "httptools" if importlib.util.find_spec("httptools") else "h11")
    return {
        "loadavg_at_start": loadavg(),
        "nproc": os.cpu_count(),
        "cpu_affinity": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "cpu_model": cpu or platform.processor(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "uvicorn_loop_http": uvicorn_impl,
        **versions,
    }


# =================================================================================================
# Child processes: a server, the Python load generator, the journal run
# =================================================================================================

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
    from fakes.kernel.server import bind_socket, serve_until

    started = time.perf_counter()
    info: dict[str, Any] = {"pid": os.getpid()}
    if spec["kind"] == "fake":
        fake = build_fake(spec["target"], spec["settings"])
        info["build_s"] = time.perf_counter() - started
        method, path = fake.sample_request()
        headers = dict(fake.auth_headers())
        with fake.client() as client:
            response = client.request(method, path, headers=headers)
        Path(spec["body_file"]).write_bytes(response.content)
        info.update(method=method, path=path, headers=headers, status=response.status_code,
                    content_type=response.headers.get("content-type", ""), bytes=len(response.content),
                    service=fake.name)
        app = fake.app
    else:
        body = Path(spec["body_file"]).read_bytes()
        app = bare_app(spec["method"], spec["path"], body, spec["status"], spec["content_type"],
                       spec.get("response_headers"))
        info.update(bytes=len(body))
    sock = bind_socket("127.0.0.1", 0) if spec.get("socket") == "kernel" else nodelay_socket()
    info["port"] = sock.getsockname()[1]
    info["setup_s"] = time.perf_counter() - started

    async def run() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        await serve_until([(app, sock)], stop, on_ready=lambda: print(json.dumps(info), flush=True))

    asyncio.run(run())
    return 0


def nodelay_socket(host: str = "127.0.0.1", port: int = 0) -> socket.socket:
    """A listening socket whose connections send at once (TCP_NODELAY).

    Made with ``proto=IPPROTO_TCP`` so that asyncio sets TCP_NODELAY on every accepted connection,
    as it does for sockets that ``loop.create_server(host, port)`` (plain uvicorn) makes itself.
    ``fakes.kernel.server.bind_socket`` makes its socket with proto 0, so asyncio leaves Nagle on,
    and a keep-alive client waits for a delayed ACK (about 40 ms on Linux) on every response
    uvicorn writes in two parts; the "(kernel) serve-socket" row shows what that costs.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.setblocking(False)
    return sock


class Server:
    """A child process serving one app; ``info`` is its ready line."""

    def __init__(self, spec: dict[str, Any], timeout: float = 600.0) -> None:
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the server
        self.proc = subprocess.Popen([sys.executable, "-m", "scenarios.bench", "_serve", json.dumps(spec)],
                                     stdout=subprocess.PIPE, stderr=self._stderr, text=True)
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


# -- load generators --------------------------------------------------------------------------------

WRK_SCRIPT = """
wrk.method = "%(method)s"
done = function(summary, latency, requests)
  io.write(string.format(
    "BENCH_JSON {\\"requests\\":%%d,\\"duration_us\\":%%d,\\"bytes\\":%%d,\\"p50_us\\":%%d,"
    .. "\\"p99_us\\":%%d,\\"mean_us\\":%%.1f,\\"max_us\\":%%d,\\"errors_status\\":%%d,"
    .. "\\"errors_socket\\":%%d}\\n",
    summary.requests, summary.duration, summary.bytes, latency:percentile(50), latency:percentile(99),
    latency.mean, latency.max, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
"""


@dataclass
class LoadConfig:
    generator: str  # "wrk" | "python"
    duration: float
    warmup: float
    connections: int
    threads: int
    rounds: int = 3

    def describe(self) -> str:
        return (f"{self.generator_label()}, {self.connections} connections, best of {self.rounds} alternating "
                f"runs of {self.duration:g} s after a {self.warmup:g} s warm-up")

    def generator_label(self) -> str:
        if self.generator == "wrk":
            return f"wrk ({shutil.which('wrk')}, {self.threads} thread{'s' if self.threads > 1 else ''})"
        return "python (raw-socket asyncio, separate process)"


def choose_generator(wanted: str) -> str:
    if wanted == "auto":
        return "wrk" if shutil.which("wrk") else "python"
    if wanted == "wrk" and not shutil.which("wrk"):
        raise SystemExit("bench: --generator wrk but wrk is not on PATH (apt-get install wrk)")
    return wanted


def run_load(config: LoadConfig, url: str, method: str, headers: dict[str, str], duration: float) -> dict[str, Any]:
    """One load run; req/s and latency percentiles in ms."""
    if config.generator == "wrk":
        raw = _run_wrk(config, url, method, headers, duration)
    else:
        raw = _run_python_load(config, url, method, headers, duration)
    seconds = raw["duration_us"] / 1e6 or duration
    return {
        "requests": raw["requests"],
        "rps": raw["requests"] / seconds,
        "p50_ms": raw["p50_us"] / 1000,
        "p99_ms": raw["p99_us"] / 1000,
        "mean_ms": raw["mean_us"] / 1000,
        "max_ms": raw["max_us"] / 1000,
        "non_2xx": raw["errors_status"],
        "socket_errors": raw["errors_socket"],
        "bytes_per_response": raw["bytes"] / raw["requests"] if raw["requests"] else 0,
    }


def _run_wrk(config: LoadConfig, url: str, method: str, headers: dict[str, str], duration: float) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(WRK_SCRIPT % {"method": method})
    try:
        command = ["wrk", f"-t{config.threads}", f"-c{max(config.connections, config.threads)}",
                   f"-d{max(1, round(duration))}s",  # wrk takes whole seconds
                   "--timeout", "10s", "-s", script.name]
        for name, value in headers.items():
            command += ["-H", f"{name}: {value}"]
        done = subprocess.run([*command, url], capture_output=True, text=True, timeout=duration + 60)
    finally:
        os.unlink(script.name)
    for line in done.stdout.splitlines():
        if line.startswith("BENCH_JSON "):
            return json.loads(line[len("BENCH_JSON "):])  # type: ignore[no-any-return]
    raise RuntimeError(f"wrk failed: {done.stdout[-400:]} {done.stderr[-400:]}")


def _run_python_load(config: LoadConfig, url: str, method: str, headers: dict[str, str],
                     duration: float) -> dict[str, Any]:
    spec = {"url": url, "method": method, "headers": headers, "connections": config.connections,
            "duration": duration}
    done = subprocess.run([sys.executable, "-m", "scenarios.bench", "_load", json.dumps(spec)],
                          capture_output=True, text=True, timeout=duration + 60)
    if done.returncode != 0:
        raise RuntimeError(f"python load generator failed: {done.stderr[-600:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def child_load(spec: dict[str, Any]) -> int:
    """The Python load generator: N keep-alive connections on raw asyncio sockets, one process."""
    parts = urlsplit(spec["url"])
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    lines = [f"{spec['method']} {target} HTTP/1.1", f"Host: {host}:{port}"]
    lines += [f"{k}: {v}" for k, v in spec["headers"].items()]
    if spec["method"] not in ("GET", "HEAD"):
        lines.append("Content-Length: 0")
    request = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    latencies: list[int] = []
    counters = {"status": 0, "socket": 0, "bytes": 0}

    async def read_response(reader: asyncio.StreamReader) -> tuple[int, bool]:
        head = await reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length, chunked, close = 0, False, False
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"transfer-encoding" and b"chunked" in value.lower():
                chunked = True
            elif name == b"connection" and b"close" in value.lower():
                close = True
        size = len(head)
        if chunked:
            while True:
                chunk = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                await reader.readexactly(chunk + 2)
                size += chunk
                if chunk == 0:
                    break
        elif length:
            await reader.readexactly(length)
            size += length
        counters["bytes"] += size
        return status, close

    async def worker(stop_at: float) -> None:
        reader, writer = await asyncio.open_connection(host, port)
        try:
            while time.perf_counter() < stop_at:
                t0 = time.perf_counter_ns()
                writer.write(request)
                try:
                    status, close = await read_response(reader)
                except (OSError, asyncio.IncompleteReadError, ValueError):
                    counters["socket"] += 1
                    close, status = True, 0
                latencies.append(time.perf_counter_ns() - t0)
                if status >= 400:
                    counters["status"] += 1
                if close:
                    writer.close()
                    reader, writer = await asyncio.open_connection(host, port)
        finally:
            writer.close()

    async def main() -> float:
        start = time.perf_counter()
        await asyncio.gather(*(worker(start + spec["duration"]) for _ in range(spec["connections"])))
        return time.perf_counter() - start

    elapsed = asyncio.run(main())
    latencies.sort()
    print(json.dumps({
        "requests": len(latencies), "duration_us": int(elapsed * 1e6), "bytes": counters["bytes"],
        "p50_us": percentile(latencies, 0.5) / 1000, "p99_us": percentile(latencies, 0.99) / 1000,
        "mean_us": (sum(latencies) / len(latencies) / 1000) if latencies else 0,
        "max_us": (latencies[-1] / 1000) if latencies else 0,
        "errors_status": counters["status"], "errors_socket": counters["socket"],
    }))
    return 0


# -- the journal under a million requests --------------------------------------------------------------

def child_journal(spec: dict[str, Any]) -> int:
    """Drive the kernel's FakeApp directly with minimal ASGI calls; print the figures as JSON."""
    total, size = int(spec["requests"]), int(spec["size"])
    fake = build_fake(KERNEL, {}, journal_size=size)
    app = fake.app
    template = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
                "scheme": "http", "path": "/raw", "raw_path": b"/raw", "query_string": b"", "root_path": "",
                "headers": [(b"host", b"bench")], "server": ("bench", 80), "client": ("127.0.0.1", 1)}
    request_message = {"type": "http.request", "body": b"", "more_body": False}
    statuses: dict[int, int] = {}

    async def receive() -> dict[str, Any]:
        return request_message

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            statuses[message["status"]] = statuses.get(message["status"], 0) + 1

    full_at = min(total, max(2 * size, total // 10))
    samples: dict[str, Any] = {"start": proc_status_kb()}

    async def run() -> float:
        started = time.perf_counter()
        for i in range(1, total + 1):
            await app(dict(template), receive, send)
            if i == full_at:
                samples["full"] = proc_status_kb()
        return time.perf_counter() - started

    elapsed = asyncio.run(run())
    samples["end"] = proc_status_kb()
    journal = fake.journal
    last = list(journal)[-1] if len(journal) else {}
    print(json.dumps({
        "requests": total, "size": size, "seconds": elapsed, "us_per_request": elapsed / total * 1e6,
        "len": len(journal), "total": journal.total, "last_seq": last.get("seq"), "statuses": statuses,
        "rss_start_kb": samples["start"].get("VmRSS"), "rss_full_kb": samples.get("full", {}).get("VmRSS"),
        "rss_end_kb": samples["end"].get("VmRSS"), "full_at": full_at,
    }))
    return 0


# =================================================================================================
# The three parts
# =================================================================================================

@dataclass
class Options:
    targets: list[str]
    settings: dict[str, dict[str, str]]
    load: LoadConfig
    parts: set[str]
    inproc_seconds: float
    fresh_runs: int
    journal_requests: int
    journal_size: int
    inbox_messages: int
    page_repeats: int
    random_pages: int
    quick: bool


@dataclass
class Report:
    machine: dict[str, Any]
    config: dict[str, Any]
    http: list[dict[str, Any]] = field(default_factory=list)
    inprocess: list[dict[str, Any]] = field(default_factory=list)
    scale: dict[str, Any] = field(default_factory=dict)
    skipped: list[dict[str, str]] = field(default_factory=list)
    targets: list[dict[str, Any]] = field(default_factory=list)

    def skip(self, part: str, what: str, why: str) -> None:
        self.skipped.append({"part": part, "what": what, "why": why})
        print(f"  skipped {part} {what}: {why}", file=sys.stderr)

    def target(self, name: str, value: float | None, limit: float, *, higher_is_better: bool, unit: str) -> None:
        ok = None if value is None else (value >= limit if higher_is_better else value < limit)
        self.targets.append({"name": name, "value": value, "target": limit, "unit": unit,
                             "op": ">=" if higher_is_better else "<", "pass": ok})

    def to_dict(self) -> dict[str, Any]:
        return {"machine": self.machine, "config": self.config, "http": self.http, "inprocess": self.inprocess,
                "scale": self.scale, "targets": self.targets, "skipped": self.skipped}


def importable(target: str) -> str | None:
    """None when the fake class loads, else why not (services still being written skip)."""
    try:
        load_fake_class(target)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


# -- 1. over HTTP -----------------------------------------------------------------------------------

def bench_http(options: Options, report: Report) -> None:
    """Serve each fake and its bare twin in turn; the RSS of each server is kept in its row."""
    config = options.load
    print(f"\n[1/3] over HTTP: {config.describe()}", file=sys.stderr)
    runs = [(target, "nodelay") for target in options.targets]
    if KERNEL in options.targets:  # what `fakes serve` / fake.serve() give today: the kernel's socket
        runs.insert(1, (KERNEL, "kernel"))
    with tempfile.TemporaryDirectory() as tmp:
        for index, (target, socket_kind) in enumerate(runs):
            why = importable(target)
            if why:
                report.skip("http", target, why)
                continue
            try:
                row = _http_row(target, socket_kind, options, str(Path(tmp) / f"{index}.body"))
            except Exception as exc:
                report.skip("http", target, f"{type(exc).__name__}: {exc}")
                continue
            report.http.append(row)
            if target != KERNEL:
                report.target(f"HTTP {row['service']} / bare Starlette", row["ratio"], TARGET_HTTP_RATIO,
                              higher_is_better=True, unit="x")


def _http_row(target: str, socket_kind: str, options: Options, body_file: str) -> dict[str, Any]:
    import httpx

    config = options.load
    with Server({"kind": "fake", "target": target, "settings": options.settings, "body_file": body_file,
                 "socket": socket_kind}) as fake_server:
        info = fake_server.info
        service = info["service"] if target != KERNEL else KERNEL
        row: dict[str, Any] = {
            "service": service + (" serve-socket" if socket_kind == "kernel" else ""),
            "socket": socket_kind, "request": f"{info['method']} {info['path']}", "status": info["status"],
            "response_bytes": info["bytes"], "content_type": info["content_type"],
            "build_s": info["build_s"], "rss_idle_kb": fake_server.memory().get("VmRSS"),
        }
        url = fake_server.url + info["path"]
        check = httpx.request(info["method"], url, headers=info["headers"], timeout=60)
        row["http_status"] = check.status_code
        if not 200 <= check.status_code < 300:
            raise RuntimeError(f"the sample request answered {check.status_code} over HTTP: {check.text[:200]}")
        # The bare twin answers exactly what came over HTTP (links name the served host and port).
        Path(body_file).write_bytes(check.content)
        row["response_bytes"] = len(check.content)
        response_headers = {k: v for k, v in check.headers.items() if k.lower() not in FRAMEWORK_HEADERS}
        row["response_headers"] = sorted(response_headers)
        with Server({"kind": "bare", "method": info["method"], "path": info["path"], "status": check.status_code,
                     "content_type": check.headers.get("content-type", ""), "body_file": body_file,
                     "response_headers": response_headers}) as bare_server:
            bare_url = bare_server.url + info["path"]
            print(f"  {row['service']}: {row['request']} ({info['bytes']} bytes)", file=sys.stderr)
            servers = {"bare": (bare_url, bare_server), "fake": (url, fake_server)}
            if config.warmup > 0:
                for server_url, _ in servers.values():
                    run_load(config, server_url, info["method"], info["headers"], config.warmup)
            runs: dict[str, list[dict[str, Any]]] = {"bare": [], "fake": []}
            for round_index in range(config.rounds):
                # alternate the order, so that a slow spell of a shared machine hits both alike
                order = ("bare", "fake") if round_index % 2 == 0 else ("fake", "bare")
                for name in order:
                    server_url, _ = servers[name]
                    runs[name].append(run_load(config, server_url, info["method"], info["headers"], config.duration))
            for name, (_, server) in servers.items():
                best = max(runs[name], key=lambda r: r["rps"])  # noise only ever slows a run down
                memory = server.memory()
                row[name] = {**best, "rounds_rps": [r["rps"] for r in runs[name]], "rss_kb": memory.get("VmRSS"),
                             "rss_peak_kb": memory.get("VmHWM")}
            paired = [f["rps"] / b["rps"] for f, b in zip(runs["fake"], runs["bare"], strict=True) if b["rps"]]
            row["ratio_median_of_rounds"] = statistics.median(paired) if paired else 0.0
    row["ratio"] = row["fake"]["rps"] / row["bare"]["rps"] if row["bare"]["rps"] else 0.0
    row["rss_kb"] = row["fake"]["rss_kb"]
    return row


# -- 2. in process ------------------------------------------------------------------------------------

def _rate(call: Callable[[], Any], seconds: float) -> tuple[float, int]:
    """Calls per second of ``call`` over about ``seconds`` (after one warm-up call)."""
    call()
    count, started = 0, time.perf_counter()
    deadline = started + seconds
    while True:
        for _ in range(10):
            call()
        count += 10
        now = time.perf_counter()
        if now >= deadline:
            return count / (now - started), count


async def _async_rate(client: Any, method: str, path: str, headers: dict[str, str],
                      seconds: float) -> tuple[float, int]:
    await client.request(method, path, headers=headers)
    count, started = 0, time.perf_counter()
    deadline = started + seconds
    while True:
        for _ in range(10):
            await client.request(method, path, headers=headers)
        count += 10
        now = time.perf_counter()
        if now >= deadline:
            return count / (now - started), count


def bench_inprocess(options: Options, report: Report) -> None:
    print(f"\n[2/3] in process: {options.inproc_seconds:g} s per client, {options.fresh_runs} fresh fakes",
          file=sys.stderr)
    for target in options.targets:
        why = importable(target)
        if why:
            report.skip("inprocess", target, why)
            continue
        try:
            row = _inprocess_one(target, options)
        except Exception as exc:
            report.skip("inprocess", target, f"{type(exc).__name__}: {exc}")
            traceback.print_exc()
            continue
        report.inprocess.append(row)
        print(f"  {row['service']}: sync {row['sync_calls_per_s']:.0f}/s, async {row['async_calls_per_s']:.0f}/s, "
              f"fresh {row['fresh_median_ms']:.2f} ms", file=sys.stderr)
        if target != KERNEL:
            report.target(f"fresh {row['service']} fake answering", row["fresh_median_ms"], TARGET_FRESH_MS,
                          higher_is_better=False, unit="ms")


def _inprocess_one(target: str, options: Options) -> dict[str, Any]:
    cls = load_fake_class(target)
    fake = build_fake(target, options.settings)
    method, path = fake.sample_request()
    headers = dict(fake.auth_headers())
    row: dict[str, Any] = {"service": KERNEL if target == KERNEL else cls.name, "request": f"{method} {path}"}
    with fake.client() as client:
        first = client.request(method, path, headers=headers)
        row["status"] = first.status_code
        row["sync_calls_per_s"], row["sync_calls"] = _rate(lambda: client.request(method, path, headers=headers),
                                                            options.inproc_seconds)

    async def async_part() -> tuple[float, int]:
        async with fake.async_client() as aclient:
            return await _async_rate(aclient, method, path, headers, options.inproc_seconds)

    row["async_calls_per_s"], row["async_calls"] = asyncio.run(async_part())

    # The app alone, called as uvicorn calls it (no httpx, no socket), beside the bare Starlette app
    # answering the same bytes: the part of the HTTP figure that is the fake's own work.
    bare = bare_app(method, path, first.content, first.status_code, first.headers.get("content-type", ""),
                    dict(first.headers))
    row["asgi_us_per_request"] = _asgi_us(fake.app, method, path, headers, options.inproc_seconds)
    row["bare_asgi_us_per_request"] = _asgi_us(bare, method, path, headers, options.inproc_seconds)

    # A fresh fake, as a function-scoped fixture makes it (default settings, not the bench's),
    # created, given its credentials, and answering the sample request through fake.client().
    # One unmeasured round first: what is built once per process (catalogues, data pools) is the
    # "new process" figure below, not this one.
    total_ms: list[float] = []
    create_ms: list[float] = []
    statuses = set()
    for run_index in range(options.fresh_runs + 1):
        t0 = time.perf_counter()
        fresh = cls(seed=0, clock="manual")
        t1 = time.perf_counter()
        fresh_method, fresh_path = fresh.sample_request()
        fresh_headers = fresh.auth_headers()
        with fresh.client() as fresh_client:
            statuses.add(fresh_client.request(fresh_method, fresh_path, headers=fresh_headers).status_code)
        t2 = time.perf_counter()
        if run_index:
            create_ms.append((t1 - t0) * 1000)
            total_ms.append((t2 - t0) * 1000)
    cold = _cold_start(target)
    row.update(
        cold_process_ms=cold.get("first_answer_ms"), cold_import_ms=cold.get("import_ms"),
        fresh_runs=options.fresh_runs,
        fresh_median_ms=statistics.median(total_ms),
        fresh_p90_ms=percentile(sorted(total_ms), 0.9),
        fresh_create_median_ms=statistics.median(create_ms),
        fresh_statuses=sorted(statuses),
    )
    return row


def asgi_scope(method: str, path: str, headers: dict[str, str]) -> dict[str, Any]:
    route_path, _, query = path.partition("?")
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
            "path": route_path, "raw_path": route_path.encode(), "query_string": query.encode(), "root_path": "",
            "headers": [(b"host", b"127.0.0.1")] + [(k.lower().encode(), v.encode()) for k, v in headers.items()],
            "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 50000)}


def _asgi_us(app: Any, method: str, path: str, headers: dict[str, str], seconds: float) -> float:
    """Microseconds per request of an ASGI app driven directly in one event loop."""
    template = asgi_scope(method, path, headers)
    request_message = {"type": "http.request", "body": b"", "more_body": False}

    async def receive() -> dict[str, Any]:
        return request_message

    async def send(message: dict[str, Any]) -> None:
        pass

    async def run() -> float:
        await app(dict(template), receive, send)
        count, started = 0, time.perf_counter()
        while True:
            for _ in range(10):
                await app(dict(template), receive, send)
            count += 10
            elapsed = time.perf_counter() - started
            if elapsed >= seconds:
                return elapsed / count * 1e6

    return asyncio.run(run())


def _cold_start(target: str) -> dict[str, Any]:
    """The first fake of a new process: imports, catalogue/data set-up, first answer."""
    done = subprocess.run([sys.executable, "-m", "scenarios.bench", "_cold", json.dumps({"target": target})],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        return {}
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def child_cold(spec: dict[str, Any]) -> int:
    started = time.perf_counter()
    cls = load_fake_class(spec["target"])
    imported = time.perf_counter()
    fake = cls(seed=0, clock="manual")
    method, path = fake.sample_request()
    headers = fake.auth_headers()
    with fake.client() as client:
        status = client.request(method, path, headers=headers).status_code
    print(json.dumps({"import_ms": (imported - started) * 1000,
                      "first_answer_ms": (time.perf_counter() - started) * 1000, "status": status}))
    return 0


# -- 3. scale ---------------------------------------------------------------------------------------------

def bench_scale(options: Options, report: Report) -> None:
    print("\n[3/3] scale", file=sys.stderr)
    for service, scale in (("filings", _scale_filings), ("member-export", _scale_inbox)):
        if service not in options.targets:
            report.skip("scale", service, "not selected (--only)")
        elif why := importable(service):
            report.skip("scale", service, why)
        else:
            scale(options, report)
    _scale_journal(options, report)


def _scale_filings(options: Options, report: Report) -> None:
    figures: dict[str, Any] = {"settings": options.settings.get("filings", {})}
    report.scale["filings"] = figures
    # Resident memory of the served process: from the HTTP run if there was one, else serve it now.
    served = next((row for row in report.http if row["service"] == "filings"), None)
    if served is not None:
        figures["rss_idle_kb"] = served["rss_idle_kb"]
        figures["rss_after_load_kb"] = served["fake"]["rss_kb"]
        figures["rss_peak_kb"] = served["fake"]["rss_peak_kb"]
        figures["build_s"] = served["build_s"]
    else:
        try:
            with tempfile.TemporaryDirectory() as tmp, Server({
                    "kind": "fake", "target": "filings", "settings": options.settings,
                    "body_file": str(Path(tmp) / "body")}) as server:
                memory = server.memory()
                figures.update(rss_idle_kb=memory.get("VmRSS"), rss_peak_kb=memory.get("VmHWM"),
                               build_s=server.info["build_s"])
        except Exception as exc:
            report.skip("scale", "filings RSS", str(exc))
    rss = figures.get("rss_after_load_kb") or figures.get("rss_idle_kb")
    figures["rss_mb"] = mb(rss)
    scale = options.settings.get("filings", {}).get("scale", "default")
    report.target(f"filings resident memory (scale={scale})", mb(rss), TARGET_FILINGS_RSS_MB,
                  higher_is_better=False, unit="MB")

    # First, last and random pages of the catalogue, in a new process (no network in the figure).
    spec = {"settings": options.settings, "repeats": options.page_repeats, "random_pages": options.random_pages}
    done = subprocess.run([sys.executable, "-m", "scenarios.bench", "_pages", json.dumps(spec)],
                          capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        report.skip("scale", "filings pages", done.stderr.strip()[-600:])
        return
    pages = json.loads(done.stdout.strip().splitlines()[-1])
    figures.update(pages)
    worst = max(pages["first_page"]["once_ms"], pages["last_page"]["once_ms"], pages["random_pages"]["max_ms"])
    report.target(f"filings any page, worst uncached (scale={scale})", worst, TARGET_PAGE_MS,
                  higher_is_better=False, unit="ms")


def child_pages(spec: dict[str, Any]) -> int:
    """Time pages of the filings sample listing, each first asked once (nothing of it cached by the
    fake yet), then again (``repeats`` times: what a poller of the same page gets)."""
    import random

    fake = build_fake("filings", spec["settings"])
    headers = dict(fake.auth_headers())
    _method, sample = fake.sample_request()

    with fake.client() as client:
        def timed(path: str) -> tuple[float, Any]:
            t0 = time.perf_counter()
            response = client.get(path, headers=headers)
            return (time.perf_counter() - t0) * 1000, response

        # the first request of a process builds what every later one shares; not a page's cost
        warmup_ms, _ = timed(_with_page(sample, 2))
        first_ms, first = timed(sample)
        body = first.json()
        last_path = _last_page_path(sample, body)
        last_ms, last = timed(last_path)
        pages = {}
        for name, path, once_ms, response in (("first_page", sample, first_ms, first),
                                              ("last_page", last_path, last_ms, last)):
            again = sorted(timed(path)[0] for _ in range(max(1, spec["repeats"])))
            pages[name] = {"path": path, "status": response.status_code, "bytes": len(response.content),
                           "once_ms": once_ms, "again_median_ms": statistics.median(again), "again_max_ms": again[-1]}
        last_body = last.json()
        pages["last_page"]["results"] = len(last_body.get("results", []))
        pages["last_page"]["has_next"] = bool(last_body.get("next"))
        page_count = int(dict(parse_qsl(urlsplit(last_path).query)).get("page", 1))
        picks = random.Random(0).sample(range(3, page_count), min(spec["random_pages"], max(0, page_count - 3)))
        random_ms = sorted(timed(_with_page(sample, page))[0] for page in picks)
    print(json.dumps({
        **pages, "catalogue_count": body.get("count"), "page_count": page_count, "warmup_ms": warmup_ms,
        "random_pages": {"count": len(random_ms), "median_ms": statistics.median(random_ms) if random_ms else 0.0,
                         "max_ms": random_ms[-1] if random_ms else 0.0},
        "rss_kb": proc_status_kb().get("VmRSS"),
    }))
    return 0


def _with_page(path: str, page: int) -> str:
    parts = urlsplit(path)
    query = dict(parse_qsl(parts.query))
    query["page"] = str(page)
    return parts.path + "?" + urlencode(query)


def _last_page_path(sample: str, body: Any) -> str:
    split = urlsplit
    parts = split(sample)
    query = dict(parse_qsl(parts.query))
    if isinstance(body, dict):
        for key in ("last", "last_page_url"):
            if isinstance(body.get(key), str):
                target = split(body[key])
                return target.path + (f"?{target.query}" if target.query else "")
        count = body.get("count")
        results = body.get("results")
        if isinstance(count, int) and isinstance(results, list) and results:
            per_page = int(query.get("page_size", len(results)))
            next_link = body.get("next") or ""
            next_query = dict(parse_qsl(split(next_link).query)) if next_link else {}
            if "offset" in next_query or "limit" in next_query:
                limit = int(next_query.get("limit", per_page))
                query.update(limit=str(limit), offset=str(max(0, (count - 1) // limit * limit)))
            else:
                query["page"] = str(max(1, -(-count // per_page)))
            return parts.path + "?" + urlencode(query)
    raise RuntimeError(f"cannot find the last page from the first page's answer: keys {list(body)[:10]}")


def _scale_inbox(options: Options, report: Report) -> None:
    """A member whose inbox holds ``inbox_messages`` messages, its snapshot paged to the end."""
    try:
        figures = _inbox_pages(options)
    except Exception as exc:
        report.skip("scale", "member-export inbox", f"{type(exc).__name__}: {exc}")
        traceback.print_exc()
        return
    report.scale["member_export_inbox"] = figures
    print(f"  inbox of {figures['messages']} messages: {figures['pages']} pages in {figures['seconds']:.2f} s",
          file=sys.stderr)


def _inbox_pages(options: Options) -> dict[str, Any]:
    """Made through member-export's Python control plane (create_member with ``sizes``, consent);
    paged through fake.client() by following each page's "next" link until the 404 that ends it."""
    fake = build_fake("member-export", options.settings)
    messages = options.inbox_messages
    member = fake.create_member(name="Bench Inbox", region="DE", sizes={"INBOX": messages}, build_times={"INBOX": 0})
    token = fake.consent(member["id"])["access_token"]
    headers = {"Authorization": f"Bearer {token}", fake.settings.version_header: fake.settings.accepted_version}
    path: str | None = "/rest/memberSnapshotData?q=criteria&domain=INBOX&start=0"
    page_ms: list[float] = []
    records = 0
    status = 0
    started = time.perf_counter()
    with fake.client() as client:
        while path is not None:
            t0 = time.perf_counter()
            response = client.get(path, headers=headers)
            elapsed = (time.perf_counter() - t0) * 1000
            status = response.status_code
            if status != 200:
                break
            page_ms.append(elapsed)
            body = response.json()
            records += sum(len(element.get("snapshotData", [])) for element in body.get("elements", []))
            links = body.get("paging", {}).get("links", [])
            path = next((link["href"][len(fake.prefix):] for link in links if link.get("rel") == "next"), None)
    seconds = time.perf_counter() - started
    if not page_ms:
        raise RuntimeError(f"the first inbox page answered {status}")
    return {
        "messages": messages, "records": records, "pages": len(page_ms), "page_size": fake.settings.page_size,
        "seconds": seconds, "ms_per_page": seconds * 1000 / len(page_ms), "max_page_ms": max(page_ms[1:] or page_ms),
        "first_page_ms": page_ms[0], "last_page_ms": page_ms[-1], "end_status": status,
    }


def _scale_journal(options: Options, report: Report) -> None:
    spec = {"requests": options.journal_requests, "size": options.journal_size}
    done = subprocess.run([sys.executable, "-m", "scenarios.bench", "_journal", json.dumps(spec)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        report.skip("scale", "journal", done.stderr[-600:])
        return
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    growth_kb = (figures["rss_end_kb"] or 0) - (figures["rss_full_kb"] or 0)
    figures["rss_growth_after_full_mb"] = mb(growth_kb)
    figures["bounded"] = (figures["len"] == figures["size"] and figures["total"] == figures["requests"]
                          and growth_kb / 1024 < JOURNAL_GROWTH_LIMIT_MB)
    report.scale["journal"] = figures
    report.targets.append({"name": f"journal bounded under {figures['requests']:,} requests",
                           "value": figures["len"], "target": figures["size"], "unit": "entries", "op": "==",
                           "pass": figures["bounded"]})
    print(f"  journal: {figures['requests']:,} requests in {figures['seconds']:.1f} s, len {figures['len']}",
          file=sys.stderr)


# =================================================================================================
# Output
# =================================================================================================

def _fmt(value: Any, spec: str = ".1f", none: str = "-") -> str:
    if value is None:
        return none
    return format(value, spec)


def _mark(ok: bool | None) -> str:
    return {True: "pass", False: "MISS", None: "n/a"}[ok]


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "~"


def render(report: Report) -> str:
    m = report.machine
    out = [
        "contract-fakes benchmark",
        f"machine: {m['nproc']} CPUs ({m['cpu_model']}), Python {m['python']}, starlette {m.get('starlette')}, "
        f"uvicorn {m.get('uvicorn')} ({m['uvicorn_loop_http']}); load average {m['loadavg_at_start']} at the "
        f"start, {m.get('loadavg_at_end')} at the end (anything else running skews the figures)",
    ]
    if report.http:
        out += ["", f"1. Over HTTP - load generator: {report.config['load']}",
                f"{'service':<21} {'request':<40} {'bytes':>7} | {'bare req/s':>10} {'p50':>6} {'p99':>6} | "
                f"{'fake req/s':>10} {'p50':>6} {'p99':>6} | {'ratio':>5} {'pairs':>5} {'>=0.7':>5} {'RSS MB':>7}"]
        for row in report.http:
            bare, fake = row["bare"], row["fake"]
            errors = fake["non_2xx"] + fake["socket_errors"] + bare["non_2xx"] + bare["socket_errors"]
            mark = _mark(row["ratio"] >= TARGET_HTTP_RATIO) if not row["service"].startswith(KERNEL) else ""
            out.append(
                f"{row['service']:<21} {_short(row['request'], 40):<40} {row['response_bytes']:>7} | "
                f"{bare['rps']:>10.0f} {bare['p50_ms']:>6.2f} {bare['p99_ms']:>6.2f} | "
                f"{fake['rps']:>10.0f} {fake['p50_ms']:>6.2f} {fake['p99_ms']:>6.2f} | "
                f"{row['ratio']:>5.2f} {row['ratio_median_of_rounds']:>5.2f} {mark:>5} "
                f"{_fmt(mb(row['rss_kb'])):>7}" + (f"  ({errors} errors!)" if errors else ""))
        out.append("(latencies in ms; ratio = best fake req/s / best bare req/s, pairs = median of the ratios of "
                   "the runs made one after the other;\n bare = plain Starlette answering the same bytes and "
                   "headers on the same path;\n serve-socket = the fake on fakes.kernel.server.bind_socket, as "
                   "`fakes serve` and fake.serve() run it, against the bare app on a TCP_NODELAY socket)")
    if report.inprocess:
        out += ["", "2. In process (sequential calls of the sample request)",
                f"{'service':<14} {'client()/s':>10} {'async/s':>8} | {'ASGI us/req':>11} {'bare':>5} | "
                f"{'fresh ms':>8} {'p90':>6} {'create':>6} {'<20ms':>5} | {'new process ms':>14} {'import':>6}"]
        for row in report.inprocess:
            mark = _mark(row["fresh_median_ms"] < TARGET_FRESH_MS) if row["service"] != KERNEL else ""
            out.append(f"{row['service']:<14} {row['sync_calls_per_s']:>10.0f} {row['async_calls_per_s']:>8.0f} | "
                       f"{row['asgi_us_per_request']:>11.0f} {row['bare_asgi_us_per_request']:>5.0f} | "
                       f"{row['fresh_median_ms']:>8.2f} {row['fresh_p90_ms']:>6.2f} "
                       f"{row['fresh_create_median_ms']:>6.2f} {mark:>5} | "
                       f"{_fmt(row['cold_process_ms'], '.0f'):>14} {_fmt(row['cold_import_ms'], '.0f'):>6}")
        out.append("(ASGI = the app called directly, as uvicorn calls it; bare = plain Starlette, same bytes;\n"
                   " fresh = median of new fake + auth_headers() + first sample request through fake.client(), "
                   "default settings; create = the constructor alone;\n new process = the same in a new "
                   "interpreter, imports included: what a test session's first fixture pays)")
    if report.scale:
        out += ["", "3. Scale"]
        filings = report.scale.get("filings")
        if filings:
            out.append(f"filings ({', '.join(f'{k}={v}' for k, v in filings['settings'].items()) or 'defaults'}): "
                       f"RSS {_fmt(filings.get('rss_mb'))} MB served (idle {_fmt(mb(filings.get('rss_idle_kb')))}, "
                       f"peak {_fmt(mb(filings.get('rss_peak_kb')))}), "
                       f"built in {_fmt(filings.get('build_s'), '.2f')} s, "
                       f"catalogue {filings.get('catalogue_count', '-')}")
            for key in ("first_page", "last_page"):
                page = filings.get(key)
                if page:
                    out.append(f"  {key.replace('_', ' ')}: {page['once_ms']:.2f} ms the first time, "
                               f"{page['again_median_ms']:.2f} ms again (median; max {page['again_max_ms']:.2f}) "
                               f"- {page['bytes']} bytes, status {page['status']}, {page['path']}")
            if filings.get("random_pages"):
                sampled = filings["random_pages"]
                out.append(f"  {sampled['count']} random pages of {filings['page_count']:,}, once each: "
                           f"{sampled['median_ms']:.2f} ms median, {sampled['max_ms']:.2f} ms max "
                           f"(first request of the process: {filings['warmup_ms']:.0f} ms)")
        inbox = report.scale.get("member_export_inbox")
        if inbox:
            out.append(f"member-export inbox of {inbox['messages']:,} messages: {inbox['pages']:,} pages of "
                       f"{inbox['page_size']} to the end in {inbox['seconds']:.2f} s "
                       f"({inbox['ms_per_page']:.2f} ms/page; first {inbox['first_page_ms']:.1f} ms, "
                       f"slowest after it {inbox['max_page_ms']:.2f} ms, "
                       f"last page {inbox['last_page_ms']:.2f} ms), {inbox['records']:,} records seen")
        journal = report.scale.get("journal")
        if journal:
            out.append(f"journal: {journal['requests']:,} requests through FakeApp in {journal['seconds']:.1f} s "
                       f"({journal['us_per_request']:.1f} us each); len {journal['len']} (size {journal['size']}), "
                       f"total {journal['total']:,}; RSS {_fmt(mb(journal['rss_full_kb']))} MB when full -> "
                       f"{_fmt(mb(journal['rss_end_kb']))} MB at the end: "
                       f"{'bounded' if journal['bounded'] else 'NOT bounded'}")
    if report.targets:
        out += ["", "Targets of issue 7 (reported, not asserted)"]
        for t in report.targets:
            value = t["value"]
            shown = "-" if value is None else (f"{value:.2f}" if isinstance(value, float) else str(value))
            out.append(f"  [{_mark(t['pass']):>4}] {t['name']:<48} {shown:>9} {t['unit']:<7} "
                       f"(target {t['op']} {t['target']})")
    if report.skipped:
        out += ["", "Skipped"]
        out += [f"  {s['part']} {s['what']}: {_short(s['why'], 160)}" for s in report.skipped]
    return "\n".join(out)


# =================================================================================================
# Command line
# =================================================================================================

def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m scenarios bench", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="short runs and small data (filings.scale=small, 1,000-message inbox, 20,000 journal "
                             "requests): a smoke test, not a measurement")
    parser.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated subset of {','.join(PARTS)}")
    parser.add_argument("--only", default=None, help="comma-separated services (default: every registered one)")
    parser.add_argument("--fake", action="append", default=[], metavar="MODULE:CLASS",
                        help="benchmark an extra Fake subclass too (e.g. tests.kernel.tiny:NotesFake)")
    parser.add_argument("--no-kernel", action="store_true", help="leave out the kernel-only fake row")
    parser.add_argument("--set", dest="settings", action="append", default=[], metavar="SERVICE.KEY=VALUE",
                        help="service setting (default: filings.scale=full; small with --quick)")
    parser.add_argument("--duration", type=float, default=None, help="seconds of load per HTTP run (default 5)")
    parser.add_argument("--warmup", type=float, default=None, help="seconds of unmeasured load before each run (1)")
    parser.add_argument("--connections", type=int, default=None, help="concurrent connections (default 32)")
    parser.add_argument("--rounds", type=int, default=None,
                        help="alternating bare/fake runs per service; the best of each counts (default 3)")
    parser.add_argument("--threads", type=int, default=1, help="wrk threads (default 1: the server gets a core)")
    parser.add_argument("--generator", choices=("auto", "wrk", "python"), default="auto",
                        help="load generator (default: wrk when on PATH, else python)")
    parser.add_argument("--inproc-seconds", type=float, default=None, help="seconds per in-process client rate (2)")
    parser.add_argument("--fresh-runs", type=int, default=None, help="fresh fakes to time (default 50)")
    parser.add_argument("--journal-requests", type=int, default=None, help="requests through the journal (1,000,000)")
    parser.add_argument("--inbox-messages", type=int, default=None, help="messages in the big inbox (100,000)")
    parser.add_argument("--page-repeats", type=int, default=None, help="timings of each filings page (default 20)")
    parser.add_argument("--random-pages", type=int, default=None,
                        help="random filings pages to time once each (default 20)")
    parser.add_argument("--json", dest="json_path", default=None, metavar="PATH", help="also save the figures as JSON")
    return parser


def parse_options(argv: Sequence[str]) -> tuple[Options, str | None]:
    args = build_parser().parse_args(argv)
    quick = args.quick

    def pick(value: Any, normal: Any, fast: Any) -> Any:
        return value if value is not None else (fast if quick else normal)

    from fakes import registry

    names = registry.service_names()
    if args.only:
        chosen = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in chosen if n not in names and n != KERNEL]
        if unknown:
            raise SystemExit(f"bench: unknown service(s) {', '.join(unknown)}; known: {', '.join(names)}")
        names = [n for n in names if n in chosen]
    targets = ([] if args.no_kernel else [KERNEL]) + names + list(args.fake)
    settings = {service: dict(values) for service, values in (QUICK_SETTINGS if quick else BENCH_SETTINGS).items()}
    for item in args.settings:
        key, sep, value = item.partition("=")
        service, dot, name = key.partition(".")
        if not sep or not dot:
            raise SystemExit(f"bench: --set takes SERVICE.KEY=VALUE, got {item!r}")
        settings.setdefault(service, {})[name] = value
    parts = {p.strip() for p in args.parts.split(",") if p.strip()}
    if parts - set(PARTS):
        raise SystemExit(f"bench: unknown part(s) {', '.join(sorted(parts - set(PARTS)))}; known: {', '.join(PARTS)}")
    load = LoadConfig(
        generator=choose_generator(args.generator) if "http" in parts else args.generator,
        duration=pick(args.duration, 5.0, 1.0), warmup=pick(args.warmup, 1.0, 0.3),
        connections=pick(args.connections, 32, 8), threads=max(1, args.threads),
        rounds=max(1, pick(args.rounds, 3, 1)),
    )
    options = Options(
        targets=targets, settings=settings, load=load, parts=parts,
        inproc_seconds=pick(args.inproc_seconds, 2.0, 0.2), fresh_runs=pick(args.fresh_runs, 50, 5),
        journal_requests=pick(args.journal_requests, 1_000_000, 20_000), journal_size=1000,
        inbox_messages=pick(args.inbox_messages, 100_000, 1_000), page_repeats=pick(args.page_repeats, 20, 3),
        random_pages=pick(args.random_pages, 20, 3),
        quick=quick,
    )
    return options, args.json_path


def run(options: Options) -> Report:
    report = Report(machine=machine_info(), config={
        "quick": options.quick, "parts": sorted(options.parts), "services": options.targets,
        "settings": options.settings, "load": options.load.describe(), "generator": options.load.generator,
        "duration_s": options.load.duration, "warmup_s": options.load.warmup, "rounds": options.load.rounds,
        "connections": options.load.connections, "wrk_threads": options.load.threads,
        "inproc_seconds": options.inproc_seconds, "fresh_runs": options.fresh_runs,
        "journal_requests": options.journal_requests, "journal_size": options.journal_size,
        "inbox_messages": options.inbox_messages, "page_repeats": options.page_repeats,
        "random_pages": options.random_pages,
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    })
    if "http" in options.parts:
        print(f"load generator: {options.load.generator_label()}", file=sys.stderr)
        bench_http(options, report)
    if "inprocess" in options.parts:
        bench_inprocess(options, report)
    if "scale" in options.parts:
        bench_scale(options, report)
    return report


CHILDREN: dict[str, Callable[[dict[str, Any]], int]] = {
    "_serve": child_serve, "_load": child_load, "_journal": child_journal, "_cold": child_cold,
    "_pages": child_pages,
}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--"]:  # `python -m scenarios bench -- --quick` (argparse REMAINDER needs the --)
        argv = argv[1:]
    if argv and argv[0] in CHILDREN:  # internal: the benchmark's own child processes
        return CHILDREN[argv[0]](json.loads(argv[1]))
    options, json_path = parse_options(argv)
    started = time.perf_counter()
    report = run(options)
    report.config["wall_s"] = round(time.perf_counter() - started, 1)
    report.machine["loadavg_at_end"] = loadavg()
    print(render(report))
    if json_path:
        Path(json_path).write_text(json.dumps(report.to_dict(), indent=2, default=str) + "\n")
        print(f"\nfigures saved to {json_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
