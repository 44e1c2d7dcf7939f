"""Part 1, over HTTP: each fake against bare Starlette serving its sample request's exact bytes."""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from .load import run_load
from .report import TARGET_HTTP_RATIO, Options, Report
from .servers import FRAMEWORK_HEADERS, Server
from .subjects import KERNEL, importable


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


