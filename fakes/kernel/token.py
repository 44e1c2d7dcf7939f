"""The control token (``--control-token``): who may use the control plane, and make worlds.

One check for every place that guards with it: a fake's ``/_fake/`` routes, a world's (checked
before the world is looked up, so a refused request creates nothing), and the gateway's own
``/`` and ``/_fake/health``. Tokens are compared in constant time.
"""

from __future__ import annotations

from starlette.types import Receive, Scope, Send

from .dashboard.auth import dashboard_allows, is_public_dashboard_path, same_token
from .http import json_response

__all__ = ["bearer_of", "control_allowed", "control_token_ok", "control_unauthorized", "is_public_dashboard_path",
           "same_token"]


def bearer_of(scope: Scope) -> str | None:
    """The token of the request's ``Authorization: Bearer`` header, or None."""
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            return token.strip() if scheme.lower() == "bearer" else None
    return None


def control_token_ok(token: str | None, scope: Scope) -> bool:
    """Whether a request may use what the control token guards (always, when there is none)."""
    return token is None or same_token(bearer_of(scope), token)


def control_allowed(token: str | None, scope: Scope, path: str) -> bool:
    """Whether a request to the control path ``path`` may go on: no token is set, it carries the
    token, or the dashboard's cookie stands for it (fakes/kernel/dashboard/auth.py)."""
    return token is None or same_token(bearer_of(scope), token) or dashboard_allows(scope, path)


async def control_unauthorized(scope: Scope, receive: Receive, send: Send) -> None:
    """The control plane's 401."""
    await json_response(
        {"error": "unauthorized", "message": "the control plane needs Authorization: Bearer <control token>"},
        401, {"WWW-Authenticate": "Bearer"})(scope, receive, send)
