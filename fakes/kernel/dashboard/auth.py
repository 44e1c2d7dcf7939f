"""How a browser passes the control token: once (a login form or ``?token=``), then a cookie.

The cookie is HttpOnly and SameSite=Strict; its name and value are digests of the token, so two
fakes with different tokens on one host (cookies ignore ports) never overwrite each other's, and
the token itself is not what the browser keeps. A request the cookie authorises that changes
something (any method but GET and HEAD) must also carry ``X-Fakes-UI: 1``: a page of another site
or port cannot send that header without a CORS preflight the fake never grants, so the cookie is no
way into the control plane for anyone but the dashboard's own scripts.
"""

from __future__ import annotations

import hashlib
import hmac
from functools import lru_cache

from starlette.requests import cookie_parser
from starlette.types import Scope

COOKIE_PREFIX = "fakes_ui_"
UI_HEADER = b"x-fakes-ui"
#: the dashboard's own paths that answer without the token (they hold no data: the page shell and
#: its assets, the login form); every other /_fake/ path still needs the token or the cookie
PUBLIC_PATHS = frozenset({"/_fake/ui", "/_fake/ui/", "/_fake/ui/login"})
ASSETS_PREFIX = "/_fake/ui/assets/"
SAFE_METHODS = frozenset({"GET", "HEAD"})


@lru_cache(maxsize=16)
def cookie_pair(token: str) -> tuple[str, str]:
    """(cookie name, cookie value) standing for ``token``."""
    digest = hashlib.sha256(b"contract-fakes dashboard\0" + token.encode()).hexdigest()
    return COOKIE_PREFIX + digest[:12], digest


def set_cookie_header(token: str, *, secure: bool) -> str:
    name, value = cookie_pair(token)
    return f"{name}={value}; Path=/; HttpOnly; SameSite=Strict" + ("; Secure" if secure else "")


def has_cookie(scope: Scope, token: str) -> bool:
    name, value = cookie_pair(token)
    for header, raw in scope.get("headers", ()):
        if header == b"cookie":
            sent = cookie_parser(raw.decode("latin-1")).get(name)
            if sent is not None and hmac.compare_digest(sent, value):
                return True
    return False


def same_token(offered: str | None, token: str) -> bool:
    """Whether ``offered`` is ``token``, in time that does not depend on where they differ."""
    return offered is not None and hmac.compare_digest(offered.encode("utf-8", "surrogateescape"),
                                                       token.encode("utf-8", "surrogateescape"))


def is_public_dashboard_path(path: str) -> bool:
    """The dashboard's page shell, its assets and its login form: they answer anyone."""
    return path in PUBLIC_PATHS or path.startswith(ASSETS_PREFIX)


def dashboard_allows(scope: Scope, path: str, token: str) -> bool:
    """Whether a control-plane request without the bearer token may go on: the dashboard's public
    paths (they check the cookie themselves), or the dashboard's cookie (plus ``X-Fakes-UI`` on a
    request that changes something)."""
    if is_public_dashboard_path(path):
        return True
    if not has_cookie(scope, token):
        return False
    return scope["method"] in SAFE_METHODS or any(name == UI_HEADER for name, _ in scope.get("headers", ()))
