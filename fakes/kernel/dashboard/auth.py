"""How a browser passes the control token: once (a login form or ``?token=``), then a session cookie.

Signing in opens a **session** of the fake: a random id (32 bytes from :mod:`secrets`) that the
fake keeps with an expiry, at most :data:`MAX_SESSIONS` at a time (the oldest goes first); the
cookie carries that id, never the token or anything derived from it. The cookie is HttpOnly,
SameSite=Strict, scoped to the fake's base path, lives as long as the session, and its name is
the fake's own (random per fake): another fake on the same host (cookies ignore ports) never
overwrites it, and a cookie it receives from another fake opens nothing here. A fake's worlds share
its sessions. A request the cookie authorises that changes something (any method but GET and HEAD)
must also carry ``X-Fakes-UI: 1``: a page of another site or port cannot send that header without a
CORS preflight the fake never grants.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections.abc import Callable

from starlette.requests import cookie_parser
from starlette.types import Scope

COOKIE_PREFIX = "fakes_ui_"
UI_HEADER = b"x-fakes-ui"
#: the dashboard's own paths that answer without the token (they hold no data: the page shell and
#: its assets, the login form); every other /_fake/ path still needs the token or the cookie
PUBLIC_PATHS = frozenset({"/_fake/ui", "/_fake/ui/", "/_fake/ui/login"})
ASSETS_PREFIX = "/_fake/ui/assets/"
SAFE_METHODS = frozenset({"GET", "HEAD"})
#: how long a session lasts after its sign-in (then the page asks for the token again)
SESSION_SECONDS = 8 * 3600
#: sessions one fake keeps (a new sign-in past it ends the oldest)
MAX_SESSIONS = 32


class DashboardSessions:
    """The signed-in browsers of one fake and its worlds: session id -> expiry (wall seconds).

    Holds nothing until the first sign-in (the cookie's name is drawn then too)."""

    __slots__ = ("_lock", "_name", "_sessions", "_wall", "limit", "seconds")

    def __init__(self, *, seconds: float = SESSION_SECONDS, limit: int = MAX_SESSIONS,
                 wall: Callable[[], float] = time.time) -> None:
        self.seconds = seconds
        self.limit = limit
        self._wall = wall
        self._name: str | None = None
        self._sessions: dict[str, float] | None = None
        self._lock = threading.Lock()

    @property
    def cookie_name(self) -> str:
        if self._name is None:
            self._name = COOKIE_PREFIX + secrets.token_hex(6)
        return self._name

    def __len__(self) -> int:
        return len(self._sessions or {})

    def open(self) -> str:
        """A new session: its id, valid for :attr:`seconds`."""
        session = secrets.token_urlsafe(32)
        now = self._wall()
        with self._lock:
            if self._sessions is None:
                self._sessions = {}
            for old in [s for s, expiry in self._sessions.items() if expiry <= now]:
                del self._sessions[old]
            while len(self._sessions) >= self.limit:
                del self._sessions[next(iter(self._sessions))]  # the oldest sign-in
            self._sessions[session] = now + self.seconds
        return session

    def valid(self, session: str | None) -> bool:
        if session is None or not self._sessions:
            return False
        expiry = self._sessions.get(session)
        if expiry is None:
            return False
        if expiry <= self._wall():
            with self._lock:
                self._sessions.pop(session, None)
            return False
        return True

    def carried_by(self, scope: Scope) -> bool:
        """Whether the request carries the cookie of a live session of this fake."""
        if not self._sessions:
            return False
        name = self.cookie_name
        for header, raw in scope.get("headers", ()):
            if header == b"cookie" and self.valid(cookie_parser(raw.decode("latin-1")).get(name)):
                return True
        return False

    def set_cookie_header(self, session: str, *, path: str, secure: bool) -> str:
        return (f"{self.cookie_name}={session}; Path={path}; Max-Age={int(self.seconds)}; HttpOnly; "
                "SameSite=Strict" + ("; Secure" if secure else ""))


def sessions_of(scope: Scope) -> DashboardSessions | None:
    """The sessions of the fake a request reached (``scope["app"]``), if it keeps any."""
    sessions = getattr(scope.get("app"), "dashboard_sessions", None)
    return sessions if isinstance(sessions, DashboardSessions) else None


def same_token(offered: str | None, token: str) -> bool:
    """Whether ``offered`` is ``token``, in time that does not depend on where they differ."""
    return offered is not None and hmac.compare_digest(offered.encode("utf-8", "surrogateescape"),
                                                       token.encode("utf-8", "surrogateescape"))


def is_public_dashboard_path(path: str) -> bool:
    """The dashboard's page shell, its assets and its login form: they answer anyone."""
    return path in PUBLIC_PATHS or path.startswith(ASSETS_PREFIX)


def has_session(scope: Scope) -> bool:
    sessions = sessions_of(scope)
    return sessions is not None and sessions.carried_by(scope)


def dashboard_allows(scope: Scope, path: str) -> bool:
    """Whether a control-plane request without the bearer token may go on: the dashboard's public
    paths (they check the cookie themselves), or a session's cookie (plus ``X-Fakes-UI`` on a
    request that changes something)."""
    if is_public_dashboard_path(path):
        return True
    if not has_session(scope):
        return False
    return scope["method"] in SAFE_METHODS or any(name == UI_HEADER for name, _ in scope.get("headers", ()))
