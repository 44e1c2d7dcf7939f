"""Filters on what a generated filing says: its fiscal year, period, period end and title words.

All of these are functions of the filing's type and its release month (see
:func:`~fakes.filings.catalogue.records.fiscal_fields` and ``label_for``), and release time is
increasing in a generated filing's index. So such a filter selects, month by month, a set of types
in an index range: a *region*, a short list of ``(lo, hi, types)`` intervals (adjacent months
with the same types merged), built by testing each (type, month) cell once and cached.
"""

from __future__ import annotations

import calendar
import functools
import time
from collections.abc import Iterable
from dataclasses import dataclass

from .catalogue.filing_types import TYPES
from .catalogue.generator import Catalogue
from .catalogue.records import fiscal_fields, label_for, period_ending_date

Interval = tuple[int, int, frozenset[int]]  # (lo, hi, admitted type indexes)
ALL_TYPES = frozenset(range(len(TYPES)))


@dataclass(frozen=True, slots=True)
class PeriodTest:
    """A filing's fiscal year, period and period end (inclusive ``YYYY-MM-DD`` bounds)."""

    fiscal_year: int | None = None
    period: str | None = None
    end_from: str | None = None
    end_to: str | None = None

    def __call__(self, type_index: int, year: int, month: int) -> bool:
        return self.holds(*fiscal_fields(TYPES[type_index].code, year, month))

    def holds(self, fiscal_year: int | None, period: str | None) -> bool:
        """The definition, for any filing (generated or a user's)."""
        if self.fiscal_year is not None and fiscal_year != self.fiscal_year:
            return False
        if self.period is not None and period != self.period:
            return False
        if self.end_from is not None or self.end_to is not None:
            end = period_ending_date(fiscal_year, period)
            if end is None or (self.end_from is not None and end < self.end_from) or (
                    self.end_to is not None and end > self.end_to):
                return False
        return True

    def release_years(self) -> tuple[int, int] | None:
        """Release years outside which it never holds (a report's fiscal year is its release
        year or the one before), or None when unbounded."""
        low, high = -1, 10_000
        if self.fiscal_year is not None:
            low, high = self.fiscal_year, self.fiscal_year + 1
        if self.end_from is not None:
            low = max(low, int(self.end_from[:4]))
        if self.end_to is not None:
            high = min(high, int(self.end_to[:4]) + 1)
        return None if (low, high) == (-1, 10_000) else (low, high)


@dataclass(frozen=True, slots=True)
class LabelTest:
    """Every term occurs in ``": " + label`` (lower case): the part of a generated title after the
    company's name, with the separator, so that ``information:`` and ``: annual`` match as in the
    whole title."""

    terms: tuple[str, ...]

    def __call__(self, type_index: int, year: int, month: int) -> bool:
        text = (": " + label_for(TYPES[type_index].code, year, month)).lower()
        return all(term in text for term in self.terms)


@dataclass(frozen=True, slots=True)
class CellTests:
    period: PeriodTest | None = None
    label: LabelTest | None = None

    def __call__(self, type_index: int, year: int, month: int) -> bool:
        return ((self.period is None or self.period(type_index, year, month))
                and (self.label is None or self.label(type_index, year, month)))


END_S = 253_402_300_800  # 10000-01-01T00:00:00Z: where the last month of year 9999 ends


def _month_start(year: int, month: int) -> int:
    if year > 9999:
        return END_S
    return calendar.timegm((year, month, 1, 0, 0, 0))


@functools.lru_cache(maxsize=256)
def region(catalogue: Catalogue, tests: CellTests, types: frozenset[int], last_year: int) -> tuple[Interval, ...]:
    """The intervals of generated indexes admitted by ``tests`` among ``types``, over the
    catalogue's months up to the end of ``last_year`` (the caller clamps to what is visible)."""
    timeline = catalogue.timeline
    first_year = time.gmtime(timeline.release_s(0)).tm_year
    years = range(first_year, last_year + 1)
    if tests.period is not None and (bounds := tests.period.release_years()) is not None:
        years = range(max(first_year, bounds[0]), min(last_year, bounds[1]) + 1)
    ordered = sorted(types)
    special = _special_years(tests, years)
    neutral = next((year for year in years if year not in special), None)
    patterns: dict[int, list[frozenset[int]]] = {}

    def pattern(year: int) -> list[frozenset[int]]:
        """The admitted types of each month of ``year``; one computation for every neutral year."""
        key = year if year in special or neutral is None else neutral
        if key not in patterns:
            patterns[key] = [frozenset(t for t in ordered if tests(t, key, month)) for month in range(1, 13)]
        return patterns[key]
    found: list[Interval] = []
    for year in years:
        months = pattern(year)
        for month in range(1, 13):
            admitted = months[month - 1]
            if not admitted:
                continue
            lo = timeline.count_released_before(_month_start(year, month))
            following = (year + 1, 1) if month == 12 else (year, month + 1)
            hi = timeline.count_released_before(_month_start(*following))
            if hi <= lo:
                continue
            if found and found[-1][1] == lo and found[-1][2] == admitted:
                found[-1] = (found[-1][0], hi, admitted)
            else:
                found.append((lo, hi, admitted))
    return tuple(found)


def _special_years(tests: CellTests, years: range) -> set[int] | range:
    """The years whose cells may differ from the others': every year for a fiscal-year or
    period-end test (bounded anyway), else those whose digits (or the year before's: a fiscal
    year) hold a search term with a digit; the cells of all other years are alike."""
    period = tests.period
    if period is not None and (period.fiscal_year is not None or period.end_from is not None
                               or period.end_to is not None):
        return years
    terms = [term for term in (tests.label.terms if tests.label else ()) if any(ch.isdigit() for ch in term)]
    if not terms:
        return set()
    return {year for year in years if any(term in str(year) or term in str(year - 1) for term in terms)}


def distinct_types(intervals: Iterable[Interval]) -> set[frozenset[int]]:
    return {types for _lo, _hi, types in intervals}
