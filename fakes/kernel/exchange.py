"""What one request carried and what it was answered: kept raw while it runs, decoded when read.

The journal keeps, per request, the request's headers and body and the answer's headers and body
(:class:`Exchange`). On the hot path nothing is decoded or copied: the header lists are the ones
the server and the response already built, a body is the very chunk the route read or sent, cut
to ``body_bytes`` only when it is longer (its full length counted). Text, JSON and the redaction
of credentials (:class:`Redactor`) happen only when someone reads the journal.
"""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Iterable
from itertools import chain
from typing import Any, Final

from starlette.types import Message, Receive, Scope, Send

from .limits import BodyTooLarge, first_read_cap
from .redaction import Redactor

#: longest body kept per request and per answer unless the fake says otherwise
DEFAULT_BODY_BYTES = 16 * 1024
#: what the journal counts for an entry itself, beyond its path, query, warnings, headers and bodies
ENTRY_COST = 200
#: between the names and values of a settled header list (HTTP allows no NUL in either)
HEADER_SEPARATOR = b"\0"

class Exchange:
    """Records one request and its answer while it runs (see :meth:`settle` for what is kept).

    ``receive`` and ``send`` wrap the ASGI callables of the request. ``receive`` holds the body to
    its cap (fakes/kernel/limits.py: the matched route's, else ``cap``); with ``details`` (the
    journal keeps headers and bodies) what the route reads and what it sends passes through once,
    kept by reference: the cut to ``body_bytes`` and the header join happen once, when the journal
    settles it after the answer (:meth:`fakes.kernel.journal.Journal.add`). Without ``details`` only
    the status is kept. One object per request, no closure: every request of every fake makes one."""

    __slots__ = (
        "_cap",
        "_receive",
        "_request_done",
        "_scope",
        "body_bytes",
        "details",
        "request_body",
        "request_length",
        "response_body",
        "response_headers",
        "response_length",
        "server_send",
        "status",
    )

    def __init__(self, scope: Scope, receive: Receive, send: Send, cap: int, details: bool,
                 body_bytes: int) -> None:
        self.status = 0
        self.details = details
        self.body_bytes = body_bytes
        self._scope = scope
        self._cap = -cap - 1  # negative until the first read: then the route's own cap, or this one
        self.request_body = b""
        self.request_length = 0
        self.response_headers: Iterable[tuple[bytes, bytes]] = ()
        self.response_body = b""
        self.response_length = 0
        # a GET or HEAD with a body is rare enough to be left unread (and marked so) if unrouted
        self._request_done = not details or scope["method"] in BODILESS_METHODS
        self._receive = receive
        #: the server's send (what :meth:`send` hands messages on to)
        self.server_send = send

    @property
    def request_headers(self) -> list[tuple[bytes, bytes]]:
        headers: list[tuple[bytes, bytes]] = self._scope["headers"]
        return headers

    async def receive(self) -> Message:
        cap = self._cap
        if cap < 0:  # the first read: the router has matched the route by now
            cap = self._cap = first_read_cap(self._scope, -cap - 1)
        message = await self._receive()
        body = message.get("body")
        if body:
            length = self.request_length + len(body)
            if length > cap:
                raise BodyTooLarge(cap)
            self.request_length = length
            if self.details:
                kept = self.request_body
                # the first chunk by reference (cut when settled); later ones joined up to the limit
                self.request_body = body if not kept else _keep(kept, body, self.body_bytes)
        if not message.get("more_body"):
            self._request_done = True
        return message

    def send(self, message: Message) -> Awaitable[None]:
        # a plain function handing on the server's awaitable: no coroutine of its own per message
        if message["type"] == "http.response.start":
            self.status = message["status"]
            if self.details:
                self.response_headers = message.get("headers") or ()
                if not self._request_done:
                    unread = self._unread_length()
                    if unread:
                        return self._read_then_send(unread, message)
        elif self.details:
            body = message.get("body")
            if body:
                kept = self.response_body
                # the common case: the whole body in one message, kept by reference (cut when settled)
                self.response_body = body if not kept else _keep(kept, body, self.body_bytes)
                self.response_length += len(body)
        return self.server_send(message)

    def answered(self, status: int, headers: Iterable[tuple[bytes, bytes]], body: bytes) -> bool:
        """The router is about to send a plain answer (``status``, ``headers``, then ``body`` in one
        message) through :attr:`server_send` itself: record it as :meth:`send` would have, without
        a call per message. False (nothing recorded) when the route left a body unread that the
        journal would keep: then the answer goes through :meth:`send`, which reads it first."""
        if not self._request_done:
            return False
        self.status = status
        if self.details:
            self.response_headers = headers
            self.response_body = body
            self.response_length = len(body)
        return True

    def _unread_length(self) -> int:
        """The declared length of a body the route answered without reading (a 401, a 404, a
        fault), when the journal would keep it whole; else 0 (none, or longer: it stays unread
        and is marked so)."""
        self._request_done = True
        for name, value in self._scope["headers"]:
            if name == b"content-length":
                declared = int(value) if value.isdigit() and len(value) <= 18 else 0  # no 4,300-digit ints
                fits = 0 < declared - self.request_length <= self.body_bytes - len(self.request_body)
                return declared if fits else 0
        return 0

    async def _read_then_send(self, declared: int, message: Message) -> None:
        """Read the rest of the body before the answer goes, so the journal shows what the client
        sent; a body the size cap or the client cuts short stays as far as it came."""
        try:
            while self.request_length < declared:
                received = await self.receive()
                if received["type"] != "http.request" or not received.get("more_body"):
                    break
        except Exception:  # the answer is decided; what was not read stays unread
            pass
        await self.server_send(message)


def answer_send(send: Send, status: int, headers: Iterable[tuple[bytes, bytes]], body: bytes) -> Send:
    """The send for a plain answer (``status`` and ``headers``, then ``body`` in one message) that a
    route sends by hand: when ``send`` is a journal exchange's own (no rule wraps it), the answer is
    recorded in the exchange at once (:meth:`Exchange.answered`) and the server's send comes back,
    so the two messages pass no wrapper; else ``send`` itself. (The router does the same inline.)"""
    exchange = getattr(send, "__self__", None)
    if exchange.__class__ is Exchange and exchange.answered(status, headers, body):
        return exchange.server_send
    return send


#: requests whose body, if any, is not read before an answer the route gave without reading it
BODILESS_METHODS = frozenset({"GET", "HEAD"})


def _keep(kept: bytes, chunk: bytes, limit: int) -> bytes:
    """``kept`` and as much of ``chunk`` as fits in ``limit`` bytes (a whole first chunk: itself)."""
    room = limit - len(kept)
    if room <= 0:
        return kept
    return chunk if not kept and len(chunk) <= room else kept + chunk[:room]


class Settled:
    """What the journal settles exchanges with: each repeats what the one before it sent, often
    byte for byte (a client sends the same headers again, a cached page is the same bytes), so the
    joined header list, the answer's header tuple and each cut body of the last exchange are
    reused when equal: no new memory per request for what did not change."""

    __slots__ = ("body_bytes", "kept", "request_body", "request_headers", "request_joined", "response_body",
                 "response_headers", "response_joined")

    def __init__(self, body_bytes: int) -> None:
        self.body_bytes = body_bytes
        self.forget()

    def forget(self) -> None:
        self.request_headers: list[tuple[bytes, bytes]] = []
        self.request_joined = b""
        self.response_headers: list[tuple[bytes, bytes]] = []
        self.response_joined = b""
        self.request_body = b""
        self.response_body = b""
        self.kept: Kept | None = None  # the last exchange's, returned again for an equal one

    def settle(self, exchange: Exchange, head: bool = False) -> Kept:
        """What the journal keeps of ``exchange``: a plain tuple of bytes and integers (see :data:`Kept`).

        Each header list becomes one bytes object (name NUL value NUL ...): one object instead of
        a list of pairs, its size exact (a client may send megabytes of headers). An answer whose
        headers change with each call (a call id, a remaining count) would otherwise leave a tuple
        of new pairs per request, freed a ring later from memory long out of the processor's
        caches; one object is one such miss, not fifteen. A tuple holding only bytes and integers
        is one the garbage collector stops tracking, so a full journal adds nothing to every
        collection. The request's callables (they hold the server's whole request cycle) are let
        go with the exchange. An exchange equal to the one before (a client repeating a request
        and answered the same, a cached page) gets the very tuple of the one before: the journal
        keeps it, and counts it, once. ``head``: the client got no body (a HEAD request)."""
        headers = exchange._scope["headers"]
        if headers == self.request_headers:
            request_headers = self.request_joined
        else:
            request_headers = self.request_joined = HEADER_SEPARATOR.join(chain.from_iterable(headers))
            self.request_headers = list(headers)
        answer_headers = exchange.response_headers
        if answer_headers == self.response_headers:
            response_headers = self.response_joined
        else:
            response_headers = self.response_joined = HEADER_SEPARATOR.join(chain.from_iterable(answer_headers))
            self.response_headers = list(answer_headers)
        request_body = exchange.request_body
        if len(request_body) > self.body_bytes:
            request_body = self.request_body = self._cut(request_body, self.request_body)
        if head:
            response_body, response_length = b"", 0
        else:
            response_body, response_length = exchange.response_body, exchange.response_length
            if len(response_body) > self.body_bytes:
                response_body = self.response_body = self._cut(response_body, self.response_body)
        cost = len(request_headers) + len(response_headers) + len(request_body) + len(response_body)
        kept = (request_headers, request_body, exchange.request_length, response_headers, response_body,
                response_length, cost)
        if kept == self.kept:  # as the exchange before (the same request answered the same): that very tuple
            return self.kept
        self.kept = kept
        return kept

    def _cut(self, body: bytes, last: bytes) -> bytes:
        """``body`` cut to ``body_bytes``: the last cut again when it begins with it (no copy)."""
        global _LAST_CUT
        limit = self.body_bytes
        kept_body, kept_limit, kept_cut = _LAST_CUT
        if body is kept_body and kept_limit == limit:
            return kept_cut  # a kept answer sent again: not even a comparison of its first bytes
        cut = last if last and len(last) == limit and body.startswith(last) else body[:limit]
        if body.__class__ is bytes and len(body) <= MAX_REMEMBERED_BODY:  # immutable, and not huge
            _LAST_CUT = (body, limit, cut)
        return cut


#: the last body cut in this process, its limit and its cut: a fake that sends the same kept answer
#: again (a cached page) finds its cut by identity, without reading its first ``body_bytes`` again
#: (a comparison of 16 KiB that reached memory on every request). One for the whole process, so it
#: holds one body of at most MAX_REMEMBERED_BODY more, whatever the number of journals.
MAX_REMEMBERED_BODY = 1024 * 1024
_LAST_CUT: tuple[bytes, int, bytes] = (b"", -1, b"")


#: a kept exchange: (request headers, request body, its length, answer headers, answer body, its
#: length, cost); headers as settled by :meth:`Exchange.settle`, bodies cut to the journal's limit
Kept = tuple[bytes, bytes, int, bytes, bytes, int, int]
REQUEST_HEADERS: Final = 0
REQUEST_BODY: Final = 1
REQUEST_LENGTH: Final = 2
RESPONSE_HEADERS: Final = 3
RESPONSE_BODY: Final = 4
RESPONSE_LENGTH: Final = 5
COST: Final = 6


def request_header(kept: Kept, name: str) -> str | None:
    """The request header ``name`` (case-insensitive) as sent, repeated ones joined by ", "."""
    return _joined(header_pairs(kept[REQUEST_HEADERS]), name.lower().encode("latin-1"))


def request_text(kept: Kept) -> str | None:
    """The request body kept, as text (None: not UTF-8)."""
    return _text(kept[REQUEST_BODY], kept[REQUEST_LENGTH] > len(kept[REQUEST_BODY]))


def describe(kept: Kept, redactor: Redactor | None) -> dict[str, Any]:
    """``{"request": {...}, "response": {...}}`` of a journal entry, credentials redacted."""
    pairs = header_pairs(kept[REQUEST_HEADERS])
    request = {"headers": headers_dict(pairs, redactor),
               **body_fields(kept[REQUEST_BODY], kept[REQUEST_LENGTH], redactor)}
    declared = _joined(pairs, b"content-length")
    if declared is not None and declared.isdigit() and (len(declared) > 18 or int(declared) > kept[REQUEST_LENGTH]):
        request["body_unread"] = True  # answered before the route read it (a 401, a 413 ...)
    response = {"headers": headers_dict(header_pairs(kept[RESPONSE_HEADERS]), redactor),
                **body_fields(kept[RESPONSE_BODY], kept[RESPONSE_LENGTH], redactor)}
    return {"request": request, "response": response}


def header_pairs(headers: bytes) -> list[tuple[bytes, bytes]]:
    """The (name, value) pairs of a settled header list (see :meth:`Exchange.settle`)."""
    if not headers:
        return []
    parts = headers.split(HEADER_SEPARATOR)
    return list(zip(parts[::2], parts[1::2], strict=False))


def _joined(headers: Iterable[tuple[bytes, bytes]], name: bytes) -> str | None:
    values = [value.decode("latin-1") for key, value in headers if key == name]
    return ", ".join(values) if values else None


def headers_dict(headers: Iterable[tuple[bytes, bytes]], redactor: Redactor | None) -> dict[str, str]:
    """Header names (lower case) -> values; a repeated header's values joined by ", "."""
    shown: dict[str, str] = {}
    for raw_name, raw_value in headers:
        name = raw_name.decode("latin-1").lower()
        value = raw_value.decode("latin-1")
        if redactor is not None:
            value = redactor.header(name, value)
        shown[name] = f"{shown[name]}, {value}" if name in shown else value
    return shown


def _text(body: bytes, truncated: bool) -> str | None:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        # a body cut inside a character is still text: drop the partial character at the cut
        if truncated and exc.start >= len(body) - 3 and exc.reason in ("unexpected end of data",):
            return body[:exc.start].decode("utf-8", errors="strict")
        return None


def body_fields(body: bytes, length: int, redactor: Redactor | None) -> dict[str, Any]:
    """``body`` (text, redacted) or ``body_base64`` (not UTF-8), ``body_length`` (every byte sent or
    read) and ``body_truncated`` (only the first ``len(body)`` bytes were kept)."""
    truncated = length > len(body)
    text = _text(body, truncated)
    fields: dict[str, Any] = {}
    if text is None:
        fields["body"] = None
        fields["body_base64"] = base64.b64encode(body).decode("ascii")
    else:
        fields["body"] = redactor.text(text) if redactor is not None and text else text
    fields["body_length"] = length
    fields["body_truncated"] = truncated
    return fields
