"""What conform and record cost, measured: ``python -m fakes.conform.measure`` (docs/conformance.md).

- **record**: the same request, alternately straight to a served fake and through ``fakes record``
  in front of it (each in its own process, keep-alive on both ways), in interleaved rounds; prints
  the median per request of each and the difference, the proxy's cost.
- **conform**: one ``fakes conform`` run of a service (the walk of its own document and its
  scenarios) against a stand-in served by ``fakes serve`` in its own process (``--stand-in``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import httpx


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _fakes() -> list[str]:
    found = shutil.which("fakes", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "fakes"]


def _cpu_s(pid: int) -> float:
    """CPU time (user + system) the process has used so far, in seconds (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def _process(argv: Sequence[str], ready: str, log: Path) -> Iterator[tuple[str, int]]:
    """Start ``argv``; yield the first match of ``ready`` (a regex with one group) in its output,
    and the process id."""
    with log.open("w+") as out:
        proc = subprocess.Popen(list(argv), stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
        try:
            deadline = time.monotonic() + 120
            while True:
                match = re.search(ready, log.read_text())
                if match:
                    break
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"{argv[:3]} did not start:\n{log.read_text()}")
                time.sleep(0.05)
            yield match.group(1), proc.pid
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(10)


def _timed(client: httpx.Client, path: str, headers: dict[str, str], count: int) -> float:
    started = time.perf_counter()
    for _ in range(count):
        client.get(path, headers=headers).raise_for_status()
    return (time.perf_counter() - started) / count


def measure_record(service: str, path: str, rounds: int, per_round: int, work: Path) -> dict[str, float]:
    port = _free_port()
    serve = [*_fakes(), "serve", "--only", service, "--port", str(port), "--clock", "manual"]
    with _process(serve, r"(Ctrl-C to stop)", work / "serve.log"):
        upstream = f"http://127.0.0.1:{port}"
        record = [*_fakes(), "record", service, "--upstream", upstream, "--cassette", str(work / "m.jsonl")]
        with _process(record, rf"recording {service}: (http://\S+) ", work / "record.log") as (proxy, pid):
            from .. import registry

            headers = registry.fake_class(service)(clock="manual").auth_headers() if service == "filings" else {}
            direct, proxied = [], []
            with httpx.Client(base_url=upstream) as straight, httpx.Client(base_url=proxy) as through:
                _timed(straight, path, headers, per_round)
                _timed(through, path, headers, per_round)
                cpu = _cpu_s(pid)
                for _ in range(rounds):
                    direct.append(_timed(straight, path, headers, per_round))
                    proxied.append(_timed(through, path, headers, per_round))
                proxy_cpu_ms = (_cpu_s(pid) - cpu) * 1000 / (rounds * per_round)
    direct_ms, proxied_ms = statistics.median(direct) * 1000, statistics.median(proxied) * 1000
    return {"direct_ms": round(direct_ms, 3), "proxied_ms": round(proxied_ms, 3),
            "added_ms": round(proxied_ms - direct_ms, 3), "proxy_cpu_ms_per_request": round(proxy_cpu_ms, 3),
            "requests": rounds * per_round * 2, "load_average": round(os.getloadavg()[0], 2)}


def measure_conform(service: str, settings: list[str], work: Path) -> dict[str, float]:
    from .runner import ConformOptions, conform

    port = _free_port()
    serve = [*_fakes(), "serve", "--only", service, "--port", str(port), "--clock", "manual",
             *(f"--set={service}.{item}" for item in settings)]
    with _process(serve, r"(Ctrl-C to stop)", work / "standin.log"):
        url = f"http://127.0.0.1:{port}"
        key = httpx.post(f"{url}/_fake/keys", json={"tier": "enterprise", "quota": None}).json()["api_key"] \
            if service == "filings" else ""
        started = time.perf_counter()
        report = conform(ConformOptions(service, url, credentials={"api_key": key} if key else {}, stand_in=True,
                                        settings=dict(item.split("=", 1) for item in settings), max_calls=10_000,
                                        allow_writes=True))
        took = time.perf_counter() - started
    return {"seconds": round(took, 2), "operations": len(report.operations), "same": report.count("same"),
            "differs": report.count("differs"), "real_calls": report.calls}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fakes.conform.measure", description=__doc__)
    parser.add_argument("--rounds", type=int, default=15, help="interleaved rounds (default 15)")
    parser.add_argument("--per-round", type=int, default=100, help="requests per round and way (default 100)")
    parser.add_argument("--path", default="/countries/1/", help="the request (default: GET /countries/1/ of filings)")
    parser.add_argument("--only", choices=("record", "conform"), help="one of the two measures")
    args = parser.parse_args(argv)
    found: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as directory:
        work = Path(directory)
        if args.only in (None, "record"):
            found["record"] = measure_record("filings", args.path, args.rounds, args.per_round, work)
        if args.only in (None, "conform"):
            found["conform"] = measure_conform("filings", ["scale=small"], work)
    print(json.dumps(found, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
