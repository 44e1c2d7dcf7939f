"""The request journal: a bounded ring of what clients sent, with client-contract warnings.

Kept compact because every request of every fake writes to it: numbers in flat arrays, the
(method, path, query) of a request shared with earlier identical requests, no dict per request.
Entries become dicts when read. (A served fake that kept a dict, its strings and its numbers per
request paid for it in every later request: see docs/benchmark.md, "Objects kept per request".)
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from typing import Any

from .clock import iso_ms

DEFAULT_JOURNAL_SIZE = 1000
#: distinct (method, path, query) kept shared; past that the table starts over
MAX_SHARED_REQUESTS = 4096
#: longer paths and queries are kept by their entry alone: the shared table stays small whatever
#: clients send (at most MAX_SHARED_REQUESTS of these)
MAX_SHARED_TEXT = 1024
_NO_WARNINGS: tuple[str, ...] = ()


class Journal:
    """Oldest-first record of requests; the oldest entries fall off past ``size``."""

    def __init__(self, size: int = DEFAULT_JOURNAL_SIZE) -> None:
        if size < 1:
            raise ValueError("journal size must be >= 1")
        self.size = size
        self.total = 0  # every request ever recorded, including those that fell off; the last seq
        self._cleared = 0  # entries up to this seq were cleared
        # per slot seq % size: the seq it holds (0: none), when, the status, the request, its warnings.
        # The slots grow as requests come, up to ``size``: an idle fake (a new world) holds one.
        self._seq = array("q", [0])
        self._at = array("q", [0])
        self._status = array("q", [0])
        self._request: list[tuple[str, str, str]] = [("", "", "")]
        self._warnings: list[tuple[str, ...]] = [_NO_WARNINGS]
        self._shared: dict[tuple[str, str, str], tuple[str, str, str]] = {}

    def add(self, method: str, path: str, query: str, status: int, epoch_ms: int,
            warnings: tuple[str, ...] = _NO_WARNINGS) -> int:
        """Record one request; its seq (1, 2, ...)."""
        self.total = seq = self.total + 1
        slot = seq % self.size
        request = (method, path, query)
        shared = self._shared.get(request)
        if shared is None:
            shared = request
            if len(path) + len(query) <= MAX_SHARED_TEXT:
                if len(self._shared) >= MAX_SHARED_REQUESTS:
                    self._shared.clear()
                self._shared[request] = request
        if slot == len(self._seq):  # the ring is still filling
            self._request.append(shared)
            self._seq.append(seq)
            self._at.append(epoch_ms)
            self._status.append(status)
            self._warnings.append(warnings)
            return seq
        self._request[slot] = shared
        self._seq[slot] = seq
        self._at[slot] = epoch_ms
        self._status[slot] = status
        self._warnings[slot] = warnings
        return seq

    def record(self, entry: dict[str, Any]) -> None:
        """Record an entry given as a dict (``method``, ``path``, ``query``, ``status``, ``epoch_ms``,
        ``warnings``); sets its ``seq``."""
        entry["seq"] = self.add(entry["method"], entry["path"], entry["query"], entry["status"], entry["epoch_ms"],
                                tuple(entry.get("warnings") or ()))

    def clear(self) -> None:
        self._cleared = self.total

    def __len__(self) -> int:
        return min(self.total - self._cleared, self.size)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.entries())

    def _kept(self) -> Iterator[int]:
        """Slots of the kept entries, oldest first."""
        for seq in range(max(self._cleared, self.total - self.size) + 1, self.total + 1):
            slot = seq % self.size
            if self._seq[slot] == seq:
                yield slot

    def _entry(self, slot: int) -> dict[str, Any]:
        method, path, query = self._request[slot]
        at = self._at[slot]
        return {"method": method, "path": path, "query": query, "status": self._status[slot], "epoch_ms": at,
                "warnings": list(self._warnings[slot]), "seq": self._seq[slot], "time": iso_ms(at)}

    def entries(
        self, *, method: str | None = None, path: str | None = None, warnings_only: bool = False,
        limit: int | None = None,
    ) -> list[dict[str, Any]]:
        """Entries (new dicts, oldest first) filtered by method, exact path and whether they carry
        warnings; the time of each as ISO-8601 ``time`` beside its ``epoch_ms``."""
        wanted_method = method.upper() if method is not None else None
        found = [
            self._entry(slot) for slot in self._kept()
            if (wanted_method is None or self._request[slot][0] == wanted_method)
            and (path is None or self._request[slot][1] == path)
            and (not warnings_only or self._warnings[slot])
        ]
        return found[-limit:] if limit else found

    def warnings(self) -> list[str]:
        return [w for slot in self._kept() for w in self._warnings[slot]]
