"""In-process probes behind figures of docs/benchmark.md that no bench part prints.

``python -m scenarios.bench.probes grown SERVICE [--calls N]``: the service's realistic mix
(``Fake.bench_mix``) timed per request through the test client, after its calls (``/call/...``
requests of the mix) were sent N times more: what a view costs once records have piled up.

``python -m scenarios.bench.probes collection``: the CPU time of one full pass of the cyclic
garbage collector with every registered fake built, before and after ``settle_startup_objects``
(what ``fakes serve`` runs before its first request).

``python -m scenarios.bench.probes counted SERVICE [sample|mix|floor|each|NAME]``: instructions per
request of the sample request, the service's mix, or one request of the mix, in process, under
callgrind (:mod:`.loopcount`; needs valgrind); ``floor``: bare Starlette answering the sample;
``each``: every request of the mix counted alone, costliest first.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time

from fakes import registry
from fakes.kernel.server import settle_startup_objects

from . import loopcount
from .instructions import steady_warmup

REPEATS = 3


def grown(service: str, calls: int) -> list[tuple[float, str, str]]:
    """(ms per request, method, path) of the mix, slowest first, after ``calls`` rounds of its calls."""
    fake = registry.fake_class(service)(seed=0)
    fake.sample_request()
    auth = fake.auth_headers()
    requests = [(op.method, op.path, {**auth, **op.headers} if op.auth else dict(op.headers), op.json, op.content)
                for op in fake.bench_mix()]
    with fake.client() as client:
        for _ in range(calls):
            for method, path, headers, body, content in requests:
                if path.startswith("/call/"):
                    client.request(method, path, headers=headers, json=body, content=content)
        spent: dict[tuple[str, str], float] = {}
        for _ in range(REPEATS):
            for method, path, headers, body, content in requests:
                started = time.perf_counter()
                client.request(method, path, headers=headers, json=body, content=content)
                spent[(method, path)] = spent.get((method, path), 0.0) + time.perf_counter() - started
    return sorted(((seconds / REPEATS * 1000, method, path) for (method, path), seconds in spent.items()),
                  reverse=True)


def collection() -> tuple[float, float, int]:
    """CPU ms of a full collection with every fake built, before and after settling; objects tracked."""
    gc.unfreeze()  # count every object, whatever this process froze before (a full-scale catalogue does)
    kept = [registry.fake_class(name)(seed=0) for name in registry.service_names()]
    for fake in kept:
        fake.client().get("/_fake/health")
    gc.collect()
    tracked = len(gc.get_objects())
    started = time.process_time()
    gc.collect()
    before = (time.process_time() - started) * 1000
    settle_startup_objects()
    started = time.process_time()
    gc.collect()
    after = (time.process_time() - started) * 1000
    gc.unfreeze()
    return before, after, tracked


def _counted_each(service: str, repeats: int, warmup: int) -> int:
    try:
        rows = loopcount.counted_each(service, repeats, warmup)
    except RuntimeError as exc:
        print(f"probes: {exc}", file=sys.stderr)
        return 2
    mean = sum(row[0] for row in rows) / len(rows)
    print(f"{service}: {len(rows)} requests of the mix, each counted alone {repeats} times after {warmup:,} of the "
          f"mix; mean {mean:,.0f} instructions per request")
    for instructions, name, request in rows:
        print(f"{instructions:11,.0f}  {name:<48} {request[:90]}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scenarios.bench.probes", description=__doc__.split("\n\n")[0])
    probes = parser.add_subparsers(dest="probe", required=True)
    grown_probe = probes.add_parser("grown", help="the mix's requests after its calls piled up records")
    grown_probe.add_argument("service", choices=registry.service_names())
    grown_probe.add_argument("--calls", type=int, default=1500, help="rounds of the mix's calls first (1500)")
    grown_probe.add_argument("--top", type=int, default=15, help="slowest requests printed (15)")
    probes.add_parser("collection", help="a full garbage collection before and after settling")
    counted_probe = probes.add_parser("counted", help="instructions per request in process (valgrind)")
    counted_probe.add_argument("service", choices=registry.service_names())
    counted_probe.add_argument("which", nargs="?", default="mix",
                               help="sample, mix (default), floor (bare Starlette answering the sample "
                                    "request's bytes, in the same loop), each (every request of the mix "
                                    "counted alone, costliest first) or the name of one request of the mix")
    counted_probe.add_argument("--requests", type=int, default=None,
                               help=f"about this many requests counted (default {loopcount.COUNTED}; with "
                                    f"each: each request this many times, default {loopcount.EACH_REPEATS})")
    counted_probe.add_argument("--warmup", type=int, default=None,
                               help=f"about this many requests sent before counting (default {loopcount.WARMUP:,}, "
                                    "or more where the service's request costs more once what it keeps is full: "
                                    "the relay's 21,000)")
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["_counted_child"]:  # the loop itself, run under valgrind by the counted probe
        return loopcount.child(argv[1], argv[2], int(argv[3]), int(argv[4]))
    args = parser.parse_args(argv)
    if args.probe == "counted":
        if (args.requests is not None and args.requests < 1) or (args.warmup is not None and args.warmup < 0):
            parser.error("--requests must be 1 or more and --warmup 0 or more")
        warmup = steady_warmup(args.service, loopcount.WARMUP) if args.warmup is None else args.warmup
        if args.which == loopcount.EACH:
            return _counted_each(args.service, args.requests or loopcount.EACH_REPEATS, warmup)
        if args.requests is None:
            args.requests = loopcount.COUNTED
        try:
            per_request, requests = loopcount.counted(args.service, args.which, args.requests, warmup)
        except (RuntimeError, ValueError) as exc:
            print(f"probes: {exc}", file=sys.stderr)
            return 2
        print(f"{args.service} {args.which}: {per_request:,.0f} instructions per request ({requests} requests "
              f"after {warmup:,})")
        return 0
    if args.probe == "grown":
        if args.calls < 0:
            parser.error("--calls must be 0 or more")
        for ms, method, path in grown(args.service, args.calls)[:args.top]:
            print(f"{ms:8.2f} ms  {method} {path}")
    else:
        before, after, tracked = collection()
        print(f"full collection: {before:.2f} ms CPU with {tracked} objects tracked; "
              f"after settle_startup_objects: {after:.3f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
