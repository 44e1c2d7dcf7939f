"""Part 4, start-up: what ``with fake.serve() as url`` (every ``NAME_url`` fixture) costs a test.

For each service, ``--cycles`` fresh fakes (made, given their credentials and sample request before
the clock starts) are each served, asked their sample request once over a new connection with the
standard library's ``http.client`` (no client-side set-up in the figure), and stopped:

    start  = entering ``fake.serve()`` (socket bound, server thread and event loop up)
    first  = the first answer, connection included
    stop   = leaving the ``with`` block (listener and connections closed, thread joined)

A new ``httpx.Client()`` is timed beside them: a test that builds one per test pays that too, in
its own code, whatever the server does.
"""

from __future__ import annotations

import http.client
import statistics
import sys
import time
from typing import Any
from urllib.parse import urlsplit

from .measure import percentile
from .report import TARGET_CYCLE_MS, Options, Report
from .subjects import KERNEL, importable, load_fake_class


def bench_startup(options: Options, report: Report) -> None:
    print(f"\n[4/6] start-up: {options.cycles} serve cycles per service", file=sys.stderr)
    report.startup_client_ms = _httpx_client_ms()
    for target in options.targets:
        why = importable(target)
        if why:
            report.skip("startup", target, why)
            continue
        try:
            row = serve_cycles(target, options.cycles)
        except Exception as exc:
            report.skip("startup", target, f"{type(exc).__name__}: {exc}")
            continue
        report.startup.append(row)
        print(f"  {row['service']}: cycle {row['cycle_p50_ms']:.2f} ms p50 (start {row['start_p50_ms']:.2f}, "
              f"first answer {row['first_p50_ms']:.2f}, stop {row['stop_p50_ms']:.2f})", file=sys.stderr)
        if target != KERNEL:
            report.target(f"serve cycle {row['service']} (p50)", row["cycle_p50_ms"], TARGET_CYCLE_MS,
                          higher_is_better=False, unit="ms")


def serve_cycles(target: str, cycles: int) -> dict[str, Any]:
    cls = load_fake_class(target)
    timings: dict[str, list[float]] = {"start": [], "first": [], "stop": [], "cycle": []}
    statuses = set()
    for index in range(cycles + 1):  # one unmeasured cycle first: imports, first thread, first loop
        fake = cls(seed=0, clock="manual")
        method, path = fake.sample_request()
        headers = fake.auth_headers()
        t0 = time.perf_counter()
        with fake.serve() as url:
            t1 = time.perf_counter()
            statuses.add(_ask(url, method, path, headers))
            t2 = time.perf_counter()
        t3 = time.perf_counter()
        if index:
            for name, value in (("start", t1 - t0), ("first", t2 - t1), ("stop", t3 - t2), ("cycle", t3 - t0)):
                timings[name].append(value * 1000)
    row: dict[str, Any] = {"service": KERNEL if target == KERNEL else cls.name, "cycles": cycles,
                           "statuses": sorted(statuses)}
    for name, values in timings.items():
        ordered = sorted(values)
        row[f"{name}_p50_ms"] = statistics.median(ordered)
        row[f"{name}_p90_ms"] = percentile(ordered, 0.9)
    return row


def _ask(url: str, method: str, path: str, headers: dict[str, str]) -> int:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=10)
    try:
        connection.request(method, parts.path + path, headers=headers)
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def _httpx_client_ms(samples: int = 5) -> float:
    import httpx

    times = []
    for _ in range(samples):
        t0 = time.perf_counter()
        httpx.Client().close()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)
