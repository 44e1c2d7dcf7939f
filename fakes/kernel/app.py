"""The fake's ASGI entry: prefix -> control plane or faults -> service router -> journal.

One small pure-ASGI callable instead of a stack of middleware classes: every request of every
test passes here, so the common case (no faults registered, no prefix) does as little as possible.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect
from starlette.routing import Router
from starlette.types import Message, Receive, Scope, Send

from .errors import ControlError, ServiceError, control_error_body
from .faults import FRAMING_HEADERS, DroppedConnection, FaultRule, fault_delay
from .gateway import HOST_ROUTED
from .http import dumps, json_response
from .limits import TIMED_OUT_KEY, limited_receive
from .token import control_allowed, control_unauthorized
from .verdicts import VERDICTS_KEY, ClientRule
from .worlds import names_world

if TYPE_CHECKING:
    from .fake import Fake

log = logging.getLogger("fakes")

CONTROL_PREFIX = "/_fake"
UNJOURNALED = ("/openapi.json",)


class FakeApp:
    """ASGI app of one fake; built once per fake, reads the fake's current state per request."""

    def __init__(self, fake: Fake, service_router: Router, control_router: Router) -> None:
        self.fake = fake
        self.service_router = service_router
        self.control_router = control_router
        self.prefix = fake.prefix
        self.worlds = fake.worlds  # None in a world (no worlds inside a world)

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
        await self.handle(scope, receive, send, path)

    async def handle(self, scope: Scope, receive: Receive, send: Send, path: str) -> None:
        """Answer a request whose ``path`` is already relative to this fake's base."""
        if path == CONTROL_PREFIX or path.startswith(CONTROL_PREFIX + "/"):
            await self._control(scope, receive, send, path)
            return
        await self._service(scope, receive, send, path)

    # -- the control plane -------------------------------------------------------------------
    async def _control(self, scope: Scope, receive: Receive, send: Send, path: str) -> None:
        if not control_allowed(self.fake.control_token, scope, path):
            await control_unauthorized(scope, receive, send)
            return
        routed = _with_route_path(scope, path)
        try:
            await self.control_router(routed, limited_receive(receive, routed, self.fake.max_control_body_bytes),
                                      send)
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
        method = scope["method"]
        if path in UNJOURNALED:
            await self._route(scope, receive, send)
            return
        flagged: list[tuple[ClientRule, str]] = []
        scope[VERDICTS_KEY] = flagged
        status_box = [0]

        async def send_recording(message: Message) -> None:
            if message["type"] == "http.response.start":
                status_box[0] = message["status"]
            await send(message)

        at_ms = fake.clock.now_ms()
        receive = limited_receive(receive, scope, fake.max_body_bytes)
        try:
            fault = fake.faults.pick(method, path) if fake.faults.rules else None
            if fault is not None:
                await self._apply_fault(fault, scope, receive, send_recording)
            else:
                await self._route(scope, receive, send_recording)
        except ClientDisconnect:
            # gone before its body ended: 408 if the body timeout cut it (it got that), else 499
            status_box[0] = scope.get(TIMED_OUT_KEY, (0,))[0] or 499
        finally:
            method = "HEAD" if HEAD_REQUEST in scope else method
            query = scope.get("query_string", b"").decode("latin-1")
            # the client rules this request broke, as "<rule id>: <detail>" (verdicts keep the counts)
            warnings = tuple(f"{rule.id}: {detail}" if detail else rule.id for rule, detail in flagged)
            seq = fake.journal.add(method, path, query, status_box[0], at_ms, warnings)
            for rule, detail in flagged:
                fake.verdict_log.record(rule, detail, {"method": method, "path": path, "query": query,
                                                       "status": status_box[0], "epoch_ms": at_ms, "seq": seq})

    async def _route(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.service_router(scope, receive, send)
        except ServiceError as err:
            await self._render_service_error(scope, receive, send, err)
        except HTTPException as exc:
            refusal = (ServiceError(405, f"method {scope['method']} is not allowed here", code="method_not_allowed",
                                    headers=dict(exc.headers or {}))
                       if exc.status_code == 405 else
                       ServiceError(exc.status_code, f"no such resource: {scope['path']}", code="not_found"))
            await self._render_service_error(scope, receive, send, refusal)
        except (DroppedConnection, ClientDisconnect):
            raise
        except Exception as exc:  # the safety net: a fake must never answer with a traceback
            log.exception("unexpected error in fake %s", self.fake.name)
            await self._render_service_error(
                scope, receive, send, ServiceError(500, f"internal error in the fake: {exc!r}", code="internal"))

    async def _render_service_error(self, scope: Scope, receive: Receive, send: Send, err: ServiceError) -> None:
        await json_response(self.fake.error_body(err), err.status, err.headers)(scope, receive, send)

    async def _apply_fault(self, fault: FaultRule, scope: Scope, receive: Receive, send: Send) -> None:
        if fault.latency_ms and not await fault_delay(fault.latency_ms / 1000):  # others go on meanwhile
            await self._render_service_error(scope, receive, send, ServiceError(
                503, "the fake is shutting down", code="shutting_down", headers={"Connection": "close"}))
            return
        if fault.drop:
            # Promise a body that never comes, then fail: the server cuts the connection.
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-length", b"1024")]})
            raise DroppedConnection(f"fault {fault.id} dropped the connection")
        if fault.status is None:
            await self._route(scope, receive, send)
            return
        body = fault.body
        headers = dict(fault.headers)
        if body is None:
            body = self.fake.error_body(ServiceError(fault.status, f"injected fault {fault.id}", code="injected_fault"))
        if isinstance(body, str):
            headers.setdefault("content-type", "text/plain; charset=utf-8")
            raw = body.encode()
        else:
            headers.setdefault("content-type", "application/json")
            raw = dumps(body)
        if fault.status in BODILESS_STATUSES:
            raw = b""  # HTTP forbids a body here; sending one would make the server drop the connection
        await send({"type": "http.response.start", "status": fault.status,
                    "headers": [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()
                                if k.lower() not in FRAMING_HEADERS]  # framed by the fake: a wrong length hangs
                    + [(b"content-length", str(len(raw)).encode())]})
        await send({"type": "http.response.body", "body": raw})


BODILESS_STATUSES = frozenset({204, 304})
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
