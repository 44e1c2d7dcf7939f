"""`fakes serve`: the fakes a command line asks for, served until SIGINT or SIGTERM.

Builds the fakes (settings, prefixes, caps, journal bounds), loads a state directory
(``--state``), binds every port (or the gateway's) before anything is printed, logs (``--log-level``,
``--log-requests``), serves, and on stop saves the states (``--save-state``) and prints the client
verdicts. The flags themselves are parsed in :mod:`fakes.kernel.cli`.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import logging
import os
import signal
import socket
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from .. import registry
from . import journalpool, requestlog
from .autosave import save_periodically
from .clock import Clock, ClockError, parse_clock_spec
from .fake import Fake
from .gateway import GatewayApp
from .journal import parse_switch
from .protocol import ReadTimeouts
from .server import Listener, bind_socket, serve_until, settle_startup_objects, stack_description
from .server import run as run_on_fast_loop
from .settings import SettingsError, env_prefix, unknown_variables
from .statedir import check_writable, load_states, save_states
from .tls import ServerCertificate, TLSError, given_certificate, local_certificate
from .verdicts import check_owners, serve_summary
from .wiremock import MappingsFolderError
from .wiremockdirs import load_mappings, mapping_folders
from .worlds import DEFAULT_MAX_WORLDS

MAX_PORT = 65_535


class CliError(Exception):
    """A bad flag value: printed as one line, exit status 2."""


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
    world_idle_expiry: float | None = None, body_caps: dict[str, Any] | None = None,
    journal: dict[str, Any] | None = None, access: dict[str, Any] | None = None,
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
                max_worlds=max_worlds, world_idle_expiry=world_idle_expiry, **(body_caps or {}), **(journal or {}),
                **(access or {}),
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
    "FAKES_MAX_STATE_BYTES", "FAKES_HEADER_TIMEOUT", "FAKES_BODY_TIMEOUT", "FAKES_JOURNAL_BODY_BYTES",
    "FAKES_JOURNAL_BYTES", "FAKES_JOURNAL_KEEP_SECRETS", "FAKES_ALLOWED_HOSTS", "FAKES_ALLOWED_ORIGINS",
    "FAKES_HTTPS", "FAKES_HTTPS_PORT", "FAKES_TLS_CERT", "FAKES_TLS_KEY", "FAKES_TLS_DIR", "FAKES_TLS_NAMES",
    "FAKES_FORWARDED_ALLOW_IPS", "FAKES_MAX_HEADER_BYTES", "FAKES_JOURNAL_TOTAL_BYTES",
    "FAKES_WIREMOCK_MAPPINGS"})


def _host_name(host: str) -> list[str]:
    """``--host`` when it is a name (an address is answered anyway): the control plane answers it."""
    name = host.strip("[]").lower()
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return [name] if name else []
    return []


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
    keep_secrets = _switch(args.journal_keep_secrets, "FAKES_JOURNAL_KEEP_SECRETS")
    log_requests = _switch(args.log_requests, "FAKES_LOG_REQUESTS") or args.log_level in ("debug", "trace")
    if args.gateway is None:
        for flag, first in (("--port", args.port), ("--https-port", args.https_port)):
            if first is not None and first + len(names) - 1 > MAX_PORT:
                last = first + len(names) - 1
                raise CliError(f"{flag} {first} puts {len(names)} services on ports {first}-{last}, past {MAX_PORT}: "
                               f"use {flag} {MAX_PORT - len(names) + 1} or lower, --only fewer services, or "
                               "--gateway PORT")
    https_only = _switch(args.https, "FAKES_HTTPS")
    certificate = serving_certificate(args, names, https_only)
    if args.save_state:
        check_writable(args.save_state)  # refused now, not after a day of serving
    if args.save_state_every and not args.save_state:
        raise CliError("--save-state-every (FAKES_SAVE_STATE_EVERY) saves to the --save-state directory: "
                       "give --save-state DIR (FAKES_SAVE_STATE) too")
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
                                  "max_state_bytes": args.max_state_bytes},
                       journal={"journal_body_bytes": args.journal_body_bytes, "journal_bytes": args.journal_bytes,
                                "journal_keep_secrets": keep_secrets},
                       access={"allowed_hosts": [*args.allowed_hosts, *_host_name(args.host)],
                               "allowed_origins": args.allowed_origins})
    journalpool.set_total_bytes(args.journal_total_bytes)  # every journal of the process together
    loaded = load_states(fakes, args.state, registry.service_names()) if args.state else []
    try:
        mapped = load_mappings(fakes, mapping_folders(args.wiremock_mappings or [], names, registry.service_names()))
    except MappingsFolderError as exc:
        raise CliError(str(exc)) from None
    registry.LIVE_FAKES.update(fakes)  # one fake may stand behind another in process (relay upstreams)

    bindings: list[Listener] = []
    lines = []
    restored = {item for item in loaded if "/" not in item}  # a default world loaded from a file
    context = certificate.context if certificate is not None else None
    scheme = "https" if https_only else "http"
    if args.gateway is not None:
        gateway = GatewayApp(fakes)
        bindings.append((gateway, bind_socket(args.host, args.gateway), context if https_only else None))
        if args.https_port is not None:
            bindings.append((gateway, bind_socket(args.host, args.https_port), context))
        for name, fake in fakes.items():
            lines.append(_banner(name, fake, f"{scheme}://{_shown_host(args.host)}:{args.gateway}{fake.prefix}",
                                 name in restored, _https_url(args.host, args.https_port, fake)))
    else:
        for offset, (name, fake) in enumerate(fakes.items()):
            port = args.port + offset if args.port is not None else fake.default_port
            bindings.append((fake.app, bind_socket(args.host, port), context if https_only else None))
            https_port = args.https_port + offset if args.https_port is not None else None
            if https_port is not None:
                bindings.append((fake.app, bind_socket(args.host, https_port), context))
            lines.append(_banner(name, fake, f"{scheme}://{_shown_host(args.host)}:{port}{fake.prefix}",
                                 name in restored, _https_url(args.host, https_port, fake)))
    print(f"contract-fakes: seed {args.seed}, clock {args.clock}"
          + (", control token required" if args.control_token else ""))
    if certificate is not None:
        print(_certificate_line(certificate))
    if args.state:
        print(f"state loaded from {args.state}: {', '.join(loaded) or 'no state file of these services'}")
    for line in lines:
        print(line)
    for line in mapped:
        print(line)
    print(f"serving on: {stack_description()}")
    if args.save_state:
        every = f", and every {args.save_state_every:g} s what changed" if args.save_state_every else ""
        print(f"on stop the states are saved to {args.save_state}{every}")
    print("Ctrl-C to stop.", flush=True)
    configure_logging(args.log_level)
    if log_requests:
        requestlog.enable()
    timeouts = ReadTimeouts(header_s=args.header_timeout, body_s=args.body_timeout, header_bytes=args.max_header_bytes)
    try:
        autosave = (fakes, args.save_state, args.save_state_every) if args.save_state_every else None
        run_on_fast_loop(_serve_forever(bindings, args.log_level, timeouts, args.forwarded_allow_ips, autosave))
    finally:
        requestlog.disable()
    status = 0
    if args.save_state:
        try:
            saved = save_states(fakes, args.save_state)
        except OSError as exc:
            print(f"fakes: error: cannot save the states to {args.save_state}: {exc.strerror or exc}", file=sys.stderr)
            status = 1
        else:
            print(f"states saved to {args.save_state}: {', '.join(saved)}")
    print(serve_summary(fakes), flush=True)  # what the clients broke, once the servers stopped
    return status


def _switch(value: str | None, variable: str) -> bool:
    """An on/off flag: ``"1"`` from the flag itself, else the variable's text (1/true/yes/on ...)."""
    try:
        return parse_switch(value or "", variable)
    except ValueError as exc:
        raise CliError(str(exc)) from None


#: `--log-level`: uvicorn's levels (its loggers) and the fakes' own (the ``fakes`` logger)
LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")
LOG = logging.getLogger("fakes")


def configure_logging(level: str) -> None:
    """The ``fakes`` logger at ``level`` on standard error, in uvicorn's line format (uvicorn sets
    up its own loggers from the same level)."""
    if not any(getattr(h, "_fakes_log", False) for h in LOG.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(levelname)s:     %(name)s: %(message)s"))
        handler._fakes_log = True  # type: ignore[attr-defined]
        LOG.addHandler(handler)
    LOG.setLevel(logging.DEBUG if level == "trace" else getattr(logging, level.upper()))


def _banner(name: str, fake: Fake, url: str, restored: bool = False, https_url: str | None = None) -> str:
    # a fake restored from a state has its clients' credentials; demo ones would only add records
    credentials = {"state": "loaded (its own credentials; no demo ones added)"} if restored else \
        fake.demo_credentials()
    also = f"\n    https: {https_url}" if https_url else ""
    creds = "".join(f"\n    {key}: {value}" for key, value in credentials.items())
    return f"  {name:<14} {url}   (control: {url}/_fake/health, dashboard: {url}/_fake/ui){also}{creds}"


def _shown_host(host: str) -> str:
    if host in ("0.0.0.0", ""):
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host


def _https_url(host: str, port: int | None, fake: Fake) -> str | None:
    return f"https://{_shown_host(host)}:{port}{fake.prefix}" if port is not None else None


# -- HTTPS ---------------------------------------------------------------------------------------
def serving_certificate(args: argparse.Namespace, names: Sequence[str], https_only: bool) -> ServerCertificate | None:
    """The certificate HTTPS serves (None: no HTTPS asked): ``--tls-cert``/``--tls-key``, else one
    signed by the local CA of ``--tls-dir`` for localhost, 127.0.0.1, ::1, ``--host``, this
    machine's name, the services' names (compose aliases) and ``<service>.localhost`` (the
    gateway's Host routing), and every ``--tls-name``."""
    wanted = https_only or args.https_port is not None
    given = [flag for flag, value in (("--tls-cert", args.tls_cert), ("--tls-key", args.tls_key),
                                      ("--tls-name", args.tls_names)) if value]
    if not wanted:
        if given:
            raise CliError(f"{given[0]} chooses the HTTPS certificate, but no HTTPS is served: add --https (HTTPS "
                           "instead of HTTP) or --https-port PORT (beside it)")
        return None
    if https_only and args.https_port is not None:
        raise CliError("--https serves HTTPS instead of HTTP on every port and --https-port beside it: use one")
    if bool(args.tls_cert) != bool(args.tls_key):
        raise CliError("--tls-cert and --tls-key go together: the certificate (PEM chain) and its private key")
    try:
        if args.tls_cert:
            if args.tls_names:
                raise CliError("--tls-name names what a generated certificate holds; --tls-cert gives your own")
            return given_certificate(args.tls_cert, args.tls_key)
        hosts = [args.host, _machine_name(), *names, *(f"{name}.localhost" for name in names), *args.tls_names]
        return local_certificate(args.tls_dir or None, hosts)
    except TLSError as exc:
        raise CliError(str(exc)) from None


def _machine_name() -> str:
    try:
        return socket.gethostname()
    except OSError:
        return ""


def _certificate_line(certificate: ServerCertificate) -> str:
    if certificate.ca_path is None:
        return "HTTPS with the certificate given (--tls-cert)"
    return (f"HTTPS with a certificate for {', '.join(certificate.names)}, signed by the local CA "
            f"{certificate.ca_path} (trust that file: httpx verify=, curl --cacert, SSL_CERT_FILE, "
            "NODE_EXTRA_CA_CERTS, or a browser's authorities)")


async def _serve_forever(bindings: list[Listener], log_level: str, timeouts: ReadTimeouts,
                         forwarded: str | None = None,
                         autosave: tuple[dict[str, Fake], str, float] | None = None) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    # --save-state-every: what changed is saved while serving, so a killed process loses little
    saving = asyncio.create_task(save_periodically(*autosave, stop)) if autosave else None
    settle_startup_objects()  # no request pays for a full collection over the fakes themselves
    try:
        await serve_until(bindings, stop, log_level, timeouts=timeouts, forwarded=forwarded)
    finally:
        stop.set()
        if saving is not None:
            await saving  # no periodic write may land after the final save on stop
