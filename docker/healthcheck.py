"""HEALTHCHECK of the contract-fakes image: one plain HTTP probe, GET /_fake/health of the first
service `fakes serve` listens on, or of the gateway in single-port mode.

It imports nothing of the project (importing the fakes to learn their ports cost 0.2 s of CPU and
35 MB per probe), only urllib and argparse. The port comes from the variables (and flags) that
`fakes serve` reads: FAKES_GATEWAY, else FAKES_PORT, else the default port of the first service,
in `fakes list` order, that FAKES_ONLY names (all when empty). FAKES_HOST says where to connect
and FAKES_CONTROL_TOKEN is sent when set. With FAKES_HTTPS (HTTPS instead of HTTP) it probes over
HTTPS without checking the certificate: it asks whether this container's own server answers, not
whom to trust. One probe stands for all: `fakes serve` binds every port
before it serves any, and serves them all from one process. A container started with flags
instead of variables passes the same flags here, e.g. in compose:
``healthcheck: {test: ["CMD", "python", "/opt/fakes/healthcheck.py", "--only", "filings"]}``.

Prints one line and exits 0 when the answer is 200, else 1 (Docker's convention).
"""

from __future__ import annotations

import argparse
import os
import ssl
import sys
import urllib.error
import urllib.request
from collections.abc import Sequence

HEALTH_PATH = "/_fake/health"
TIMEOUT_S = 3.0
#: the image's services in `fakes list` order with their default ports (tests/docker checks this
#: against fakes.registry: a new service needs its line here, as in EXPOSE)
DEFAULT_PORTS = {"member-export": 8701, "filings": 8702, "enrichment": 8703, "relay": 8704, "video": 8705}


def health_url(argv: Sequence[str] = ()) -> tuple[str, str | None]:
    """The URL to probe and the control token, for a `fakes serve` with these flags and environment."""
    env = os.environ.get
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--only", default=env("FAKES_ONLY") or "")
    parser.add_argument("--host", default=env("FAKES_HOST") or "127.0.0.1")
    parser.add_argument("--port", default=env("FAKES_PORT") or None)
    parser.add_argument("--gateway", default=env("FAKES_GATEWAY") or None)
    parser.add_argument("--control-token", default=env("FAKES_CONTROL_TOKEN") or None)
    parser.add_argument("--https", action="store_const", const="1", default=env("FAKES_HTTPS") or "")
    args, _ = parser.parse_known_args(list(argv))  # other flags do not change where it listens
    if args.gateway is not None:
        port = int(args.gateway)
    elif args.port is not None:
        port = int(args.port)
    else:
        chosen = {name.strip() for name in args.only.split(",") if name.strip()}
        served = [name for name in DEFAULT_PORTS if not chosen or name in chosen]
        if not served:
            raise ValueError(f"FAKES_ONLY={args.only!r} names no service of this image")
        port = DEFAULT_PORTS[served[0]]
    scheme = "https" if args.https.strip().lower() in ("1", "true", "yes", "on") else "http"
    return f"{scheme}://{probe_host(args.host)}:{port}{HEALTH_PATH}", args.control_token


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
    context = None
    if url.startswith("https:"):  # this container's own server on loopback: liveness, not trust
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S, context=context) as response:
            status = response.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    except OSError as exc:
        return str(getattr(exc, "reason", exc))
    return None if status == 200 else f"HTTP {status}"


def main(argv: Sequence[str] | None = None) -> int:
    try:
        url, token = health_url(sys.argv[1:] if argv is None else argv)
    except ValueError as exc:  # a bad FAKES_* value: say so, count as unhealthy
        print(f"unhealthy: {exc}")
        return 1
    problem = probe(url, token)
    print(f"ok {url}" if problem is None else f"unhealthy {url}: {problem}")
    return 0 if problem is None else 1


if __name__ == "__main__":
    sys.exit(main())
