"""Part 2, in process: client call rates, the ASGI app alone, fresh fakes, a new process's first fake."""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

from .measure import BENCH_PACKAGE, percentile
from .report import TARGET_FRESH_MS, Options, Report
from .servers import bare_app
from .subjects import KERNEL, build_fake, importable, load_fake_class


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
    print(f"\n[2/6] in process: {options.inproc_seconds:g} s per client, {options.fresh_runs} fresh fakes",
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
    done = subprocess.run([sys.executable, "-m", BENCH_PACKAGE, "_cold", json.dumps({"target": target})],
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


