"""The response cache of GET answers (:func:`~fakes.filings.endpoints.guarded` fills and reads it).

A GET's 200 body is a function of the state, the second, the caller and the URL, so the same
request in the same second (a poller, a benchmark, a client paging back) is answered from here;
so is its refusal (a bad parameter's 400, an unknown id's 404), which the same things decide.
Each fake keeps one (``FilingsFake.responses``); it knows nothing of keys or routes.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict

from starlette.responses import Response

from fakes.kernel.http import encoded_header_list
from fakes.kernel.verdicts import Broken


def cached_response(body: bytes, media_type: str | None, headers: dict[str, str],
                    allowance: dict[str, str], status: int = 200) -> Response:
    """What ``Response(body, media_type=..., headers={**headers, **allowance})`` sends, the same
    header list in the same order, without Starlette building and checking it per request (a
    repeated page's largest cost after the routing; the kernel's ``encoded_header_list``)."""
    response = Response.__new__(Response)
    response.status_code = status
    response.body = body
    response.background = None
    response.media_type = media_type
    response.raw_headers = encoded_header_list(media_type, len(body), headers, allowance)
    return response


CacheKey = tuple[int, int, int, str, str, bytes, str, str, str]
Cached = tuple[bytes, str | None, dict[str, str], int, Broken]


#: the longest path + query + Host of a kept answer (the budget counts bodies; keys stay small)
MAX_KEPT_URL = 2048

#: what the response caches of every filings fake and world of the process keep together (bodies)
SHARED_BUDGET_BYTES = 32 * 1024 * 1024


class SharedBudget:
    """The bodies every :class:`ResponseCache` of the process keeps, least recently used first:
    past :data:`SHARED_BUDGET_BYTES` the oldest go, whichever cache holds them, so ten thousand
    worlds that each read a page once do not keep ten thousand pages (issue 37, item 4). A key
    names its model (``model.instance``), so keys of two caches never meet."""

    def __init__(self, limit: int = SHARED_BUDGET_BYTES) -> None:
        self.limit = limit
        self.used = 0
        #: key -> (the cache's entries holding it, its size)
        self.order: OrderedDict[CacheKey, tuple[OrderedDict[CacheKey, Cached], int]] = OrderedDict()
        self._lock = threading.Lock()  # caches of fakes served on several threads (tests) share it

    def add(self, key: CacheKey, entries: OrderedDict[CacheKey, Cached], size: int) -> None:
        with self._lock:
            old = self.order.pop(key, None)
            self.used += size - (old[1] if old is not None else 0)
            self.order[key] = (entries, size)
            while self.used > self.limit and len(self.order) > 1:
                oldest, (holder, freed) = self.order.popitem(last=False)
                holder.pop(oldest, None)
                self.used -= freed

    def used_now(self, key: CacheKey) -> None:
        try:  # noqa: SIM105 - a try costs nothing on a hit, suppress() a context manager per call
            self.order.move_to_end(key)
        except KeyError:  # dropped by another thread's fake in between: it is simply gone
            pass

    def discard(self, keys: list[CacheKey]) -> None:
        with self._lock:
            for key in keys:
                found = self.order.pop(key, None)
                if found is not None:
                    self.used -= found[1]


BUDGET = SharedBudget()


class ResponseCache:
    """The last few successful bodies and refusals (with the client rules their URL breaks), least
    recently used out, within the process's :data:`BUDGET`."""

    __slots__ = ("__weakref__", "_watched", "entries", "size")  # one per fake and world

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self.entries: OrderedDict[CacheKey, Cached] = OrderedDict()
        self._watched = False  # a finalizer is set once something is kept (most worlds keep nothing)

    def get(self, key: CacheKey) -> Cached | None:
        entry = self.entries.get(key)
        if entry is not None:
            self.entries.move_to_end(key)
            BUDGET.used_now(key)
        return entry

    def put(self, key: CacheKey, response: Response, broken: Broken) -> Cached | None:
        """Keep a 200 answer; None (nothing kept) for any other."""
        if response.status_code != 200:
            return None
        extra = {name: value for name, value in response.headers.items()
                 if name not in ("content-length", "content-type")}
        return self._keep(key, (bytes(response.body), response.media_type, extra, 200, broken))

    def put_refusal(self, key: CacheKey, status: int, body: bytes, broken: Broken) -> None:
        """Keep a refusal (a 4xx with no headers of its own): its JSON ``body`` as the service
        renders it, answered again like a page (a cached refusal is not counted either)."""
        self._keep(key, (body, "application/json", {}, status, broken))

    def _keep(self, key: CacheKey, entry: Cached) -> Cached:
        if len(key[4]) + len(key[5]) + len(key[6]) > MAX_KEPT_URL:
            return entry  # answered, not kept: a client's long URLs or Host would fill the cache's keys
        if not self._watched:  # a deleted world's entries leave the shared budget with it
            weakref.finalize(self, _forget, self.entries)
            self._watched = True
        self.entries[key] = entry
        BUDGET.add(key, self.entries, len(entry[0]))
        if len(self.entries) > self.size:
            dropped, _ = self.entries.popitem(last=False)
            BUDGET.discard([dropped])
        return entry


def _forget(entries: OrderedDict[CacheKey, Cached]) -> None:
    BUDGET.discard(list(entries))
