"""What a route reads from a query string alone, remembered per query string.

A route's parameter checks (unknown or repeated names, a finder, integers in range) read nothing
but the query, and a client sends the same query again and again (a poller, a test suite, a
retry). :class:`QueryMemo` wraps such a parse: the first request of a query string runs it; the
next ones get its result again, or its refusal again - a new :class:`ServiceError` equal to the
first (same class, status, message, code, headers and extra fields), raised from where the route
asks, so the service renders it as it renders any. Only what the function returns or raises for
the query is remembered: a parse that reads anything else (the state, the clock, a header) must
not be wrapped.

Bounded: at most ``size`` query strings of at most :data:`MAX_QUERY` bytes each (past the size
the table starts over; a longer query is parsed every time), so no client can make it grow.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from starlette.requests import Request

from .errors import ServiceError

T = TypeVar("T")

#: longer query strings are parsed every time
MAX_QUERY = 512
#: query strings remembered per memo before it starts over
DEFAULT_SIZE = 1024


class QueryMemo(Generic[T]):
    """``memo(request)``: ``parse(request)`` for the request's query string, remembered (see the
    module). One per route, shared by every fake and world of the process (what a query parses to
    is the same for all of them); what ``parse`` returns is handed to every later request of the
    same query, so it must not be changed (a tuple, a frozen value)."""

    __slots__ = ("_lock", "_parse", "_results", "size")

    def __init__(self, parse: Callable[[Request], T], size: int = DEFAULT_SIZE) -> None:
        self._parse = parse
        self.size = size
        #: query string -> (True, the result) or (False, the refusal to copy)
        self._results: dict[bytes, tuple[bool, T | ServiceError]] = {}
        self._lock = threading.Lock()  # fakes served on several threads share a route's memo

    def __call__(self, request: Request) -> T:
        query: bytes = request.scope["query_string"]
        found = self._results.get(query)
        if found is None:
            try:
                value = self._parse(request)
            except ServiceError as err:
                self._remember(query, (False, _copy(err)))  # a copy: the raised one holds its frames
                raise
            self._remember(query, (True, value))
            return value
        kept, remembered = found
        if kept:
            return remembered  # type: ignore[return-value]  # (True, T)
        raise _copy(remembered)  # type: ignore[arg-type]  # (False, ServiceError)

    def _remember(self, query: bytes, entry: tuple[bool, T | ServiceError]) -> None:
        if len(query) > MAX_QUERY:
            return
        with self._lock:
            if len(self._results) >= self.size:
                self._results.clear()
            self._results[query] = entry

    def __len__(self) -> int:
        return len(self._results)


def _copy(err: ServiceError) -> ServiceError:
    """A new refusal equal to ``err``, without its traceback (each raise has its own), its headers
    and extra fields copied (a route may add to them on the way out)."""
    copy = err.__class__.__new__(err.__class__)
    copy.__dict__.update(err.__dict__)
    copy.args = err.args
    copy.headers = dict(err.headers)
    copy.extra = dict(err.extra)
    return copy
