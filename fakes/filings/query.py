"""Filtering, ordering and paging filings without a pass over them.

A filter becomes a *source* of generated filing indexes (see :mod:`~fakes.filings.catalogue.generator`):

* no company, type, language or market filter: every index (:class:`AllSource`);
* one part of the split tree - a type, a (type, language) or a (type, language, market):
  :class:`NodeSource`, O(depth) count and select;
* several parts: :class:`UnionSource`; the round holding the ``t``-th match is known exactly
  (every part has a fixed size per round), the position inside it is a short binary search
  around the even-spread estimate, and the page is a heap merge of the parts;
* a company: :class:`PatternSource` over the company's per-round pattern, a bisect.

The release-date range is an index range (release time is increasing in the index), and only
filings released by "now" are visible. User-added filings - a short explicit list - are merged
in by rank: for each one, how many generated matches precede it in the requested order.
"""

from __future__ import annotations

import bisect
import functools
import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from .catalogue.filing_types import TYPES
from .catalogue.generator import Catalogue
from .catalogue.markets import LANGUAGES, MARKETS
from .catalogue.owners import BULK_COMPANIES, owners_of
from .catalogue.records import FilingRecord
from .catalogue.splittree import Node, SplitTree
from .regions import PeriodTest

ORDERING_FIELDS = ("release_datetime", "added_to_platform", "id")


@dataclass(frozen=True, slots=True)
class FilingFilter:
    """A query's filters; ``None`` means "not filtered on"; bounds are inclusive epoch seconds.

    ``period`` (fiscal year, period, period end) and ``search`` (lower-case terms, each in the
    title or the company's name) are served for generated filings by :mod:`.selection`."""

    company_ids: frozenset[int] | None = None
    type_indexes: frozenset[int] | None = None
    language_indexes: frozenset[int] | None = None
    market_indexes: frozenset[int] | None = None
    released_from_s: int | None = None
    released_to_s: int | None = None
    excluded_company_ids: frozenset[int] | None = None
    added_from_s: int | None = None
    added_to_s: int | None = None
    updated_from_s: int | None = None
    updated_to_s: int | None = None
    ingestion_mode: str | None = None
    period: PeriodTest | None = None
    search: tuple[str, ...] = ()
    listed: bool = True

    def matches(self, record: FilingRecord, company_name: str = "") -> bool:
        """The brute-force definition every source must agree with."""
        updated_s = record.updated_s if record.updated_s is not None else record.added_s
        return (self.listed
                and (self.company_ids is None or record.company_id in self.company_ids)
                and (self.excluded_company_ids is None or record.company_id not in self.excluded_company_ids)
                and (self.type_indexes is None or record.type_index in self.type_indexes)
                and (self.language_indexes is None or record.language_index in self.language_indexes)
                and (self.market_indexes is None or record.market_index in self.market_indexes)
                and _within(record.release_s, self.released_from_s, self.released_to_s)
                and _within(record.added_s, self.added_from_s, self.added_to_s)
                and _within(updated_s, self.updated_from_s, self.updated_to_s)
                and (self.ingestion_mode is None or record.ingestion_mode == self.ingestion_mode)
                and (self.period is None or self.period.holds(record.fiscal_year, record.fiscal_period))
                and all(term in record.title.lower() or term in company_name.lower() for term in self.search))

    @property
    def simple(self) -> bool:
        """Only filters the split tree and company patterns serve directly (the fast path)."""
        return (self.period is None and not self.search and self.excluded_company_ids is None and self.listed
                and self.added_from_s is None and self.added_to_s is None and self.updated_from_s is None
                and self.updated_to_s is None and self.ingestion_mode is None)


def _within(value: int, low: int | None, high: int | None) -> bool:
    return (low is None or value >= low) and (high is None or value <= high)


class Source(Protocol):
    def count_below(self, index: int) -> int:
        """Matching generated indexes in ``0..index-1``."""
        ...

    def take(self, rank: int, limit: int, stop: int) -> list[int]:
        """The matching indexes of ranks ``rank, rank+1, ...``: at most ``limit``, all ``< stop``."""
        ...


class AllSource:
    def count_below(self, index: int) -> int:
        return index

    def take(self, rank: int, limit: int, stop: int) -> list[int]:
        return list(range(rank, min(rank + limit, stop)))


class EmptySource:
    def count_below(self, index: int) -> int:
        return 0

    def take(self, rank: int, limit: int, stop: int) -> list[int]:
        return []


def take_selected(select: Callable[[int], int], rank: int, limit: int, stop: int) -> list[int]:
    """Up to ``limit`` indexes below ``stop``, from the ``rank``-th on, of a source with ``select``."""
    found: list[int] = []
    while len(found) < limit:
        index = select(rank)
        if index >= stop:
            break
        found.append(index)
        rank += 1
    return found


class PatternSource:
    """Indexes ``{r*L + p}`` for every round ``r`` and every ``p`` of a sorted pattern."""

    def __init__(self, positions: Sequence[int], round_size: int) -> None:
        self.positions = positions
        self.round_size = round_size

    def count_below(self, index: int) -> int:
        whole, rest = divmod(index, self.round_size)
        return whole * len(self.positions) + bisect.bisect_left(self.positions, rest)

    def select(self, rank: int) -> int:
        whole, rest = divmod(rank, len(self.positions))
        return whole * self.round_size + self.positions[rest]

    def take(self, rank: int, limit: int, stop: int) -> list[int]:
        return take_selected(self.select, rank, limit, stop) if self.positions else []


class NodeSource:
    """The filings of one part of the split tree."""

    def __init__(self, tree: SplitTree, node: Node, round_size: int) -> None:
        self.tree = tree
        self.node = node
        self.round_size = round_size

    def count_below(self, index: int) -> int:
        whole, rest = divmod(index, self.round_size)
        return whole * self.node.size + self.tree.count(self.node, rest)

    def select(self, rank: int) -> int:
        whole, rest = divmod(rank, self.node.size)
        return whole * self.round_size + self.tree.select(self.node, rest)

    def take(self, rank: int, limit: int, stop: int) -> list[int]:
        return take_selected(self.select, rank, limit, stop)


class UnionSource:
    """The filings of several disjoint parts of the split tree, in index order."""

    def __init__(self, parts: list[NodeSource], round_size: int) -> None:
        self.parts = parts
        self.round_size = round_size
        self.per_round = sum(part.node.size for part in parts)
        depth = max(len(part.node.route) for part in parts)
        # Each split spreads its parts to within one position of even, so a part's count at any
        # position is within `depth` of its share; the union's within parts * (depth + 1).
        self.slack = len(parts) * (depth + 1) + 1

    def count_below(self, index: int) -> int:
        return sum(part.count_below(index) for part in self.parts)

    def _in_round(self, position: int) -> int:
        tree = self.parts[0].tree
        return sum(tree.count(part.node, position) for part in self.parts)

    def index_of_rank(self, rank: int) -> int:
        whole, target = divmod(rank, self.per_round)  # the rank-th match is the target-th of its round
        size = self.round_size
        estimate = target * size // self.per_round
        margin = self.slack * size // self.per_round + 2
        lo, hi = max(0, estimate - margin), min(size, estimate + margin + 1)
        if self._in_round(lo) > target:
            lo = 0
        if self._in_round(hi) <= target:
            hi = size
        # invariant: fewer than target+1 matches below lo, at least target+1 below hi
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self._in_round(mid) > target:
                hi = mid
            else:
                lo = mid
        return whole * size + hi - 1

    def take(self, rank: int, limit: int, stop: int) -> list[int]:
        if limit <= 0:
            return []
        start = self.index_of_rank(rank)
        heads = []
        for number, part in enumerate(self.parts):
            part_rank = part.count_below(start)
            heads.append((part.select(part_rank), number, part_rank))
        heapq.heapify(heads)
        found: list[int] = []
        while len(found) < limit:
            index, number, part_rank = heads[0]
            if index >= stop:
                break
            found.append(index)
            heapq.heapreplace(heads, (self.parts[number].select(part_rank + 1), number, part_rank + 1))
        return found


def source_for(catalogue: Catalogue, flt: FilingFilter) -> Source:
    """The cheapest source that yields exactly the generated filings matching ``flt``'s
    company, type, language and market filters (the date range is applied by the caller)."""
    round_size = catalogue.round_size
    if flt.company_ids is not None:
        return _company_source(catalogue, flt)
    types = sorted(flt.type_indexes) if flt.type_indexes is not None else range(len(TYPES))
    if flt.language_indexes is None and flt.market_indexes is None:
        if flt.type_indexes is None:
            return AllSource()
        nodes = [catalogue.type_node(t) for t in types]
    elif flt.market_indexes is None:
        nodes = [catalogue.language_node(t, lang) for t in types for lang in sorted(flt.language_indexes or ())]
    else:
        languages = sorted(flt.language_indexes) if flt.language_indexes is not None else range(len(LANGUAGES))
        nodes = [catalogue.market_node(t, lang, m) for t in types for lang in languages
                 for m in sorted(flt.market_indexes)]
    parts = [NodeSource(catalogue.tree, node, round_size) for node in nodes if node is not None and node.size > 0]
    if not parts:
        return EmptySource()
    if len(parts) == 1:
        return parts[0]
    return UnionSource(parts, round_size)


def _company_source(catalogue: Catalogue, flt: FilingFilter) -> Source:
    companies = flt.company_ids or frozenset()
    if len(companies) >= BULK_COMPANIES:
        return _bulk_company_source(catalogue, companies, flt.type_indexes, flt.language_indexes,
                                    flt.market_indexes)
    positions: list[int] = []
    for company_id in sorted(companies):
        if not catalogue.has_company(company_id):
            continue
        if flt.market_indexes is not None and catalogue.market[company_id - 1] not in flt.market_indexes:
            continue
        positions.extend(
            position for position, type_index, language in catalogue.company_pattern(company_id)
            if (flt.type_indexes is None or type_index in flt.type_indexes)
            and (flt.language_indexes is None or language in flt.language_indexes))
    if not positions:
        return EmptySource()
    positions.sort()
    return PatternSource(tuple(positions), catalogue.round_size)


@functools.lru_cache(maxsize=32)
def _bulk_company_source(catalogue: Catalogue, companies: frozenset[int], types: frozenset[int] | None,
                         languages: frozenset[int] | None, markets: frozenset[int] | None) -> Source:
    """Many companies' filings, from the round's owner arrays (kept: a search term's companies are
    asked for again as a client pages)."""
    def group_ok(key: tuple[int, int, int, int]) -> bool:
        type_index, language, market, _weight = key
        return ((types is None or type_index in types) and (languages is None or language in languages)
                and (markets is None or market in markets))
    positions = owners_of(catalogue).positions(companies, group_ok)
    return PatternSource(positions, catalogue.round_size) if positions else EmptySource()


class GeneratedSelection:
    """The generated filings matching a filter and visible now, as a virtual ascending list.

    ``source`` and ``bounds`` (inclusive release seconds) come from :func:`.selection.generated`
    for filters beyond the split tree's; by default the filter's own, through :func:`source_for`."""

    def __init__(self, catalogue: Catalogue, flt: FilingFilter, visible_count: int, source: Source | None = None,
                 bounds: tuple[int | None, int | None] | None = None) -> None:
        timeline = catalogue.timeline
        from_s, to_s = bounds if bounds is not None else (flt.released_from_s, flt.released_to_s)
        self.lo = 0 if from_s is None else timeline.count_released_before(from_s)
        hi = visible_count
        if to_s is not None:
            hi = min(hi, timeline.count_released_by(to_s))
        self.hi = max(self.lo, hi)
        self.timeline = timeline
        self.source = source if source is not None else source_for(catalogue, flt)
        self.base = self.source.count_below(self.lo)
        self.count = self.source.count_below(self.hi) - self.base

    def indexes(self, offset: int, limit: int) -> list[int]:
        """Indexes of the matches ``offset .. offset+limit-1`` in ascending order."""
        if offset >= self.count or limit <= 0:
            return []
        return self.source.take(self.base + offset, min(limit, self.count - offset), self.hi)

    def count_released_by(self, epoch_s: int) -> int:
        """Matches released at or before ``epoch_s``."""
        bound = min(self.hi, max(self.lo, self.timeline.count_released_by(epoch_s)))
        return self.source.count_below(bound) - self.base


@dataclass(frozen=True, slots=True)
class Ordering:
    field: str
    descending: bool

    @classmethod
    def parse(cls, text: str) -> Ordering | None:
        descending = text.startswith("-")
        name = text[1:] if descending else text
        return cls(name, descending) if name in ORDERING_FIELDS else None

    def key(self, record: FilingRecord) -> tuple[int, int]:
        if self.field == "id":
            return (record.id, 0)
        if self.field == "added_to_platform":
            return (record.added_s, record.id)
        return (record.release_s, record.id)


def merged_page(selection: GeneratedSelection, users: list[FilingRecord], ordering: Ordering, offset: int,
                limit: int) -> tuple[int, list[int | FilingRecord]]:
    """(total, page) of generated matches and user filings merged in ``ordering``.

    The page holds generated indexes (ints) and user records. Ties on a time field are ordered
    by id; user filing ids are above every generated id, so a user filing comes after the
    generated ones released in the same second.
    """
    users = sorted(users, key=ordering.key)
    if ordering.field == "id":
        ranks = [selection.count] * len(users)
    elif ordering.field == "added_to_platform":
        ranks = [selection.count_released_by(user.added_s) for user in users]
    else:
        ranks = [selection.count_released_by(user.release_s) for user in users]
    positions = [rank + i for i, rank in enumerate(ranks)]  # each user's place in the merged list
    total = selection.count + len(users)
    if ordering.descending:
        start, end = max(0, total - offset - limit), max(0, total - offset)
    else:
        start, end = min(offset, total), min(offset + limit, total)
    first_user, end_user = bisect.bisect_left(positions, start), bisect.bisect_left(positions, end)
    generated = iter(selection.indexes(start - first_user, (end - start) - (end_user - first_user)))
    page: list[int | FilingRecord] = []
    next_user = first_user
    for position in range(start, end):
        if next_user < end_user and positions[next_user] == position:
            page.append(users[next_user])
            next_user += 1
        else:
            page.append(next(generated))
    if ordering.descending:
        page.reverse()
    return total, page


def market_index(code: str) -> int | None:
    code = code.strip().upper()
    return next((i for i, market in enumerate(MARKETS) if market.code == code), None)
