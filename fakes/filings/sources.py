"""Composite sources of generated filing indexes: windows, concatenations, unions and exclusions.

The sources of :mod:`.query` select one part of the split tree or one set of companies over the
whole line of filings. A filter on what a filing's title says, its fiscal year or period selects
different types in different months (:mod:`.regions`), and a title search also selects companies
by name (:mod:`.selection`): those become the sources here, built from the simple ones. Each
keeps the :class:`~fakes.filings.query.Source` contract - ``count_below(index)`` and
``take(rank, limit, stop)`` - so paging and counting work on them unchanged.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence

from .query import Source


class WindowSource:
    """The indexes of ``source`` in ``lo <= index < hi``."""

    def __init__(self, source: Source, lo: int, hi: int) -> None:
        self.source, self.lo, self.hi = source, lo, hi
        self.base = source.count_below(lo)
        self.total = source.count_below(hi) - self.base

    def count_below(self, index: int) -> int:
        if index <= self.lo:
            return 0
        if index >= self.hi:
            return self.total
        return self.source.count_below(index) - self.base

    def take(self, rank: int, limit: int, stop: int) -> list[int]:
        if rank >= self.total or limit <= 0:
            return []
        return self.source.take(self.base + rank, min(limit, self.total - rank), min(stop, self.hi))


class ConcatSource:
    """Windows over consecutive, disjoint index ranges (ascending): one after the other."""

    def __init__(self, parts: Sequence[WindowSource]) -> None:
        self.parts = [part for part in parts if part.total > 0]
        self.starts = [part.lo for part in self.parts]
        self.before: list[int] = []  # matches in the parts before each part
        running = 0
        for part in self.parts:
            self.before.append(running)
            running += part.total
        self.total = running

    def count_below(self, index: int) -> int:
        k = bisect.bisect_right(self.starts, index) - 1
        if k < 0:
            return 0
        return self.before[k] + self.parts[k].count_below(index)

    def take(self, rank: int, limit: int, stop: int) -> list[int]:
        found: list[int] = []
        k = bisect.bisect_right(self.before, rank) - 1
        while k < len(self.parts) and len(found) < limit and k >= 0:
            part = self.parts[k]
            if part.lo >= stop:
                break
            taken = part.take(rank - self.before[k], limit - len(found), stop)
            found.extend(taken)
            rank += len(taken)
            k += 1
        return found


def index_of_rank(count_below: Callable[[int], int], rank: int, stop: int) -> int:
    """The index of the match of rank ``rank`` (0-based) below ``stop``, or ``stop`` if there is
    none: the smallest ``x`` with ``count_below(x + 1) > rank`` (a binary search)."""
    lo, hi = 0, stop
    if count_below(stop) <= rank:
        return stop
    while hi - lo > 1:  # invariant: count_below(lo) <= rank < count_below(hi)
        mid = (lo + hi) // 2
        if count_below(mid) > rank:
            hi = mid
        else:
            lo = mid
    return lo if count_below(lo + 1) > rank else hi


class MergedSource:
    """Disjoint sources (different companies) interleaved in index order."""

    def __init__(self, parts: Sequence[Source]) -> None:
        self.parts = list(parts)

    def count_below(self, index: int) -> int:
        return sum(part.count_below(index) for part in self.parts)

    def take(self, rank: int, limit: int, stop: int) -> list[int]:
        if limit <= 0:
            return []
        start = index_of_rank(self.count_below, rank, stop)
        found: list[int] = []
        for part in self.parts:  # each part's next `limit` from `start` on: the first `limit` of all are among them
            found.extend(part.take(part.count_below(start), limit, stop))
        found.sort()
        return found[:limit]


class ExcludingSource:
    """``source`` without the filings of some companies (``excluded``: exactly those filings of
    ``source``, as their own source); ``company_of`` names a generated filing's company."""

    def __init__(self, source: Source, excluded: Source, excluded_ids: frozenset[int],
                 company_of: Callable[[int], int]) -> None:
        self.source, self.excluded, self.excluded_ids, self.company_of = source, excluded, excluded_ids, company_of

    def count_below(self, index: int) -> int:
        return self.source.count_below(index) - self.excluded.count_below(index)

    def take(self, rank: int, limit: int, stop: int) -> list[int]:
        if limit <= 0:
            return []
        start = index_of_rank(self.count_below, rank, stop)
        position = self.source.count_below(start)
        found: list[int] = []
        while len(found) < limit:
            batch = self.source.take(position, limit - len(found) + 8, stop)
            if not batch:
                break
            position += len(batch)
            found.extend(index for index in batch if self.company_of(index) not in self.excluded_ids)
        return found[:limit]
