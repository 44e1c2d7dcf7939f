"""Serving fakes over HTTP with uvicorn: in a background thread (tests) or in the foreground (CLI).

Stopping sets an asyncio event, so a server stops at once instead of at uvicorn's next 0.1 s tick.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any

import uvicorn

from .faults import DroppedConnection

Binding = tuple[Any, str, int]  # (ASGI app, host, port)


class PortInUse(OSError):
    """A port that a fake should listen on is taken."""


class _HideDroppedConnections(logging.Filter):
    """A "drop" fault is on purpose; uvicorn need not print its traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        while exc is not None:
            if isinstance(exc, DroppedConnection):
                return False
            exc = exc.__cause__ or exc.__context__
        return True


logging.getLogger("uvicorn.error").addFilter(_HideDroppedConnections())


def bind_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY on accepted connections only for sockets
    # that say they are TCP; without it every response waits ~40 ms for a delayed ACK (Nagle).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise PortInUse(exc.errno, f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.listen(2048)
    sock.setblocking(False)
    return sock


def _server(app: Any, log_level: str = "warning") -> uvicorn.Server:
    config = uvicorn.Config(app, lifespan="off", log_level=log_level, access_log=False,
                            timeout_graceful_shutdown=2, timeout_keep_alive=30)
    config.load()
    server = uvicorn.Server(config)
    server.lifespan = config.lifespan_class(config)  # what Server.serve() would set up
    return server


async def serve_until(bindings: Sequence[tuple[Any, socket.socket]], stop: asyncio.Event,
                      log_level: str = "warning", on_ready: Callable[[], None] | None = None) -> None:
    """Serve each app on its socket until ``stop`` is set, then shut all down."""
    servers = [(_server(app, log_level), sock) for app, sock in bindings]
    for server, sock in servers:
        await server.startup(sockets=[sock])
    if on_ready is not None:
        on_ready()
    try:
        await stop.wait()
    finally:
        for server, sock in servers:
            server.should_exit = True
            server.force_exit = True
            await server.shutdown(sockets=[sock])


class ServerThread:
    """Serve apps in a daemon thread; ``with ServerThread([(app, host, port)]) as addrs:``."""

    def __init__(self, bindings: Sequence[Binding], *, log_level: str = "warning") -> None:
        self._sockets = [(app, bind_socket(host, port)) for app, host, port in bindings]
        self.addresses: list[tuple[str, int]] = [sock.getsockname()[:2] for _, sock in self._sockets]
        self._log_level = log_level
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="fakes-server", daemon=True)

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._main())
        except BaseException as exc:  # reported to the starting thread
            self._error = exc
            self._ready.set()
        finally:
            loop.close()

    async def _main(self) -> None:
        self._stop = asyncio.Event()
        await serve_until(self._sockets, self._stop, self._log_level, on_ready=self._ready.set)

    def start(self, timeout: float = 10.0) -> list[tuple[str, int]]:
        self._thread.start()
        if not self._ready.wait(timeout):
            raise TimeoutError("fake server did not start in time")
        if self._error is not None:
            raise RuntimeError(f"fake server failed to start: {self._error!r}") from self._error
        return self.addresses

    def stop(self, timeout: float = 5.0) -> None:
        if self._loop is not None and self._stop is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout)
        for _, sock in self._sockets:
            sock.close()

    def __enter__(self) -> list[tuple[str, int]]:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
