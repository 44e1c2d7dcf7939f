"""``fakes scenarios list | run NAME --base-url URL [--credentials k=v ...]`` (``python -m scenarios``
in a checkout; ``bench`` is ``fakes bench``, also reachable as ``python -m scenarios bench``).

Against a fake, each scenario runs in a fresh world of its own (``<base URL>/_w/<id>``: its own
state and clock), deleted afterwards, so a shared server's other users see nothing of it;
``--world ID`` runs in (and keeps) a named world, ``--no-world`` in the world the base URL points
to (the scenario then creates its own member or key there, and moves that world's clock).

The target is a fake unless the user says ``--real``: a URL that cannot be reached, or that
answers but is no fake, is one line on stderr and exit status 2, never a run "against the real
service". A run in which every scenario skipped exits 1 unless ``--allow-skips``.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import socket
import sys
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx

from .runner import Report, discover, is_fake_target, run_scenario


class UsageError(Exception):
    """A bad option or an unusable target: one line on stderr, exit status 2."""


#: how the user called us: `fakes scenarios` (installed) or `python -m scenarios` (a checkout)
DEFAULT_PROG = "python -m scenarios"


def build_parser(prog: str = DEFAULT_PROG) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the scenarios")
    run = sub.add_parser("run", help="run one scenario (or 'all') against a base URL")
    run.add_argument("name")
    run.add_argument("--base-url", required=True, help="the service's base URL (a fake's or the real one)")
    run.add_argument("--credentials", nargs="*", default=[], metavar="KEY=VALUE",
                     help="credentials for a real service (or @file.json)")
    run.add_argument("--real", action="store_true",
                     help="the target is the real service (never guessed: without it the target must be a fake)")
    run.add_argument("--allow-skips", action="store_true",
                     help="exit 0 when every scenario skipped (by default a run that ran nothing fails)")
    run.add_argument("--json", action="store_true",
                     help="print JSON: one run's report, or for 'all' one document with every report")
    run.add_argument("--timeout", type=float, default=100.0, help="HTTP timeout in seconds")
    run.add_argument("--service", help="with 'all': the target's service (found by /_fake/health on a fake)")
    run.add_argument("--control-token", default=os.environ.get("FAKES_CONTROL_TOKEN") or None, metavar="TOKEN",
                     help="the control token of a fake started with --control-token (default: $FAKES_CONTROL_TOKEN)")
    where = run.add_mutually_exclusive_group()
    where.add_argument("--world", metavar="ID",
                       help="run in this world of the fake (created on first use, kept afterwards)")
    where.add_argument("--no-world", action="store_true",
                       help="run in the world the base URL points to instead of a fresh one")
    sub.add_parser("bench", help=f"benchmark the fakes: {prog} bench --help (also `fakes bench`)")
    return parser


def main(argv: Sequence[str] | None = None, prog: str = DEFAULT_PROG) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["bench"]:  # the benchmark parses its own options
        from . import bench as bench_module

        return int(bench_module.main(argv[1:], prog=f"{prog} bench") or 0)
    args = build_parser(prog).parse_args(argv)
    args.prog = prog
    try:
        if args.command == "list":
            for name, scenario in discover().items():
                print(f"{name:<32} {scenario.service:<15} {scenario.summary}")
            sys.stdout.flush()
            return 0
        return cmd_run(args)
    except UsageError as exc:
        print(f"scenarios: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `fakes scenarios list | head`: the reader left, not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def cmd_run(args: argparse.Namespace) -> int:
    scenarios = discover()
    if args.name != "all" and args.name not in scenarios:
        raise UsageError(f"unknown scenario {args.name!r}; see `{args.prog} list`")
    token = args.control_token
    if args.name == "all" and args.real and not args.service:
        raise UsageError("with 'all' against a real service, say which one: --service NAME")
    # the target is the real service only when the user says so; otherwise it must be a fake
    is_fake = not args.real
    if args.real:
        _reachable(args.base_url, args.timeout)
    else:
        _require_fake(args.base_url, args.timeout, token)
    if args.name == "all":
        service = args.service or _fake_service(args.base_url, args.timeout, token)
        names = [name for name, scenario in scenarios.items() if scenario.service == service]
        if not names:
            raise UsageError(f"no scenario is for the service {service!r}; see `{args.prog} list`")
    else:
        names = [args.name]
    credentials = _credentials(args.credentials)
    reports: list[Report] = []
    for name in names:
        world = ""
        base_url = args.base_url
        if is_fake and not args.no_world and not _names_a_world(base_url):
            # a world id is [A-Za-z0-9_-]{1,64}: a long scenario name is cut, not refused
            world = args.world or f"scenario-{name[:46]}-{secrets.token_hex(4)}"
            base_url = _open_world(args.base_url, world, args.timeout, token)
        try:
            with httpx.Client(base_url=base_url, timeout=args.timeout) as client:
                report = run_scenario(scenarios[name], client, is_fake=is_fake, credentials=credentials,
                                      control_token=token, world=world)
        finally:
            if world and not args.world:  # a fresh world is the run's own: free its slot and memory
                _delete_world(args.base_url, world, args.timeout, token)
        reports.append(report)
        if not args.json:
            print(report.render(), flush=True)
    if args.json:
        print(json.dumps(_json_document(args.name, reports), indent=2), flush=True)
    if any(report.status == "failed" for report in reports):
        return 1
    if reports and all(report.status == "skipped" for report in reports) and not args.allow_skips:
        print(f"scenarios: error: nothing ran: {_count(len(reports), 'scenario')} skipped "
              "(pass what they need, or --allow-skips to accept a run that checked nothing)", file=sys.stderr)
        return 1
    return 0


def _count(number: int, noun: str) -> str:
    return f"the {noun}" if number == 1 else f"all {number} {noun}s"


def _json_document(name: str, reports: list[Report]) -> dict[str, Any]:
    """One JSON document: the report itself for one scenario, a summary with every report for 'all'."""
    if name != "all":
        return reports[0].to_dict()
    counts = {status: sum(r.status == status for r in reports) for status in ("passed", "failed", "skipped")}
    status = "failed" if counts["failed"] else "passed" if counts["passed"] else "skipped"
    return {"status": status, **counts,
            "reports": [report.to_dict() for report in reports]}


def _auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def _require_fake(base_url: str, timeout: float, token: str | None) -> None:
    """The target must be a fake: reachable, and answering ``GET /_fake/health`` as one. Anything
    else is one line naming the URL (a real service is the user's call: ``--real``)."""
    with httpx.Client(base_url=base_url, timeout=timeout) as client:
        if is_fake_target(client, token):
            return
        try:
            answer = client.get("/_fake/health", headers=_auth(token))
        except httpx.HTTPError as exc:
            raise UsageError(f"cannot reach {base_url}: {_reason(exc)}") from None
    if answer.status_code == 401 and "control token" in answer.text:
        raise UsageError("this fake was started with a control token: pass --control-token TOKEN "
                         "(or set FAKES_CONTROL_TOKEN)" if not token else "the fake refused this control token")
    raise UsageError(f"{base_url} is no fake (GET /_fake/health answered {answer.status_code}); to run against "
                     "the real service say so: --real (with --credentials)")


def _reachable(base_url: str, timeout: float) -> None:
    """The real service's host accepts a connection (no request is sent: a real call may cost)."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"--base-url must be an http:// or https:// URL, got {base_url!r}")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        socket.create_connection((parts.hostname, port), timeout=timeout).close()
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot reach {base_url}: {_reason(exc)}") from None


def _reason(exc: BaseException) -> str:
    """A transport error in a few words (httpx nests the socket's reason)."""
    while exc.__context__ is not None and not str(exc):
        exc = exc.__context__
    text = str(exc) or type(exc).__name__
    if isinstance(exc, ConnectionRefusedError) or "Connection refused" in text:
        return "connection refused (nothing listens there)"
    return text.splitlines()[0]


def _fake_service(base_url: str, timeout: float, token: str | None) -> str:
    """The service name a fake reports on /_fake/health."""
    with httpx.Client(base_url=base_url, timeout=timeout) as client:
        return str(client.get("/_fake/health", headers=_auth(token)).json()["service"])


def _names_a_world(base_url: str) -> bool:
    return "/_w/" in urlsplit(base_url).path + "/"


def _open_world(base_url: str, world: str, timeout: float, token: str | None) -> str:
    """The base URL of ``world`` on the fake at ``base_url`` (the fake creates it on first use)."""
    world_url = f"{base_url.rstrip('/')}/_w/{world}"
    with httpx.Client(base_url=world_url, timeout=timeout) as client:
        answer = client.get("/_fake/health", headers=_auth(token))
    if answer.status_code != 200:
        raise UsageError(f"cannot open world {world!r} on {base_url}: {answer.status_code} {answer.text[:200]} "
                         "(--no-world runs in the base URL's own world)")
    return world_url


def _delete_world(base_url: str, world: str, timeout: float, token: str | None) -> None:
    with httpx.Client(base_url=base_url, timeout=timeout) as client:
        client.delete(f"/_fake/worlds/{world}", headers=_auth(token))


def _credentials(items: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for item in items:
        if item.startswith("@"):
            with open(item[1:]) as handle:
                found.update({str(k): str(v) for k, v in json.load(handle).items()})
            continue
        key, sep, value = item.partition("=")
        if not sep:
            raise UsageError(f"--credentials takes KEY=VALUE, got {item!r}")
        found[key] = value
    return found


if __name__ == "__main__":
    sys.exit(main())
