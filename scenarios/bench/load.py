"""Load generators: wrk when on PATH, else a raw-socket asyncio generator in its own process."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit

from .measure import BENCH_PACKAGE, percentile, proc_cpu_seconds

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


#: replays a list of requests in a loop (the mixed part); REQUESTS is filled in before it
WRK_MIX_SCRIPT = """
local requests = {%(requests)s}
local next_one = 0
request = function()
  next_one = next_one %% #requests + 1
  return requests[next_one]
end
"""


@dataclass(frozen=True)
class MixRequest:
    """One request of a service's mix, as the load generators replay it."""

    name: str
    method: str
    path: str
    headers: dict[str, str] = field(default_factory=dict)
    body: str = ""  # latin-1 text of the body's bytes
    expect: tuple[int, ...] = (200,)

    def __post_init__(self) -> None:
        object.__setattr__(self, "expect", tuple(self.expect))


def _lua_string(text: str) -> str:
    """``text`` (latin-1) as a Lua string literal: printable ASCII as is, every other byte as \\ddd."""
    out = []
    for char in text:
        code = ord(char)
        out.append(char if 32 <= code < 127 and char not in '"\\' else f"\\{code:03d}")
    return '"' + "".join(out) + '"'


def wrk_mix_script(mix: list[MixRequest]) -> str:
    requests = ",\n  ".join(
        f"wrk.format({_lua_string(r.method)}, {_lua_string(r.path)}, "
        f"{{{', '.join(f'[{_lua_string(k)}] = {_lua_string(v)}' for k, v in r.headers.items())}}}, "
        f"{_lua_string(r.body) if r.body else 'nil'})" for r in mix)
    return WRK_MIX_SCRIPT % {"requests": "\n  " + requests + "\n"}


@dataclass
class LoadConfig:
    generator: str  # "wrk" | "python"
    duration: float
    warmup: float
    connections: int
    threads: int
    rounds: int = 3
    #: at most this many seconds of waiting for a quiet machine before each measured run (0: none)
    quiet_wait: float = 0.0

    def describe(self) -> str:
        quiet = f", each after up to {self.quiet_wait:g} s of waiting for idle cores" if self.quiet_wait > 0 else ""
        return (f"{self.generator_label()}, {self.connections} connections, best of {self.rounds} alternating "
                f"runs of {self.duration:g} s after a {self.warmup:g} s warm-up{quiet}")

    def with_connections(self, connections: int) -> LoadConfig:
        return replace(self, connections=connections)

    def generator_label(self) -> str:
        if self.generator == "wrk":
            return f"wrk ({shutil.which('wrk')}, {self.threads} thread{'s' if self.threads > 1 else ''})"
        return "python (raw-socket asyncio, separate process)"


def choose_generator(wanted: str) -> str:
    if wanted == "auto":
        return "wrk" if shutil.which("wrk") else "python"
    if wanted == "wrk" and not shutil.which("wrk"):
        print("bench: --generator wrk but wrk is not on PATH (apt-get install wrk)", file=sys.stderr)
        raise SystemExit(2)
    return wanted


def run_load(config: LoadConfig, url: str, method: str, headers: dict[str, str], duration: float,
             mix: list[MixRequest] | None = None) -> dict[str, Any]:
    """One load run; req/s and latency percentiles in ms. ``mix``: these requests in a loop
    instead (their paths below ``url``), the mixed part's."""
    if config.generator == "wrk":
        raw = _run_wrk(config, url, method, headers, duration, mix)
    else:
        raw = _run_python_load(config, url, method, headers, duration, mix)
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


def measured_load(config: LoadConfig, url: str, method: str, headers: dict[str, str], duration: float,
                  pid: int | None, mix: list[MixRequest] | None = None) -> dict[str, Any]:
    """:func:`run_load`, with the serving process's CPU time per request (``server_cpu_us``, user +
    system, microseconds) when its ``pid`` is ours: unlike req/s it leaves out the time the server
    waited for a core (a virtual machine's slow spells still show in it). Each run begins on a quiet
    machine (:func:`wait_until_quiet`, ``quiet_wait_s``: the seconds it waited)."""
    waited = wait_until_quiet(config.quiet_wait)
    before = proc_cpu_seconds(pid) if pid else None
    result = run_load(config, url, method, headers, duration, mix)
    after = proc_cpu_seconds(pid) if pid else None
    if before is not None and after is not None and result["requests"]:
        result["server_cpu_us"] = (after - before) / result["requests"] * 1e6
    result["quiet_wait_s"] = waited
    return result


#: the longest wait for a quiet machine before a measured run, unless ``--quiet-wait`` says otherwise
QUIET_WAIT_S = 8.0
#: a machine is quiet when its cores are busy for less than this share of a window of QUIET_WINDOW_S
QUIET_BUSY_SHARE = 0.15
QUIET_WINDOW_S = 0.25


def cpu_jiffies() -> tuple[int, int] | None:
    """(busy, total) time of all cores since boot, from ``/proc/stat`` (None where there is none).
    Busy is user, nice, system, irq and softirq; idle, I/O wait and a hypervisor's steal are not."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            fields = stat.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu" or len(fields) < 5:
        return None
    values = [int(value) for value in fields[1:9]]
    busy = values[0] + values[1] + values[2] + sum(values[5:7])
    return busy, sum(values)


def wait_until_quiet(max_wait: float, *, sample: Callable[[], tuple[int, int] | None] = cpu_jiffies,
                     sleep: Callable[[float], None] = time.sleep) -> float:
    """Wait, at most ``max_wait`` seconds, for a window in which the machine's cores are mostly idle;
    the seconds waited. What another process still does after its run - a JVM compiling what the
    last run made hot (a peer keeps a whole core busy for two seconds after its load stops), a
    server collecting garbage - would otherwise slow the next run, whichever server it measures."""
    if max_wait <= 0:
        return 0.0
    last = sample()
    if last is None:
        return 0.0
    waited = 0.0
    while waited < max_wait:
        sleep(QUIET_WINDOW_S)
        waited += QUIET_WINDOW_S
        now = sample()
        if now is None:
            break
        busy, total = now[0] - last[0], now[1] - last[1]
        if total > 0 and busy <= QUIET_BUSY_SHARE * total:
            break
        last = now
    return waited


def _run_wrk(config: LoadConfig, url: str, method: str, headers: dict[str, str], duration: float,
             mix: list[MixRequest] | None = None) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(WRK_SCRIPT % {"method": method})
        if mix:
            script.write(wrk_mix_script(mix))
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
                     duration: float, mix: list[MixRequest] | None = None) -> dict[str, Any]:
    spec = {"url": url, "method": method, "headers": headers, "connections": config.connections,
            "duration": duration,
            "mix": [[r.method, r.path, r.headers, r.body] for r in mix] if mix else None}
    done = subprocess.run([sys.executable, "-m", BENCH_PACKAGE, "_load", json.dumps(spec)],
                          capture_output=True, text=True, timeout=duration + 60)
    if done.returncode != 0:
        raise RuntimeError(f"python load generator failed: {done.stderr[-600:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def child_load(spec: dict[str, Any]) -> int:
    """The Python load generator: N keep-alive connections on raw asyncio sockets, one process."""
    parts = urlsplit(spec["url"])
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    mix = spec.get("mix") or [[spec["method"], target, spec["headers"], ""]]
    requests = [_raw_request(method, (parts.path.rstrip("/") + path) if spec.get("mix") else path,
                             f"{host}:{port}", headers, body) for method, path, headers, body in mix]
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

    async def worker(stop_at: float, first: int) -> None:
        reader, writer = await asyncio.open_connection(host, port)
        turn = first
        try:
            while time.perf_counter() < stop_at:
                t0 = time.perf_counter_ns()
                writer.write(requests[turn % len(requests)])
                turn += 1
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
        await asyncio.gather(*(worker(start + spec["duration"], index) for index in range(spec["connections"])))
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




def _raw_request(method: str, target: str, host: str, headers: dict[str, str], body: str) -> bytes:
    lines = [f"{method} {target} HTTP/1.1", f"Host: {host}"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    if body or method not in ("GET", "HEAD"):
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n" + body).encode("latin-1")
