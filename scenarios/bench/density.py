"""Part 9, density: how many touched worlds one ``fakes serve`` of every service holds, and whether
deleting them gives the memory back (``--parts density --density-worlds N``).

One ``fakes serve`` of the chosen services (default: all five, ``--max-worlds`` raised to hold
them, the bench's ``--set`` settings) runs as a child process. Each round *touches* N worlds of
every service over HTTP (a few keep-alive connections per service): a world is touched by one
control call (a seeding call where the service's API needs credentials) and one successful call of
its public API (see :data:`TOUCHES`), so N worlds per service are N x services worlds in all. The
server's resident memory is read from ``/proc/<pid>/status`` once the round's worlds all exist
(``VmRSS``, and the peak so far ``VmHWM``), then every world is deleted (``DELETE /_fake/worlds``
on each service) and the resident memory read again. Three rounds: the second and third must
peak where the first did if what deleted worlds free is reused.

Columns: ``held MB`` resident with the round's worlds all alive, ``peak MB`` the process's peak
so far, ``after del`` resident once they are deleted, ``KiB/world`` (held - base) / worlds, where
``base`` is the resident memory after a warm-up round (every service touched and its worlds
deleted: the shared data, routers and caches of first use are in it). Targets (issue 37, item 4):
10,000 touched worlds per service held in at most 1 GB, and the third round's peak within 5 % of
the second's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .measure import loadavg, proc_status_kb
from .report import Options, Report

TARGET_HELD_MB = 1024.0  # 10,000 touched worlds per service, all five services, in one process
TARGET_THIRD_ROUND = 1.05  # the third round's peak / the second's
TARGET_WORLDS = 10_000
CONNECTIONS_PER_SERVICE = 2
ROUNDS = 3


# -- a tiny HTTP/1.1 keep-alive client (the server, not the client, should be the cost) ------------
class HttpError(RuntimeError):
    pass


@dataclass
class Answer:
    status: int
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class Connection:
    """One keep-alive connection to ``127.0.0.1:port``."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, headers: dict[str, str] | None = None,
                      body: Any = None) -> Answer:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        assert self.reader is not None
        payload = b"" if body is None else json.dumps(body).encode()
        head = [f"{method} {path} HTTP/1.1", f"host: 127.0.0.1:{self.port}", f"content-length: {len(payload)}"]
        if body is not None:
            head.append("content-type: application/json")
        head += [f"{name}: {value}" for name, value in (headers or {}).items()]
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + payload)
        status_line = await self.reader.readline()
        if not status_line:
            raise HttpError(f"{method} {path}: the server closed the connection")
        status = int(status_line.split()[1])
        length, chunked = 0, False
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            name = name.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding" and "chunked" in value.lower():
                chunked = True
        if chunked:
            parts = []
            while True:
                size = int((await self.reader.readline()).split(b";")[0], 16)
                parts.append(await self.reader.readexactly(size + 2))
                if size == 0:
                    break
            data = b"".join(part[:-2] for part in parts)
        else:
            data = await self.reader.readexactly(length) if length else b""
        return Answer(status, data)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


# -- what touching a world of each service is ------------------------------------------------------
Touch = Callable[[Connection, str, dict[str, Any]], Any]


def expect(answer: Answer, status: int, what: str) -> Answer:
    if answer.status != status:
        raise HttpError(f"{what}: {answer.status} {answer.body[:300]!r}")
    return answer


async def touch_member_export(conn: Connection, base: str, settings: dict[str, Any]) -> None:
    """A member made with every domain built at once (seeding), its consent through the API, and
    the first page of its inbox: the API's main read needs the member's consent first, so this
    service's touch holds two API calls."""
    from fakes.member_export.domains import DOMAINS

    made = expect(await conn.request("POST", f"{base}/_fake/members", body={
        "region": "DE", "build_times": dict.fromkeys(DOMAINS, 0)}), 201, "member-export member").json()
    headers = {"authorization": f"Bearer {made['access_token']}",
               settings["version_header"]: settings["accepted_version"]}
    expect(await conn.request("POST", f"{base}/rest/memberAuthorizations", headers, {}), 201,
           "member-export consent")
    expect(await conn.request("GET", f"{base}/rest/memberSnapshotData?q=criteria&domain=INBOX&start=0", headers),
           200, "member-export snapshot")


async def touch_filings(conn: Connection, base: str, settings: dict[str, Any]) -> None:
    """The world's clock, then the newest filings with the seed's demo Standard key."""
    expect(await conn.request("GET", f"{base}/_fake/clock"), 200, "filings clock")
    expect(await conn.request("GET", f"{base}/filings/?ordering=-release_datetime",
                              {settings["api_key_header"]: settings["demo_key"]}), 200, "filings page")


async def touch_enrichment(conn: Connection, base: str, settings: dict[str, Any]) -> None:
    """A subscription account (seeding), then a company's details."""
    account = expect(await conn.request("POST", f"{base}/_fake/accounts", body={"plan": "sub_299"}), 201,
                     "enrichment account").json()
    expect(await conn.request("GET", f"{base}/v1/company/details?website=stripe.com",
                              {"authorization": f"Bearer {account['api_key']}"}), 200, "enrichment details")


async def touch_relay(conn: Connection, base: str, settings: dict[str, Any]) -> None:
    """A team holding the free dollar (seeding), then a priced catalogue call."""
    team = expect(await conn.request("POST", f"{base}/_fake/teams", body={}), 201, "relay team").json()
    expect(await conn.request("GET", f"{base}/call/firmdata.companies.enrich?domain=northwind.com",
                              {settings["token_header"]: team["token"]}), 200, "relay call")


async def touch_video(conn: Connection, base: str, settings: dict[str, Any]) -> None:
    """A project (seeding), then a video made with its sandbox key."""
    import base64

    project = expect(await conn.request("POST", f"{base}/_fake/projects", body={}), 201, "video project").json()
    key = project[f"{settings['environment']}_key"]
    auth = {"authorization": "Basic " + base64.b64encode(f"{key}:".encode()).decode()}
    expect(await conn.request("POST", f"{base}/videos", auth, {"title": "Density"}), 201, "video create")


#: service -> its touch; a service not listed here is reported as skipped by this part
TOUCHES: dict[str, Touch] = {
    "member-export": touch_member_export, "filings": touch_filings, "enrichment": touch_enrichment,
    "relay": touch_relay, "video": touch_video,
}


def touch_settings(service: str, overrides: dict[str, str]) -> dict[str, Any]:
    """What a touch needs to know of the served settings (header names, the seed's demo key), read
    from a fake built here with the same seed and settings."""
    from .subjects import load_fake_class

    fake: Any = load_fake_class(service)(seed=0, overrides=overrides)
    settings = fake.settings
    if service == "member-export":
        return {"version_header": settings.version_header, "accepted_version": settings.accepted_version}
    if service == "filings":
        return {"api_key_header": settings.api_key_header, "demo_key": fake.model.demo_keys["standard"]}
    if service == "relay":
        return {"token_header": fake.model.h.token}
    if service == "video":
        return {"environment": settings.environment}
    return {}


# -- the server ------------------------------------------------------------------------------------
def free_port_block(count: int) -> int:
    """The first of ``count`` consecutive free loopback ports, below Linux's ephemeral range."""
    for _ in range(200):
        first = random.randint(20_000, 32_000 - count)
        if all(_port_is_free(first + i) for i in range(count)):
            return first
    raise RuntimeError(f"no block of {count} free ports")


def _port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@contextlib.contextmanager
def served(services: list[str], max_worlds: int, settings: dict[str, dict[str, str]],
           extra_args: list[str] | None = None) -> Iterator[tuple[int, dict[str, int]]]:
    """``python -m fakes serve`` of ``services`` on free loopback ports: (pid, service -> port)."""
    from fakes import registry

    ordered = [name for name in registry.service_names() if name in services]
    first = free_port_block(len(ordered))
    ports = {name: first + i for i, name in enumerate(ordered)}
    argv = [sys.executable, "-m", "fakes", "serve", "--only", ",".join(ordered), "--host", "127.0.0.1",
            "--port", str(first), "--max-worlds", str(max_worlds), *(extra_args or [])]
    for service, values in settings.items():
        if service in ordered:
            argv += [arg for key, value in values.items() for arg in ("--set", f"{service}.{key}={value}")]
    env = {k: v for k, v in os.environ.items() if not k.startswith("FAKES_")}
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env)
        try:
            _wait_up(proc, ports, log)
            yield proc.pid, ports
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _wait_up(proc: subprocess.Popen[bytes], ports: dict[str, int], log: Any) -> None:
    deadline = time.monotonic() + 180
    pending = dict(ports)
    while pending:
        if proc.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"fakes serve stopped ({proc.returncode}): {log.read()[-800:].decode(errors='replace')}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"fakes serve did not answer on {sorted(pending)} within 180 s")
        for name, port in list(pending.items()):
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                sock.sendall(b"GET /_fake/health HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n")
                if sock.recv(64).startswith(b"HTTP/1.1 200"):
                    del pending[name]
        time.sleep(0.2)


# -- rounds ----------------------------------------------------------------------------------------
@dataclass
class Round:
    worlds_per_service: int
    seconds: float = 0.0
    requests: int = 0
    held_kb: int = 0
    peak_kb: int = 0
    after_delete_kb: int = 0
    deleted: dict[str, int] = field(default_factory=dict)


async def touch_round(ports: dict[str, int], settings: dict[str, dict[str, Any]], count: int, tag: str,
                      connections: int = CONNECTIONS_PER_SERVICE) -> int:
    """Touch ``count`` worlds of every service (``<tag>-<i>``); the number of requests sent."""
    sent = [0]

    async def worker(service: str, port: int, queue: list[int]) -> None:
        conn = Connection(port)
        touch = TOUCHES[service]
        try:
            while queue:
                i = queue.pop()
                await touch(conn, f"/_w/{tag}-{i}", settings[service])
                sent[0] += 1
        finally:
            conn.close()

    jobs = []
    for service, port in ports.items():
        queue = list(range(count))
        jobs += [worker(service, port, queue) for _ in range(connections)]
    await asyncio.gather(*jobs)
    return sent[0]


async def delete_worlds(ports: dict[str, int]) -> dict[str, int]:
    deleted = {}
    for service, port in ports.items():
        conn = Connection(port)
        try:
            deleted[service] = expect(await conn.request("DELETE", "/_fake/worlds"), 200, "delete").json()["deleted"]
        finally:
            conn.close()
    return deleted


def status_kb(pid: int) -> tuple[int, int]:
    status = proc_status_kb(pid)
    return status.get("VmRSS", 0), status.get("VmHWM", 0)


def measure_density(services: list[str], worlds: int, settings: dict[str, dict[str, str]], *,
                    rounds: int = ROUNDS, warmup: int = 20, extra_args: list[str] | None = None,
                    progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """The figures of :mod:`this part <scenarios.bench.density>` (sizes in kB as /proc gives them)."""
    services = [s for s in services if s in TOUCHES]
    if not services:
        raise ValueError("no service with a touch defined")
    touch_with = {s: touch_settings(s, settings.get(s, {})) for s in services}
    result: dict[str, Any] = {"services": services, "worlds_per_service": worlds, "rounds": []}
    with served(services, worlds + warmup + 10, settings, extra_args) as (pid, ports):
        result["start_kb"] = status_kb(pid)[0]
        asyncio.run(touch_round(ports, touch_with, warmup, "warm"))
        asyncio.run(delete_worlds(ports))
        result["base_kb"] = status_kb(pid)[0]
        for index in range(rounds):
            current = Round(worlds)
            started = time.perf_counter()
            current.requests = asyncio.run(touch_round(ports, touch_with, worlds, f"r{index}"))
            current.seconds = time.perf_counter() - started
            current.held_kb, current.peak_kb = status_kb(pid)
            current.deleted = asyncio.run(delete_worlds(ports))
            time.sleep(0.5)
            current.after_delete_kb = status_kb(pid)[0]
            result["rounds"].append(current.__dict__)
            if progress is not None:
                progress(f"round {index + 1}: {worlds} worlds x {len(services)} services held in "
                         f"{current.held_kb / 1024:.0f} MB (peak {current.peak_kb / 1024:.0f} MB, "
                         f"{current.after_delete_kb / 1024:.0f} MB after deleting them; "
                         f"{current.seconds:.0f} s)")
    return result


def summarise(result: dict[str, Any]) -> dict[str, Any]:
    """The report's row: MB per round, KiB per world, the rounds' ratios."""
    total = result["worlds_per_service"] * len(result["services"])
    rows = result["rounds"]
    base = result["base_kb"]
    return {
        "services": result["services"], "worlds_per_service": result["worlds_per_service"], "worlds": total,
        "start_mb": round(result["start_kb"] / 1024, 1), "base_mb": round(base / 1024, 1),
        "held_mb": [round(r["held_kb"] / 1024, 1) for r in rows],
        "peak_mb": [round(r["peak_kb"] / 1024, 1) for r in rows],
        "after_delete_mb": [round(r["after_delete_kb"] / 1024, 1) for r in rows],
        "kib_per_world": [round((r["held_kb"] - base) / max(total, 1), 2) for r in rows],
        "seconds": [round(r["seconds"], 1) for r in rows],
        "third_over_second": round(rows[-1]["peak_kb"] / rows[-2]["peak_kb"], 3) if len(rows) >= 3 else None,
        "second_over_first": round(rows[1]["peak_kb"] / rows[0]["peak_kb"], 3) if len(rows) >= 2 else None,
    }


def bench_density(options: Options, report: Report) -> None:
    from fakes import registry

    services = [t for t in options.targets if t in registry.service_names()]
    for missing in [s for s in services if s not in TOUCHES]:
        report.skip("density", missing, "no touch defined (scenarios/bench/density.py TOUCHES)")
    services = [s for s in services if s in TOUCHES]
    if not services:
        return
    worlds = options.density_worlds
    print(f"\n[9] density: {worlds} touched worlds per service x {len(services)} services in one "
          f"`fakes serve`, {ROUNDS} rounds (load average {loadavg()})", file=sys.stderr)
    try:
        result = measure_density(services, worlds, options.settings,
                                 progress=lambda line: print("  " + line, file=sys.stderr))
    except Exception as exc:
        report.skip("density", ",".join(services), f"{type(exc).__name__}: {exc}")
        return
    row = summarise(result)
    row["loadavg"] = loadavg()
    report.density = row
    report.target(f"{row['worlds']:,} touched worlds in one process (held MB)", row["held_mb"][-1],
                  TARGET_HELD_MB, higher_is_better=False, unit="MB")
    if row["third_over_second"] is not None:
        report.target("third round's peak / the second's", row["third_over_second"], TARGET_THIRD_ROUND,
                      higher_is_better=False, unit="x")


def render_density(report: Report) -> list[str]:
    row = report.density
    if not row:
        return []
    out = ["", f"9. Density: {row['worlds_per_service']:,} touched worlds per service x {len(row['services'])} "
               f"services = {row['worlds']:,} worlds in one `fakes serve` (resident MB; base {row['base_mb']} MB "
               f"after a warm-up, {row['start_mb']} MB at start)",
           f"{'round':<6} {'held MB':>8} {'peak MB':>8} {'after del':>9} {'KiB/world':>9} {'seconds':>8}"]
    for i, (held, peak, after, per, secs) in enumerate(zip(row["held_mb"], row["peak_mb"], row["after_delete_mb"],
                                                           row["kib_per_world"], row["seconds"], strict=True)):
        out.append(f"{i + 1:<6} {held:>8.1f} {peak:>8.1f} {after:>9.1f} {per:>9.2f} {secs:>8.1f}")
    ratios = []
    if row.get("second_over_first") is not None:
        ratios.append(f"peak r2/r1 {row['second_over_first']:.3f}")
    if row.get("third_over_second") is not None:
        ratios.append(f"r3/r2 {row['third_over_second']:.3f}")
    if ratios:
        out.append("(" + ", ".join(ratios) + "; a world is touched by one control call and one API call, see "
                   "scenarios/bench/density.py)")
    return out


def child_density(spec: dict[str, Any]) -> int:
    """``python -m scenarios.bench _density '{"services": [...], "worlds": N}'``: the figures as JSON."""
    result = measure_density(spec["services"], int(spec["worlds"]), spec.get("settings", {}),
                             rounds=int(spec.get("rounds", ROUNDS)),
                             progress=lambda line: print(line, file=sys.stderr, flush=True))
    print(json.dumps(summarise(result)))
    return 0

