"""The fleet part: requests per second through HAProxy with 1, 2, 3 ... replicas, and the latency
the balancer adds (docs/fleet.md, docs/benchmark.md).

Runs from a checkout (it uses docker/fleet/fleet.py and its HAProxy configuration) with haproxy
and wrk installed. N replicas of member-export (`fakes serve --gateway`, each on its own loopback
address, each with its state directory) start once; one HAProxy per fleet size k = 1..N routes
over the first k of them. Each balancer gets the same worlds (made through it: a member each), and
wrk spreads its requests over all of them (one token per world, so each is a real API call in its
world). The runs alternate between the sizes round after round, and a run straight to one replica
(no balancer) is the per-core reference, so a busy machine slows all alike. Latency: one
connection at a time, straight to a replica and through the balancer.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median
from types import ModuleType
from typing import Any

import httpx

from .load import WRK_SCRIPT
from .measure import loadavg
from .report import Options, Report

SERVICE = "member-export"
API_PATH = "/rest/memberChangeLogs?q=memberAndApplication"

LUA_REQUESTS = """
local worlds = {%(worlds)s}
local n = 0
request = function()
  n = n + 1
  local world = worlds[(n %% #worlds) + 1]
  return wrk.format("GET", "%(base)s/_w/" .. world[1] .. "%(path)s",
    {["Authorization"] = "Bearer " .. world[2], ["Service-Version"] = "202312"})
end
"""


def fleet_script() -> ModuleType | None:
    """docker/fleet/fleet.py of the checkout this package runs from (None when installed)."""
    path = Path(__file__).resolve().parents[2] / "docker" / "fleet" / "fleet.py"
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location("fakes_fleet_bench", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def bench_fleet(options: Options, report: Report) -> None:
    script = fleet_script()
    missing = [tool for tool in ("haproxy", "wrk") if shutil.which(tool) is None]
    if script is None or missing or shutil.which("fakes") is None:
        why = (f"{', '.join(missing)} not installed" if missing else
               "needs a checkout (docker/fleet/fleet.py)" if script is None else "the fakes command is not on PATH")
        report.skip("fleet", "all", why)
        return
    sizes = list(range(1, options.fleet_replicas + 1))
    net = f"127.{random.randint(100, 250)}.{random.randint(1, 250)}."
    port = random.randint(20_000, 30_000)
    run_dir = Path(tempfile.mkdtemp(prefix="fakes-fleet-bench-"))
    procs: list[subprocess.Popen[bytes]] = []
    result: dict[str, Any] = {"cores": os.cpu_count(), "worlds": options.fleet_worlds, "loadavg_before": loadavg()}
    try:
        for i in sizes:
            state = run_dir / f"state-{i}"
            state.mkdir()
            procs.append(_start([shutil.which("fakes") or "fakes", "serve", "--only", SERVICE, "--host", f"{net}{i}",
                                 "--gateway", str(port), "--clock", "manual", "--state", str(state),
                                 "--save-state", str(state), "--log-level", "error"], run_dir / f"replica-{i}.log"))
        for i in sizes:
            _wait(f"http://{net}{i}:{port}/_fake/health", procs)
        replica_pids = [proc.pid for proc in procs]
        balancers, balancer_pids = {}, {}
        for k in sizes:
            config = run_dir / f"haproxy-{k}.cfg"
            config.write_text(script.haproxy_config(k))
            bind = f"{net}{100 + k}"
            env = {**os.environ, "FLEET_BIND": bind, "FLEET_GATEWAY_PORT": str(port),
                   "FLEET_SERVICE_PORTS": f"{port + 1}-{port + 5}", "FLEET_CHECK_PORT": str(port),
                   "FLEET_NAME": f"bench{os.getpid()}k{k}",
                   **{f"FLEET_REPLICA_{i}": f"{net}{i}" for i in range(1, k + 1)}}
            procs.append(_start([shutil.which("haproxy") or "haproxy", "-db", "-f", str(config)],
                                run_dir / f"haproxy-{k}.log", env))
            balancers[k] = f"http://{bind}:{port}/{SERVICE}"
            balancer_pids[k] = procs[-1].pid
            _wait(f"http://{bind}:{port}/_fleet/health", procs)
        scripts = {k: _lua(run_dir / f"load-{k}.lua", base, options.fleet_worlds) for k, base in balancers.items()}
        direct = f"http://{net}1:{port}/{SERVICE}"
        scripts[0] = _lua(run_dir / "load-direct.lua", direct, options.fleet_worlds)  # 0: no balancer
        load = options.load
        runs: dict[int, list[dict[str, Any]]] = {k: [] for k in scripts}
        for k in scripts:  # warm-up: every world exists, every connection pool is open
            _wrk(scripts[k], balancers.get(k, direct), load.connections, load.warmup)
        for _ in range(load.rounds):
            for k in [0, *sizes]:
                # CPU seconds each side spent: robust to a busy machine, unlike the rate
                watched = {"replicas": replica_pids[:max(k, 1)], "balancer": [balancer_pids[k]] if k else []}
                before = {side: sum(_cpu_s(pid) for pid in pids) for side, pids in watched.items()}
                run = _wrk(scripts[k], balancers.get(k, direct), load.connections, load.duration)
                for side, pids in watched.items():
                    spent = sum(_cpu_s(pid) for pid in pids) - before[side]
                    run[f"{side}_cpu_us"] = spent * 1e6 / max(1, run["requests"])
                runs[k].append(run)
        latency = {name: [_wrk(scripts[k], balancers.get(k, direct), 1, load.duration) for _ in range(load.rounds)]
                   for name, k in (("direct", 0), ("balancer", 1))}
        result["rows"] = [_row(k, runs[k]) for k in [0, *sizes]]
        result["latency"] = {name: {key: median(r[key] for r in rs) for key in ("p50_ms", "p99_ms", "mean_ms")}
                             for name, rs in latency.items()}
        result["loadavg_after"] = loadavg()
        report.fleet = result
    except (RuntimeError, OSError, httpx.HTTPError) as exc:
        report.skip("fleet", "all", f"failed: {exc}")
    finally:
        for proc in reversed(procs):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(15)
                except subprocess.TimeoutExpired:
                    proc.kill()
        shutil.rmtree(run_dir, ignore_errors=True)


def _start(argv: list[str], log: Path, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    with open(log, "ab") as out:
        return subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)


def _wait(url: str, procs: list[subprocess.Popen[bytes]], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if any(proc.poll() is not None for proc in procs):
            raise RuntimeError(f"a fleet process exited while waiting for {url}")
        try:
            if httpx.get(url, trust_env=False, timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{url} did not answer within {timeout:g} s")
        time.sleep(0.1)


def _lua(path: Path, base: str, worlds: int) -> Path:
    """A wrk script spreading requests over ``worlds`` worlds made through ``base`` (a member each)."""
    pairs = []
    with httpx.Client(trust_env=False, timeout=15) as client:
        for n in range(worlds):
            made = client.post(f"{base}/_w/bench-{n}/_fake/members", json={})
            if made.status_code != 201:
                raise RuntimeError(f"cannot make world bench-{n} through {base}: {made.status_code} {made.text[:200]}")
            pairs.append(f'{{"bench-{n}", "{made.json()["access_token"]}"}}')
    prefix = "/" + base.split("/", 3)[3]
    path.write_text(LUA_REQUESTS % {"worlds": ", ".join(pairs), "base": prefix, "path": API_PATH}
                    + WRK_SCRIPT % {"method": "GET"})
    return path


def _wrk(script: Path, base: str, connections: int, duration: float) -> dict[str, Any]:
    root = base.rsplit("/", 1)[0]
    command = ["wrk", "-t1", f"-c{connections}", f"-d{max(1, round(duration))}s", "--timeout", "10s",
               "-s", str(script), root]
    done = subprocess.run(command, capture_output=True, text=True, timeout=duration + 60)
    for line in done.stdout.splitlines():
        if line.startswith("BENCH_JSON "):
            raw = json.loads(line[len("BENCH_JSON "):])
            seconds = raw["duration_us"] / 1e6 or duration
            return {"requests": raw["requests"], "rps": raw["requests"] / seconds, "p50_ms": raw["p50_us"] / 1000,
                    "p99_ms": raw["p99_us"] / 1000,
                    "mean_ms": raw["mean_us"] / 1000, "non_2xx": raw["errors_status"],
                    "socket_errors": raw["errors_socket"]}
    raise RuntimeError(f"wrk failed: {done.stdout[-300:]} {done.stderr[-300:]}")


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far, from /proc (0 where there is none)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _row(replicas: int, runs: list[dict[str, Any]]) -> dict[str, Any]:
    rates = [r["rps"] for r in runs]
    return {"replicas": replicas, "through": "balancer" if replicas else "direct (one replica, no balancer)",
            "rps_best": max(rates), "rps_median": median(rates), "p99_ms": median(r["p99_ms"] for r in runs),
            "errors": sum(r["non_2xx"] + r["socket_errors"] for r in runs),
            "replica_cpu_us": median(r["replicas_cpu_us"] for r in runs),
            "balancer_cpu_us": median(r["balancer_cpu_us"] for r in runs)}


def render_fleet(report: Report) -> list[str]:
    fleet = report.fleet
    if not fleet:
        return []
    out = ["", f"7. Fleet: HAProxy over k replicas of {SERVICE} on {fleet['cores']} cores, {fleet['worlds']} worlds "
               f"(req/s; load average {fleet['loadavg_before']} before, {fleet['loadavg_after']} after)",
           f"{'replicas':<34} {'best':>7} {'median':>7} {'p99 ms':>7} {'errors':>6} "
           f"{'µs cpu/req: fakes':>18} {'balancer':>8}"]
    for row in fleet["rows"]:
        label = row["through"] if not row["replicas"] else f"{row['replicas']} through the balancer"
        out.append(f"{label:<34} {row['rps_best']:>7.0f} {row['rps_median']:>7.0f} {row['p99_ms']:>7.2f} "
                   f"{row['errors']:>6} {row['replica_cpu_us']:>18.1f} {row['balancer_cpu_us']:>8.1f}")
    direct = fleet["rows"][0]["replica_cpu_us"]
    through = fleet["rows"][1] if len(fleet["rows"]) > 1 else None
    if direct and through:
        per_core = 1e6 / direct
        with_balancer = 1e6 / (through["replica_cpu_us"] + through["balancer_cpu_us"])
        out.append(f"projection from CPU time: one replica serves {per_core:,.0f} req/s per core of its own; with "
                   f"the balancer's share, a host serves {with_balancer:,.0f} req/s per core, all processes counted")
    lat = fleet["latency"]
    added = lat["balancer"]["p50_ms"] - lat["direct"]["p50_ms"]
    out.append(f"latency, one connection: direct p50 {lat['direct']['p50_ms']:.3f} ms / p99 "
               f"{lat['direct']['p99_ms']:.3f} ms; through the balancer p50 {lat['balancer']['p50_ms']:.3f} ms / p99 "
               f"{lat['balancer']['p99_ms']:.3f} ms: the balancer adds {added:.3f} ms at the median")
    return out


if __name__ == "__main__":  # pragma: no cover
    sys.exit("run it as: python -m scenarios bench --parts fleet")
