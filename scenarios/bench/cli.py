"""Benchmark of the fakes: command line, the parts in order, and the child-process entry points."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from .density import bench_density, child_density
from .fleet import bench_fleet
from .http_part import bench_http
from .inprocess import bench_inprocess, child_cold
from .instructions import bench_instructions
from .load import QUIET_WAIT_S, LoadConfig, child_load, choose_generator
from .measure import loadavg, machine_info
from .mixed import MIX_CONNECTIONS, bench_mixed
from .operations import bench_operations
from .render import render
from .report import BENCH_SETTINGS, DEFAULT_PARTS, PARTS, QUICK_SETTINGS, Options, Report
from .scale import bench_scale, child_journal, child_pages
from .servers import child_serve
from .startup import bench_startup
from .subjects import KERNEL
from .worlds import bench_worlds, child_world_rounds


def refuse(message: str) -> NoReturn:
    """A bad flag: one line on stderr, exit status 2 (as argparse does for its own errors)."""
    print(f"bench: {message}", file=sys.stderr)
    raise SystemExit(2)


def build_parser(prog: str = "python -m scenarios bench") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="short runs and small data (filings.scale=small, 1,000-message inbox, 20,000 journal "
                             "requests): a smoke test, not a measurement")
    parser.add_argument("--parts", default=",".join(DEFAULT_PARTS),
                        help=f"comma-separated subset of {','.join(PARTS)} (default {','.join(DEFAULT_PARTS)}; "
                             "peers adds WireMock, Prism and mountebank to the HTTP part when installed)")
    parser.add_argument("--only", default=None, help="comma-separated services (default: every registered one)")
    parser.add_argument("--fake", action="append", default=[], metavar="MODULE:CLASS",
                        help="benchmark an extra Fake subclass too (e.g. examples.notes:NotesFake)")
    parser.add_argument("--no-kernel", action="store_true", help="leave out the kernel-only fake row")
    parser.add_argument("--set", dest="settings", action="append", default=[], metavar="SERVICE.KEY=VALUE",
                        help="service setting (default: filings.scale=full; small with --quick)")
    parser.add_argument("--duration", type=float, default=None, help="seconds of load per HTTP run (default 5)")
    parser.add_argument("--warmup", type=float, default=None, help="seconds of unmeasured load before each run (1)")
    parser.add_argument("--connections", type=int, default=None, help="concurrent connections (default 32)")
    parser.add_argument("--rounds", type=int, default=None,
                        help="alternating bare/fake runs per service; the best of each counts (default 3)")
    parser.add_argument("--quiet-wait", type=float, default=None, metavar="SECONDS",
                        help="before each measured HTTP run, wait up to this long for idle cores (default 8; 0 "
                             "with --quick): what the last run's server still does must not slow the next")
    parser.add_argument("--threads", type=int, default=1, help="wrk threads (default 1: the server gets a core)")
    parser.add_argument("--generator", choices=("auto", "wrk", "python"), default="auto",
                        help="load generator (default: wrk when on PATH, else python)")
    parser.add_argument("--inproc-seconds", type=float, default=None, help="seconds per in-process client rate (2)")
    parser.add_argument("--fresh-runs", type=int, default=None, help="fresh fakes to time (default 50)")
    parser.add_argument("--journal-requests", type=int, default=None, help="requests through the journal (1,000,000)")
    parser.add_argument("--inbox-messages", type=int, default=None, help="messages in the big inbox (100,000)")
    parser.add_argument("--page-repeats", type=int, default=None, help="timings of each filings page (default 20)")
    parser.add_argument("--random-pages", type=int, default=None,
                        help="random filings pages to time once each (default 200)")
    parser.add_argument("--cycles", type=int, default=None,
                        help="serve cycles (start, first answer, stop) per service in the start-up part (default 50)")
    parser.add_argument("--worlds", type=int, default=None,
                        help="new worlds to time per service in the worlds part (default 200)")
    parser.add_argument("--op-repeats", type=int, default=None,
                        help="timed calls of each public operation in the operations part (default 200)")
    parser.add_argument("--mix-connections", type=int, default=MIX_CONNECTIONS,
                        help=f"keep-alive connections per service in the mixed part (default {MIX_CONNECTIONS})")
    parser.add_argument("--fleet-replicas", type=int, default=3,
                        help="the fleet part measures HAProxy over 1 .. this many replicas (default 3)")
    parser.add_argument("--fleet-worlds", type=int, default=None,
                        help="worlds the fleet part's load spreads over (default 300)")
    parser.add_argument("--instr-requests", type=int, default=None,
                        help="requests counted per server in the instructions part (default 300; 50 with --quick)")
    parser.add_argument("--instr-warmup", type=int, default=None,
                        help="uncounted requests before the count in the instructions part (default 1,200, past "
                             "the journal's 1,000 entries, or more where a service's request costs more once "
                             "what it keeps is full: the relay's 21,000)")
    parser.add_argument("--instr-caches", action="store_true",
                        help="the instructions part also simulates the caches (32 KiB first level, a 512 KiB last "
                             "level: about one core's L2) and reports the misses of that level per request "
                             "(slower, about 1.5 x)")
    parser.add_argument("--instr-mix", action="store_true",
                        help="the instructions part also counts each fake serving its realistic mix (the "
                             "mixed part's requests in turn): the sample's and the mix's instructions per request, "
                             "the steady figure behind the mixed part's req/s ratio")
    parser.add_argument("--instr-dumps", default=None, metavar="DIR",
                        help="the instructions part keeps each server's callgrind dump in DIR "
                             "(SERVICE-bare|fake|jb0.callgrind, SERVICE-mix.callgrind with --instr-mix) "
                             "for callgrind_annotate")
    parser.add_argument("--density-worlds", type=int, default=None,
                        help="touched worlds per service one `fakes serve` holds in the density part (default "
                             "10,000; 100 with --quick)")
    parser.add_argument("--against", default=None, metavar="CHECKOUT",
                        help="another checkout of this project (e.g. `git worktree add /tmp/base main`): the HTTP "
                             "part also serves each fake from it, in runs alternating with this one's and bare "
                             "Starlette's, and reports this / that (an A/B of two revisions on one machine)")
    parser.add_argument("--json", dest="json_path", default=None, metavar="PATH", help="also save the figures as JSON")
    return parser


def parse_options(argv: Sequence[str], prog: str = "python -m scenarios bench") -> tuple[Options, str | None]:
    args = build_parser(prog).parse_args(argv)
    quick = args.quick

    def pick(value: Any, normal: Any, fast: Any) -> Any:
        return value if value is not None else (fast if quick else normal)

    from fakes import registry

    names = registry.service_names()
    if args.only:
        chosen = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in chosen if n not in names and n != KERNEL]
        if unknown:
            refuse(f"unknown service(s) {', '.join(unknown)}; known: {', '.join(names)}")
        names = [n for n in names if n in chosen]
    targets = ([] if args.no_kernel else [KERNEL]) + names + list(args.fake)
    settings = {service: dict(values) for service, values in (QUICK_SETTINGS if quick else BENCH_SETTINGS).items()}
    for item in args.settings:
        key, sep, value = item.partition("=")
        service, dot, name = key.partition(".")
        if not sep or not dot:
            refuse(f"--set takes SERVICE.KEY=VALUE, got {item!r}")
        settings.setdefault(service, {})[name] = value
    against = None
    if args.against is not None:
        against = str(Path(args.against).resolve())
        if not (Path(against) / "fakes" / "kernel").is_dir() or not (Path(against) / "scenarios" / "bench").is_dir():
            refuse(f"--against {args.against!r} is not a checkout of this project "
                             "(no fakes/kernel and scenarios/bench in it)")
    if args.quiet_wait is not None and not args.quiet_wait >= 0:
        refuse(f"--quiet-wait takes seconds >= 0, got {args.quiet_wait:g}")
    parts = {p.strip() for p in args.parts.split(",") if p.strip()}
    if parts - set(PARTS):
        refuse(f"unknown part(s) {', '.join(sorted(parts - set(PARTS)))}; known: {', '.join(PARTS)}")
    load = LoadConfig(
        generator=choose_generator(args.generator) if parts & {"http", "peers", "mixed"} else args.generator,
        duration=pick(args.duration, 5.0, 1.0), warmup=pick(args.warmup, 1.0, 0.3),
        connections=pick(args.connections, 32, 8), threads=max(1, args.threads),
        rounds=max(1, pick(args.rounds, 3, 1)), quiet_wait=pick(args.quiet_wait, QUIET_WAIT_S, 0.0),
    )
    options = Options(
        targets=targets, settings=settings, load=load, parts=parts,
        inproc_seconds=pick(args.inproc_seconds, 2.0, 0.2), fresh_runs=pick(args.fresh_runs, 50, 5),
        journal_requests=pick(args.journal_requests, 1_000_000, 20_000), journal_size=1000,
        inbox_messages=pick(args.inbox_messages, 100_000, 1_000), page_repeats=pick(args.page_repeats, 20, 3),
        random_pages=pick(args.random_pages, 200, 10), cycles=pick(args.cycles, 50, 5),
        worlds=pick(args.worlds, 200, 10), op_repeats=pick(args.op_repeats, 200, 10),
        quick=quick, against=against, fleet_replicas=max(1, args.fleet_replicas),
        fleet_worlds=pick(args.fleet_worlds, 300, 30), density_worlds=max(1, pick(args.density_worlds, 10_000, 100)),
        mix_connections=max(1, args.mix_connections),
        instr_requests=max(1, pick(args.instr_requests, 300, 50)),
        instr_warmup=None if args.instr_warmup is None else max(0, args.instr_warmup),
        instr_caches=args.instr_caches, instr_dumps=args.instr_dumps, instr_mix=args.instr_mix,
    )
    return options, args.json_path


def run(options: Options) -> Report:
    report = Report(machine=machine_info(), config={
        "quick": options.quick, "parts": sorted(options.parts), "services": options.targets,
        "settings": options.settings, "load": options.load.describe(), "generator": options.load.generator,
        "duration_s": options.load.duration, "warmup_s": options.load.warmup, "rounds": options.load.rounds,
        "connections": options.load.connections, "wrk_threads": options.load.threads,
        "inproc_seconds": options.inproc_seconds, "fresh_runs": options.fresh_runs,
        "journal_requests": options.journal_requests, "journal_size": options.journal_size,
        "inbox_messages": options.inbox_messages, "page_repeats": options.page_repeats,
        "random_pages": options.random_pages, "cycles": options.cycles, "worlds": options.worlds,
        "op_repeats": options.op_repeats, "fleet_replicas": options.fleet_replicas,
        "against": options.against, "density_worlds": options.density_worlds,
        "mix_connections": options.mix_connections, "instr_requests": options.instr_requests,
        "instr_warmup": options.instr_warmup, "instr_caches": options.instr_caches, "instr_mix": options.instr_mix,
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    })
    if options.parts & {"http", "peers"}:
        print(f"load generator: {options.load.generator_label()}", file=sys.stderr)
        bench_http(options, report)
    if "inprocess" in options.parts:
        bench_inprocess(options, report)
    if "scale" in options.parts:
        bench_scale(options, report)
    if "startup" in options.parts:
        bench_startup(options, report)
    if "worlds" in options.parts:
        bench_worlds(options, report)
    if "operations" in options.parts:
        bench_operations(options, report)
    if "mixed" in options.parts:
        bench_mixed(options, report)
    if "fleet" in options.parts:
        bench_fleet(options, report)
    if "density" in options.parts:
        bench_density(options, report)
    if "instructions" in options.parts:
        bench_instructions(options, report)
    return report


CHILDREN: dict[str, Callable[[dict[str, Any]], int]] = {
    "_serve": child_serve, "_load": child_load, "_journal": child_journal, "_cold": child_cold,
    "_pages": child_pages, "_world_rounds": child_world_rounds,
    "_density": child_density,
}


def main(argv: Sequence[str] | None = None, prog: str = "python -m scenarios bench") -> int:
    """``prog``: the command the user typed (`fakes bench` once installed), for usage and errors."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--"]:  # `python -m scenarios bench -- --quick` (argparse REMAINDER needs the --)
        argv = argv[1:]
    if argv and argv[0] in CHILDREN:  # internal: the benchmark's own child processes
        return CHILDREN[argv[0]](json.loads(argv[1]))
    options, json_path = parse_options(argv, prog)
    started = time.perf_counter()
    report = run(options)
    report.config["wall_s"] = round(time.perf_counter() - started, 1)
    report.machine["loadavg_at_end"] = loadavg()
    print(render(report))
    if json_path:
        Path(json_path).write_text(json.dumps(report.to_dict(), indent=2, default=str) + "\n")
        print(f"\nfigures saved to {json_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

