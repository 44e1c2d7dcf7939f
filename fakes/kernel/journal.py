"""The request journal: a bounded ring of what clients sent, with client-contract warnings."""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterator
from typing import Any

from .clock import iso_ms

DEFAULT_JOURNAL_SIZE = 1000


class Journal:
    """Oldest-first record of requests; the oldest entries fall off past ``size``."""

    def __init__(self, size: int = DEFAULT_JOURNAL_SIZE) -> None:
        if size < 1:
            raise ValueError("journal size must be >= 1")
        self.size = size
        self._entries: deque[dict[str, Any]] = deque(maxlen=size)
        self._seq = itertools.count(1)
        self.total = 0  # every request ever recorded, including those that fell off

    def record(self, entry: dict[str, Any]) -> None:
        entry["seq"] = next(self._seq)
        self.total += 1
        self._entries.append(entry)

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter([_readable(e) for e in list(self._entries)])

    def entries(
        self, *, method: str | None = None, path: str | None = None, warnings_only: bool = False,
        limit: int | None = None,
    ) -> list[dict[str, Any]]:
        """Entries filtered by method, exact path and whether they carry warnings."""
        found = [
            _readable(e) for e in list(self._entries)
            if (method is None or e["method"] == method.upper())
            and (path is None or e["path"] == path)
            and (not warnings_only or e["warnings"])
        ]
        return found[-limit:] if limit else found

    def warnings(self) -> list[str]:
        return [w for e in list(self._entries) for w in e["warnings"]]


def _readable(entry: dict[str, Any]) -> dict[str, Any]:
    """The entry with its virtual time as ISO-8601 (kept as epoch ms on the hot path)."""
    if "time" not in entry:
        entry["time"] = iso_ms(entry["epoch_ms"])
    return entry
