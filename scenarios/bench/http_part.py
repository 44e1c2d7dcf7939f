"""Part 1, over HTTP: each fake against bare Starlette serving its sample request's exact bytes."""

from __future__ import annotations

import contextlib
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from .load import measured_load, run_load
from .peers import Peer, Sample, installed_peers
from .report import TARGET_HTTP_RATIO, TARGET_LEAN_RATIO, TARGET_P99_RATIO, Options, Report
from .servers import FRAMEWORK_HEADERS, Server
from .subjects import KERNEL, importable


def bench_http(options: Options, report: Report) -> None:
    """Serve each fake and its bare twin in turn (and the installed peers with ``peers``); the RSS of
    each of our servers is kept in its row."""
    config = options.load
    with_peers = "peers" in options.parts
    peers: list[tuple[Peer, str]] = []
    if with_peers:
        peers, missing = installed_peers()
        for name, why in missing.items():
            report.skip("peers", name, why)
        print(f"  peers: {', '.join(f'{peer.name} {version}' for peer, version in peers) or 'none installed'}",
              file=sys.stderr)
    print(f"\n[1/6] over HTTP: {config.describe()}", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        for index, target in enumerate(options.targets):
            why = importable(target)
            if why:
                report.skip("http", target, why)
                continue
            try:
                row = _http_row(target, options, str(Path(tmp) / f"{index}.body"), peers, report)
            except Exception as exc:
                report.skip("http", target, f"{type(exc).__name__}: {exc}")
                continue
            report.http.append(row)
            if target != KERNEL:
                report.target(f"HTTP {row['service']} / bare Starlette", row["ratio"], TARGET_HTTP_RATIO,
                              higher_is_better=True, unit="x")
                report.target(f"HTTP {row['service']} --journal-bytes 0 / bare", row["lean_ratio"],
                              TARGET_LEAN_RATIO, higher_is_better=True, unit="x")
                report.target(f"HTTP {row['service']} p99 / bare p99", row["p99_ratio"], TARGET_P99_RATIO,
                              higher_is_better=False, unit="x")


def _http_row(target: str, options: Options, body_file: str, peers: list[tuple[Peer, str]],
              report: Report) -> dict[str, Any]:
    import httpx

    config = options.load
    with Server({"kind": "fake", "target": target, "settings": options.settings,
                 "body_file": body_file}) as fake_server, contextlib.ExitStack() as stack:
        info = fake_server.info
        service = info["service"] if target != KERNEL else KERNEL
        row: dict[str, Any] = {
            "service": service, "request": f"{info['method']} {info['path']}", "status": info["status"],
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
        bare_server = stack.enter_context(Server({
            "kind": "bare", "method": info["method"], "path": info["path"], "status": check.status_code,
            "content_type": check.headers.get("content-type", ""), "body_file": body_file,
            "response_headers": response_headers}))
        print(f"  {row['service']}: {row['request']} ({info['bytes']} bytes)", file=sys.stderr)
        # the same fake keeping no headers and bodies in its journal (`--journal-bytes 0`), in the same rounds
        lean_server = stack.enter_context(Server({"kind": "fake", "target": target, "settings": options.settings,
                                                  "body_file": body_file + ".lean", "journal_bytes": 0}))
        urls = {"bare": bare_server.url + info["path"], "fake": url, "lean": lean_server.url + info["path"]}
        warmups = {"bare": config.warmup, "fake": config.warmup, "lean": config.warmup}
        against_server = None
        if options.against:
            against_server = stack.enter_context(Server({"kind": "fake", "target": target, "settings": options.settings,
                                                         "body_file": body_file + ".against"}, cwd=options.against))
            urls["against"] = against_server.url + against_server.info["path"]
            warmups["against"] = config.warmup
            status, body = _fetch(urls["against"], info["method"], info["headers"])
            row["against"] = {"checkout": options.against, "status": status, "same_bytes": body == check.content}
        row["peers"] = {}
        sample = Sample(info["method"], info["path"], check.status_code,
                        {"content-type": check.headers.get("content-type", ""), **response_headers}, check.content)
        for peer, version in peers:
            try:
                base = stack.enter_context(peer.serve(sample))
                status, body = _fetch(base + info["path"], info["method"], info["headers"])
            except Exception as exc:
                report.skip("peers", f"{peer.name} for {service}", f"{type(exc).__name__}: {exc}")
                continue
            if status != check.status_code:
                report.skip("peers", f"{peer.name} for {service}", f"answered {status}, not {check.status_code}")
                continue
            urls[peer.name] = base + info["path"]
            warmups[peer.name] = config.warmup + peer.warmup_s
            row["peers"][peer.name] = {"version": version, "same_bytes": body == check.content,
                                       "bytes": len(body)}
        for name, server_url in urls.items():
            if warmups[name] > 0:
                run_load(config, server_url, info["method"], info["headers"], warmups[name])
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name in urls}
        names = list(urls)
        ours = {"bare": bare_server, "fake": fake_server, "lean": lean_server}
        if against_server is not None:
            ours["against"] = against_server
        for round_index in range(config.rounds):
            # alternate the order, so that a slow spell of a shared machine hits all alike
            for name in (names if round_index % 2 == 0 else names[::-1]):
                server = ours.get(name)
                runs[name].append(measured_load(config, urls[name], info["method"], info["headers"], config.duration,
                                                server.proc.pid if server else None))
        for name in names:
            best = max(runs[name], key=lambda r: r["rps"])  # noise only ever slows a run down
            figures = {**best, "rounds_rps": [r["rps"] for r in runs[name]],
                       "quiet_waits_s": [r.get("quiet_wait_s", 0.0) for r in runs[name]]}
            cpu = [r["server_cpu_us"] for r in runs[name] if r.get("server_cpu_us")]
            if cpu:
                figures["server_cpu_us"] = statistics.median(cpu)
            if name in ours:
                memory = ours[name].memory()
                row[name] = {**row.get(name, {}), **figures, "rss_kb": memory.get("VmRSS"),
                             "rss_peak_kb": memory.get("VmHWM")}
            else:
                row["peers"][name].update(figures)
        paired = [f["rps"] / b["rps"] for f, b in zip(runs["fake"], runs["bare"], strict=True) if b["rps"]]
        row["ratio_median_of_rounds"] = statistics.median(paired) if paired else 0.0
        paired = [f["rps"] / b["rps"] for f, b in zip(runs["lean"], runs["bare"], strict=True) if b["rps"]]
        row["lean_ratio_median_of_rounds"] = statistics.median(paired) if paired else 0.0
        if "against" in runs:
            against = row["against"]
            against["fake_ratio"] = row["fake"]["rps"] / against["rps"] if against["rps"] else 0.0
            pairs = [f["rps"] / a["rps"] for f, a in zip(runs["fake"], runs["against"], strict=True) if a["rps"]]
            against["fake_ratio_median_of_rounds"] = statistics.median(pairs) if pairs else 0.0
            against["ratio_to_bare"] = against["rps"] / row["bare"]["rps"] if row["bare"]["rps"] else 0.0
    row["ratio"] = row["fake"]["rps"] / row["bare"]["rps"] if row["bare"]["rps"] else 0.0
    row["lean_ratio"] = row["lean"]["rps"] / row["bare"]["rps"] if row["bare"]["rps"] else 0.0
    bare_cpu = row["bare"].get("server_cpu_us")
    for name in ("fake", "lean"):
        cpu = row[name].get("server_cpu_us")
        row[name]["cpu_ratio"] = bare_cpu / cpu if bare_cpu and cpu else None
    row["p99_ratio"] = row["fake"]["p99_ms"] / row["bare"]["p99_ms"] if row["bare"]["p99_ms"] else 0.0
    for figures in row["peers"].values():
        figures["fake_ratio"] = row["fake"]["rps"] / figures["rps"] if figures.get("rps") else 0.0
    row["rss_kb"] = row["fake"]["rss_kb"]
    return row


def _fetch(url: str, method: str, headers: dict[str, str]) -> tuple[int, bytes]:
    import httpx

    answer = httpx.request(method, url, headers=headers, timeout=30)
    return answer.status_code, answer.content
