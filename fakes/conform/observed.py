"""One request and its answer as a client saw it, and the httpx transport that sees them.

:class:`Observed` is what conformance runs, recordings and replays compare: the real side's
exchange against the fake's. :class:`ObservingTransport` wraps any httpx transport (a socket, or a
fake in process) and hands each exchange to a callback after it completed; a ``guard`` may refuse
a request before it is sent (the call budget, read-only runs).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson


@dataclass
class Observed:
    """One exchange: the request below the base URL, and the answer."""

    method: str
    path: str  # below the base URL, starting with "/"
    query: str = ""
    request_headers: dict[str, str] = field(default_factory=dict)  # names in lower case
    request_body: bytes = b""
    status: int = 0
    response_headers: dict[str, str] = field(default_factory=dict)  # names in lower case
    response_body: bytes = b""
    #: seconds since the first exchange of the run (recordings keep it to replay the gaps)
    at: float = 0.0
    #: where it came from: "walk", a scenario's name, "cassette"
    source: str = ""
    #: the operation of the API document it belongs to, ``"GET /videos/{videoId}"`` ("" until matched)
    operation: str = ""
    #: the answer's body is known only by its hash and length (a recording kept it so)
    body_by_hash: bool = False
    #: the request's body is known only by its hash and length (it cannot be sent again)
    request_by_hash: bool = False
    _json: Any = field(default=None, repr=False, compare=False)
    _parsed: bool = field(default=False, repr=False, compare=False)

    @property
    def media_type(self) -> str:
        """The answer's media type without parameters, in lower case (``""``: none)."""
        return self.response_headers.get("content-type", "").split(";")[0].strip().lower()

    @property
    def is_json(self) -> bool:
        kind = self.media_type
        return kind == "application/json" or kind.endswith("+json")

    def json(self) -> Any:
        """The answer's JSON body (None when it is not JSON or does not parse)."""
        if not self._parsed:
            self._parsed = True
            if self.response_body and not self.body_by_hash:
                try:
                    self._json = orjson.loads(self.response_body)
                except orjson.JSONDecodeError:
                    self._json = None
        return self._json

    @property
    def target(self) -> str:
        """``GET /videos?page=2`` (query as sent)."""
        return f"{self.method} {self.path}" + (f"?{self.query}" if self.query else "")


def headers_of(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Header names in lower case; a repeated header's values joined by ", "."""
    joined: dict[str, str] = {}
    for name, value in pairs:
        name = name.lower()
        joined[name] = f"{joined[name]}, {value}" if name in joined else value
    return joined


def below_base(url: httpx.URL, base: httpx.URL) -> str:
    """The URL's path below ``base``'s path (``/_w/x/videos`` under ``/_w/x`` -> ``/videos``)."""
    prefix = base.path.rstrip("/")
    path = url.path
    return (path[len(prefix):] or "/") if prefix and path.startswith(prefix) else path


class RefusedCall(Exception):
    """A guard refused to send a request (the call budget is spent, writes are not allowed)."""


Guard = Callable[[httpx.Request], None]
Seen = Callable[[Observed, httpx.Request], None]


class ObservingTransport(httpx.BaseTransport):
    """Calls ``inner``; each completed exchange goes to ``seen`` (body read in full)."""

    def __init__(self, inner: httpx.BaseTransport, base_url: str, seen: Seen,
                 guard: Guard | None = None, clock: Callable[[], float] = time.monotonic,
                 failed: Callable[[httpx.TransportError], None] | None = None) -> None:
        self.inner = inner
        self.base = httpx.URL(base_url)
        self.seen = seen
        self.guard = guard
        self.clock = clock
        self.failed = failed
        self.started: float | None = None

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if self.guard is not None:
            self.guard(request)
        now = self.clock()
        if self.started is None:
            self.started = now
        request_body = request.read()
        try:
            response = self.inner.handle_request(request)
            body = response.read()
        except httpx.TransportError as exc:
            if self.failed is not None:
                self.failed(exc)
            raise
        self.seen(Observed(
            method=request.method, path=below_base(request.url, self.base),
            query=request.url.query.decode("latin-1"), request_headers=headers_of(request.headers.multi_items()),
            request_body=request_body, status=response.status_code,
            response_headers=headers_of(response.headers.multi_items()), response_body=body,
            at=round(now - self.started, 6)), request)
        return response

    def close(self) -> None:
        self.inner.close()
