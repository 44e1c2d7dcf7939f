"""``fakes conform | record | replay``: the command lines (docs/conformance.md).

A bad flag, a credentials file that cannot be read, an unknown service or scenario, a document or
cassette that cannot be read: one line on standard error, exit status 2. ``conform`` and
``replay`` exit 1 when the fake differs (with ``--baseline``: only for differences not in it).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import registry
from ..kernel.cli import _Parser, _positive_int
from ..kernel.http import ascii_int
from ..kernel.server import CannotListen
from ..kernel.settings import SettingsError
from .cassette import DEFAULT_MAX_BODY_BYTES, CassetteError
from .document import DocumentError
from .runner import DEFAULT_MAX_CALLS, DEFAULT_MAX_WAIT_S
from .sides import Unreachable


class UsageError(Exception):
    """One line for the user; exit status 2."""


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text!r}") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be 0 or more seconds, got {text}")
    return value


def _port(text: str) -> int:
    value = ascii_int(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is from 0 (any free one) to 65535, got {value}")
    return value


def _service(text: str) -> str:
    if text not in registry.SERVICES:
        raise argparse.ArgumentTypeError(f"unknown service {text!r}; one of {', '.join(registry.service_names())}")
    return text


def _fake_options(parser: argparse.ArgumentParser, example: str) -> None:
    """The fresh fake's seed and settings (conform's fake side, replay's fake)."""
    parser.add_argument("--seed", type=ascii_int, default=0, help="the fake's seed (default 0)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="settings",
                        help="a setting of the fake" + (f", {example}" if example else "") + " (repeatable)")


def conform_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="fakes conform", description=(
        "Run the service's scenarios and a walk of its API document against the real service and a fresh fake, "
        "side by side, and report where the fake's answers differ (docs/conformance.md)."))
    parser.add_argument("service", type=_service, help="the service whose fake is checked (`fakes list`)")
    parser.add_argument("--real-url", required=True, metavar="URL", help="the real service's base URL")
    parser.add_argument("--credentials", metavar="FILE",
                        help="a JSON object of credentials for the real service, e.g. {\"api_key\": \"...\"}; a value "
                             "\"env:NAME\" is read from the environment variable NAME (nothing secret in the file)")
    parser.add_argument("--document", metavar="PATH_OR_URL",
                        help="the vendor's published OpenAPI document (JSON, or YAML with PyYAML) to walk; default: "
                             "the fake's own (`fakes openapi SERVICE`)")
    parser.add_argument("--no-walk", action="store_true", help="run the scenarios only")
    parser.add_argument("--scenarios", metavar="NAMES", default="all",
                        help="comma-separated scenarios of the service, 'all' (default) or 'none'")
    parser.add_argument("--operation", action="append", default=[], metavar="GLOB",
                        help="walk only operations matching GLOB, e.g. 'GET /filings/*' (repeatable)")
    parser.add_argument("--skip-operation", action="append", default=[], metavar="GLOB",
                        help="leave operations matching GLOB out of the walk (repeatable)")
    parser.add_argument("--allow-writes", action="store_true",
                        help="also send writes (POST, PUT, PATCH, DELETE): tagged, only on what the run created, "
                             "deleted afterwards (default: reads only)")
    parser.add_argument("--max-calls", type=_positive_int, default=DEFAULT_MAX_CALLS, metavar="N",
                        help=f"at most N calls to the real service, clean-up included (default {DEFAULT_MAX_CALLS})")
    parser.add_argument("--max-wait", type=_seconds, default=DEFAULT_MAX_WAIT_S, metavar="SECONDS",
                        help="real time the scenarios may wait on the real service, in all (default "
                             f"{DEFAULT_MAX_WAIT_S:g}); a longer wait stops that scenario there")
    parser.add_argument("--stand-in", action="store_true",
                        help="the real URL is a fake standing in (another version of the fake, a drifted copy): "
                             "waits move its clock (POST /_fake/clock) instead of sleeping")
    parser.add_argument("--control-token", default=os.environ.get("FAKES_CONTROL_TOKEN") or None, metavar="TOKEN",
                        help="with --stand-in: the stand-in's control token (default: $FAKES_CONTROL_TOKEN)")
    _fake_options(parser, "e.g. scale=small or environment=production")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="a value for the real side's walk where no earlier answer gives one, e.g. videoId=vi123")
    parser.add_argument("--header", action="append", default=[], metavar="NAME",
                        help="compare this answer header too (besides rate-limit, credit, cost, Location, Link and "
                             "the document's declared headers)")
    parser.add_argument("--timeout", type=_seconds, default=30.0, metavar="SECONDS",
                        help="HTTP timeout per request (default 30)")
    parser.add_argument("--json", metavar="FILE", help="write the report as JSON to FILE ('-': standard output)")
    parser.add_argument("--junit", metavar="FILE", help="write the report as JUnit XML to FILE")
    parser.add_argument("--markdown", metavar="FILE", help="write the report as Markdown to FILE")
    parser.add_argument("--baseline", metavar="FILE",
                        help="an earlier --json report (or a file of difference keys): exit 1 only on differences "
                             "not in it")
    parser.add_argument("--quiet", action="store_true", help="print no progress lines (the summary still)")
    return parser


def record_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="fakes record", description=(
        "Serve a recording proxy: point the client under test at it; it forwards to the upstream, answers with "
        "the upstream's answers and writes a cassette (JSON lines, credentials redacted)."))
    parser.add_argument("service", type=_service, help="the upstream's service (its secret names, the replay's fake)")
    parser.add_argument("--upstream", required=True, metavar="URL", help="the real service's base URL")
    parser.add_argument("--cassette", required=True, metavar="FILE", help="the cassette to write (replaced)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=_port, default=0, help="port to listen on (default 0: a free one, printed)")
    parser.add_argument("--max-body-bytes", type=_positive_int, default=DEFAULT_MAX_BODY_BYTES, metavar="N",
                        help=f"keep text bodies up to N bytes; longer or binary ones by hash and size "
                             f"(default {DEFAULT_MAX_BODY_BYTES})")
    parser.add_argument("--timeout", type=_seconds, default=60.0, metavar="SECONDS",
                        help="the upstream's time to answer (default 60)")
    return parser


def replay_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="fakes replay", description=(
        "Play a cassette's requests in order against a fresh fake (its clock moved by the recorded gaps) and "
        "report where the fake's answers differ from the recorded ones."))
    parser.add_argument("cassette", help="a cassette written by `fakes record`")
    _fake_options(parser, "")
    parser.add_argument("--json", metavar="FILE", help="write the report as JSON to FILE ('-': standard output)")
    parser.add_argument("--pytest", metavar="FILE",
                        help="write a pytest module to FILE that replays the cassette and fails on any difference, "
                             "instead of replaying now")
    return parser


def _settings(service: str, assignments: list[str]) -> dict[str, Any]:
    """``--set KEY=VALUE`` of the fake, checked against its settings (a bad one: SettingsError)."""
    parsed = _pairs(assignments, "--set")
    registry.fake_class(service).settings_class.resolve(service, cli=parsed)
    return dict(parsed)


def read_credentials(path: str | None) -> dict[str, str]:
    """The credentials file: a JSON object of strings; ``"env:NAME"`` values come from the environment."""
    if path is None:
        return {}
    try:
        loaded = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot read --credentials {path}: {exc.strerror}") from None
    except ValueError:
        raise UsageError(f"--credentials {path} is not JSON (a JSON object of credentials)") from None
    if not isinstance(loaded, dict):
        raise UsageError(f"--credentials {path} must hold a JSON object, e.g. {{\"api_key\": \"...\"}}")
    found = {}
    for key, value in loaded.items():
        value = str(value)
        if value.startswith("env:"):
            variable = value[4:]
            if variable not in os.environ:
                raise UsageError(f"--credentials {path}: {key} names the environment variable {variable}, which is "
                                 "not set")
            value = os.environ[variable]
        found[str(key)] = value
    return found


def _pairs(items: list[str], flag: str) -> dict[str, str]:
    found = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise UsageError(f"{flag} takes NAME=VALUE, got {item!r}")
        found[name] = value
    return found


def _write(where: str | None, text: str) -> None:
    if where is None:
        return
    if where == "-":
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return
    try:
        Path(where).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {where}: {exc.strerror}") from None


def cmd_conform(argv: Sequence[str]) -> int:
    from .flows import service_scenarios
    from .report import load_baseline
    from .runner import ConformOptions, conform

    args = conform_parser().parse_args(argv)
    if not args.real_url.startswith(("http://", "https://")):
        raise UsageError(f"--real-url must be an http(s) URL, got {args.real_url!r}")
    settings = _settings(args.service, args.settings)
    scenarios: list[str] | None = None if args.scenarios == "all" else [] if args.scenarios == "none" else [
        name.strip() for name in args.scenarios.split(",") if name.strip()]
    try:
        service_scenarios(args.service, scenarios)
    except KeyError as exc:
        raise UsageError(f"unknown scenario {exc.args[0]}") from None
    baseline: set[str] | None = None
    if args.baseline:
        try:
            baseline = load_baseline(args.baseline)
        except OSError as exc:
            raise UsageError(f"cannot read --baseline {args.baseline}: {exc.strerror}") from None
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    quiet = args.quiet or args.json == "-"
    options = ConformOptions(
        args.service, args.real_url, credentials=read_credentials(args.credentials), document=args.document,
        walk=not args.no_walk, scenarios=scenarios, operations=args.operation, skip_operations=args.skip_operation,
        allow_writes=args.allow_writes, max_calls=args.max_calls, max_wait=args.max_wait, stand_in=args.stand_in,
        control_token=args.control_token, seed=args.seed, settings=settings, params=_pairs(args.param, "--param"),
        headers=[name.lower() for name in args.header], timeout=args.timeout,
        progress=None if quiet else lambda line: print(line, file=sys.stderr, flush=True))
    report = conform(options)
    if baseline is not None:
        report.apply_baseline(baseline, args.baseline)
    _write(args.json, report.to_json())
    _write(args.junit, report.to_junit())
    _write(args.markdown, report.to_markdown())
    if args.json != "-":
        print(report.render(), flush=True)
    return report.exit_status


def cmd_record(argv: Sequence[str]) -> int:
    import asyncio
    import signal

    from ..kernel.server import bind_socket, run, serve_until
    from .cassette import CassetteWriter
    from .record import RecordingProxy
    from .redact import service_redactor

    args = record_parser().parse_args(argv)
    if not args.upstream.startswith(("http://", "https://")):
        raise UsageError(f"--upstream must be an http(s) URL, got {args.upstream!r}")
    sock = bind_socket(args.host, args.port)
    try:
        writer = CassetteWriter(args.cassette, args.service, args.upstream, service_redactor(args.service),
                                max_body_bytes=args.max_body_bytes)
    except OSError as exc:
        sock.close()
        raise UsageError(f"cannot write --cassette {args.cassette}: {exc.strerror}") from None
    proxy = RecordingProxy(args.upstream, writer, timeout=args.timeout)
    host, port = sock.getsockname()[:2]

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)

        def ready() -> None:
            print(f"recording {args.service}: http://{host}:{port} -> {args.upstream}, cassette {args.cassette} "
                  "(Ctrl-C stops)", flush=True)

        try:
            await serve_until([(proxy, sock)], stop, on_ready=ready)
        finally:
            await proxy.aclose()

    try:
        run(main())
    finally:
        writer.close()
    print(f"recorded {writer.count} exchanges to {args.cassette}", flush=True)
    return 0


def cmd_replay(argv: Sequence[str]) -> int:
    from .cassette import read_cassette
    from .replay import replay_cassette, write_pytest

    args = replay_parser().parse_args(argv)
    cassette = read_cassette(args.cassette)
    if cassette.service not in registry.SERVICES:
        raise UsageError(f"{args.cassette} was recorded for {cassette.service!r}, which is not a service here")
    settings = _settings(cassette.service, args.settings)
    if args.pytest:
        written = write_pytest(args.cassette, args.pytest, seed=args.seed, settings=settings)
        print(f"wrote {written}: `pytest {written}` replays {args.cassette}", flush=True)
        return 0
    report = replay_cassette(cassette, seed=args.seed, settings=settings)
    report.cassette = args.cassette
    _write(args.json, json.dumps(report.to_dict(), indent=2))
    if args.json != "-":
        print(report.render(), flush=True)
    return 0 if report.same else 1


COMMANDS = {"conform": cmd_conform, "record": cmd_record, "replay": cmd_replay}


def main(command: str, argv: Sequence[str]) -> int:
    """``fakes conform ...`` and its siblings: the kernel's CLI hands the rest of the line here."""
    try:
        return COMMANDS[command](list(argv))
    except (UsageError, DocumentError, CassetteError, SettingsError, registry.UnknownService, Unreachable) as exc:
        print(f"fakes {command}: error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    except CannotListen as exc:
        print(f"fakes {command}: error: {exc.strerror}" + (f" ({exc.hint})" if exc.hint else ""), file=sys.stderr)
        return 2
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
