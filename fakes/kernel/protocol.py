"""uvicorn's httptools protocol with two read timeouts, so that slow clients cannot hold a server.

uvicorn times out an idle keep-alive connection, but not a client that sends its request headers
one byte at a time, nor one that declares a large body and stops sending it. A server many CI jobs
share cannot let either hold a connection (and the memory of what it sent) for ever:

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

_TIMEOUT_ANSWER = (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
                   b"content-length: %d\r\nconnection: close\r\n\r\n%s")


@dataclass(frozen=True)
class ReadTimeouts:
    header_s: float = DEFAULT_HEADER_TIMEOUT_S
    body_s: float = DEFAULT_BODY_TIMEOUT_S

    def __post_init__(self) -> None:
        for name, value in (("header timeout", self.header_s), ("body timeout", self.body_s)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= MAX_TIMEOUT_S:
                raise ValueError(f"the {name} must be more than 0 and at most {MAX_TIMEOUT_S:g} seconds, "
                                 f"got {value!r}")

    @classmethod
    def from_env(cls) -> ReadTimeouts:
        """``FAKES_HEADER_TIMEOUT`` / ``FAKES_BODY_TIMEOUT`` (seconds), else the defaults."""
        values = {}
        for field, env in (("header_s", "FAKES_HEADER_TIMEOUT"), ("body_s", "FAKES_BODY_TIMEOUT")):
            raw = os.environ.get(env)
            if raw:
                try:
                    values[field] = float(raw)
                except ValueError:
                    raise ValueError(f"{env} must be a number of seconds, not {raw!r}") from None
        try:
            return cls(**values)
        except ValueError as exc:
            raise ValueError(f"FAKES_HEADER_TIMEOUT / FAKES_BODY_TIMEOUT: {exc}") from None


def protocol_class(timeouts: ReadTimeouts) -> type[HttpToolsProtocol]:
    """uvicorn's ``http`` protocol class for servers with these timeouts."""
    return type("GuardedHttpToolsProtocol", (GuardedHttpToolsProtocol,),
                {"header_timeout": float(timeouts.header_s), "body_timeout": float(timeouts.body_s)})


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """:class:`HttpToolsProtocol` plus the two timeouts (see the module); one timer at most."""

    header_timeout = DEFAULT_HEADER_TIMEOUT_S
    body_timeout = DEFAULT_BODY_TIMEOUT_S

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._guard: asyncio.TimerHandle | None = None
        self._in_headers = False
        self._in_body = False
        self._last_body = 0.0
        self._timed_out: list[int] = [0]

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
        self._last_body = self.loop.time()
        self._disarm()
        super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        self._last_body = self.loop.time()
        super().on_body(body)

    def on_message_complete(self) -> None:
        self._in_body = False
        self._disarm()
        super().on_message_complete()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        # only a request still arriving after this read is watched
        if self._guard is None and (self._in_headers or self._in_body) and not self.transport.is_closing():
            self._arm(self.header_timeout if self._in_headers else self.body_timeout)

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

    def _cut(self, reason: str, *, answer: bool) -> None:
        if answer:
            message = reason.encode()
            self.transport.write(_TIMEOUT_ANSWER % (len(message), message))
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            cycle.disconnected = True  # the fake's next read of the body is a disconnect
            cycle.message_event.set()
        self.transport.close()
