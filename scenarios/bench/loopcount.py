"""Instructions per request of one service's requests in process, counted by valgrind's callgrind.

The requests go to the fake's ASGI app directly (no server, no client): the sample request, the
service's whole realistic mix (``Fake.bench_mix``, as the mixed part replays it), or one request
of the mix by its name; or, for the floor (``floor``), the sample request to the bare Starlette
app that answers its bytes: what the fake's app costs beside Starlette's own, without a server.
After unmeasured rounds (and ``settle_startup_objects``, as ``fakes serve`` runs it), counting is
switched on for about 600 requests. What docs/benchmark.md gives as "in process, instructions per
request" comes from here
(``python -m scenarios.bench.probes counted SERVICE [sample|mix|floor|each|NAME]``; ``each``: every
request of the mix counted alone, costliest first).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from .inprocess import asgi_scope
from .instructions import _totals, valgrind_missing
from .report import BENCH_SETTINGS
from .servers import FRAMEWORK_HEADERS, bare_app, mix_requests
from .subjects import build_fake

COUNTED = 600
WARMUP = 1_500


def loop_requests(fake: Any, which: str) -> list[dict[str, Any]]:
    """The requests of ``which``: "sample", "mix" or the name of one request of the mix."""
    if which == "sample":
        method, path = fake.sample_request()
        return [{"name": "sample", "method": method, "path": path, "headers": dict(fake.auth_headers()), "body": ""}]
    mix = mix_requests(fake)
    chosen = mix if which == "mix" else [request for request in mix if request["name"] == which]
    if not chosen:
        names = ", ".join(sorted({request["name"] for request in mix}))
        raise ValueError(f"no request {which!r} in the mix of {fake.name}; its requests: {names}")
    return chosen


#: ``which`` for the floor: bare Starlette answering the sample request's bytes, in the same loop
FLOOR = "floor"
#: ``which`` for every request of the mix counted alone (after the mix's warm-up), each repeated
#: the requests given (EACH_REPEATS by default)
EACH = "each"
EACH_REPEATS = 100


def floor_app(fake: Any, request: dict[str, Any]) -> Any:
    """The bare Starlette app the HTTP part serves as the floor, answering what the fake answers
    ``request`` once it repeats it (status, body, the service's own headers: its second answer, as
    the HTTP part takes the answer after the served fake's first; enrichment's first lookup is
    paid, its repeats cached), called in process as the fake is."""
    with fake.client() as client:
        for _ in range(2):
            answer = client.request(request["method"], request["path"], headers=request["headers"])
    headers = {name: value for name, value in answer.headers.items() if name.lower() not in FRAMEWORK_HEADERS}
    return bare_app(request["method"], request["path"], answer.content, answer.status_code,
                    answer.headers.get("content-type", ""), headers)


def child(service: str, which: str, requests_counted: int = COUNTED, warmup: int = WARMUP) -> int:
    """Run inside valgrind: the loop, counted between a zero and a dump; prints the requests counted."""
    fake = build_fake(service, BENCH_SETTINGS)
    try:
        requests = loop_requests(fake, {FLOOR: "sample", EACH: "mix"}.get(which, which))
    except ValueError as exc:
        print(f"ERROR {exc}", flush=True)
        return 2
    app = floor_app(fake, requests[0]) if which == FLOOR else fake.app

    async def call(request: dict[str, Any]) -> None:
        messages = [{"type": "http.request", "body": request["body"].encode("latin-1"), "more_body": False}]

        async def receive() -> dict[str, Any]:
            return messages.pop() if messages else {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            pass

        await app(asgi_scope(request["method"], request["path"], request["headers"]), receive, send)

    async def rounds(count: int) -> int:
        for _ in range(count):
            for request in requests:
                await call(request)
        return count * len(requests)

    def control(*command: str) -> None:
        subprocess.run(["callgrind_control", *command, str(os.getpid())], check=True, capture_output=True,
                       timeout=300)

    async def run() -> int:
        from fakes.kernel.server import settle_startup_objects

        await rounds(max(1, warmup // len(requests)))
        settle_startup_objects()
        if which == EACH:  # one dump per request of the mix (a dump zeroes the counts for the next)
            control("--instr=on")
            control("--zero")
            for number, request in enumerate(requests):
                for _ in range(requests_counted):
                    await call(request)
                control("--dump")
                print(f"EACH {number} {request['name']}\t{request['method']} {request['path']}", flush=True)
            return requests_counted
        control("--instr=on")
        control("--zero")
        counted = await rounds(max(1, requests_counted // len(requests)))
        control("--dump")
        return counted

    print(f"COUNTED {asyncio.run(run())}", flush=True)
    return 0


def _under_callgrind(service: str, which: str, requests: int, warmup: int, out: str) -> tuple[list[str], list[Path]]:
    """Run the child loop under callgrind, its dumps in ``out``: (its output lines, the dumps in the
    order they were made); a request the mix does not hold is a ValueError, a failure RuntimeError."""
    why = valgrind_missing()
    if why:
        raise RuntimeError(why)
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}/callgrind.%p",
         sys.executable, "-m", "scenarios.bench.probes", "_counted_child", service, which, str(requests),
         str(warmup)],
        capture_output=True, text=True, timeout=3600)
    lines = done.stdout.splitlines()
    refused = [line[len("ERROR "):] for line in lines if line.startswith("ERROR ")]
    if refused:
        raise ValueError(refused[0])
    dumps = sorted(Path(out).glob("callgrind.*.*"), key=lambda path: int(path.name.rsplit(".", 1)[1]))
    if done.returncode != 0 or not dumps:
        raise RuntimeError(f"the counted loop failed: {done.stderr.strip().splitlines()[-1:]}")
    return lines, dumps


def counted(service: str, which: str, requests: int = COUNTED, warmup: int = WARMUP) -> tuple[float, int]:
    """(instructions per request, requests counted) of ``which`` for ``service``: about
    ``requests`` counted after about ``warmup`` (whole rounds of the requests of ``which``)."""
    with tempfile.TemporaryDirectory() as out:
        lines, dumps = _under_callgrind(service, which, requests, warmup, out)
        sent = [int(line.split()[1]) for line in lines if line.startswith("COUNTED ")]
        if not sent:
            raise RuntimeError("the counted loop printed no count")
        return _totals(dumps[0]) / sent[-1], sent[-1]


def counted_each(service: str, repeats: int = EACH_REPEATS,
                 warmup: int = WARMUP) -> list[tuple[float, str, str]]:
    """(instructions per request, name, "METHOD path") of every request of ``service``'s mix, each
    counted alone ``repeats`` times after ``warmup`` requests of the whole mix; costliest first."""
    with tempfile.TemporaryDirectory() as out:
        lines, dumps = _under_callgrind(service, EACH, repeats, warmup, out)
        named = [line[len("EACH "):].split(" ", 1)[1] for line in lines if line.startswith("EACH ")]
        if len(dumps) != len(named):
            raise RuntimeError(f"the counted loop made {len(dumps)} dumps for {len(named)} requests")
        rows = []
        for label, dump in zip(named, dumps, strict=True):
            name, request = label.split("\t", 1)
            rows.append((_totals(dump) / repeats, name, request))
    return sorted(rows, reverse=True)
