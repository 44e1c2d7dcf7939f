"""Single-port mode: one ASGI app in front of several fakes, like LocalStack's edge port.

A request reaches a fake by path prefix (``/filings/companies/``) or by the first label of its
``Host`` header (``filings.localhost:4566/companies/``, or a compose service alias).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from starlette.types import ASGIApp, Receive, Scope, Send

from .access import ControlAccess
from .dashboard import GATEWAY_ROOT, gateway_index
from .errors import control_error_body
from .http import json_response
from .token import control_allowed, control_unauthorized

HOST_ROUTED = "fakes.host_routed"


class GatewayFake(Protocol):
    """What the gateway uses of each fake behind it: its prefix, its control token, its app."""

    @property
    def prefix(self) -> str: ...

    @property
    def control_token(self) -> str | None: ...

    @property
    def access(self) -> ControlAccess: ...

    @property
    def app(self) -> ASGIApp: ...


class GatewayApp:
    """``control_token``: what the gateway's own ``/`` and ``/_fake/health`` need (default: the
    fakes' token, which ``fakes serve`` gives all of them). Its own routes answer the hosts and
    origins its fakes' control planes answer (fakes/kernel/access.py), and every fake's name."""

    def __init__(self, fakes: Mapping[str, GatewayFake], control_token: str | None = None) -> None:
        self.fakes = fakes
        self.control_token = control_token or next(
            (fake.control_token for fake in fakes.values() if fake.control_token), None)
        first = next(iter(fakes.values()), None)
        self.access = ControlAccess(names=fakes) if first is None else first.access.with_names(fakes)
        # longest prefix first, so /api/mx wins over /api
        self.by_prefix = sorted(((fake.prefix, fake) for fake in fakes.values()), key=lambda p: -len(p[0]))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        fake = self._by_host(scope)
        if fake is not None:
            await fake.app({**scope, HOST_ROUTED: True}, receive, send)
            return
        path: str = scope["path"]
        for prefix, candidate in self.by_prefix:
            if path == prefix or path.startswith(prefix + "/"):
                scope[GATEWAY_ROOT] = "/"  # the fake's dashboard links back to this port's list
                await candidate.app(scope, receive, send)
                return
        refused = self.access.refusal(scope, path)  # a foreign Host or Origin
        if refused is not None:
            await json_response(control_error_body(refused), refused.status)(scope, receive, send)
            return
        allowed = control_allowed(self.control_token, scope, path)
        if path in ("/", "/_fake/health"):
            if not allowed:
                await control_unauthorized(scope, receive, send)
                return
            if path == "/" and _wants_html(scope):  # a browser: every service's dashboard, linked
                await gateway_index(self.dashboards())(scope, receive, send)
                return
            await json_response(self.describe())(scope, receive, send)
            return
        refusal: dict[str, Any] = {"error": "not_found", "message": f"no fake serves {path}"}
        if allowed:  # the list of services is the gateway's description: with a token, for its holders
            refusal["services"] = self.describe()["services"]
        await json_response(refusal, 404)(scope, receive, send)

    def _by_host(self, scope: Scope) -> GatewayFake | None:
        for name, value in scope.get("headers", ()):
            if name == b"host":
                label = value.decode("latin-1").split(":", 1)[0].split(".", 1)[0]
                return self.fakes.get(label)
        return None

    def describe(self) -> dict[str, Any]:
        return {"service": "gateway", "status": "ok",
                "services": {name: fake.prefix for name, fake in self.fakes.items()},
                "dashboards": self.dashboards()}

    def dashboards(self) -> dict[str, str]:
        """Each service's dashboard page, by path on this port."""
        return {name: f"{fake.prefix}/_fake/ui" for name, fake in self.fakes.items()}


def _wants_html(scope: Scope) -> bool:
    for name, value in scope.get("headers", ()):
        if name == b"accept":
            return b"text/html" in value
    return False
