"""``/filings/`` query parameters -> :class:`FilingParams` (see :mod:`.params` for the shared rules).

Names: the seed's where it gives one (``filing_type``, ``ordering``, ``page_size``), the real
service's otherwise, and the other spelling of each accepted as an alias. Dates and date-times
are read as Django reads them (:mod:`.dates`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from fakes.kernel.http import JSON_INT_MAX, InvalidInteger, ascii_int

from .catalogue.filing_types import TYPES, resolve_type
from .catalogue.markets import LANGUAGE_BY_CODE, LANGUAGES, MARKETS
from .dates import InvalidDate, instant_s, parse_date
from .params import (
    BLANKS,
    COUNTRIES_PATTERN,
    Notes,
    Paging,
    bad,
    boolean,
    canonical,
    checked,
    countries,
    listing_status,
    ordering_terms,
    paging,
    search_terms,
    short_texts,
    view,
)
from .query import ORDERING_FIELDS, Ordering

FILING_ALIASES = {
    "country": "countries", "location": "countries",
    "release_date_from": "release_datetime_from", "release_date_to": "release_datetime_to",
    "date_from": "release_datetime_from", "date_to": "release_datetime_to",
    "isin": "company_isin",
}
#: real filters this fake does not model: accepted, ignored, and reported as a warning verdict
UNSUPPORTED_FILING_PARAMS = frozenset({
    "file_size_max", "file_size_min", "max_confidence", "min_confidence", "primary_annual_report",
    "processing_status", "processing_statuses", "reasoning_contains", "cursor",
})
LANGUAGES_PATTERN = COUNTRIES_PATTERN
LANGUAGE_PATTERN = r"^[A-Za-z]{2}$"
IDS_PATTERN = r"^[0-9]{1,9}(,[0-9]{1,9})*$"
TYPE_CODES = tuple(t.code for t in TYPES)
TYPES_PATTERN = "^({codes})(,({codes}))*$".format(codes="|".join(re.escape(code) for code in TYPE_CODES))
FILING_TYPE_CHOICES = tuple(sorted({t.name for t in TYPES} | set(TYPE_CODES) | {str(t.id) for t in TYPES}))
EXTENSIONS = tuple(sorted({t.extension for t in TYPES}))
PERIODS = ("FY", "Q1", "Q2", "Q3", "Q4", "H1", "H2", "9M")
INGESTION_MODES = ("REALTIME", "BACKFILLED")
MAX_FISCAL_YEAR = 9999
TIME_RANGES = ("release_datetime", "added_to_platform", "updated_date")
FILING_PARAMS = frozenset({
    "company", "company_isin", "lei", "filing_type", "type", "types", "category", "categories", "extensions",
    "source_filing_type", "language", "languages", "countries", "source", "sources", "ingestion_mode",
    "fiscal_year", "fiscal_period", "period_ending_date", "period_ending_date_from", "period_ending_date_to",
    "search", "on_watchlist", "listing_status", "ordering", "view", "page_size", "include_companions",
    "include_predecessors", *(f"{name}_{end}" for name in TIME_RANGES for end in ("from", "to")),
})


@dataclass(frozen=True, slots=True)
class FilingParams:
    company_id: int | None = None
    company_isin: str | None = None
    lei: str | None = None
    type_indexes: frozenset[int] | None = None
    language_indexes: frozenset[int] | None = None
    market_indexes: frozenset[int] | None = None
    #: inclusive epoch-second bounds of release, arrival on the platform and last update
    times: dict[str, tuple[int | None, int | None]] = field(default_factory=dict)
    ingestion_mode: str | None = None
    fiscal_year: int | None = None
    fiscal_period: str | None = None
    period_end_from: str | None = None  # inclusive, YYYY-MM-DD
    period_end_to: str | None = None
    search: tuple[str, ...] = ()
    on_watchlist: bool | None = None
    listed: bool = True
    ordering: Ordering = field(default_factory=lambda: Ordering("release_datetime", True))
    full_view: bool = False
    paging: Paging = field(default_factory=lambda: Paging(1, 50))


def _integer(name: str, value: str, maximum: int = JSON_INT_MAX) -> int:
    try:
        return ascii_int(value, minimum=0, maximum=maximum)
    except InvalidInteger:
        raise bad(f"{name}: Enter a whole number.") from None


def _languages(name: str, value: str, pattern: str) -> frozenset[int]:
    codes = checked(name, value, pattern, "Enter ISO 639-1 codes separated by commas (e.g. en,de).")
    return frozenset(LANGUAGES.index(LANGUAGE_BY_CODE[c.lower()]) for c in codes.split(",")
                     if c.lower() in LANGUAGE_BY_CODE)


def _narrow(selected: frozenset[int] | None, chosen: frozenset[int]) -> frozenset[int]:
    return chosen if selected is None else selected & chosen


def _type_filter(found: Mapping[str, str]) -> frozenset[int] | None:
    """Every filter on the kind of document: a filing must satisfy all of those given."""
    selected: frozenset[int] | None = None
    if "filing_type" in found:  # the seed's: a type name, code or id
        filing_type = resolve_type(found["filing_type"])
        if filing_type is None:
            raise bad(f"filing_type: Select a valid choice. {found['filing_type']!r} is not a filing type "
                      "name, code or id (see GET /filing-types/).")
        selected = _narrow(selected, frozenset({filing_type.id - 1}))
    if "type" in found:
        if found["type"] not in TYPE_CODES:
            raise bad(f"type: Unknown filing type code {found['type']!r}. Codes are listed at GET /filing-types/.")
        selected = _narrow(selected, frozenset({TYPE_CODES.index(found["type"])}))
    if "types" in found:
        codes = checked("types", found["types"], TYPES_PATTERN,
                        "Unknown filing type code(s). Codes are listed at GET /filing-types/.")
        selected = _narrow(selected, frozenset(TYPE_CODES.index(code) for code in codes.split(",")))
    for name in ("category", "categories"):
        if name in found:
            ids = {_integer(name, part) for part in checked(name, found[name], IDS_PATTERN,
                                                            "Enter category ids separated by commas.").split(",")}
            selected = _narrow(selected, frozenset(i for i, t in enumerate(TYPES) if t.category_id in ids))
    if "extensions" in found:
        wanted = {part.strip().upper().lstrip(".") for part in found["extensions"].split(",")}
        selected = _narrow(selected, frozenset(i for i, t in enumerate(TYPES) if t.extension in wanted))
    if "source_filing_type" in found:
        label = found["source_filing_type"].strip().lower()
        selected = _narrow(selected, frozenset(i for i, t in enumerate(TYPES) if t.name.lower() == label))
    return selected


def _market_filter(found: Mapping[str, str]) -> frozenset[int] | None:
    selected: frozenset[int] | None = None
    if "countries" in found:
        selected = countries("countries", found["countries"])
    for name in ("source", "sources"):  # a source is one market's regulator: id = market position + 1
        if name in found:
            ids = {_integer(name, part) for part in checked(name, found[name], IDS_PATTERN,
                                                            "Enter source ids separated by commas.").split(",")}
            selected = _narrow(selected, frozenset(i - 1 for i in ids if 1 <= i <= len(MARKETS)))
    return selected


def _language_filter(found: Mapping[str, str]) -> frozenset[int] | None:
    selected: frozenset[int] | None = None
    if "language" in found:
        selected = _languages("language", found["language"], LANGUAGE_PATTERN)
    if "languages" in found:
        selected = _narrow(selected, _languages("languages", found["languages"], LANGUAGES_PATTERN))
    return selected


def _instant(name: str, value: str, *, end_of_day: bool) -> int:
    try:
        return instant_s(value, end_of_day=end_of_day)
    except InvalidDate:
        raise bad(f"{name}: Enter a valid date/time.") from None


def _times(found: Mapping[str, str]) -> dict[str, tuple[int | None, int | None]]:
    ranges: dict[str, tuple[int | None, int | None]] = {}
    for name in TIME_RANGES:
        low, high = f"{name}_from", f"{name}_to"
        if low in found or high in found:
            ranges[name] = (_instant(low, found[low], end_of_day=False) if low in found else None,
                            _instant(high, found[high], end_of_day=True) if high in found else None)
    return ranges


def _day(name: str, value: str) -> str:
    try:
        return parse_date(value).isoformat()
    except InvalidDate:
        raise bad(f"{name}: Enter a valid date.") from None


def _choice(found: Mapping[str, str], name: str, choices: tuple[str, ...]) -> str | None:
    value = found.get(name)
    if value is not None and value not in choices:
        raise bad(f"{name}: Select a valid choice. {value!r} is not one of {', '.join(choices)}.")
    return value


def filing_params(raw: Mapping[str, str], default_size: int, max_size: int, notes: Notes) -> FilingParams:
    found = canonical(raw, FILING_ALIASES, FILING_PARAMS, notes)
    short_texts(found, ("extensions", "source_filing_type"))
    for name in ("company_isin", "lei"):
        if name in found and not found[name].strip(BLANKS):
            raise bad(f"{name}: This field may not be blank.")
    ordering = ordering_terms(found.get("ordering"), ORDERING_FIELDS, notes) or ("release_datetime", True)
    period_end_from, period_end_to = (_day(name, found[name]) if name in found else None
                                      for name in ("period_ending_date_from", "period_ending_date_to"))
    if "period_ending_date" in found:
        exact = _day("period_ending_date", found["period_ending_date"])
        period_end_from = max(period_end_from or exact, exact)
        period_end_to = min(period_end_to or exact, exact)
    for flag in ("include_companions", "include_predecessors"):
        boolean(found, flag)  # no filing here has companions or predecessors: either answer is the same
    return FilingParams(
        company_id=_integer("company", found["company"]) if "company" in found else None,
        company_isin=found.get("company_isin"),
        lei=found.get("lei"),
        type_indexes=_type_filter(found),
        language_indexes=_language_filter(found),
        market_indexes=_market_filter(found),
        times=_times(found),
        ingestion_mode=_choice(found, "ingestion_mode", INGESTION_MODES),
        fiscal_year=_integer("fiscal_year", found["fiscal_year"], MAX_FISCAL_YEAR) if "fiscal_year" in found else None,
        fiscal_period=_choice(found, "fiscal_period", PERIODS),
        period_end_from=period_end_from,
        period_end_to=period_end_to,
        search=search_terms(found),
        on_watchlist=boolean(found, "on_watchlist"),
        listed=listing_status(found),
        ordering=Ordering(*ordering),
        full_view=view(found),
        paging=paging(found, default_size, max_size, notes),
    )
