"""Who may reach the control plane, and from where: the checks a web page cannot pass.

Without a control token (the default of ``fakes serve`` and the image) anyone who can open a
connection may drive a fake, and a web page the user opens can: a form or a ``no-cors`` fetch of
another origin sends a request without asking (no CORS preflight), and a name the attacker's DNS
points at 127.0.0.1 (DNS rebinding) makes the browser treat the fake as the attacker's own site.
So every control-plane request (``/_fake/...`` of every fake, world and the gateway's own routes)
passes three checks before anything else, token or not:

- **Host**: a name the fake serves: loopback names and any IP address (an address cannot be
  rebound), the fake's own service name (a compose service or alias), the names in
  ``--allowed-hosts`` (``FAKES_ALLOWED_HOSTS``; ``*.example.com`` for subdomains, ``*`` for any),
  and the ``--host`` name. Otherwise 421.
- **Origin**: when a browser sends one, the fake's own (the Host's) or one of
  ``--allowed-origins`` (``FAKES_ALLOWED_ORIGINS``). Otherwise 403.
- **Body type**: a request that may change something (not GET/HEAD) with a ``Content-Type``
  declares JSON (``application/json``, ``application/*+json``): what a form or a no-cors fetch
  can send (``text/plain``, urlencoded, multipart) is refused with 415. The dashboard's login
  form is the one exception (its check is the Origin).

Nothing here runs for the public API (clients of any name reach it as before), nor for calls in
process (``fake.client()``, ``local_app``: no browser can make them), which carry
:data:`IN_PROCESS` in their scope.
"""

from __future__ import annotations

import copy
import ipaddress
import os
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.types import Scope

from .errors import ControlError

#: the scope entry of a request made in process (fakes/kernel/transport.py, ``Fake.local_app``)
IN_PROCESS = "fakes.in_process"
HOSTS_ENV = "FAKES_ALLOWED_HOSTS"
ORIGINS_ENV = "FAKES_ALLOWED_ORIGINS"
#: names every fake answers besides loopback and IP addresses: the in-process client's base URL,
#: the names a container reaches its host by, and the image's compose services (docker/compose.yaml)
DEFAULT_NAMES = frozenset({"localhost", "testserver", "host.docker.internal", "host.containers.internal",
                           "gateway.docker.internal", "fakes", "contract-fakes", "gateway"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: control paths that take a browser's form on purpose (their own check is the Origin)
FORM_PATHS = frozenset({"/_fake/ui/login"})
DEFAULT_PORTS = {"http": 80, "https": 443}


def split_list(value: Iterable[str] | str | None) -> list[str]:
    if value is None:
        return []
    items = value.split(",") if isinstance(value, str) else list(value)
    return [item.strip() for item in items if item and item.strip()]


def check_host_entry(entry: str) -> str:
    """One ``--allowed-hosts`` entry, lower case: a name, ``*.suffix``, ``*`` or an address."""
    name = entry.strip().lower()
    if name == "*":
        return name
    wildcard = name.startswith("*.")
    bare = (name[2:] if wildcard else name).rstrip(".")
    if not bare or any(c in bare for c in "/:@ *[]?#") or bare.startswith("."):
        raise ValueError(f"allowed host {entry!r} is not a host name (a name, *.domain, or *); "
                         "a port is not part of it")
    return ("*." if wildcard else "") + bare


def check_origin_entry(entry: str) -> str:
    """One ``--allowed-origins`` entry: ``scheme://host[:port]`` (or ``*``), as a browser writes it."""
    origin = entry.strip().rstrip("/").lower()
    if origin == "*":
        return origin
    parts = urlsplit(origin)
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname or parts.path or parts.query or parts.username:
        raise ValueError(f"allowed origin {entry!r} is not an origin such as https://fakes.example.com:8443")
    return origin


def _header(scope: Scope, wanted: bytes) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == wanted:
            text: str = value.decode("latin-1")
            return text
    return None


def _split_host(host: str) -> tuple[str, int | None]:
    """(name, port or None) of a Host header or an origin's authority."""
    host = host.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        name, rest = host[1:end] if end > 0 else host, host[end + 1:] if end > 0 else ""
        port = rest[1:] if rest.startswith(":") else ""
    else:
        name, _, port = host.partition(":")
    return name.rstrip("."), int(port) if port.isascii() and port.isdigit() and len(port) <= 5 else None


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class ControlAccess:
    """The Host, Origin and body-type checks of one fake's control plane (shared by its worlds).

    ``hosts`` and ``origins`` default to the environment (``FAKES_ALLOWED_HOSTS``,
    ``FAKES_ALLOWED_ORIGINS``, comma-separated); ``names`` are the fake's own names (its
    service's, which a compose service or alias may carry)."""

    def __init__(self, hosts: Iterable[str] | str | None = None, origins: Iterable[str] | str | None = None, *,
                 names: Iterable[str] = ()) -> None:
        entries = [check_host_entry(h) for h in split_list(os.environ.get(HOSTS_ENV) if hosts is None else hosts)]
        self.any_host = "*" in entries
        self.names = DEFAULT_NAMES | {n.lower() for n in names} | {e for e in entries if not e.startswith("*")}
        self.suffixes = tuple(e[1:] for e in entries if e.startswith("*."))
        allowed = [check_origin_entry(o) for o in split_list(os.environ.get(ORIGINS_ENV) if origins is None
                                                               else origins)]
        self.any_origin = "*" in allowed
        self.origins = frozenset(allowed)

    def with_names(self, names: Iterable[str]) -> ControlAccess:
        """The same checks, answering ``names`` too (the gateway: each of its fakes' names)."""
        widened = copy.copy(self)
        widened.names = self.names | {n.lower() for n in names}
        return widened

    def host_allowed(self, host: str | None) -> bool:
        if host is None or self.any_host:
            return True  # no Host: HTTP/1.0 or an ASGI caller, never a browser
        name, _ = _split_host(host)
        return (name in self.names or name.endswith(".localhost") or name.endswith(self.suffixes)
                or _is_address(name))

    def origin_allowed(self, origin: str, host: str | None) -> bool:
        """Whether a browser's ``Origin`` is the fake's own (the same host and port as the
        request's Host) or an allowed one; ``null`` (a sandboxed or privacy-minded page) is not."""
        origin = origin.strip().lower()
        if self.any_origin or origin in self.origins:
            return True
        parts = urlsplit(origin)
        if parts.scheme not in DEFAULT_PORTS or not parts.hostname or host is None:
            return False
        name, port = _split_host(host)
        try:
            origin_port = parts.port or DEFAULT_PORTS[parts.scheme]
        except ValueError:
            return False
        # a Host without a port (a proxy on 80/443 in front) names no port to compare
        return parts.hostname.rstrip(".") == name and (port is None or port == origin_port)

    def refusal(self, scope: Scope, path: str) -> ControlError | None:
        """Why a control-plane request to ``path`` (below the fake's base) is refused, or None."""
        if scope.get(IN_PROCESS):
            return None
        host = _header(scope, b"host")
        if not self.host_allowed(host):
            return ControlError(421, f"this fake does not serve the host {host!r}: its control plane answers "
                                     f"loopback names, IP addresses and the names in --allowed-hosts "
                                     f"({HOSTS_ENV}); add the name you reach it by there", code="unknown_host")
        origin = _header(scope, b"origin")
        # a same-origin form under a no-referrer policy (the dashboard's login) says "null": the
        # browser's own Sec-Fetch-Site, which no page can set, tells it apart
        if (origin is not None and not self.origin_allowed(origin, host)
                and _header(scope, b"sec-fetch-site") != "same-origin"):
            return ControlError(403, f"a page of another origin ({origin}) may not use this fake's control plane; "
                                     f"allow it with --allowed-origins ({ORIGINS_ENV})", code="foreign_origin")
        if scope["method"] not in SAFE_METHODS and path not in FORM_PATHS:
            kind = _header(scope, b"content-type")
            if kind is not None and not is_json(kind):
                return ControlError(415, f"the control plane takes JSON bodies: send Content-Type: "
                                         f"application/json (curl: --json, or -H 'Content-Type: application/json'), "
                                         f"not {kind.split(';', 1)[0].strip()!r}", code="unsupported_media_type")
        return None


def is_json(content_type: str) -> bool:
    kind = content_type.split(";", 1)[0].strip().lower()
    return kind == "application/json" or (kind.startswith("application/") and kind.endswith("+json"))
