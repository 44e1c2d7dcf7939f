"""The `fakes` command: serve, list, openapi; scenarios and bench (the package fakes.scenarios);
conform, record and replay (the package fakes.conform).

Every `serve` flag can also come from an environment variable, ``FAKES_`` and the flag's name
(``--journal-size``: FAKES_JOURNAL_SIZE; ``--prefix``: FAKES_PREFIXES, ``svc=/path,svc2=/p``;
``--silence-rule``: FAKES_SILENCE_RULES, ``svc/rule,svc/*``); `fakes serve --help` names each.
The docker image uses them. Service settings use FAKES_<SERVICE>_<KEY> (FAKES_FILINGS_SCALE=small).
Running the fakes is :mod:`fakes.kernel.serving`.
"""

from __future__ import annotations

import argparse
import importlib
import ipaddress
import json
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from .. import registry
from .access import check_host_entry, check_origin_entry, split_list
from .clock import Clock, ClockError
from .exchange import DEFAULT_BODY_BYTES
from .http import ascii_int
from .journal import DEFAULT_JOURNAL_BYTES, MAX_JOURNAL_BYTES
from .journalpool import DEFAULT_TOTAL_BYTES
from .limits import MAX_CAP_BYTES
from .protocol import (
    DEFAULT_BODY_TIMEOUT_S,
    DEFAULT_HEADER_TIMEOUT_S,
    DEFAULT_MAX_HEADER_BYTES,
    MAX_TIMEOUT_S,
    check_header_bytes,
)
from .server import CannotListen
from .serving import (  # re-exported: the command line's names
    KERNEL_VARIABLES,
    LOG_LEVELS,
    MAX_PORT,
    CliError,
    check_setting_variables,
    cmd_serve,
    make_fakes,
    parse_assignments,
    parse_prefixes,
    select_services,
)
from .settings import SettingsError
from .statedir import StateFileError

__all__ = ["KERNEL_VARIABLES", "CliError", "build_parser", "check_setting_variables", "main", "make_fakes",
           "parse_assignments", "parse_prefixes", "select_services"]


def _env(name: str, default: str | None = None) -> str | None:
    """An environment variable; an empty one counts as unset (compose files often blank them)."""
    return os.environ.get(name) or default


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad command line is one line (the usage is one `--help` away) and exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"fakes: error: {message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="fakes", description="Stateful fake servers for five HTTP APIs.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}",
                        help="print the installed version of contract-fakes and exit")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="serve fakes over HTTP until Ctrl-C")
    serve.add_argument("--only", default=_env("FAKES_ONLY"), help="comma-separated services (default: all)")
    serve.add_argument("--host", default=_env("FAKES_HOST", "127.0.0.1"), help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=_env("FAKES_PORT"),
                       help="first service's port (1-65535); the others follow in `fakes list` order")
    serve.add_argument("--gateway", type=_port, metavar="PORT", default=_env("FAKES_GATEWAY"),
                       help="single-port mode: every service on PORT, routed by /<service>/ prefix or Host")
    serve.add_argument("--https", action="store_const", const="1", default=_env("FAKES_HTTPS"),
                       help="serve HTTPS instead of HTTP on every port (the variable takes 1 or 0; certificate: "
                            "--tls-cert/--tls-key, else one signed by a local CA in --tls-dir)")
    serve.add_argument("--https-port", type=_port, metavar="PORT", default=_env("FAKES_HTTPS_PORT"),
                       help="serve HTTPS beside HTTP: the first service's HTTPS port, the others following as "
                            "with --port (with --gateway: the gateway's HTTPS port)")
    serve.add_argument("--tls-cert", metavar="FILE", default=_env("FAKES_TLS_CERT"),
                       help="the HTTPS certificate (PEM chain) to serve; with --tls-key")
    serve.add_argument("--tls-key", metavar="FILE", default=_env("FAKES_TLS_KEY"),
                       help="the private key (PEM) of --tls-cert")
    serve.add_argument("--tls-dir", metavar="DIR", default=_env("FAKES_TLS_DIR"),
                       help="where the local CA that signs the generated certificate lives, made on first use and "
                            "reused (ca.pem to trust, ca-key.pem mode 0600; default $XDG_DATA_HOME/contract-fakes/tls, "
                            "else ~/.local/share/contract-fakes/tls)")
    serve.add_argument("--tls-name", action="append", default=_list_env("FAKES_TLS_NAMES"), metavar="NAME",
                       dest="tls_names",
                       help="a host name or address the generated certificate also holds (repeatable; it always "
                            "holds localhost, 127.0.0.1, ::1, --host, this machine's name, each served service's "
                            "name and <service>.localhost)")
    serve.add_argument("--forwarded-allow-ips", metavar="ADDRESSES", type=_forwarded,
                       default=_env("FAKES_FORWARDED_ALLOW_IPS", "127.0.0.1,::1"),
                       help="comma-separated addresses (or *) of proxies whose X-Forwarded-Proto and X-Forwarded-For "
                            "are believed: behind a TLS-terminating proxy the links a fake writes then say https "
                            "(default 127.0.0.1,::1: a proxy on this machine; none: nobody's)")
    serve.add_argument("--seed", type=_int, default=_env("FAKES_SEED", "0"), help="seed of all data (default 0)")
    serve.add_argument("--clock", default=_env("FAKES_CLOCK", "real"),
                       help="manual | real | scaled:FACTOR (default real)")
    serve.add_argument("--control-token", default=_env("FAKES_CONTROL_TOKEN"),
                       help="require Authorization: Bearer TOKEN on /_fake/ calls")
    serve.add_argument("--allowed-hosts", type=_hosts, default=_env("FAKES_ALLOWED_HOSTS", ""), metavar="NAMES",
                       help="names the control plane answers besides loopback names, IP addresses, the services' "
                            "names and --host: comma-separated, *.domain for subdomains, * for any (else 421; "
                            "docs/hardening.md)")
    serve.add_argument("--allowed-origins", type=_origins, default=_env("FAKES_ALLOWED_ORIGINS", ""),
                       metavar="ORIGINS", help="browser origins (scheme://host[:port], comma-separated) that may "
                                               "use the control plane besides the fake's own (else 403)")
    serve.add_argument("--prefix", action="append", default=_list_env("FAKES_PREFIXES"), metavar="SVC=/path",
                       help="mount a service under a path prefix (repeatable)")
    serve.add_argument("--set", action="append", default=[], metavar="SVC.KEY=VALUE", dest="settings",
                       help="a service setting (repeatable); see `fakes list --settings`")
    serve.add_argument("--journal-size", type=_positive_int, default=_env("FAKES_JOURNAL_SIZE", "1000"),
                       help="requests kept per fake in the journal (default 1000)")
    serve.add_argument("--journal-body-bytes", type=_journal_bytes, metavar="N",
                       default=_env("FAKES_JOURNAL_BODY_BYTES", str(DEFAULT_BODY_BYTES)),
                       help=f"longest request or answer body a journal entry keeps; a longer one is cut, its length "
                            f"kept (default {DEFAULT_BODY_BYTES}; 0: no bodies)")
    serve.add_argument("--journal-bytes", type=_journal_bytes, metavar="N",
                       default=_env("FAKES_JOURNAL_BYTES", str(DEFAULT_JOURNAL_BYTES)),
                       help=f"what one journal (of a fake, of a world) keeps at most: entries, their headers and "
                            f"bodies; the oldest entries' headers and bodies go first, then the oldest entries "
                            f"(default {DEFAULT_JOURNAL_BYTES}; 0: no headers and bodies)")
    serve.add_argument("--journal-total-bytes", type=_journal_bytes, metavar="N",
                       default=_env("FAKES_JOURNAL_TOTAL_BYTES", str(DEFAULT_TOTAL_BYTES)),
                       help=f"what every journal of the server (all fakes, all worlds) keeps together at most; past "
                            f"it the largest journals shed their oldest entries (default {DEFAULT_TOTAL_BYTES}, "
                            f"256 MiB; 0: no such budget)")
    serve.add_argument("--journal-keep-secrets", action="store_const", const="1",
                       default=_env("FAKES_JOURNAL_KEEP_SECRETS"),
                       help="show credentials in the journal as sent (default: Authorization, cookies, tokens, "
                            "keys and the services' secret fields are [redacted]; the variable takes 1 or 0)")
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
    serve.add_argument("--max-header-bytes", type=_header_bytes, metavar="N",
                       default=_env("FAKES_MAX_HEADER_BYTES", str(DEFAULT_MAX_HEADER_BYTES)),
                       help=f"largest request line and headers of a request (default {DEFAULT_MAX_HEADER_BYTES}, "
                            f"64 KiB); more is a 431 and the connection is closed")
    serve.add_argument("--body-timeout", type=_timeout, metavar="SECONDS",
                       default=_env("FAKES_BODY_TIMEOUT", str(DEFAULT_BODY_TIMEOUT_S)),
                       help="longest pause within a request body (default 30); else 408 and close")
    serve.add_argument("--state", metavar="DIR", default=_env("FAKES_STATE"),
                       help="load the states in DIR at start: <service>.json and <service>/worlds/<id>.json, as "
                            "GET /_fake/state exports them; a bad file stops the start (docs/docker-and-ci.md)")
    serve.add_argument("--save-state", metavar="DIR", default=_env("FAKES_SAVE_STATE"),
                       help="on stop (Ctrl-C, SIGTERM) write every fake's and world's state to DIR in that layout "
                            "(may be the --state DIR: the fakes then keep their state across restarts)")
    serve.add_argument("--save-state-every", type=_non_negative_float, metavar="SECONDS",
                       default=_env("FAKES_SAVE_STATE_EVERY", "0"),
                       help="also save what changed to the --save-state DIR every SECONDS while serving, so that "
                            "a killed process (SIGKILL, out of memory) loses at most that much (default 0: on stop "
                            "only; docs/fleet.md)")
    serve.add_argument("--wiremock-mappings", action="append", default=_list_env("FAKES_WIREMOCK_MAPPINGS"),
                       metavar="[SVC=]DIR",
                       help="load WireMock's JSON stub mappings in DIR as stubs (repeatable): SVC=DIR for one "
                            "service; a bare DIR for the one service served, or DIR/<service>/ for each; a mapping "
                            "that cannot be translated is named with why (docs/testing.md, WireMock)")
    serve.add_argument("--log-level", type=_log_level, metavar="LEVEL", default=_env("FAKES_LOG_LEVEL", "warning"),
                       help="critical | error (also a fake's own failure behind a 500) | warning (default: also "
                            "uvicorn's warnings, such as an invalid HTTP request) | info (as warning) | debug (also "
                            "one line per request, as --log-requests) | trace (also each connection and every ASGI "
                            "message)")
    serve.add_argument("--log-requests", action="store_const", const="1", default=_env("FAKES_LOG_REQUESTS"),
                       help="print one line per request: time, service, world, method, path, status, "
                            "milliseconds (the variable takes 1 or 0)")
    for action in serve._actions:
        variable = serve_variable(action.dest)
        if variable is not None and action.help:
            action.help += f" [env: {variable}]"

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


#: the variables of the flags whose name does not spell them (FAKES_ + the flag in capitals)
_VARIABLE_OF = {"prefix": "FAKES_PREFIXES", "silence_rules": "FAKES_SILENCE_RULES", "tls_names": "FAKES_TLS_NAMES",
                "settings": "FAKES_<SERVICE>_<KEY>", "help": None}


def serve_variable(dest: str) -> str | None:
    """The environment variable of a `fakes serve` option (by its ``dest``)."""
    return _VARIABLE_OF.get(dest, "FAKES_" + dest.upper())


def package_version() -> str:
    """The installed distribution's version (a bare checkout on PYTHONPATH has none)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("contract-fakes")
    except PackageNotFoundError:
        return "(not installed: a checkout)"


#: subcommands handed whole to the scenarios package (docs/testing.md, docs/benchmark.md) and to
#: fakes.conform (docs/conformance.md; imported by name: the kernel knows nothing of it)
DELEGATED = {
    "scenarios": "list or run the scenario scripts against a fake or the real service",
    "bench": "benchmark the fakes (HTTP, in process, start-up, scale, worlds, operations)",
    "conform": "compare a fake with the real service: scenarios and the API document on both, a drift report",
    "record": "serve a recording proxy to the real service; writes a cassette of the session",
    "replay": "replay a cassette against a fresh fake and report where its answers differ",
}
CONFORM_COMMANDS = ("conform", "record", "replay")


def _int(text: str) -> int:
    return ascii_int(text)  # ASCII digits only (int() also takes '٣' and '1_000')


_int.__name__ = "int"  # argparse's message: "invalid int value: 'abc'"


def _port(text: str) -> int:
    value = ascii_int(text)
    if not 1 <= value <= MAX_PORT:
        raise argparse.ArgumentTypeError(f"a port is from 1 to {MAX_PORT}, got {value}")
    return value


def _forwarded(text: str) -> str:
    items = [item.strip() for item in text.split(",") if item.strip()]
    if items == ["none"] or items == ["*"]:
        return items[0]
    for item in items:
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise argparse.ArgumentTypeError(f"takes IP addresses or networks, * or none, got {item!r}") from None
    if not items:
        raise argparse.ArgumentTypeError("takes IP addresses or networks, * or none")
    return ",".join(items)


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


def _header_bytes(text: str) -> int:
    value = ascii_int(text)
    try:
        return check_header_bytes(value, "the header cap")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("the header cap ")) from None


def _journal_bytes(text: str) -> int:
    value = ascii_int(text)
    if not 0 <= value <= MAX_JOURNAL_BYTES:
        raise argparse.ArgumentTypeError(f"must be from 0 to {MAX_JOURNAL_BYTES} bytes, got {value}")
    return value


def _hosts(text: str) -> list[str]:
    try:
        return [check_host_entry(entry) for entry in split_list(text)]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _origins(text: str) -> list[str]:
    try:
        return [check_origin_entry(entry) for entry in split_list(text)]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


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
    except (CliError, SettingsError, ClockError, registry.UnknownService, StateFileError) as exc:
        print(f"fakes: error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    except CannotListen as exc:
        print(f"fakes: error: {exc.strerror}" + (f" ({exc.hint})" if exc.hint else ""), file=sys.stderr)
        return 2


def run_delegated(command: str, argv: Sequence[str]) -> int:
    """`fakes scenarios ...` / `fakes bench ...`: the scenarios package's own command line;
    `fakes conform | record | replay ...`: fakes.conform's."""
    if command in CONFORM_COMMANDS:
        return int(importlib.import_module("fakes.conform.cli").main(command, list(argv)))
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


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
