"""httpx transports that call a fake's ASGI app directly: no socket, no thread per request.

Written here rather than using ``httpx.ASGITransport`` because that one probes for trio with a
failing import on every request (about a third of the in-process cost) and is async-only.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

import httpx

from .access import IN_PROCESS
from .faults import DroppedConnection

T = TypeVar("T")
Result = tuple[int, list[tuple[bytes, bytes]], bytes]


async def call_app(app: Any, request: httpx.Request, body: bytes) -> Result:
    """Run one request through the ASGI app; returns status, raw headers and body."""
    url = request.url
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": request.method,
        "headers": [(k.lower(), v) for k, v in request.headers.raw],
        "scheme": url.scheme,
        "path": url.path,
        "raw_path": url.raw_path.split(b"?")[0],
        "query_string": url.query,
        "server": (url.host, url.port or (443 if url.scheme == "https" else 80)),
        "client": ("127.0.0.1", 123),
        "root_path": "",
        IN_PROCESS: True,  # no browser's: the control plane's Host and Origin checks do not apply
    }
    received = False
    status = 500
    headers: list[tuple[bytes, bytes]] = []
    parts: list[bytes] = []
    complete = False

    async def receive() -> dict[str, Any]:
        nonlocal received
        if received:
            return {"type": "http.disconnect"}
        received = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status, headers, complete
        if message["type"] == "http.response.start":
            status = message["status"]
            headers = list(message.get("headers", []))
        elif message["type"] == "http.response.body":
            chunk = message.get("body", b"")
            if chunk and request.method != "HEAD":
                parts.append(chunk)
            if not message.get("more_body", False):
                complete = True

    try:
        await app(scope, receive, send)
    except DroppedConnection as exc:
        raise httpx.RemoteProtocolError(str(exc), request=request) from None
    if not complete:
        raise httpx.RemoteProtocolError("the fake closed the response before its end", request=request)
    return status, headers, b"".join(parts)


class AsyncFakeTransport(httpx.AsyncBaseTransport):
    def __init__(self, app: Any) -> None:
        self.app = app

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        status, headers, content = await call_app(self.app, request, body)
        return httpx.Response(status, headers=headers, content=content, request=request)


class SyncFakeTransport(httpx.BaseTransport):
    """Runs each request on a private event loop in the caller's thread.

    When the caller's thread already runs a loop (an async test using the sync client), a loop
    on a helper thread is used instead, since a running loop cannot be re-entered.
    """

    def __init__(self, app: Any) -> None:
        self.app = app
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread_loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        body = request.read()
        status, headers, content = self._run(call_app(self.app, request, body))
        return httpx.Response(status, headers=headers, content=content, request=request)

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            if self._loop is None or self._loop.is_closed():
                self._loop = asyncio.new_event_loop()
            return self._loop.run_until_complete(coro)
        return asyncio.run_coroutine_threadsafe(coro, self._helper_loop()).result()

    def _helper_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._thread_loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="fakes-sync-client", daemon=True).start()
                self._thread_loop = loop
            return self._thread_loop

    def close(self) -> None:
        if self._loop is not None and not self._loop.is_closed():
            self._loop.close()
        if self._thread_loop is not None:
            self._thread_loop.call_soon_threadsafe(self._thread_loop.stop)
            self._thread_loop = None
