"""Part 5, worlds: what a new isolated world costs, per service (``--parts worlds --worlds N``).

Columns (medians over N new worlds, in process unless said otherwise):

* ``create``     - ``fake.world(id)``: the world's fake (settings, clock, model), no request yet;
* ``1st ctl``    - a new world answering its first request, ``GET /_w/<id>/_fake/health`` (its
  app and routers are built on that first request);
* ``1st api``    - a new job's first API call: world, its credentials (``auth_headers()``) and
  the service's benchmark request (``sample_request()``) through ``/_w/<id>/``;
* ``later``      - the same API call again in an existing world;
* ``1st sock``   - ``1st ctl`` over a real loopback socket (keep-alive connection already open);
* ``KiB/empty``  - memory one more world holds after its first control request (tracemalloc);
* ``KiB/busy``   - the same after the API call (credentials and whatever the call stored);
* ``KiB left``   - what stays allocated after deleting all N worlds (should be ~0);
* ``MB r1`` / ``MB r2`` - peak resident memory (VmHWM) of a new process after a first and a
  second round of N worlds created (each with an API call) and deleted: the second round must
  not raise it (what deleted worlds free is reused).

Targets (issue 23, item 9): at most 64 KiB per empty world, and ``MB r2`` no higher than ``MB r1``.
"""

from __future__ import annotations

import gc
import json
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import httpx

from fakes import registry
from fakes.kernel.fake import Fake
from fakes.kernel.transport import SyncFakeTransport

from .measure import proc_status_kb
from .report import Options, Report
from .subjects import KERNEL, load_fake_class

TARGET_WORLD_MS = 5.0  # a new world answering its first request ("a few milliseconds")
TARGET_EMPTY_WORLD_KIB = 64.0


def bench_worlds(options: Options, report: Report) -> None:
    print(f"\n[5/6] worlds: {options.worlds} new worlds per service", file=sys.stderr)
    for target in options.targets:
        if target != KERNEL and target not in registry.service_names():
            continue
        settings = {**load_fake_class(target).settings_for_tests(), **options.settings.get(target, {})}
        try:
            row = measure(target, options.worlds, settings)
            row.update(rounds_in_child(target, options.worlds, settings))
        except Exception as exc:
            report.skip("worlds", target, f"{type(exc).__name__}: {exc}")
            continue
        report.worlds.append(row)
        print(f"  {target}: create {row['create_ms']:.2f} ms, first request {row['first_control_ms']:.2f} ms, "
              f"{row['kib_per_empty_world']:.1f} KiB per empty world, peak RSS {row['round_peaks_mb']} MB",
              file=sys.stderr)
        report.target(f"new world, first request {target} (p50)", row["first_control_ms"], TARGET_WORLD_MS,
                      higher_is_better=False, unit="ms")
        report.target(f"memory of an empty world {target}", row["kib_per_empty_world"], TARGET_EMPTY_WORLD_KIB,
                      higher_is_better=False, unit="KiB")


def render_worlds(report: Report) -> list[str]:
    if not report.worlds:
        return []
    out = ["", f"5. Worlds: a new world per job (ms: medians of {options_worlds(report)} new worlds; KiB: tracemalloc)",
           f"{'service':<14} {'create':>7} {'1st ctl':>7} {'1st api':>7} {'later':>7} {'1st sock':>8} "
           f"{'KiB/empty':>9} {'KiB/busy':>9} {'KiB left':>8} {'MB r1':>7} {'MB r2':>7}"]
    for row in report.worlds:
        peaks = row.get("round_peaks_mb") or [float("nan"), float("nan")]
        out.append(f"{row['service']:<14} {row['create_ms']:>7.2f} {row['first_control_ms']:>7.2f} "
                   f"{row['first_api_ms']:>7.2f} {row['later_ms']:>7.2f} {row['socket_first_ms']:>8.2f} "
                   f"{row['kib_per_empty_world']:>9.1f} {row['kib_per_busy_world']:>9.1f} "
                   f"{row['kib_left_after_delete']:>8.1f} {peaks[0]:>7.1f} {peaks[-1]:>7.1f}")
    return out


def options_worlds(report: Report) -> int:
    return int(report.config.get("worlds", 0))


def new_fake(service: str, settings: dict[str, Any]) -> Fake:
    fake: Fake = load_fake_class(service)(seed=0, max_worlds=0, **settings)
    method, path = fake.sample_request()  # the default world's app, shared data and caches exist
    fake.client().request(method, path, headers=fake.auth_headers())
    return fake


class Caller:
    """Requests straight into the ASGI app (no httpx.Client: its URL and cookie caches would
    show up in the memory figures)."""

    def __init__(self, fake: Fake) -> None:
        self.transport = SyncFakeTransport(fake.app)

    def __call__(self, method: str, path: str, headers: dict[str, str] | None = None) -> int:
        request = httpx.Request(method, "http://testserver" + path, headers=headers or {})
        response = self.transport.handle_request(request)
        response.read()
        return response.status_code


def api_call(fake: Fake, call: Caller, world_id: str) -> int:
    world = fake.world(world_id)
    headers = world.auth_headers()
    method, path = world.sample_request()
    return call(method, f"/_w/{world_id}{path}", headers)


def timed(samples: list[float], action: Callable[[], Any]) -> Any:
    started = time.perf_counter()
    result = action()
    samples.append(time.perf_counter() - started)
    return result


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def measure(service: str, worlds: int = 200, settings: dict[str, Any] | None = None) -> dict[str, Any]:
    settings = dict(settings or {})
    fake = new_fake(service, settings)
    call = Caller(fake)
    create: list[float] = []
    first_control: list[float] = []
    first_api: list[float] = []
    later: list[float] = []
    for i in range(worlds):
        timed(create, lambda i=i: fake.world(f"py-{i}"))
        assert timed(first_control, lambda i=i: call("GET", f"/_w/ctl-{i}/_fake/health")) == 200
        assert timed(first_api, lambda i=i: api_call(fake, call, f"api-{i}")) < 300
        assert timed(later, lambda i=i: api_call(fake, call, f"api-{i}")) < 300

    socket_first: list[float] = []
    with fake.serve() as base_url, httpx.Client(base_url=base_url, trust_env=False, timeout=60) as http:
        http.get("/_fake/health")  # the connection is open: only the world's cost is timed
        for i in range(min(worlds, 100)):
            response = timed(socket_first, lambda i=i: http.get(f"/_w/net-{i}/_fake/health"))
            assert response.status_code == 200, response.text

    return {"service": service, "create_ms": median_ms(create), "first_control_ms": median_ms(first_control),
            "first_api_ms": median_ms(first_api), "later_ms": median_ms(later),
            "socket_first_ms": median_ms(socket_first), **measure_memory(service, worlds, settings)}


def measure_memory(service: str, worlds: int, settings: dict[str, Any]) -> dict[str, Any]:
    fake = new_fake(service, settings)
    call = Caller(fake)
    call("GET", "/_w/warm/_fake/health")  # first-world costs (lazy imports, shared caches) out of the figures
    api_call(fake, call, "warm")
    if fake.worlds is None:
        raise RuntimeError(f"{service} has no worlds")
    fake.worlds.clear()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(worlds):
            call("GET", f"/_w/m-{i}/_fake/health")
        gc.collect()
        empty = tracemalloc.get_traced_memory()[0] - before
        for i in range(worlds):
            api_call(fake, call, f"m-{i}")
        gc.collect()
        busy = tracemalloc.get_traced_memory()[0] - before
        fake.worlds.clear()
        gc.collect()
        left = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    return {"kib_per_empty_world": empty / worlds / 1024, "kib_per_busy_world": busy / worlds / 1024,
            "kib_left_after_delete": left / 1024}


# -- rounds of worlds in a new process: is what deleted worlds free reused? --------------------------
def rounds_in_child(service: str, worlds: int, settings: dict[str, Any], rounds: int = 2) -> dict[str, Any]:
    spec = {"service": service, "worlds": worlds, "settings": settings, "rounds": rounds}
    done = subprocess.run([sys.executable, "-m", "scenarios.bench", "_world_rounds", json.dumps(spec)],
                          capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip()[-600:])
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def world_rounds(service: str, worlds: int, settings: dict[str, Any], rounds: int = 2) -> dict[str, Any]:
    """In this process: ``rounds`` times, ``worlds`` worlds made (a control call and an API call
    each) then deleted; the peak resident memory (VmHWM, MB) after each round."""
    fake = new_fake(service, settings)
    call = Caller(fake)
    call("GET", "/_w/warm/_fake/health")
    api_call(fake, call, "warm")
    assert fake.worlds is not None
    fake.worlds.clear()
    gc.collect()
    peaks, after_delete = [], []
    for round_index in range(rounds):
        for i in range(worlds):
            assert call("GET", f"/_w/r{round_index}-{i}/_fake/health") == 200
            api_call(fake, call, f"r{round_index}-{i}")
        fake.worlds.clear()
        gc.collect()
        status = proc_status_kb()
        peaks.append(round(status.get("VmHWM", 0) / 1024, 1))
        after_delete.append(round(status.get("VmRSS", 0) / 1024, 1))
    return {"round_peaks_mb": peaks, "round_rss_after_delete_mb": after_delete}


def child_world_rounds(spec: dict[str, Any]) -> int:
    figures = world_rounds(spec["service"], int(spec["worlds"]), spec["settings"], int(spec["rounds"]))
    print(json.dumps(figures))
    return 0
