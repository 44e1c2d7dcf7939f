"""uvicorn's request-response cycle, writing an answer's head and body in one write.

uvicorn writes the status line and headers when the app sends ``http.response.start`` and the body
when it sends ``http.response.body``: two writes, two ``send`` system calls, two TCP segments on a
``TCP_NODELAY`` socket for every answer. :class:`CoalescingCycle` renders the head at once (the
same bytes, the same checks) but holds it until the body's first message, and writes both
together; a stream that does not send its body in the same turn of the event loop gets its head
at the next turn (a ``call_soon``), so nothing waits on it. A rendered ``name: value`` line is kept
per header pair (a service's content type, its rate-limit headers): uvicorn's checks of a name
and a value run once per pair, not on every answer.

Anything off the common path (an access log, a paused or lost connection, chunked or HEAD
bodies, an unexpected message) is left to uvicorn's own :meth:`RequestResponseCycle.send`, with
the held head written first. tests/kernel/test_cycle.py compares the bytes with uvicorn's.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HEADER_RE, HEADER_VALUE_RE, STATUS_LINE, RequestResponseCycle

#: header pairs -> their rendered line (names uvicorn treats specially are never here)
_LINES: dict[tuple[bytes, bytes], bytes] = {}
#: content-length pairs -> (their line, the length)
_LENGTHS: dict[tuple[bytes, bytes], tuple[bytes, int]] = {}
#: past this many pairs a table starts again
MAX_KEPT_LINES = 4096
#: a longer line is never kept (a value an app copied from a request may be up to the header cap):
#: the tables hold at most MAX_KEPT_LINES short lines
MAX_KEPT_LINE_BYTES = 512
#: a header name with this many different values kept is one whose value is new on every answer (a
#: call id, a request id): its lines are no longer kept, so they neither fill the table nor hold
#: one-off values alive until it starts again
VOLATILE_AFTER = 1024
#: header name (as sent) -> how many of its lines were kept; names past VOLATILE_AFTER
_KEPT_PER_NAME: dict[bytes, int] = {}
_VOLATILE: set[bytes] = set()
#: a body up to this size is joined to its head; a larger one is written after it in the same call
#: (a join of a 52 KB page cost more than the write it saved: a fresh large block each time)
JOIN_BYTES = 8 * 1024
_SPECIAL = frozenset({b"content-length", b"transfer-encoding", b"connection"})


class CoalescingCycle(RequestResponseCycle):
    """:class:`RequestResponseCycle` whose head goes out with the body's first message (module)."""

    #: the rendered status line and headers, not yet written
    head: bytes | None = None
    #: the next loop turn's write of ``head``, when the body has not come by then
    flush: asyncio.Handle | None = None
    loop: asyncio.AbstractEventLoop
    #: the answer's own headers said ``Connection: close``
    close_said = False
    # what uvicorn's constructor sets to the same value for every request, as class attributes
    disconnected = False
    more_body = True
    response_started = False
    response_complete = False
    chunked_encoding: bool | None = None
    expected_content_length = 0

    def __init__(self, scope: Any, transport: asyncio.Transport, flow: Any, logger: Any, access_logger: Any,
                 access_log: bool, default_headers: list[tuple[bytes, bytes]], message_event: asyncio.Event,
                 expect_100_continue: bool, keep_alive: bool, on_response: Any, loop: asyncio.AbstractEventLoop,
                 ) -> None:
        """uvicorn's, positional, without its stores of constants (class attributes above)."""
        self.scope = scope
        self.transport = transport
        self.flow = flow
        self.logger = logger
        self.access_logger = access_logger
        self.access_log = access_log
        self.default_headers = default_headers
        self.message_event = message_event
        self.on_response = on_response
        self.keep_alive = keep_alive
        self.waiting_for_100_continue = expect_100_continue
        self.body = bytearray()
        self.loop = loop

    async def send(self, message: Any) -> None:
        head = self.head
        if head is None:
            if (self.response_started or self.disconnected or self.access_log or self.flow.write_paused
                    or message["type"] != "http.response.start"):
                await RequestResponseCycle.send(self, message)
                return
            self.response_started = True  # as uvicorn: a head that fails its checks still counts as started
            self.waiting_for_100_continue = False
            self.head = self._render(message)
            self.flush = self.loop.call_soon(self._flush)
            return
        self.head = None
        self.flush.cancel()  # type: ignore[union-attr]
        if (message["type"] != "http.response.body" or self.disconnected or self.flow.write_paused
                or self.chunked_encoding or self.scope["method"] == "HEAD"):
            self._write_head(head)
            await RequestResponseCycle.send(self, message)
            return
        body = message.get("body", b"")
        more_body = message.get("more_body", False)
        size = len(body)
        if size > self.expected_content_length:
            self._write_head(head)
            raise RuntimeError("Response content longer than Content-Length")
        self.expected_content_length -= size
        if not size:
            self.transport.write(head)
        elif size <= JOIN_BYTES:
            self.transport.write(head + body)
        else:
            self.transport.writelines((head, body))
        if not more_body:
            if self.expected_content_length != 0:
                raise RuntimeError("Response content shorter than Content-Length")
            self.response_complete = True
            self.message_event.set()
            if not self.keep_alive:
                self.transport.close()
            self.on_response()

    def _flush(self) -> None:
        head = self.head
        if head is not None:
            self.head = None
            self._write_head(head)

    def _write_head(self, head: bytes) -> None:
        if not self.disconnected and not self.transport.is_closing():
            self.transport.write(head)

    def _render(self, message: Any) -> bytes:
        """uvicorn's status line and headers for ``message``, with its checks and its bookkeeping
        (content length, chunked encoding, keep-alive)."""
        status = message["status"]
        headers = message.get("headers", ())
        if self.default_headers:
            headers = self.default_headers + list(headers)
        alive = self.keep_alive
        self.close_said = False
        try:
            content = self._lines(status, headers)
        except TypeError:  # a header pair given as a list, not a tuple: the tables cannot hold it
            self.keep_alive, self.close_said = alive, False
            self.chunked_encoding, self.expected_content_length = None, 0
            content = self._lines(status, [tuple(pair) for pair in headers])
        if not self.keep_alive and not self.close_said:
            content.append(b"connection: close\r\n")
        if self.chunked_encoding is None and self.scope["method"] != "HEAD" and status not in (204, 304):
            self.chunked_encoding = True
            content.append(b"transfer-encoding: chunked\r\n")
        content.append(b"\r\n")
        return b"".join(content)

    def _lines(self, status: int, headers: Any) -> list[bytes]:
        content = [STATUS_LINE[status]]
        line_of = _LINES.get
        lengths = _LENGTHS
        for pair in headers:
            line = line_of(pair)
            if line is None:
                known = lengths.get(pair)
                if known is None:
                    line = self._line(pair)
                else:
                    line = known[0]
                    if self.chunked_encoding is None:
                        self.expected_content_length = known[1]
                        self.chunked_encoding = False
            content.append(line)
        return content

    def _line(self, pair: tuple[bytes, bytes]) -> bytes:
        """One header's line, checked and read as uvicorn does; an ordinary pair's line, and a
        content length's that counted, are kept for the next answer."""
        name, value = pair
        if HEADER_RE.search(name):
            raise RuntimeError("Invalid HTTP header name.")
        if HEADER_VALUE_RE.search(value):
            raise RuntimeError("Invalid HTTP header value.")
        name = name.lower()
        line = b"".join((name, b": ", value, b"\r\n"))
        if name not in _SPECIAL:
            _keep_line(pair, line)
        elif name == b"content-length":
            if self.chunked_encoding is None:  # a later one is only written, as uvicorn does
                length = int(value.decode())
                if len(line) <= MAX_KEPT_LINE_BYTES:
                    _keep(_LENGTHS, pair, (line, length))
                self.expected_content_length = length
                self.chunked_encoding = False
        elif name == b"transfer-encoding":
            if value.lower() == b"chunked":
                self.expected_content_length = 0
                self.chunked_encoding = True
        elif b"close" in [token.lower().strip() for token in value.split(b",")]:  # connection
            self.keep_alive = False
            self.close_said = True
        return line


def _keep_line(pair: tuple[bytes, bytes], line: bytes) -> None:
    """Keep an ordinary header's line, unless it is long or its name's values keep changing."""
    name = pair[0]
    if name in _VOLATILE or len(line) > MAX_KEPT_LINE_BYTES:
        return
    kept = _KEPT_PER_NAME.get(name, 0) + 1
    if kept > VOLATILE_AFTER:
        if len(_VOLATILE) >= MAX_KEPT_LINES:  # names come from the app's code: never this many
            _VOLATILE.clear()
        _VOLATILE.add(name)
        for key in [key for key in _LINES if key[0] == name]:  # once per such name
            del _LINES[key]
        return
    if len(_KEPT_PER_NAME) >= MAX_KEPT_LINES:
        _KEPT_PER_NAME.clear()
    _KEPT_PER_NAME[name] = kept
    _keep(_LINES, pair, line)


def _keep(table: dict[Any, Any], key: Any, value: Any) -> None:
    if len(table) >= MAX_KEPT_LINES:
        table.clear()
    table[key] = value
