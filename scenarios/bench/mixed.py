"""Part 7, mixed traffic: each service's realistic mix against its sample request, over HTTP.

Each service's ``Fake.bench_mix()`` (``fakes/kernel/benchops.py``: its reads, its sample request,
and client errors of every common kind - wrong key, unknown id, bad parameter) is served by one
fake (a child process, as in part 1) and replayed in a loop on ``--mix-connections`` keep-alive
connections (50), in runs alternating with the sample request alone on as many connections. The
figure is **mixed req/s / sample req/s** (target >= 0.7): traffic that is not the one request the
fake was tuned on must not fall far behind it. Before the load every request of the mix is sent
once and its status kept: the report gives the mix's size and how many of its requests answer
2xx and 4xx (a 5xx, or a status the operation does not expect, is listed as a problem).
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from .load import MixRequest, measured_load, run_load
from .report import Options, Report
from .servers import Server
from .subjects import service_targets

TARGET_MIX_RATIO = 0.7  # a service's realistic mix >= 0.7 x its sample request's rate
MIX_CONNECTIONS = 50


def bench_mixed(options: Options, report: Report) -> None:
    config = options.load
    connections = options.mix_connections
    print(f"\n[mixed] each service's realistic mix against its sample request, {connections} connections, "
          f"best of {config.rounds} alternating runs of {config.duration:g} s", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        for index, target in service_targets(options.targets, report.skip, "mixed"):
            try:
                row = _mixed_row(target, options, str(Path(tmp) / f"{index}"))
            except Exception as exc:
                report.skip("mixed", target, f"{type(exc).__name__}: {exc}")
                continue
            report.mixed.append(row)
            report.target(f"mixed {row['service']} / its sample request", row["ratio"], TARGET_MIX_RATIO,
                          higher_is_better=True, unit="x")


def _mixed_row(target: str, options: Options, base: str) -> dict[str, Any]:
    import httpx

    config = options.load.with_connections(options.mix_connections)
    with Server({"kind": "fake", "target": target, "settings": options.settings, "body_file": base + ".body",
                 "mix_file": base + ".mix"}) as server:
        info = server.info
        mix = [MixRequest(**item) for item in json.loads(Path(base + ".mix").read_text())]
        if not mix:
            raise RuntimeError("the service's bench_mix() is empty")
        statuses: dict[str, int] = {}
        problems: list[str] = []
        with httpx.Client(base_url=server.url, timeout=60) as client:
            for request in mix:
                answer = client.request(request.method, request.path, headers=request.headers,
                                        content=request.body or None)
                statuses[request.name] = answer.status_code
                if answer.status_code >= 500 or answer.status_code not in request.expect:
                    problems.append(f"{request.name}: {request.method} {request.path} answered {answer.status_code}")
        kinds = [status // 100 for status in statuses.values()]
        row: dict[str, Any] = {
            "service": info["service"], "sample": f"{info['method']} {info['path']}", "requests": len(mix),
            "distinct": len(statuses), "answers_2xx": sum(1 for r in mix if statuses[r.name] // 100 == 2),
            "answers_4xx": sum(1 for r in mix if statuses[r.name] // 100 == 4), "problems": problems,
            "kinds": {f"{k}xx": kinds.count(k) for k in sorted(set(kinds))},
        }
        print(f"  {row['service']}: {len(mix)} requests in the loop ({row['answers_2xx']} 2xx, "
              f"{row['answers_4xx']} 4xx){' - ' + str(len(problems)) + ' unexpected' if problems else ''}",
              file=sys.stderr)
        url = server.url + info["path"]
        run_load(config, url, info["method"], info["headers"], config.warmup)
        run_load(config, server.url, "GET", {}, config.warmup, mix)
        runs: dict[str, list[dict[str, Any]]] = {"sample": [], "mixed": []}
        for round_index in range(config.rounds):
            order = ("sample", "mixed") if round_index % 2 == 0 else ("mixed", "sample")
            for name in order:
                if name == "sample":
                    runs[name].append(measured_load(config, url, info["method"], info["headers"], config.duration,
                                                    server.proc.pid))
                else:
                    runs[name].append(measured_load(config, server.url, "GET", {}, config.duration,
                                                    server.proc.pid, mix))
        for name, found in runs.items():
            best = max(found, key=lambda r: r["rps"])
            row[name] = {**best, "rounds_rps": [r["rps"] for r in found]}
            cpu = [r["server_cpu_us"] for r in found if r.get("server_cpu_us")]
            row[name]["server_cpu_us"] = statistics.median(cpu) if cpu else None
        row["rss_kb"] = server.memory().get("VmRSS")
    row["ratio"] = row["mixed"]["rps"] / row["sample"]["rps"] if row["sample"]["rps"] else 0.0
    pairs = [m["rps"] / s["rps"] for m, s in zip(runs["mixed"], runs["sample"], strict=True) if s["rps"]]
    row["ratio_median_of_rounds"] = statistics.median(pairs) if pairs else 0.0
    sample_cpu, mixed_cpu = row["sample"]["server_cpu_us"], row["mixed"]["server_cpu_us"]
    row["cpu_ratio"] = sample_cpu / mixed_cpu if sample_cpu and mixed_cpu else None
    return row


def render_mixed(report: Report) -> list[str]:
    if not report.mixed:
        return []
    out = ["", f"7. Mixed traffic - each service's realistic mix (its reads, its sample request, wrong keys, unknown "
           f"ids, bad parameters) against its sample request alone, {report.config.get('mix_connections')} "
           f"connections each (target mixed / sample >= {TARGET_MIX_RATIO:g})",
           f"{'service':<14} {'mix':>5} {'2xx':>4} {'4xx':>4} | {'sample req/s':>12} {'p99':>6} | "
           f"{'mixed req/s':>11} {'p50':>6} {'p99':>6} | {'ratio':>5} {'pairs':>5}      | "
           f"{'CPU us sample':>13} {'mixed':>6} {'ratio':>5}"]
    for row in report.mixed:
        sample, mixed = row["sample"], row["mixed"]
        mark = "pass" if row["ratio"] >= TARGET_MIX_RATIO else "MISS"
        out.append(f"{row['service']:<14} {row['requests']:>5} {row['answers_2xx']:>4} {row['answers_4xx']:>4} | "
                   f"{sample['rps']:>12.0f} {sample['p99_ms']:>6.2f} | {mixed['rps']:>11.0f} {mixed['p50_ms']:>6.2f} "
                   f"{mixed['p99_ms']:>6.2f} | {row['ratio']:>5.2f} {row['ratio_median_of_rounds']:>5.2f} {mark} | "
                   f"{_cpu(sample):>13} {_cpu(mixed):>6} {_cpu_ratio(row):>5}")
        for problem in row["problems"][:5]:
            out.append(f"    unexpected: {problem}")
    out.append("(CPU us: the server's CPU time per request, median of the rounds; its ratio sample / mixed is the "
               "mix's speed on a fully busy core, the time the server waited left out)")
    return out


def _cpu(figures: dict[str, Any]) -> str:
    return "-" if figures.get("server_cpu_us") is None else f"{figures['server_cpu_us']:.0f}"


def _cpu_ratio(row: dict[str, Any]) -> str:
    return "-" if row.get("cpu_ratio") is None else f"{row['cpu_ratio']:.2f}"
