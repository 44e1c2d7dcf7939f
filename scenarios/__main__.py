"""``python -m scenarios list | run NAME --base-url URL [--credentials k=v ...] | bench``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

import httpx

from .runner import discover, is_fake_target, run_scenario


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["bench"]:  # the benchmark parses its own options
        from . import bench as bench_module

        return int(bench_module.main(argv[1:]) or 0)
    parser = argparse.ArgumentParser(prog="python -m scenarios")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the scenarios")
    run = sub.add_parser("run", help="run one scenario (or 'all') against a base URL")
    run.add_argument("name")
    run.add_argument("--base-url", required=True, help="the service's base URL (a fake's or the real one)")
    run.add_argument("--credentials", nargs="*", default=[], metavar="KEY=VALUE",
                     help="credentials for a real service (or @file.json)")
    run.add_argument("--real", action="store_true", help="treat the target as the real service")
    run.add_argument("--json", action="store_true", help="print the report as JSON")
    run.add_argument("--timeout", type=float, default=100.0, help="HTTP timeout in seconds")
    run.add_argument("--service", help="with 'all': the target's service (found by /_fake/health on a fake)")
    sub.add_parser("bench", help="benchmark the fakes: python -m scenarios bench --help")
    args = parser.parse_args(argv)
    scenarios = discover()
    if args.command == "list":
        for name, scenario in scenarios.items():
            print(f"{name:<32} {scenario.service:<15} {scenario.summary}")
        return 0
    if args.name == "all":
        service = args.service or (None if args.real else _fake_service(args.base_url, args.timeout))
        if service is None:
            print("with 'all' against a real service, say which one: --service NAME", file=sys.stderr)
            return 2
        names = [name for name, scenario in scenarios.items() if scenario.service == service]
    else:
        names = [args.name]
    for name in names:
        if name not in scenarios:
            print(f"unknown scenario {name!r}; see `python -m scenarios list`", file=sys.stderr)
            return 2
    credentials = _credentials(args.credentials)
    failed = 0
    for name in names:
        with httpx.Client(base_url=args.base_url, timeout=args.timeout) as client:
            report = run_scenario(scenarios[name], client, is_fake=False if args.real else None,
                                  credentials=credentials)
        print(json.dumps(report.to_dict(), indent=2) if args.json else report.render())
        failed += report.status == "failed"
    return 1 if failed else 0


def _fake_service(base_url: str, timeout: float) -> str | None:
    """The service name a fake reports on /_fake/health (None if the target is no fake)."""
    with httpx.Client(base_url=base_url, timeout=timeout) as client:
        if not is_fake_target(client):
            return None
        return str(client.get("/_fake/health").json()["service"])


def _credentials(items: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for item in items:
        if item.startswith("@"):
            with open(item[1:]) as handle:
                found.update({str(k): str(v) for k, v in json.load(handle).items()})
            continue
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"--credentials takes KEY=VALUE, got {item!r}")
        found[key] = value
    return found


if __name__ == "__main__":
    sys.exit(main())
