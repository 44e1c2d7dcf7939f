"""Serving fakes over HTTP with uvicorn: in a background thread (tests) or in the foreground (CLI).

One stack everywhere: uvloop's event loop and uvicorn's httptools parser (both plain dependencies
through ``uvicorn[standard]``); :func:`stack_description` names what actually runs.

Stopping is immediate: the listener is closed at once, idle keep-alive connections are closed,
in-flight responses get a short grace, and nothing waits for uvicorn's fixed 0.1 s shutdown sleep
(the bulk of a ``with fake.serve()`` cycle before).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import gc
import logging
import socket
import ssl
import threading
from collections.abc import Callable, Coroutine, Sequence
from types import TracebackType
from typing import Any

import uvicorn

from .faults import DroppedConnection, stop_fault_delays
from .protocol import ReadTimeouts, protocol_class

try:  # uvloop does not exist on Windows; everywhere else it comes with uvicorn[standard]
    import uvloop

    new_event_loop: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    LOOP_NAME = "uvloop"
except ImportError:  # pragma: no cover - platform dependent
    new_event_loop = asyncio.new_event_loop
    LOOP_NAME = "asyncio"

#: uvicorn's HTTP implementation; httptools is a plain dependency (uvicorn[standard])
HTTP_PARSER = "httptools"
#: how long in-flight responses may take to finish when a server stops
GRACE_S = 2.0

Binding = tuple[Any, str, int]  # (ASGI app, host, port)
#: an app on its bound socket, served over TLS with the context when one is given
Listener = tuple[Any, socket.socket] | tuple[Any, socket.socket, ssl.SSLContext | None]


class CannotListen(OSError):
    """A fake cannot listen where it was told to; ``strerror`` says why, ``hint`` what to do."""

    def __init__(self, errno_: int | None, message: str, hint: str = "") -> None:
        super().__init__(errno_, message)
        self.hint = hint


class PortInUse(CannotListen):
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


def settle_startup_objects() -> None:
    """Move what exists before serving (imports, the fakes, shared catalogues) to the collector's
    permanent generation, so that a full collection scans only what requests create: with all five
    fakes built, one took ~50 ms, and the request it fell on paid for it. Those objects are still
    freed by reference counting; a cycle among them (a first model dropped by a reset) stays, once."""
    gc.collect()
    gc.freeze()


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
        raise _cannot_listen(exc, host, port) from None
    sock.listen(2048)
    sock.setblocking(False)
    return sock


def _cannot_listen(exc: OSError, host: str, port: int) -> CannotListen:
    """The true cause of a failed bind, named (not every failure is a busy port)."""
    where = f"cannot listen on {host}:{port}"
    reason = exc.strerror or str(exc)
    if exc.errno == errno.EADDRINUSE:
        return PortInUse(exc.errno, f"{where}: {reason}",
                         "another process uses the port; choose another with --port or --gateway")
    if exc.errno == errno.EADDRNOTAVAIL:
        return CannotListen(exc.errno, f"{where}: the address is not available on this machine ({reason})",
                            "--host takes one of this machine's addresses, 127.0.0.1, or 0.0.0.0 for all")
    if exc.errno in (errno.EACCES, errno.EPERM):
        return CannotListen(exc.errno, f"{where}: permission denied ({reason})",
                            "ports below 1024 need privileges; choose a higher one")
    if isinstance(exc, socket.gaierror):
        return CannotListen(exc.errno, f"{where}: unknown host ({reason})",
                            "--host takes an IP address or a name this machine resolves")
    return CannotListen(exc.errno, f"{where}: {reason}")


def stack_description() -> str:
    """The event loop and HTTP parser that served fakes run on (printed by ``fakes serve``)."""
    return f"{LOOP_NAME} event loop, {HTTP_PARSER} HTTP parser, orjson"


def run(main: Coroutine[Any, Any, Any]) -> Any:
    """``asyncio.run`` on the fast event loop."""
    with asyncio.Runner(loop_factory=new_event_loop) as runner:
        return runner.run(main)


#: seconds an idle keep-alive connection is kept open after its last answer
KEEP_ALIVE_S = 30

#: ``forwarded``: the addresses whose X-Forwarded-Proto / -For uvicorn believes (a TLS-terminating proxy:
#: links then say https); None: uvicorn's default (FORWARDED_ALLOW_IPS, else 127.0.0.1 and ::1); "none": nobody's
def _server(app: Any, log_level: str = "warning", timeouts: ReadTimeouts | None = None,
            tls: ssl.SSLContext | None = None, forwarded: str | None = None,
            plain: bool = False) -> uvicorn.Server:
    # httptools with the kernel's header and body read timeouts (fakes/kernel/protocol.py); ``plain``:
    # uvicorn's own httptools protocol, as a bare app on uvicorn is served (the benchmark's floor)
    config = uvicorn.Config(app, lifespan="off", log_level=log_level, access_log=False, http="httptools",
                            timeout_graceful_shutdown=int(GRACE_S), timeout_keep_alive=KEEP_ALIVE_S,
                            proxy_headers=plain and forwarded != "none", forwarded_allow_ips=forwarded)
    if not plain:  # the kernel's protocol reads X-Forwarded-* itself, from uvicorn's trusted addresses
        config.http = protocol_class(timeouts or ReadTimeouts.from_env(),
                                     None if forwarded == "none" else config.forwarded_allow_ips)
    config.load()
    config.ssl = tls  # what load() makes of ssl_certfile; the request's scheme follows ("https")
    server = uvicorn.Server(config)
    server.lifespan = config.lifespan_class(config)  # what Server.serve() would set up
    return server


async def start_servers(bindings: Sequence[Listener], log_level: str = "warning",
                        timeouts: ReadTimeouts | None = None, forwarded: str | None = None,
                        plain: bool = False) -> list[uvicorn.Server]:
    """Start serving each app on its (bound, listening) socket, over TLS where the binding has an
    ``ssl`` context; returns at once. ``plain``: on uvicorn's own protocol, without the kernel's
    read timeouts and header cap."""
    servers = []
    for binding in bindings:
        server = _server(binding[0], log_level, timeouts, binding[2] if len(binding) > 2 else None, forwarded,
                         plain)
        await server.startup(sockets=[binding[1]])
        servers.append(server)
    return servers


async def stop_servers(servers: Sequence[uvicorn.Server], grace: float = GRACE_S) -> None:
    """Stop accepting at once, close idle connections, let in-flight responses finish (up to
    ``grace`` seconds), then cut what is left. Unlike ``uvicorn.Server.shutdown`` there is no fixed
    0.1 s sleep: an idle server stops in well under a millisecond."""
    for server in servers:
        server.should_exit = server.force_exit = True
        for listener in server.servers:
            listener.close()
        for connection in list(server.server_state.connections):
            connection.shutdown()  # idle: closed now; busy: closed after its response
    stop_fault_delays()  # requests waiting in a latency fault answer the service's 503 now
    loop = asyncio.get_running_loop()
    deadline = loop.time() + grace
    pause = 0.0  # closed transports report connection_lost on the loop's next turn
    while any(server.server_state.connections for server in servers) and loop.time() < deadline:
        await asyncio.sleep(pause)
        pause = 0.001
    for server in servers:
        for task in list(server.server_state.tasks):
            task.cancel()
        for connection in list(server.server_state.connections):
            transport = getattr(connection, "transport", None)
            if transport is not None:
                transport.close()


async def serve_until(bindings: Sequence[Listener], stop: asyncio.Event,
                      log_level: str = "warning", on_ready: Callable[[], None] | None = None,
                      timeouts: ReadTimeouts | None = None, forwarded: str | None = None,
                      plain: bool = False) -> None:
    """Serve each app on its socket until ``stop`` is set, then shut all down (``plain``: see
    :func:`start_servers`)."""
    servers = await start_servers(bindings, log_level, timeouts, forwarded, plain)
    if on_ready is not None:
        on_ready()
    try:
        await stop.wait()
    finally:
        await stop_servers(servers)
        for binding in bindings:
            binding[1].close()


class ServerThread:
    """Serve apps in a daemon thread; ``with ServerThread([(app, host, port)]) as addrs:``.

    Each instance has its own thread and event loop, so that a fake whose handler blocks (or calls
    another served fake synchronously) never holds up another one. The sockets are bound in the
    constructor (a taken port raises :class:`PortInUse` there); start and stop each take about a
    millisecond. ``tls``: serve every binding over HTTPS with this server context
    (:mod:`fakes.kernel.tls`). ``forwarded`` and ``plain``: see :func:`start_servers`.
    """

    def __init__(self, bindings: Sequence[Binding], *, log_level: str = "warning",
                 timeouts: ReadTimeouts | None = None, tls: ssl.SSLContext | None = None,
                 forwarded: str | None = None, plain: bool = False) -> None:
        self._timeouts = timeouts
        self._forwarded = forwarded
        self._plain = plain
        self._sockets: list[Listener] = [(app, bind_socket(host, port), tls) for app, host, port in bindings]
        self.addresses: list[tuple[str, int]] = [binding[1].getsockname()[:2] for binding in self._sockets]
        self._log_level = log_level
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="fakes-server", daemon=True)

    def _run(self) -> None:
        loop = new_event_loop()
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
        await serve_until(self._sockets, self._stop, self._log_level, on_ready=self._ready.set,
                          timeouts=self._timeouts, forwarded=self._forwarded, plain=self._plain)

    def start(self, timeout: float = 10.0) -> list[tuple[str, int]]:
        self._thread.start()
        if not self._ready.wait(timeout):
            raise TimeoutError("fake server did not start in time")
        if self._error is not None:
            raise RuntimeError(f"fake server failed to start: {self._error!r}") from self._error
        return self.addresses

    def stop(self, timeout: float = 5.0) -> None:
        if self._loop is not None and self._stop is not None and self._thread.is_alive():
            with contextlib.suppress(RuntimeError):  # the loop closed in between
                self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread.ident is not None:
            self._thread.join(timeout)
        for binding in self._sockets:
            binding[1].close()

    def __enter__(self) -> list[tuple[str, int]]:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
