"""HEALTHCHECK of the contract-fakes image: GET /_fake/health on every port `fakes serve` listens on.

It reads the same FAKES_* environment as `fakes serve` and accepts the same flags, so it follows
FAKES_ONLY, FAKES_PORT, FAKES_GATEWAY, FAKES_HOST and FAKES_CONTROL_TOKEN. A container started
with flags instead of variables passes them here too, e.g. in compose:
``healthcheck: {test: ["CMD", "python", "/opt/fakes/healthcheck.py", "--only", "filings"]}``.

Prints one line per URL and exits 0 when every one answers 200, else 1 (Docker's convention).
"""

from __future__ import annotations

import sys
import urllib.error
import urllib.request
from collections.abc import Sequence

HEALTH_PATH = "/_fake/health"
TIMEOUT_S = 3.0


def health_urls(argv: Sequence[str] = ()) -> tuple[list[str], str | None]:
    """The health URLs of a `fakes serve` started with these flags and this environment."""
    from fakes import registry
    from fakes.kernel.cli import build_parser, select_services

    args = build_parser().parse_args(["serve", *argv])
    host = probe_host(args.host)
    if args.gateway is not None:
        ports = [args.gateway]
    else:
        names = select_services(args.only)
        ports = [args.port + offset if args.port is not None else registry.fake_class(name).default_port
                 for offset, name in enumerate(names)]
    return [f"http://{host}:{port}{HEALTH_PATH}" for port in ports], args.control_token or None


def probe_host(host: str) -> str:
    """Where to connect for a server bound to ``host`` (a wildcard address means this machine)."""
    if host in ("", "0.0.0.0"):
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host


def probe(url: str, token: str | None) -> str | None:
    """None when ``url`` answers 200, else what went wrong."""
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            status = response.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    except OSError as exc:
        return str(getattr(exc, "reason", exc))
    return None if status == 200 else f"HTTP {status}"


def main(argv: Sequence[str] | None = None) -> int:
    try:
        urls, token = health_urls(sys.argv[1:] if argv is None else argv)
    except SystemExit:  # argparse already printed why
        return 1
    except Exception as exc:  # a bad FAKES_* value: say so, count as unhealthy
        print(f"unhealthy: {exc}")
        return 1
    healthy = True
    for url in urls:
        problem = probe(url, token)
        print(f"ok {url}" if problem is None else f"unhealthy {url}: {problem}")
        healthy = healthy and problem is None
    return 0 if healthy else 1


if __name__ == "__main__":
    sys.exit(main())
