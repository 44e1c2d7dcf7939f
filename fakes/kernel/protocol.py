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
import os
from dataclasses import dataclass
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

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


def protocol_class(timeouts: ReadTimeouts) -> type[HttpToolsProtocol]:
    """uvicorn's ``http`` protocol class for servers with these timeouts and this header cap."""
    return type("GuardedHttpToolsProtocol", (GuardedHttpToolsProtocol,),
                {"header_timeout": float(timeouts.header_s), "body_timeout": float(timeouts.body_s),
                 "max_header_bytes": timeouts.header_bytes})


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """:class:`HttpToolsProtocol` plus the two timeouts and the header cap (see the module); one
    timer at most."""

    header_timeout = DEFAULT_HEADER_TIMEOUT_S
    body_timeout = DEFAULT_BODY_TIMEOUT_S
    max_header_bytes = DEFAULT_MAX_HEADER_BYTES

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
        self._in_headers = True  # a connection that never sends a request is held no longer
        self._arm(self.header_timeout)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_headers = True
        self._timed_out = [0]
        self.scope[TIMED_OUT_KEY] = self._timed_out  # type: ignore[literal-required]

    def on_headers_complete(self) -> None:
        self._in_headers = False
        self._in_body = True
        self._header_bytes = 0
        self._last_body = self.loop.time()
        self._disarm()
        super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        self._last_body = self.loop.time()
        super().on_body(body)

    def on_message_complete(self) -> None:
        self._in_body = False
        self._header_bytes = 0
        self._disarm()
        super().on_message_complete()

    def data_received(self, data: bytes) -> None:
        if self._in_body:
            super().data_received(data)
        else:
            self._headers_received(data)
        # only a request still arriving after this read is watched
        if self._guard is None and (self._in_headers or self._in_body) and not self.transport.is_closing():
            self._arm(self.header_timeout if self._in_headers else self.body_timeout)

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
        super().connection_lost(exc)

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
