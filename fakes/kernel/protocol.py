"""uvicorn's httptools protocol with two read timeouts and a header cap, so that slow or bloated
requests cannot hold a server.

uvicorn times out an idle keep-alive connection, but not a client that sends its request headers
one byte at a time, nor one that declares a large body and stops sending it, and it reads request
headers of any size (httptools joins the pieces of a header as they arrive: a header of 80 MB
took 6 s of one core, and the memory of all of it). A server many CI jobs share cannot let any of
these hold a connection (and the memory of what it sent) for ever:

* **header cap** (``--max-header-bytes``, ``FAKES_MAX_HEADER_BYTES``, 64 KiB): the request line
  and headers of one request, counted as they arrive, before the parser sees them. A request
  whose header block is not complete within the cap gets a 431 (``Connection: close``) and the
  connection is closed: nothing past the cap is parsed or kept;

* **header timeout** (``--header-timeout``, ``FAKES_HEADER_TIMEOUT``, 10 s): from a connection's
  opening, or a request's first byte, to the end of its headers. Past it the client gets a 408
  (``Connection: close``) and the connection is closed;
* **body timeout** (``--body-timeout``, ``FAKES_BODY_TIMEOUT``, 30 s): the longest pause between
  two pieces of a request body while the fake is waiting for it (time the fake itself spends
  before reading, in a latency fault say, does not count). Past it: a 408 if nothing was
  answered yet, the connection closed, and the request journaled with status 408.

A request that arrives whole in one read (nearly all of them) arms no timer at all.
"""

from __future__ import annotations

import asyncio
import logging
import os
import urllib.parse
from dataclasses import dataclass
from typing import Any

import httptools
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware
from uvicorn.protocols.http.flow_control import service_unavailable
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from .cycle import CoalescingCycle
from .limits import TIMED_OUT_KEY

DEFAULT_HEADER_TIMEOUT_S = 10.0
DEFAULT_BODY_TIMEOUT_S = 30.0
MAX_TIMEOUT_S = 86_400.0
#: the request line and headers of one request (nginx's large_client_header_buffers allow 32 KiB)
DEFAULT_MAX_HEADER_BYTES = 64 * 1024
MIN_HEADER_BYTES = 1024
MAX_HEADER_BYTES = 64 * 1024 * 1024

_ANSWER = (b"HTTP/1.1 %s\r\ncontent-type: text/plain; charset=utf-8\r\n"
           b"content-length: %d\r\nconnection: close\r\n\r\n%s")
TIMEOUT = b"408 Request Timeout"
HEADERS_TOO_LARGE = b"431 Request Header Fields Too Large"


@dataclass(frozen=True)
class ReadTimeouts:
    """How a served fake reads requests: the two timeouts and the header cap (see the module)."""

    header_s: float = DEFAULT_HEADER_TIMEOUT_S
    body_s: float = DEFAULT_BODY_TIMEOUT_S
    header_bytes: int = DEFAULT_MAX_HEADER_BYTES

    def __post_init__(self) -> None:
        for name, value in (("header timeout", self.header_s), ("body timeout", self.body_s)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= MAX_TIMEOUT_S:
                raise ValueError(f"the {name} must be more than 0 and at most {MAX_TIMEOUT_S:g} seconds, "
                                 f"got {value!r}")
        check_header_bytes(self.header_bytes, "the header cap")

    @classmethod
    def from_env(cls) -> ReadTimeouts:
        """``FAKES_HEADER_TIMEOUT`` / ``FAKES_BODY_TIMEOUT`` (seconds), ``FAKES_MAX_HEADER_BYTES``,
        else the defaults."""
        values: dict[str, Any] = {}
        for field, env in (("header_s", "FAKES_HEADER_TIMEOUT"), ("body_s", "FAKES_BODY_TIMEOUT")):
            raw = os.environ.get(env)
            if raw:
                try:
                    values[field] = float(raw)
                except ValueError:
                    raise ValueError(f"{env} must be a number of seconds, not {raw!r}") from None
        raw = os.environ.get("FAKES_MAX_HEADER_BYTES")
        if raw:
            from .http import InvalidInteger, ascii_int

            try:
                values["header_bytes"] = check_header_bytes(ascii_int(raw.strip()), "FAKES_MAX_HEADER_BYTES")
            except (InvalidInteger, ValueError):
                raise ValueError(f"FAKES_MAX_HEADER_BYTES must be a whole number of bytes from {MIN_HEADER_BYTES} "
                                 f"to {MAX_HEADER_BYTES}, not {raw!r}") from None
        try:
            return cls(**values)
        except ValueError as exc:
            raise ValueError(f"FAKES_HEADER_TIMEOUT / FAKES_BODY_TIMEOUT: {exc}") from None


def check_header_bytes(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not MIN_HEADER_BYTES <= value <= MAX_HEADER_BYTES:
        raise ValueError(f"{name} must be a whole number of bytes from {MIN_HEADER_BYTES} to {MAX_HEADER_BYTES}, "
                         f"got {value!r}")
    return value


def protocol_class(timeouts: ReadTimeouts, forwarded_allow_ips: str | list[str] | None = None
                   ) -> type[HttpToolsProtocol]:
    """uvicorn's ``http`` protocol class for servers with these timeouts and this header cap, that
    believes X-Forwarded-Proto and -For from ``forwarded_allow_ips`` (uvicorn's setting; None:
    from nobody). Serve it with uvicorn's ``proxy_headers`` off: the protocol reads the two
    headers itself (see :class:`GuardedHttpToolsProtocol`)."""
    trusted = None
    if forwarded_allow_ips is not None:
        trusted = ProxyHeadersMiddleware(_no_app, trusted_hosts=forwarded_allow_ips)
    return type("GuardedHttpToolsProtocol", (GuardedHttpToolsProtocol,),
                {"header_timeout": float(timeouts.header_s), "body_timeout": float(timeouts.body_s),
                 "max_header_bytes": timeouts.header_bytes, "proxy": trusted})


async def _no_app(scope: Any, receive: Any, send: Any) -> None:
    """The app of the :class:`ProxyHeadersMiddleware` the protocol runs on a scope: it does nothing,
    so the middleware's one step changes the scope and ends."""


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """:class:`HttpToolsProtocol` plus the two timeouts and the header cap (see the module); one
    timer at most. Two things uvicorn does per request it does once per connection or at less
    cost, with the same outcome: whether the client is a trusted proxy is decided when it connects
    (uvicorn's ``ProxyHeadersMiddleware`` asks on every request, as one more coroutine around the
    app), and a request whose headers hold no X-Forwarded-Proto or -For is not looked at again;
    an answer's head is written with its body (:class:`~.cycle.CoalescingCycle`); one keep-alive
    timer per connection, not one per answer."""

    header_timeout = DEFAULT_HEADER_TIMEOUT_S
    body_timeout = DEFAULT_BODY_TIMEOUT_S
    max_header_bytes = DEFAULT_MAX_HEADER_BYTES
    #: uvicorn's middleware for X-Forwarded-Proto and -For, whose trusted hosts and rules are used
    #: (never its coroutine); None: nobody is believed
    proxy: ProxyHeadersMiddleware | None = None
    #: this connection's client is a trusted proxy
    _forwarding = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._guard: asyncio.TimerHandle | None = None
        self._in_headers = False
        self._in_body = False
        self._last_body = 0.0
        self._timed_out: list[int] = [0]
        self._header_bytes = 0  # of the request whose headers are arriving (or of the next one)

    # -- where the parser is -------------------------------------------------------------------
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if self.proxy is not None:
            self._forwarding = (self.client[0] if self.client else None) in self.proxy.trusted_hosts
        self._in_headers = True  # a connection that never sends a request is held no longer
        self._arm(self.header_timeout)

    def on_message_begin(self) -> None:
        # uvicorn's, with the request's timed-out flag in the scope
        self.url = b""
        self.expect_100_continue = False
        self.headers = []
        self._in_headers = True
        self._timed_out = timed_out = [0]
        scope: Any = {
            "type": "http",
            "asgi": {"version": self.asgi_version, "spec_version": "2.3"},
            "http_version": "1.1",
            "server": self.server,
            "client": self.client,
            "scheme": self.scheme,
            "root_path": self.root_path,
            "headers": self.headers,
            "state": self.app_state.copy(),
            TIMED_OUT_KEY: timed_out,
        }
        self.scope = scope

    def on_headers_complete(self) -> None:
        self._in_headers = False
        self._in_body = True
        self._header_bytes = 0
        if self._guard is not None:
            self._disarm()
        # uvicorn's, with the forwarded headers read here and the cycle a CoalescingCycle
        parser = self.parser
        scope = self.scope
        http_version = parser.get_http_version()
        scope["method"] = parser.get_method().decode("ascii")
        if http_version != "1.1":
            scope["http_version"] = http_version
        if parser.should_upgrade() and self._should_upgrade():
            return
        parsed_url = httptools.parse_url(self.url)
        raw_path = parsed_url.path
        path = raw_path.decode("ascii")
        if "%" in path:
            path = urllib.parse.unquote(path)
        root_path = self.root_path
        if root_path:
            scope["path"] = root_path + path
            scope["raw_path"] = root_path.encode("ascii") + raw_path
        else:
            scope["path"] = path
            scope["raw_path"] = raw_path
        scope["query_string"] = parsed_url.query or b""
        if self._forwarding:
            names = dict(self.headers)  # in C: most requests carry neither header
            if b"x-forwarded-for" in names or b"x-forwarded-proto" in names:
                _believe_forwarded(self.proxy, scope)  # type: ignore[arg-type]
        if self.limit_concurrency is not None and (
                len(self.connections) >= self.limit_concurrency or len(self.tasks) >= self.limit_concurrency):
            app = service_unavailable
            self.logger.warning("Exceeded concurrency limit.")
        else:
            app = self.app
        existing_cycle = self.cycle
        self.cycle = cycle = CoalescingCycle(
            scope, self.transport, self.flow, self.logger, self.access_logger,
            self.access_log and self.access_logger.isEnabledFor(logging.INFO),  # its lines are INFO
            self.server_state.default_headers, asyncio.Event(), self.expect_100_continue,
            http_version != "1.0" and parser.should_keep_alive(), self.on_response_complete, self.loop)
        if existing_cycle is None or existing_cycle.response_complete:
            self._start_asgi_task(cycle, app)
        else:  # pipelined requests wait their turn
            self.flow.pause_reading()
            self.pipeline.appendleft((cycle, app))

    def on_body(self, body: bytes) -> None:
        self._last_body = self.loop.time()
        super().on_body(body)

    def on_message_complete(self) -> None:
        self._in_body = False
        self._header_bytes = 0
        if self._guard is not None:
            self._disarm()
        super().on_message_complete()

    def data_received(self, data: bytes) -> None:
        if self._in_body:
            HttpToolsProtocol.data_received(self, data)
        else:
            counted = self._header_bytes + len(data)
            if counted <= self.max_header_bytes:  # nearly always: the whole read goes to the parser
                self._header_bytes = counted
                HttpToolsProtocol.data_received(self, data)
            else:
                self._headers_received(data)
        # only a request still arriving after this read is watched (a request that came whole in this
        # read has left both states); a body's wait is timed from here, the end of its headers' read
        if self._guard is None and (self._in_headers or self._in_body) and not self.transport.is_closing():
            if self._in_headers:
                self._arm(self.header_timeout)
            else:
                self._last_body = self.loop.time()
                self._arm(self.body_timeout)

    def _headers_received(self, data: bytes) -> None:
        """Feed the parser what fits under the header cap; a header block that does not end there
        is answered with a 431, and nothing past the cap is parsed."""
        while data:
            if self._in_body:  # the headers ended within this read: the rest is body (and what follows)
                super().data_received(data)
                return
            room = self.max_header_bytes - self._header_bytes
            if len(data) <= room:
                self._header_bytes += len(data)
                super().data_received(data)
                return
            head, data = data[:room], data[room:]
            self._header_bytes += len(head)
            super().data_received(head)
            if self.transport.is_closing():
                return
            if not self._in_body and self._header_bytes >= self.max_header_bytes:
                previous = self.cycle
                self._cut(f"the request line and headers are larger than this server's limit of "
                          f"{self.max_header_bytes} bytes (--max-header-bytes)",
                          answer=previous is None or previous.response_complete, status=HEADERS_TOO_LARGE)
                return

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self.timeout_keep_alive_task is not None:  # it would hold this protocol for its delay
            self.timeout_keep_alive_task.cancel()
            self.timeout_keep_alive_task = None
        super().connection_lost(exc)

    # -- keep-alive: one timer per connection, not one per answer ---------------------------------
    #: since when (the loop's clock) the connection has waited for a next request; None: busy
    _idle_since: float | None = None

    def on_response_complete(self) -> None:
        # uvicorn's, except the keep-alive timer: uvicorn arms a new one after every answer and cancels
        # it at the next request's first byte (a timer made and dropped per request); here the
        # answer notes when the wait began and one timer per connection checks it
        self.server_state.total_requests += 1
        if self.transport.is_closing():
            return
        self.flow.resume_reading()
        if self.pipeline:
            cycle, app = self.pipeline.pop()
            self._start_asgi_task(cycle, app)
            return
        self._idle_since = self.loop.time()
        if self.timeout_keep_alive_task is None:
            self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive, self._keep_alive_due)

    def _unset_keepalive_if_required(self) -> None:
        self._idle_since = None  # data came (or the connection ends): not waiting; the timer stays

    def _keep_alive_due(self) -> None:
        """The connection's keep-alive timer: closes it once it has waited ``timeout_keep_alive``
        seconds since its last answer, else looks again when it would have."""
        self.timeout_keep_alive_task = None
        since = self._idle_since
        if since is None or self.transport.is_closing():
            return  # a request is under way: the next answer arms the timer again
        waited = self.loop.time() - since
        if waited >= self.timeout_keep_alive:
            self.transport.close()
        else:
            self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive - waited, self._keep_alive_due)

    # -- the timer -----------------------------------------------------------------------------
    def _arm(self, delay: float) -> None:
        self._disarm()
        self._guard = self.loop.call_later(delay, self._expired)

    def _disarm(self) -> None:
        if self._guard is not None:
            self._guard.cancel()
            self._guard = None

    def _expired(self) -> None:
        self._guard = None
        if self.transport.is_closing():
            return
        if self._in_headers:
            # a request's headers: the cycle (if any) is the previous request's; answer only after it
            previous = self.cycle
            self._cut("the request headers did not arrive in time",
                      answer=previous is None or previous.response_complete)
            return
        if not self._in_body:
            return
        if self.flow.read_paused:  # the fake is not reading yet (busy, or delayed by a fault): not the client
            self._arm(self.body_timeout)
            return
        idle = self.loop.time() - self._last_body
        if idle < self.body_timeout:
            self._arm(self.body_timeout - idle)
            return
        self._timed_out[0] = 408
        self._cut("the request body stopped arriving", answer=not self.cycle.response_started)

    def _cut(self, reason: str, *, answer: bool, status: bytes = TIMEOUT) -> None:
        if answer:
            message = reason.encode()
            self.transport.write(_ANSWER % (status, len(message), message))
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            cycle.disconnected = True  # the fake's next read of the body is a disconnect
            cycle.message_event.set()
        self.transport.close()


def _believe_forwarded(proxy: ProxyHeadersMiddleware, scope: Any) -> None:
    """What uvicorn's ``ProxyHeadersMiddleware`` does to the scope of a request from a trusted proxy
    (the scheme from X-Forwarded-Proto, the client from X-Forwarded-For), by running its own code:
    its app (:func:`_no_app`) returns at once, so one step of the coroutine is the whole of it."""
    step = proxy(scope, _never_called, _never_called)
    try:
        step.send(None)
    except StopIteration:
        return
    step.close()  # never reached: nothing in it waits
    raise RuntimeError("uvicorn's ProxyHeadersMiddleware waited on something")


def _never_called(*args: Any) -> Any:
    """Receive and send of a scope :func:`_believe_forwarded` runs the middleware on: its app
    (:func:`_no_app`) reads and sends nothing."""
    raise AssertionError("the forwarded-headers middleware's app does not read or send")
