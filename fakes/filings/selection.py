"""The generated filings a filter selects when the split tree alone cannot say: a source to page.

Beyond company, type, language, market and release range (:func:`.query.source_for`), a filter
may ask for a fiscal year, period or period end, a time range on arrival or last update, an
ingestion mode, companies to leave out (``on_watchlist=false``) and title words (``search``).

Time ranges all bound the same instant (a generated filing arrives and is last updated when it is
released), so they are one release range. Fiscal fields and title words are regions of
(type, month) cells (:mod:`.regions`). A search term matches a filing when it is in its title or
its company's name - and a generated title is ``"<name>: <label>"`` - so a term matches every
filing of the companies whose name holds it, and in the other companies' filings the labels that
hold it. Companies are therefore grouped by the terms their name lacks: the companies whose name
holds no term need every term in the label (the whole catalogue but those companies), each other
group only the terms it lacks. The groups' filings are disjoint, and merged in index order.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable

from .catalogue.directory import directory_for
from .catalogue.generator import Catalogue
from .catalogue.records import PLATFORM_LAUNCH_S
from .query import EmptySource, FilingFilter, Source, source_for
from .regions import ALL_TYPES, CellTests, LabelTest, region
from .sources import ConcatSource, ExcludingSource, MergedSource, WindowSource

Bounds = tuple[int | None, int | None]
MAX_YEAR = 9999


def release_bounds(flt: FilingFilter) -> Bounds:
    """Inclusive release seconds a generated filing must lie in (arrival and update are release)."""
    lows = [b for b in (flt.released_from_s, flt.added_from_s, flt.updated_from_s) if b is not None]
    highs = [b for b in (flt.released_to_s, flt.added_to_s, flt.updated_to_s) if b is not None]
    if flt.ingestion_mode == "REALTIME":
        lows.append(PLATFORM_LAUNCH_S)
    elif flt.ingestion_mode == "BACKFILLED":
        highs.append(PLATFORM_LAUNCH_S - 1)
    return (max(lows) if lows else None), (min(highs) if highs else None)


@functools.lru_cache(maxsize=256)
def name_matches(catalogue: Catalogue, term: str) -> frozenset[int]:
    """Generated companies whose title starts with a name holding ``term``: ``term`` in the
    lower-case name, or ``term`` = a suffix of the name + ``:`` (it spans into ``": "``)."""
    names = directory_for(catalogue).lowered_names
    found = {i + 1 for i, name in enumerate(names) if term in name}
    stem = term[:-1]
    if term.endswith(":") and stem and ":" not in stem:
        found.update(i + 1 for i, name in enumerate(names) if name.endswith(stem))
    return frozenset(found)


def generated(catalogue: Catalogue, flt: FilingFilter, now_s: int) -> tuple[Source, Bounds]:
    bounds = release_bounds(flt)
    if not flt.listed:
        return EmptySource(), bounds
    if flt.simple:
        return source_for(catalogue, flt), bounds
    builder = _Builder(catalogue, flt, min(MAX_YEAR, time.gmtime(min(now_s, 253_402_300_799)).tm_year))
    parts: list[Source] = []
    excluded = flt.excluded_company_ids or frozenset()
    terms = flt.search
    names = {term: name_matches(catalogue, term) for term in terms}

    def lacking(company_id: int) -> tuple[str, ...]:
        return tuple(term for term in terms if company_id not in names[term])

    if flt.company_ids is not None:
        groups: dict[tuple[str, ...], set[int]] = {}
        for company_id in flt.company_ids - excluded:
            groups.setdefault(lacking(company_id), set()).add(company_id)
        parts.extend(builder.companies(frozenset(ids), lack) for lack, ids in sorted(groups.items()))
    else:
        named = frozenset().union(*names.values()) if names else frozenset()
        parts.append(builder.everyone_but(named | excluded, terms))
        groups = {}
        for company_id in named - excluded:
            groups.setdefault(lacking(company_id), set()).add(company_id)
        parts.extend(builder.companies(frozenset(ids), lack) for lack, ids in sorted(groups.items()))
    if len(parts) == 1:
        return parts[0], bounds
    return MergedSource(parts), bounds


class _Builder:
    """Sources of one query's parts: its language and market filters, regions up to ``last_year``."""

    def __init__(self, catalogue: Catalogue, flt: FilingFilter, last_year: int) -> None:
        self.catalogue, self.flt, self.last_year = catalogue, flt, last_year
        self.types = flt.type_indexes if flt.type_indexes is not None else ALL_TYPES
        self._sources: dict[tuple[frozenset[int] | None, frozenset[int]], Source] = {}

    def _source(self, companies: frozenset[int] | None, types: frozenset[int]) -> Source:
        key = (companies, types)
        if key not in self._sources:
            simple = dataclasses.replace(self.flt, company_ids=companies, type_indexes=None if types == ALL_TYPES
                                         else types, period=None, search=(),
                                         excluded_company_ids=None, added_from_s=None, added_to_s=None,
                                         updated_from_s=None, updated_to_s=None, ingestion_mode=None)
            self._sources[key] = source_for(self.catalogue, simple)
        return self._sources[key]

    def _windows(self, tests: CellTests, make: Callable[[frozenset[int]], Source]) -> Source:
        if tests.period is None and tests.label is None:
            return make(self.types)
        intervals = region(self.catalogue, tests, self.types, self.last_year)
        return ConcatSource([WindowSource(make(types), lo, hi) for lo, hi, types in intervals])

    def _tests(self, lacking: tuple[str, ...]) -> CellTests:
        return CellTests(self.flt.period, LabelTest(lacking) if lacking else None)

    def companies(self, ids: frozenset[int], lacking: tuple[str, ...]) -> Source:
        """The filings of ``ids`` whose labels hold every ``lacking`` term."""
        return self._windows(self._tests(lacking), lambda types: self._source(ids, types))

    def everyone_but(self, excluded: frozenset[int], lacking: tuple[str, ...]) -> Source:
        """Every company's filings but ``excluded``'s, whose labels hold every ``lacking`` term."""
        if not excluded:
            return self._windows(self._tests(lacking), lambda types: self._source(None, types))

        def without(types: frozenset[int]) -> Source:
            return ExcludingSource(self._source(None, types), self._source(excluded, types), excluded,
                                   self._company_of)
        return self._windows(self._tests(lacking), without)

    def _company_of(self, index: int) -> int:
        return self.catalogue.locate(index).company_id
