"""The `fakes` command: serve, list, openapi; scenarios and bench (the package fakes.scenarios).

Every `serve` flag can also come from an environment variable (the docker image uses them):
FAKES_ONLY, FAKES_HOST, FAKES_PORT, FAKES_GATEWAY, FAKES_SEED, FAKES_CLOCK, FAKES_CONTROL_TOKEN,
FAKES_PREFIXES (``svc=/path,svc2=/p``), FAKES_JOURNAL_SIZE, FAKES_MAX_WORLDS,
FAKES_WORLD_IDLE_EXPIRY, FAKES_SILENCE_RULES (``svc/rule,svc/*``); service settings use
FAKES_<SERVICE>_<KEY> (e.g. FAKES_FILINGS_SCALE=small).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

from .. import registry
from .clock import Clock, ClockError, parse_clock_spec
from .fake import Fake
from .gateway import GatewayApp
from .http import ascii_int
from .limits import MAX_CAP_BYTES
from .protocol import DEFAULT_BODY_TIMEOUT_S, DEFAULT_HEADER_TIMEOUT_S, MAX_TIMEOUT_S, ReadTimeouts
from .server import CannotListen, bind_socket, serve_until, stack_description
from .server import run as run_on_fast_loop
from .settings import SettingsError, env_prefix, unknown_variables
from .verdicts import check_owners, serve_summary
from .worlds import DEFAULT_MAX_WORLDS

MAX_PORT = 65_535


class CliError(Exception):
    """A bad flag value: printed as one line, exit status 2."""


def _env(name: str, default: str | None = None) -> str | None:
    """An environment variable; an empty one counts as unset (compose files often blank them)."""
    return os.environ.get(name) or default


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad command line is one line (the usage is one `--help` away) and exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"fakes: error: {message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="fakes", description="Stateful fake servers for five HTTP APIs.")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="serve fakes over HTTP until Ctrl-C")
    serve.add_argument("--only", default=_env("FAKES_ONLY"), help="comma-separated services (default: all)")
    serve.add_argument("--host", default=_env("FAKES_HOST", "127.0.0.1"), help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=_env("FAKES_PORT"),
                       help="first service's port (1-65535); the others follow in `fakes list` order")
    serve.add_argument("--gateway", type=_port, metavar="PORT", default=_env("FAKES_GATEWAY"),
                       help="single-port mode: every service on PORT, routed by /<service>/ prefix or Host")
    serve.add_argument("--seed", type=_int, default=_env("FAKES_SEED", "0"), help="seed of all data (default 0)")
    serve.add_argument("--clock", default=_env("FAKES_CLOCK", "real"),
                       help="manual | real | scaled:FACTOR (default real)")
    serve.add_argument("--control-token", default=_env("FAKES_CONTROL_TOKEN"),
                       help="require Authorization: Bearer TOKEN on /_fake/ calls")
    serve.add_argument("--prefix", action="append", default=_list_env("FAKES_PREFIXES"), metavar="SVC=/path",
                       help="mount a service under a path prefix (repeatable)")
    serve.add_argument("--set", action="append", default=[], metavar="SVC.KEY=VALUE", dest="settings",
                       help="a service setting (repeatable); see `fakes list --settings`")
    serve.add_argument("--journal-size", type=_positive_int, default=_env("FAKES_JOURNAL_SIZE", "1000"),
                       help="requests kept per fake in the journal (default 1000)")
    serve.add_argument("--silence-rule", action="append", default=_list_env("FAKES_SILENCE_RULES"),
                       metavar="SVC/RULE", dest="silence_rules",
                       help="record no verdict for this client rule (id or glob, repeatable; docs/verdicts.md)")
    serve.add_argument("--max-worlds", type=_non_negative_int, default=_env("FAKES_MAX_WORLDS", "1000"), metavar="N",
                       help="worlds (/_w/<id>/) each fake holds at most; past it a new world gets a 429 "
                            "(default 1000, 0: no cap; docs/worlds.md)")
    serve.add_argument("--world-idle-expiry", type=_non_negative_float, metavar="SECONDS",
                       default=_env("FAKES_WORLD_IDLE_EXPIRY", "0"),
                       help="delete a world unused for SECONDS of wall time (default 0: never)")
    serve.add_argument("--max-body-bytes", type=_byte_cap, metavar="N", default=_env("FAKES_MAX_BODY_BYTES"),
                       help="largest request body of a service route (default: the service's, 1 MiB; a route "
                            "with a documented limit of its own, such as video's upload, keeps it); more is a 413")
    serve.add_argument("--max-control-body-bytes", type=_byte_cap, metavar="N",
                       default=_env("FAKES_MAX_CONTROL_BODY_BYTES"),
                       help="largest body of a /_fake/ control call (default 1 MiB)")
    serve.add_argument("--max-state-bytes", type=_byte_cap, metavar="N", default=_env("FAKES_MAX_STATE_BYTES"),
                       help="largest state import, PUT /_fake/state (default 64 MiB)")
    serve.add_argument("--header-timeout", type=_timeout, metavar="SECONDS",
                       default=_env("FAKES_HEADER_TIMEOUT", str(DEFAULT_HEADER_TIMEOUT_S)),
                       help="a request's headers must arrive within SECONDS (default 10); else 408 and close")
    serve.add_argument("--body-timeout", type=_timeout, metavar="SECONDS",
                       default=_env("FAKES_BODY_TIMEOUT", str(DEFAULT_BODY_TIMEOUT_S)),
                       help="longest pause within a request body (default 30); else 408 and close")
    serve.add_argument("--log-level", type=_log_level, metavar="LEVEL", default=_env("FAKES_LOG_LEVEL", "warning"),
                       help=f"uvicorn's log level: {', '.join(LOG_LEVELS)} (default warning)")

    listing = sub.add_parser("list", help="list the services, their default ports and settings")
    listing.add_argument("--settings", action="store_true", help="print every setting with its default")
    listing.add_argument("--rules", action="store_true",
                         help="print every client rule (verdicts) with its severity and explanation")

    openapi = sub.add_parser("openapi", help="print a service's OpenAPI document")
    openapi.add_argument("service")

    # the scenario scripts and the benchmark (the package fakes.scenarios) parse their own options:
    # prefix_chars="\0" passes every word through, `--help` included
    for name, summary in DELEGATED.items():
        delegated = sub.add_parser(name, help=summary, add_help=False, prefix_chars="\0")
        delegated.add_argument("args", nargs=argparse.REMAINDER, help=f"see `fakes {name} --help`")
    return parser


#: subcommands handed whole to the scenarios package (docs/testing.md, docs/benchmark.md)
DELEGATED = {
    "scenarios": "list or run the scenario scripts against a fake or the real service",
    "bench": "benchmark the fakes (HTTP, in process, start-up, scale, worlds, operations)",
}


def _int(text: str) -> int:
    return ascii_int(text)  # ASCII digits only (int() also takes '٣' and '1_000')


_int.__name__ = "int"  # argparse's message: "invalid int value: 'abc'"


def _port(text: str) -> int:
    value = ascii_int(text)
    if not 1 <= value <= MAX_PORT:
        raise argparse.ArgumentTypeError(f"a port is from 1 to {MAX_PORT}, got {value}")
    return value


LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")


def _log_level(text: str) -> str:
    if text.lower() not in LOG_LEVELS:
        raise argparse.ArgumentTypeError(f"{text!r} is not a log level; use one of {', '.join(LOG_LEVELS)}")
    return text.lower()


def _positive_int(text: str) -> int:
    value = ascii_int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _non_negative_int(text: str) -> int:
    value = ascii_int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def _non_negative_float(text: str) -> float:
    value = float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def _byte_cap(text: str) -> int:
    value = ascii_int(text)
    if not 1 <= value <= MAX_CAP_BYTES:
        raise argparse.ArgumentTypeError(f"must be from 1 to {MAX_CAP_BYTES} bytes, got {value}")
    return value


def _timeout(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text!r}") from None
    if not 0 < value <= MAX_TIMEOUT_S:
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most {MAX_TIMEOUT_S:g}, got {text}")
    return value


def _list_env(name: str) -> list[str]:
    value = os.environ.get(name, "")
    return [part.strip() for part in value.split(",") if part.strip()]


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command in DELEGATED:
        return run_delegated(args.command, args.args)
    try:
        if args.command == "list":
            code = cmd_list(args.settings, args.rules)
            sys.stdout.flush()  # inside the try: a reader that left is seen here, not at exit
            return code
        if args.command == "openapi":
            fake = make_fakes([args.service], seed=0, clock=Clock("manual"))[args.service]
            print(json.dumps(fake.openapi(), indent=2), flush=True)
            return 0
        return cmd_serve(args)
    except BrokenPipeError:  # `fakes openapi NAME | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 0
    except (CliError, SettingsError, ClockError, registry.UnknownService) as exc:
        print(f"fakes: error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    except CannotListen as exc:
        print(f"fakes: error: {exc.strerror}" + (f" ({exc.hint})" if exc.hint else ""), file=sys.stderr)
        return 2


def run_delegated(command: str, argv: Sequence[str]) -> int:
    """`fakes scenarios ...` / `fakes bench ...`: the scenarios package's own command line."""
    package = scenarios_package()
    if command == "bench":
        return int(importlib.import_module(f"{package}.bench").main(list(argv), prog="fakes bench") or 0)
    return int(importlib.import_module(f"{package}.__main__").main(list(argv), prog="fakes scenarios") or 0)


def scenarios_package() -> str:
    """``fakes.scenarios`` as installed (the repository's scenarios/ directory); a bare checkout on
    PYTHONPATH without an install has only the top-level ``scenarios``."""
    try:
        importlib.import_module("fakes.scenarios")
    except ModuleNotFoundError as exc:
        if exc.name != "fakes.scenarios":
            raise
        return "scenarios"
    return "fakes.scenarios"


def cmd_list(with_settings: bool, with_rules: bool = False) -> int:
    for name in registry.service_names():
        cls = registry.fake_class(name)
        print(f"{name:<15} port {cls.default_port:<6} {cls.title}")
        if with_settings:
            for row in cls.settings_class.describe():
                default = json.dumps(row["default"])
                print(f"    {name}.{row['name']} = {default}  ({row['type']}) {row['help']}")
        if with_rules:
            for rule in cls.client_rules:
                print(f"    {rule.id} [{rule.severity}] {rule.explanation}")
    return 0


def parse_assignments(items: Sequence[str]) -> dict[str, dict[str, str]]:
    """``["filings.scale=small"]`` -> ``{"filings": {"scale": "small"}}``."""
    found: dict[str, dict[str, str]] = {}
    for item in items:
        target, sep, value = item.partition("=")
        service, dot, key = target.partition(".")
        if not sep or not dot or not key:
            raise CliError(f"--set takes SERVICE.KEY=VALUE, got {item!r}")
        found.setdefault(service, {})[key] = value
    return found


def parse_prefixes(items: Sequence[str]) -> dict[str, str]:
    found = {}
    for item in items:
        service, sep, path = item.partition("=")
        if not sep or not path.startswith("/"):
            raise CliError(f"--prefix takes SERVICE=/path, got {item!r}")
        found[service.strip()] = path
    return found


def select_services(only: str | None) -> list[str]:
    names = registry.service_names()
    if not only:
        return names
    chosen = [n.strip() for n in only.split(",") if n.strip()]
    for name in chosen:
        if name not in names:
            raise CliError(f"unknown service {name!r}; known: {', '.join(names)}")
    return [n for n in names if n in chosen]


def make_fakes(
    names: Sequence[str], *, seed: int, clock: Clock | str, settings: dict[str, dict[str, str]] | None = None,
    prefixes: dict[str, str] | None = None, control_token: str | None = None, journal_size: int = 1000,
    silence_rules: Sequence[str] = (), max_worlds: int | None = DEFAULT_MAX_WORLDS,
    world_idle_expiry: float | None = None, body_caps: dict[str, int | None] | None = None,
) -> dict[str, Fake]:
    settings = settings or {}
    prefixes = prefixes or {}
    for service in list(settings) + list(prefixes):
        if service not in registry.SERVICES:
            raise CliError(f"unknown service {service!r} in --set/--prefix; known: {', '.join(registry.SERVICES)}")
    fakes = {}
    for name in names:
        try:
            fakes[name] = registry.fake_class(name)(
                seed=seed, clock=clock, prefix=prefixes.get(name, ""), control_token=control_token,
                journal_size=journal_size, overrides=settings.get(name, {}), silence_rules=list(silence_rules),
                max_worlds=max_worlds, world_idle_expiry=world_idle_expiry, **(body_caps or {}),
            )
        except SettingsError:
            raise
        except ValueError as exc:
            # a service that checks a setting's value only when it builds its model (e.g. a
            # catalogue scale): still a bad setting, told in one line
            raise SettingsError(f"{name}: bad setting: {exc}") from None
    return fakes


#: environment variables of the kernel (flags, limits, test knobs): never a service's setting
KERNEL_VARIABLES = frozenset({
    "FAKES_ONLY", "FAKES_HOST", "FAKES_PORT", "FAKES_GATEWAY", "FAKES_SEED", "FAKES_CLOCK", "FAKES_CONTROL_TOKEN",
    "FAKES_PREFIXES", "FAKES_JOURNAL_SIZE", "FAKES_MAX_WORLDS", "FAKES_WORLD_IDLE_EXPIRY", "FAKES_SILENCE_RULES",
    "FAKES_LOG_LEVEL", "FAKES_MAX_FAULT_LATENCY_MS", "FAKES_MAX_BODY_BYTES", "FAKES_MAX_CONTROL_BODY_BYTES",
    "FAKES_MAX_STATE_BYTES", "FAKES_HEADER_TIMEOUT", "FAKES_BODY_TIMEOUT"})


def check_setting_variables(environ: Mapping[str, str]) -> None:
    """Refuse a ``FAKES_<SERVICE>_<KEY>`` variable naming no setting, as ``--set`` refuses it."""
    candidates = [name for name in registry.service_names()
                  if any(variable.startswith(env_prefix(name)) for variable in environ)]
    services = {name: registry.fake_class(name).settings_class for name in candidates}
    unknown = unknown_variables(environ, services, KERNEL_VARIABLES)
    if unknown:
        variable = unknown[0]
        service = next(name for name in sorted(services, key=len, reverse=True)
                       if variable.startswith(env_prefix(name)))
        known = ", ".join(env_prefix(service) + f.name.upper() for f in services[service].fields())
        raise SettingsError(f"{service} has no setting {variable[len(env_prefix(service)):].lower()!r} "
                            f"(environment variable {variable}); known: {known}")


def cmd_serve(args: argparse.Namespace) -> int:
    # Until the event loop installs its handlers, SIGTERM (docker stop, PID 1) must still stop us.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    names = select_services(args.only)
    try:
        parse_clock_spec(args.clock)
    except ClockError as exc:
        raise CliError(str(exc)) from None
    settings = parse_assignments(args.settings)
    check_setting_variables(os.environ)
    check_owners(args.silence_rules, registry.service_names())
    if args.gateway is None and args.port is not None and args.port + len(names) - 1 > MAX_PORT:
        last = args.port + len(names) - 1
        raise CliError(f"--port {args.port} puts {len(names)} services on ports {args.port}-{last}, past {MAX_PORT}: "
                       f"use --port {MAX_PORT - len(names) + 1} or lower, --only fewer services, or --gateway PORT")
    prefixes = parse_prefixes(args.prefix)
    if args.gateway is not None:
        for name in names:
            prefixes.setdefault(name, registry.GATEWAY_PREFIXES[name])
    # Each fake gets its own clock, so that resetting one fake never rewinds another's time.
    fakes = make_fakes(names, seed=args.seed, clock=args.clock, settings=settings, prefixes=prefixes,
                       control_token=args.control_token, journal_size=args.journal_size,
                       silence_rules=args.silence_rules, max_worlds=args.max_worlds,
                       world_idle_expiry=args.world_idle_expiry,
                       body_caps={"max_body_bytes": args.max_body_bytes,
                                  "max_control_body_bytes": args.max_control_body_bytes,
                                  "max_state_bytes": args.max_state_bytes})
    registry.LIVE_FAKES.update(fakes)  # one fake may stand behind another in process (relay upstreams)

    bindings: list[tuple[Any, Any]] = []
    lines = []
    if args.gateway is not None:
        sock = bind_socket(args.host, args.gateway)
        bindings.append((GatewayApp(fakes), sock))
        for name, fake in fakes.items():
            lines.append(_banner(name, fake, f"http://{_shown_host(args.host)}:{args.gateway}{fake.prefix}"))
    else:
        for offset, (name, fake) in enumerate(fakes.items()):
            port = args.port + offset if args.port is not None else fake.default_port
            sock = bind_socket(args.host, port)
            bindings.append((fake.app, sock))
            lines.append(_banner(name, fake, f"http://{_shown_host(args.host)}:{port}{fake.prefix}"))
    print(f"contract-fakes: seed {args.seed}, clock {args.clock}"
          + (", control token required" if args.control_token else ""))
    for line in lines:
        print(line)
    print(f"serving on: {stack_description()}")
    print("Ctrl-C to stop.", flush=True)
    timeouts = ReadTimeouts(header_s=args.header_timeout, body_s=args.body_timeout)
    run_on_fast_loop(_serve_forever(bindings, args.log_level, timeouts))
    print(serve_summary(fakes), flush=True)  # what the clients broke, once the servers stopped
    return 0


def _banner(name: str, fake: Fake, url: str) -> str:
    credentials = fake.demo_credentials()
    creds = "".join(f"\n    {key}: {value}" for key, value in credentials.items())
    return f"  {name:<14} {url}   (control: {url}/_fake/health){creds}"


def _shown_host(host: str) -> str:
    return "127.0.0.1" if host in ("0.0.0.0", "") else host


async def _serve_forever(bindings: list[tuple[Any, Any]], log_level: str, timeouts: ReadTimeouts) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    await serve_until(bindings, stop, log_level, timeouts=timeouts)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
