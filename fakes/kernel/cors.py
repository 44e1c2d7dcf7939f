"""Cross-origin answers (CORS) for the public routes a vendor serves to browsers.

A service opts in route by route, with the origins, request headers and exposed headers its
vendor allows (the kernel names no service): :meth:`CorsPolicy.route` for a plain route, or
:meth:`CorsPolicy.preflight` and :meth:`CorsPolicy.answer_headers` inside a service's own endpoint
wrapper. A preflight (``OPTIONS`` with ``Access-Control-Request-Method``) is answered at once,
before the service's rate limits and credentials, with a 204; every answer of an opted-in route,
errors included, carries ``Access-Control-Allow-Origin`` (and ``-Expose-Headers``). The control
plane (``/_fake/...``) never opts in: it stays closed to other origins.

With the default ``origins=("*",)`` the answer headers are constant bytes added to each answer
(no header is read); with a list of origins the request's ``Origin`` is echoed when listed, with
``Vary: Origin``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Scope

from .errors import ServiceError

#: request headers of the kernel a browser may send to any opted-in route (a world by header)
KERNEL_REQUEST_HEADERS = ("X-Fake-World",)
ANY_ORIGIN = "*"
Endpoint = Callable[[Request], Awaitable[Response]]


class CorsPolicy:
    """What an opted-in route answers to browsers of other origins."""

    def __init__(self, *, allow_headers: Iterable[str] = (), expose_headers: Iterable[str] = (),
                 origins: Sequence[str] = (ANY_ORIGIN,), max_age_s: int = 3600) -> None:
        self.origins = tuple(origins)
        self.any_origin = ANY_ORIGIN in self.origins
        headers = list(dict.fromkeys([*allow_headers, *KERNEL_REQUEST_HEADERS]))
        self.allow_headers = ", ".join(headers)
        self.expose_headers = ", ".join(expose_headers)
        self.max_age_s = max_age_s
        self._allowed = frozenset(origin.lower() for origin in self.origins)
        common = [(b"access-control-expose-headers", self.expose_headers.encode("latin-1"))] if self.expose_headers \
            else []
        self._any = [(b"access-control-allow-origin", b"*"), *common]
        self._common = common

    # -- per request -----------------------------------------------------------------------------
    @staticmethod
    def is_preflight(scope: Scope) -> bool:
        """An ``OPTIONS`` request a browser sends before a cross-origin one it may not send at once."""
        if scope["method"] != "OPTIONS":
            return False
        return any(name == b"access-control-request-method" for name, _ in scope["headers"])

    def answer_headers(self, scope: Scope) -> list[tuple[bytes, bytes]]:
        """The headers that let the requesting page read this answer (none for an origin not allowed)."""
        if self.any_origin:
            return self._any
        origin = _origin(scope)
        vary = [(b"vary", b"Origin")]
        if origin is None or origin.lower() not in self._allowed:
            return vary
        return [(b"access-control-allow-origin", origin.encode("latin-1")), *self._common, *vary]

    def preflight(self, scope: Scope, methods: Iterable[str]) -> Response:
        """The answer to a preflight of a route taking ``methods``: 204, nothing read or counted."""
        response = Response(status_code=204)
        allowed = self.answer_headers(scope)
        if any(name == b"access-control-allow-origin" for name, _ in allowed):
            response.raw_headers.extend([
                (b"access-control-allow-methods", ", ".join(m for m in methods if m != "OPTIONS").encode()),
                (b"access-control-allow-headers", self.allow_headers.encode("latin-1")),
                (b"access-control-max-age", str(self.max_age_s).encode()),
            ])
        response.raw_headers.extend(allowed)
        return response

    def refused(self, err: ServiceError, scope: Scope) -> ServiceError:
        """``err`` with the answer headers, so that the page can read the refusal too."""
        err.headers = {**err.headers, **{k.decode("latin-1"): v.decode("latin-1")
                                         for k, v in self.answer_headers(scope)}}
        return err

    # -- routes ----------------------------------------------------------------------------------
    def endpoint(self, endpoint: Endpoint, methods: Sequence[str]) -> Endpoint:
        """``endpoint`` answering preflights and giving every answer (errors too) the headers."""

        async def cross_origin(request: Request) -> Response:
            scope = request.scope
            if scope["method"] == "OPTIONS" and self.is_preflight(scope):
                return self.preflight(scope, methods)
            try:
                response = await endpoint(request)
            except ServiceError as err:
                self.refused(err, scope)
                raise
            response.raw_headers.extend(self.answer_headers(scope))
            return response

        return cross_origin

    def route(self, path: str, endpoint: Endpoint, methods: Sequence[str], **options: Any) -> Route:
        """A route of ``methods`` (and ``OPTIONS``, its preflight) answering other origins."""
        return Route(path, self.endpoint(endpoint, [*methods]), methods=[*methods, "OPTIONS"], **options)


def _origin(scope: Scope) -> str | None:
    for name, value in scope["headers"]:
        if name == b"origin":
            return value.decode("latin-1")  # type: ignore[no-any-return]
    return None


def check_origins(origins: Sequence[str]) -> str | None:
    """Why a list of allowed origins is wrong, or None: each is ``*`` or ``scheme://host[:port]``."""
    for origin in origins:
        if origin == ANY_ORIGIN:
            continue
        scheme, sep, rest = origin.partition("://")
        if scheme not in ("http", "https") or not sep or not rest or "/" in rest or " " in rest:
            return f"an origin is * or scheme://host[:port] without a path, got {origin!r}"
    return None
