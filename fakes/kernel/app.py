"""The fake's ASGI entry: prefix -> control plane or faults -> service router -> journal.

One small pure-ASGI callable instead of a stack of middleware classes: every request of every
test passes here, so the common case (no faults registered, no prefix) does as little as possible.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from time import perf_counter
from typing import Any, Protocol

from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect
from starlette.routing import Router
from starlette.types import Message, Receive, Scope, Send

from . import requestlog
from .access import IN_PROCESS, ControlAccess
from .clock import Clock
from .control import STATE_PATH
from .errors import ControlError, ServiceError, control_error_body
from .exchange import Exchange, answer_send
from .faults import FRAMING_HEADERS, DroppedConnection, FaultRule, FaultSet, fault_delay
from .gateway import HOST_ROUTED
from .http import JSONResponse, dumps, json_response
from .limits import TIMED_OUT_KEY, limited_receive
from .live import LiveRequest
from .stubs import StubRule, StubSet
from .token import control_allowed, control_unauthorized
from .verdicts import VERDICTS_KEY, ClientRule, Verdicts
from .worlds import Worlds, names_world

log = logging.getLogger("fakes")

CONTROL_PREFIX = "/_fake"
UNJOURNALED = ("/openapi.json",)
_NO_WARNINGS: tuple[str, ...] = ()
_CONTROL_LENGTH = len(CONTROL_PREFIX)


class ServedFake(requestlog.LoggedFake, Protocol):
    """What the app reads of its fake on each request: where it is mounted, its worlds, its
    control token and body caps, its clock, faults, journal and verdict log, and its error shape.
    The fake itself goes into the scope's ``app``, where the routes find it."""

    @property
    def prefix(self) -> str: ...

    @property
    def worlds(self) -> Worlds[Any] | None: ...

    @property
    def control_token(self) -> str | None: ...

    @property
    def access(self) -> ControlAccess: ...

    @property
    def max_body_bytes(self) -> int: ...

    @property
    def max_control_body_bytes(self) -> int: ...

    @property
    def max_state_bytes(self) -> int: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def faults(self) -> FaultSet: ...

    @property
    def stubs(self) -> StubSet: ...

    @property
    def verdict_log(self) -> Verdicts: ...

    def body_required(self, scope: Scope) -> bool: ...

    def error_body(self, err: ServiceError) -> dict[str, Any]: ...


class FakeApp:
    """ASGI app of one fake; built once per fake, reads the fake's current state per request.

    Its two routers are built when first needed (a world that only ever hears control calls
    never builds its service's routes)."""

    def __init__(self, fake: ServedFake, service_router: Callable[[], Router],
                 control_router: Callable[[], Router]) -> None:
        self.fake = fake
        self._build_service_router = service_router
        self._build_control_router = control_router
        self._service_router: Router | None = None
        self._control_router: Router | None = None
        self.prefix = fake.prefix
        self.worlds = fake.worlds  # None in a world (no worlds inside a world)

    @property
    def service_router(self) -> Router:
        if self._service_router is None:
            self._service_router = self._build_service_router()
        return self._service_router

    @property
    def control_router(self) -> Router:
        if self._control_router is None:
            self._control_router = self._build_control_router()
        return self._control_router

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        if scope["method"] == "HEAD":  # GET's answer without its body, everywhere (never a POST branch)
            scope, send = _as_get(scope, send)
        path: str = scope["path"]
        scope["app"] = self.fake  # makes Starlette raise HTTPException for 404/405 (we shape them)
        if self.prefix and not scope.get(HOST_ROUTED):
            if path == self.prefix or path.startswith(self.prefix + "/"):
                scope["root_path"] = scope.get("root_path", "") + self.prefix
                path = path[len(self.prefix):] or "/"
            elif not path.startswith(CONTROL_PREFIX):
                await self._render_service_error(
                    scope, receive, send,
                    ServiceError(404, f"no such resource: {path} (this fake is mounted at {self.prefix})",
                                 code="not_found"))
                return
        if self.worlds is not None and names_world(scope, path):
            await self.worlds.route(scope, receive, send, path)  # /_w/<id>/... or X-Fake-World
            return
        if path.startswith(CONTROL_PREFIX) and (path == CONTROL_PREFIX or path[_CONTROL_LENGTH] == "/"):
            await self._control(scope, receive, send, path)
            return
        await self._service(scope, receive, send, path)

    async def local(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The fake as an ASGI app for callers in process that address it by paths below its own
        base: no mount prefix, no world segment (``Fake.local_app``; the relay's upstream
        ``{"fake": ...}``). Links it builds still carry its base (prefix and world)."""
        if scope["type"] != "http":
            return
        if scope["method"] == "HEAD":
            scope, send = _as_get(scope, send)
        path: str = scope["path"]
        base = scope.get("root_path", "") + self.prefix
        raw: bytes = scope.get("raw_path") or path.encode("utf-8", "surrogateescape")
        inner = {**scope, "app": self.fake, "root_path": base, "path": base + path,
                 "raw_path": base.encode("utf-8", "surrogateescape") + raw, IN_PROCESS: True}
        await self.handle(inner, receive, send, path)

    async def handle(self, scope: Scope, receive: Receive, send: Send, path: str) -> None:
        """Answer a request whose ``path`` is already relative to this fake's base."""
        if path == CONTROL_PREFIX or path.startswith(CONTROL_PREFIX + "/"):
            await self._control(scope, receive, send, path)
            return
        await self._service(scope, receive, send, path)

    # -- the control plane -------------------------------------------------------------------
    async def _control(self, scope: Scope, receive: Receive, send: Send, path: str) -> None:
        refused = self.fake.access.refusal(scope, path)  # a foreign Host or Origin, a form's body
        if refused is not None:
            await json_response(control_error_body(refused), refused.status)(scope, receive, send)
            return
        if not control_allowed(self.fake.control_token, scope, path):
            await control_unauthorized(scope, receive, send)
            return
        routed = _with_route_path(scope, path)
        fake = self.fake
        cap = fake.max_state_bytes if path == STATE_PATH else fake.max_control_body_bytes
        try:
            await self.control_router(routed, limited_receive(receive, routed, cap, fake.body_required), send)
        except ClientDisconnect:
            return  # the client left (or was cut off) before its body ended: nobody to answer
        except ServiceError as err:
            await json_response(control_error_body(err), err.status, err.headers)(scope, receive, send)
        except HTTPException as exc:
            refusal = ControlError(exc.status_code, f"no control operation {scope['method']} {path}",
                                   code="not_found" if exc.status_code == 404 else "method_not_allowed")
            await json_response(control_error_body(refusal), refusal.status,
                                dict(exc.headers or {}))(scope, receive, send)
        except Exception as exc:  # the same safety net as the service's: never a traceback
            log.exception("unexpected error in the control plane of fake %s", self.fake.name)
            failure = ControlError(500, f"internal error in the fake's control plane: {exc!r}", code="internal")
            await json_response(control_error_body(failure), 500)(scope, receive, send)

    # -- the service -------------------------------------------------------------------------
    async def _service(self, scope: Scope, receive: Receive, send: Send, path: str) -> None:
        fake = self.fake
        if path in UNJOURNALED:
            await self._route(scope, receive, send)
            return
        flagged: list[tuple[ClientRule, str]] = []
        scope[VERDICTS_KEY] = flagged
        at_ms = fake.clock.now_ms()
        log = requestlog.active  # --log-requests (None: off)
        started = perf_counter() if log is not None else 0.0
        live = None  # the request as fault and stub rules read it, when there is a rule
        if fake.faults.armed or fake.stubs.armed:
            live = LiveRequest(scope, path, receive, fake.max_body_bytes)
            receive = live.receive  # hands on what the rules read of the body, then the rest
        journal = fake.journal
        # holds the body to its cap; records the status, and the headers and bodies the journal
        # keeps (fakes/kernel/exchange.py)
        exchange = Exchange(scope, receive, send, fake.max_body_bytes, journal.total_bytes > 0,
                            journal.body_bytes)  # Journal.exchange, inlined: a call less per request
        try:
            if live is None:  # _route, inlined: one coroutine less on every request
                try:
                    await self.service_router(scope, exchange.receive, exchange.send)
                except (DroppedConnection, ClientDisconnect):
                    raise
                except Exception as exc:
                    await self._route_failed(exc, scope, exchange.receive, exchange.send, None)
            else:
                await self._ruled(live, scope, exchange.receive, exchange.send)
        except ClientDisconnect:
            # gone before its body ended: 408 if the body timeout cut it (it got that), else 499
            exchange.status = scope.get(TIMED_OUT_KEY, (0,))[0] or 499
        finally:
            method = "HEAD" if HEAD_REQUEST in scope else scope["method"]
            query = scope.get("query_string", b"").decode("latin-1")
            if flagged:
                self._flagged(flagged, method, path, query, at_ms, exchange, live)
            else:
                journal.add(method, path, query, exchange.status, at_ms, _NO_WARNINGS, exchange,
                            None if live is None else live.answered_by)
            if log is not None:
                log(fake, method, path, query, exchange.status, started)

    def _flagged(self, flagged: list[tuple[ClientRule, str]], method: str, path: str, query: str, at_ms: int,
                 exchange: Exchange, live: LiveRequest | None) -> None:
        """Journal a request that broke client rules, and record the verdicts."""
        fake = self.fake
        verdicts = fake.verdict_log
        # shown without the request's credentials (fakes/kernel/redaction.py), and the client rules
        # this request broke as the journal's warnings, "<rule id>: <detail>" (verdicts keep the counts)
        shown, warnings = verdicts.shown(flagged, exchange.request_headers, query, exchange.request_body)
        status = exchange.status
        seq = fake.journal.add(method, path, query, status, at_ms, warnings, exchange,
                               None if live is None else live.answered_by)
        verdicts.record_shown(shown, method, path, query, status, at_ms, seq)

    async def _ruled(self, live: LiveRequest, scope: Scope, receive: Receive, send: Send) -> None:
        """A request when fault or stub rules are set: the first fault that matches, else the
        stub before the model, else the model, else (no route) the stub behind it."""
        fake = self.fake
        fault = await fake.faults.pick(live) if fake.faults.armed else None
        if fault is not None:
            live.answered_by = fault.tag
            await self._apply_fault(fault, scope, receive, send, live)
        else:
            await self._stubbed_or_routed(live, scope, receive, send)

    async def _stubbed_or_routed(self, live: LiveRequest, scope: Scope, receive: Receive, send: Send) -> None:
        """The stub before the model, else the model (and, where it has no route, a stub behind it)."""
        found = await self.fake.stubs.pick(live, "before") if self.fake.stubs.armed else None
        if found is not None:
            await self._answer_stub(*found, live, scope, receive, send)
        else:
            await self._route(scope, receive, send, live)

    async def _answer_stub(self, rule: StubRule, params: dict[str, str], live: LiveRequest, scope: Scope,
                           receive: Receive, send: Send) -> None:
        fake = self.fake
        (status, headers, raw), latency_ms = fake.stubs.answer(rule, params, live, fake.clock.now_ms())
        live.answered_by = rule.tag
        if latency_ms and not await fault_delay(latency_ms / 1000):
            await self._render_service_error(scope, receive, send, shutting_down())
            return
        while live.buffered:  # what the rules read of the body: the journal keeps it
            await receive()
        await send_rule_answer(send, status, headers, raw)

    async def _route(self, scope: Scope, receive: Receive, send: Send, live: LiveRequest | None = None) -> None:
        try:
            await self.service_router(scope, receive, send)
        except (DroppedConnection, ClientDisconnect):
            raise
        except Exception as exc:
            await self._route_failed(exc, scope, receive, send, live)

    async def _route_failed(self, exc: Exception, scope: Scope, receive: Receive, send: Send,
                            live: LiveRequest | None) -> None:
        """Answer what the router raised: the service's error, a 404/405 (or a stub behind the
        model), or - never a traceback - a 500."""
        if isinstance(exc, ServiceError):
            await self._render_service_error(scope, receive, send, exc)
        elif isinstance(exc, HTTPException):
            if live is not None and self.fake.stubs.behind:  # no route here: a stub behind the model may answer
                found = await self.fake.stubs.pick(live, "behind")
                if found is not None:
                    await self._answer_stub(*found, live, scope, receive, send)
                    return
            refusal = (ServiceError(405, f"method {scope['method']} is not allowed here", code="method_not_allowed",
                                    headers=dict(exc.headers or {}))
                       if exc.status_code == 405 else
                       ServiceError(exc.status_code, f"no such resource: {scope['path']}", code="not_found"))
            await self._render_service_error(scope, receive, send, refusal)
        else:  # the safety net: a fake must never answer with a traceback
            log.error("unexpected error in fake %s", self.fake.name, exc_info=exc)
            await self._render_service_error(
                scope, receive, send, ServiceError(500, f"internal error in the fake: {exc!r}", code="internal"))

    async def _render_service_error(self, scope: Scope, receive: Receive, send: Send, err: ServiceError) -> None:
        response = json_response(self.fake.error_body(err), err.status, err.headers)
        body = response.body
        if response.__class__ is JSONResponse and response.background is None and isinstance(body, bytes):
            # what Response.__call__ sends, recorded for the journal at once (as the router sends a
            # route's plain answer): no coroutine and no wrapped send per message on an error
            send = answer_send(send, response.status_code, response.raw_headers, body)
            await send({"type": "http.response.start", "status": response.status_code,
                        "headers": response.raw_headers})
            await send({"type": "http.response.body", "body": body})
        else:
            await response(scope, receive, send)

    async def _apply_fault(self, fault: FaultRule, scope: Scope, receive: Receive, send: Send,
                           live: LiveRequest | None = None) -> None:
        if fault.latency_ms and not await fault_delay(fault.latency_ms / 1000):  # others go on meanwhile
            await self._render_service_error(scope, receive, send, shutting_down())
            return
        if fault.drop:
            # Promise a body that never comes, then fail: the server cuts the connection.
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-length", b"1024")]})
            raise DroppedConnection(f"fault {fault.id} dropped the connection")
        if fault.status is None:  # latency only: then the stubs and the model, as without it
            if live is None:
                await self._route(scope, receive, send)
            else:
                await self._stubbed_or_routed(live, scope, receive, send)
            return
        body = fault.body
        headers = {name.lower(): value for name, value in fault.headers.items()}  # "Content-Type" is content-type
        if body is None:
            body = self.fake.error_body(ServiceError(fault.status, f"injected fault {fault.id}", code="injected_fault"))
        if isinstance(body, str):
            headers.setdefault("content-type", "text/plain; charset=utf-8")
            raw = body.encode()
        else:
            headers.setdefault("content-type", "application/json")
            raw = dumps(body)
        await send_rule_answer(send, fault.status, headers.items(), raw)


async def send_rule_answer(send: Send, status: int, headers: Iterable[tuple[str, str]], raw: bytes) -> None:
    """Send the answer of a fault or stub rule: the one place such answers are framed and
    sandboxed (their body is a client's text on the fake's origin)."""
    if status in BODILESS_STATUSES:
        raw = b""  # HTTP forbids a body here; sending one would make the server drop the connection
    await send({"type": "http.response.start", "status": status,
                "headers": [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers
                            if k.lower() not in FRAMING_HEADERS]  # framed by the fake: a wrong length hangs
                + [(b"content-length", str(len(raw)).encode()), FAULT_SANDBOX]})
    await send({"type": "http.response.body", "body": raw})


BODILESS_STATUSES = frozenset({204, 304})
#: a fault's or stub's body is the client's text on the fake's origin: a browser shows it without
#: running anything (a sandbox with no origin of its own, nothing loaded); a rule's own policy adds to it
FAULT_SANDBOX = (b"content-security-policy", b"sandbox; default-src 'none'")


def shutting_down() -> ServiceError:
    """What a request waiting in a rule's latency gets when the server stops."""
    return ServiceError(503, "the fake is shutting down", code="shutting_down", headers={"Connection": "close"})
HEAD_REQUEST = "fakes.head"


def _as_get(scope: Scope, send: Send) -> tuple[Scope, Send]:
    """A HEAD request runs as GET (routes, faults, worlds alike) and its answer loses the body."""

    async def send_without_body(message: Message) -> None:
        if message["type"] == "http.response.body":
            message = {**message, "body": b""}
        await send(message)

    return {**scope, "method": "GET", HEAD_REQUEST: True}, send_without_body


def _with_route_path(scope: Scope, path: str) -> Scope:
    """Control routes are matched on the path below the fake's prefix."""
    if scope["path"] == path:
        return scope
    return {**scope, "path": path, "root_path": ""}


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


def describe_entry(entry: dict[str, Any]) -> str:
    return f"{entry['method']} {entry['path']} -> {entry['status']}"
