"""The service router: Starlette's :class:`Router`, with its answer kept per (method, path).

Every request of every test passes here, and a test suite asks the same few paths again and
again. Starlette's router tries each route's regular expression in order and wraps each endpoint
call in a per-request exception-handler layer; the fake registers no Starlette exception handler
(:class:`fakes.kernel.app.FakeApp` renders every error in the service's own body), so that layer
only costs time. This router:

- remembers which plain :class:`Route` or :class:`Mount` fully matched a (method, root path, path),
  with its path parameters, and goes straight to it the next time (a router of a hundred routes
  otherwise tries each one's regular expression on every request to a mount) (a bounded table: past
  :data:`MAX_REMEMBERED` distinct paths it starts over, and a path longer than
  :data:`MAX_REMEMBERED_PATH` is matched every time, so no client can make it grow large);
- calls a function endpoint as ``await endpoint(RoutedRequest(...))`` (a Starlette ``Request``
  made without its constructor's assertions) then ``await response(...)``,
  without Starlette's exception wrapper (what the wrapper would do with no handler registered:
  re-raise), and sends a plain response's two messages itself (what ``Response.__call__`` sends,
  one coroutine less; a streaming or file response, or one with a background task, sends itself),
  recording the answer in the request's journal exchange at once when ``send`` is the exchange's
  own (:meth:`fakes.kernel.exchange.Exchange.answered`: no wrapped send per message);
- on a path it has not seen (a new id in it), tries only the routes whose first path segment is
  the path's, or a parameter (:func:`route_segments`), not every route of the service in turn;
- leaves everything else to Starlette: partial matches (405), misses (404), redirects.

The routes must not change after the router is built (the fake builds its app once).
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Sequence
from typing import Any

from starlette._utils import get_route_path, is_async_callable
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Match, Mount, Route, Router
from starlette.types import ASGIApp, Receive, Scope, Send

from .exchange import Exchange

#: distinct (method, root path, path) remembered before the table starts over
MAX_REMEMBERED = 4096
#: longer paths are not remembered: the table's memory stays small whatever clients send
MAX_REMEMBERED_PATH = 512

#: the route's lean app, the route, its path parameters, and its endpoint when the router may call
#: it itself (an async function endpoint without route middleware); for a mount: None, the mount,
#: the scope entries it sets, None
_Remembered = tuple[ASGIApp | None, BaseRoute, dict[str, Any], Callable[[Request], Any] | None]
_ASYNC_FUNCTION = "_fakes_async_function"
#: Starlette's Response.__call__: a response class that keeps it sends its two messages and nothing else
_PLAIN_CALL = Response.__call__


class RoutedRequest(Request):
    """The :class:`Request` the router hands a function endpoint: an HTTP scope it routed, and the
    request's callables. What ``Request.__init__`` sets besides (a stream not read, no form, not
    disconnected) starts as class attributes, read the same way and replaced the same way when
    they change: one frame and six stores less on every routed request."""

    _stream_consumed = False
    _is_disconnected = False
    _form = None

    def __init__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.scope = scope
        self._receive = receive
        self._send = send


class ServiceRouter(Router):
    """A :class:`starlette.routing.Router` that remembers its matches (see the module)."""

    def __init__(self, routes: Sequence[BaseRoute]) -> None:
        super().__init__(routes=list(routes))
        self._remembered: dict[tuple[str, str, str], _Remembered] = {}
        #: first path segment -> the routes that may match a path beginning with it, in their order
        #: (made on the first miss: a new id in a path is a miss every time)
        self._by_segment: tuple[dict[str, list[BaseRoute]], list[BaseRoute]] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or "path_params" in scope:  # nested or not HTTP: Starlette's way
            await super().__call__(scope, receive, send)
            return
        key = (scope["method"], scope.get("root_path", ""), scope["path"])
        remembered = self._remembered.get(key)
        if remembered is None:
            remembered = self._match(scope)
            if remembered is None:
                await super().__call__(scope, receive, send)  # 404, 405, redirects
                return
            if len(key[2]) <= MAX_REMEMBERED_PATH:  # a long path (an id, a probe) is matched every time
                if len(self._remembered) >= MAX_REMEMBERED:
                    self._remembered.clear()
                self._remembered[key] = remembered
        app, route, child_scope, endpoint = remembered
        if app is None:  # a mount: what Starlette's router does once it found it
            scope.setdefault("router", self)
            scope.update(child_scope)
            scope["path_params"] = child_scope["path_params"].copy()
            await route.handle(scope, receive, send)
            return
        scope["router"] = self
        scope["route"] = route
        scope["endpoint"] = route.endpoint  # type: ignore[attr-defined]  # a Route
        scope["path_params"] = child_scope.copy()  # the endpoint's own copy
        if endpoint is None:
            await app(scope, receive, send)
        else:  # an async function endpoint, called here: one coroutine less per request
            response = await endpoint(RoutedRequest(scope, receive, send))
            if response.__class__.__call__ is _PLAIN_CALL and response.background is None:
                # what Response.__call__ sends (a plain, JSON or text answer), without its coroutine;
                # recorded for the journal at once, then sent the server's way (fakes/kernel/exchange.py)
                exchange = getattr(send, "__self__", None)  # send is a journal exchange's (no rule wraps it)
                if exchange.__class__ is Exchange and exchange.answered(response.status_code, response.raw_headers,
                                                                        response.body):
                    send = exchange.server_send
                await send({"type": "http.response.start", "status": response.status_code,
                            "headers": response.raw_headers})
                await send({"type": "http.response.body", "body": response.body})
            else:  # a stream, a file, a background task: the response's own way
                await response(scope, receive, send)

    def _candidates(self, scope: Scope) -> list[BaseRoute]:
        """The routes that may match the request's path: those whose path begins with its first
        segment literally, and those whose first segment is a parameter (or that are not plain
        routes and mounts), in the router's order. The others cannot match it fully or partly."""
        if self._by_segment is None:
            self._by_segment = route_segments(self.routes)
        by_segment, anywhere = self._by_segment
        return by_segment.get(get_route_path(scope)[1:].partition("/")[0], anywhere)

    def _match(self, scope: Scope) -> _Remembered | None:
        """The first route Starlette would pick, when it is a plain Route matching fully."""
        for route in self._candidates(scope):
            match, child_scope = route.matches(scope)
            if match is Match.FULL:
                if isinstance(route, Mount):
                    return None, route, dict(child_scope), None
                if not isinstance(route, Route):
                    return None
                app = lean_app(route)
                endpoint = route.endpoint if getattr(app, _ASYNC_FUNCTION, False) else None
                return app, route, child_scope["path_params"], endpoint
            if match is Match.PARTIAL:  # Starlette goes on looking for a full match; so do we
                continue
        return None


def route_segments(routes: Sequence[BaseRoute]) -> tuple[dict[str, list[BaseRoute]], list[BaseRoute]]:
    """(first literal path segment -> the routes a path beginning with it may match, in order; the
    routes any path may match): a route's literal first segment is matched literally (Starlette
    escapes it), so a path beginning otherwise cannot reach it."""
    firsts: list[str | None] = []
    for route in routes:
        path = getattr(route, "path", None) if isinstance(route, Route | Mount) else None
        first = path[1:].partition("/")[0] if isinstance(path, str) and path.startswith("/") else None
        firsts.append(None if first is None or "{" in first else first)
    anywhere = [route for route, first in zip(routes, firsts, strict=True) if first is None]
    by_segment = {first: [route for route, its in zip(routes, firsts, strict=True) if its in (first, None)]
                  for first in set(firsts) if first is not None}
    return by_segment, anywhere


_LEAN = "_fakes_lean_app"


def lean_app(route: Route) -> ASGIApp:
    """The route's lean app, made once and kept on the route: routes a service shares between its
    fakes and worlds cost each world's router nothing."""
    found: ASGIApp | None = route.__dict__.get(_LEAN)
    if found is None:
        found = _lean_app(route)
        setattr(route, _LEAN, found)
    return found


def _lean_app(route: Route) -> ASGIApp:
    """The route's ASGI app, without Starlette's per-request exception wrapper where it has one."""
    handler: Any = route.endpoint
    while isinstance(handler, functools.partial):
        handler = handler.func
    wrapped_by_starlette = getattr(route.app, "__qualname__", "").startswith("request_response.")
    if not (inspect.isfunction(handler) or inspect.ismethod(handler)) or not wrapped_by_starlette:
        return route.app  # an ASGI endpoint, or one with route middleware: as Starlette built it
    endpoint: Callable[[Request], Any] = route.endpoint
    if is_async_callable(endpoint):
        async def app(scope: Scope, receive: Receive, send: Send) -> None:
            response = await endpoint(RoutedRequest(scope, receive, send))
            await response(scope, receive, send)

        setattr(app, _ASYNC_FUNCTION, True)  # what the router may do itself (see ServiceRouter.__call__)
    else:  # a plain function runs in a worker thread, as Starlette runs it
        async def app(scope: Scope, receive: Receive, send: Send) -> None:
            response = await run_in_threadpool(endpoint, Request(scope, receive, send))
            await response(scope, receive, send)

    return app


# -- 405 by path, as OpenAPI matches paths ---------------------------------------------------------
_PARAM = re.compile(r"\{[^}]*\}")


def _template(path: str) -> str:
    return _PARAM.sub("{}", path)


def _more_concrete(candidate: str, than: str) -> bool:
    """Whether path template ``candidate`` names a segment literally where ``than`` has a parameter,
    at the first segment where they differ (``/a/token`` is more concrete than ``/a/{}``)."""
    for mine, theirs in zip(candidate.split("/"), than.split("/"), strict=False):
        if mine != theirs:
            return theirs == "{}" and mine != "{}"
    return False


class MethodGuard(Route):
    """Put after the last route of a path template by :func:`claim_methods`: a request whose path
    that template matches, with a method none of its routes takes, is a 405 naming theirs - unless
    a later route of a more concrete template matches the path (it owns the request)."""

    def __init__(self, path: str, allow: Sequence[str], yields_to: Sequence[Route]) -> None:
        allowed = ", ".join(allow)

        async def refuse(request: Request) -> None:
            raise HTTPException(405, headers={"Allow": allowed})

        super().__init__(path, refuse, include_in_schema=False)
        self.methods = None  # every method (Starlette makes a function's route a GET one)
        self.allow = tuple(allow)
        self.yields_to = tuple(yields_to)

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        match, child_scope = super().matches(scope)
        if match is Match.FULL and any(route.matches(scope)[0] is not Match.NONE for route in self.yields_to):
            return Match.NONE, {}
        return match, child_scope


def claim_methods(routes: Sequence[BaseRoute]) -> list[BaseRoute]:
    """``routes`` with a :class:`MethodGuard` after the last route of each path template (parameter
    names ignored), so that a path answers 405 with an ``Allow`` of every method its routes take
    (Starlette alone names only the first route's and lets a later template take the request: a
    ``DELETE /things/bulk`` reaching ``DELETE /things/{id}``). As OpenAPI matches paths, a concrete
    path owns its requests before a templated one that also matches. Routes taking any method and
    everything that is not a :class:`Route` (mounts) are left as they are."""
    methods: dict[str, set[str]] = {}
    last: dict[str, int] = {}
    for index, route in enumerate(routes):
        if isinstance(route, Route) and route.methods:
            methods.setdefault(_template(route.path), set()).update(route.methods)
            last[_template(route.path)] = index
    out: list[BaseRoute] = []
    for index, route in enumerate(routes):
        out.append(route)
        if not isinstance(route, Route) or last.get(_template(route.path)) != index:
            continue
        template = _template(route.path)
        later = [other for other in routes[index + 1:]
                 if isinstance(other, Route) and _more_concrete(_template(other.path), template)]
        out.append(MethodGuard(route.path, sorted(methods[template]), later))
    return out
