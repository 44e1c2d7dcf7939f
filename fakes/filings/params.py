"""Query parameters -> filters, with a 400 ``{"detail": ...}`` for every malformed value.

Pure functions of a ``Mapping[str, str]`` (no Starlette), so the rules are testable alone.
Names: the seed's where it gives one (``filing_type``, ``ordering``, ``page_size``), the real
service's otherwise, and the other spelling of each accepted as an alias.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from fakes.kernel.errors import ServiceError
from fakes.kernel.http import JSON_INT_MAX, InvalidInteger, ascii_int, query_int, query_text

from .catalogue.directory import COMPANY_ORDERINGS
from .catalogue.filing_types import TYPES, resolve_type
from .catalogue.isic import CLASSES, IsicClass
from .catalogue.markets import LANGUAGE_BY_CODE, LANGUAGES
from .query import ORDERING_FIELDS, Ordering, market_index

# alias -> canonical name (the canonical names are what the OpenAPI document lists)
FILING_ALIASES = {
    "country": "countries", "location": "countries",
    "release_date_from": "release_datetime_from", "release_date_to": "release_datetime_to",
    "date_from": "release_datetime_from", "date_to": "release_datetime_to",
    "isin": "company_isin",
}
COMPANY_ALIASES = {
    "country": "countries", "location": "countries",
    "isic_section": "sector", "isic_division": "industry_group", "isic_group": "industry",
    "isic_class": "sub_industry",
}
#: real filters this fake does not model: accepted, ignored, and reported as a journal warning
UNSUPPORTED_FILING_PARAMS = frozenset({
    "added_to_platform_from", "added_to_platform_to", "categories", "category", "extensions", "file_size_max",
    "file_size_min", "fiscal_period", "fiscal_year", "include_companions", "include_predecessors",
    "ingestion_mode", "listing_status", "max_confidence", "min_confidence", "on_watchlist",
    "period_ending_date", "period_ending_date_from", "period_ending_date_to", "primary_annual_report",
    "processing_status", "processing_statuses", "reasoning_contains", "search", "source", "source_filing_type",
    "sources", "updated_date_from", "updated_date_to", "cursor",
})
UNSUPPORTED_COMPANY_PARAMS = frozenset({
    "cik", "date_public_after", "date_public_before", "date_public_cursor", "listing_status", "oics_class",
    "oics_entity_type", "oics_group", "oics_industry", "oics_sector", "on_watchlist",
})


#: the longest ``search`` of ``/companies/`` and ``/filing-types/`` (longer is a 400): a search costs
#: one pass over the companies per distinct term, so its length bounds the work of a request
MAX_SEARCH_LENGTH = 200
MAX_PAGE = 10**9

# One source of truth for what a parameter accepts: the parser checks these, and the OpenAPI
# document publishes them, so a schema-valid value is never refused and an invalid one always is.
COUNTRIES_PATTERN = r"^[A-Za-z]{2}(,[A-Za-z]{2})*$"
LANGUAGES_PATTERN = COUNTRIES_PATTERN
LANGUAGE_PATTERN = r"^[A-Za-z]{2}$"
TYPE_CODES = tuple(t.code for t in TYPES)
TYPES_PATTERN = "^({codes})(,({codes}))*$".format(codes="|".join(re.escape(code) for code in TYPE_CODES))
FILING_TYPE_CHOICES = tuple(sorted({t.name for t in TYPES} | set(TYPE_CODES) | {str(t.id) for t in TYPES}))
_DATE = r"(\d{4})-(\d{2})-(\d{2})"
_RFC3339 = re.compile(_DATE + r"[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2}))")
_DAY = re.compile(_DATE)


def bad(message: str) -> ServiceError:
    return ServiceError(400, message, code="invalid_parameter")


@dataclass(frozen=True, slots=True)
class Paging:
    page: int
    page_size: int


@dataclass(frozen=True, slots=True)
class FilingParams:
    company_id: int | None = None
    company_isin: str | None = None
    lei: str | None = None
    type_indexes: frozenset[int] | None = None
    language_indexes: frozenset[int] | None = None
    market_indexes: frozenset[int] | None = None
    released_from_s: int | None = None
    released_to_s: int | None = None
    ordering: Ordering = field(default_factory=lambda: Ordering("release_datetime", True))
    full_view: bool = False
    paging: Paging = field(default_factory=lambda: Paging(1, 50))


@dataclass(frozen=True, slots=True)
class CompanyParams:
    market_indexes: frozenset[int] | None = None
    class_indexes: frozenset[int] | None = None
    isin: str | None = None
    lei: str | None = None
    ticker: str | None = None
    search: tuple[str, ...] = ()
    ordering: str = "id"
    descending: bool = False
    full_view: bool = False
    paging: Paging = field(default_factory=lambda: Paging(1, 50))


def canonical(params: Mapping[str, str], aliases: Mapping[str, str]) -> dict[str, str]:
    """Parameters under their canonical names; a name and its alias together must agree."""
    found: dict[str, str] = {}
    for name, value in params.items():
        target = aliases.get(name, name)
        if target in found and found[target] != value:
            raise bad(f"{name} and {target} filter the same field and disagree")
        found[target] = value
    return found


def whole_number(params: Mapping[str, str], name: str, message: str, default: int | None = None, *,
                 minimum: int = 0, maximum: int = JSON_INT_MAX) -> int | None:
    """An integer parameter of ASCII digits (the kernel's parser) in the service's 400 wording."""
    return query_int(params, name, default, minimum=minimum, maximum=maximum,
                     refuse=lambda _name, _raw, _reason: bad(message))


def _invalid_page(name: str, raw: str, reason: InvalidInteger) -> ServiceError:
    return ServiceError(404, "Invalid page.", code="invalid_page")  # DRF's answer to any page it cannot serve


def paging(params: Mapping[str, str], default_size: int, max_size: int) -> Paging:
    # a page past MAX_PAGE is past the end of any list (and would overflow an offset)
    page = query_int(params, "page", 1, minimum=1, maximum=MAX_PAGE, refuse=_invalid_page)

    def page_size_refusal(name: str, raw: str, reason: InvalidInteger) -> ServiceError:
        if reason.problem == "maximum":
            return bad(f"page_size: Ensure this value is less than or equal to {max_size}.")
        return bad("page_size: A positive integer is required.")

    size = query_int(params, "page_size", default_size, minimum=1, maximum=max_size, refuse=page_size_refusal)
    assert page is not None and size is not None
    return Paging(page, size)


def search_terms(params: Mapping[str, str]) -> tuple[str, ...]:
    """The distinct lower-case terms of ``search``: each costs at most one pass over the companies
    (fewer as the matches narrow), so a repeated term must not count twice."""
    return tuple(dict.fromkeys(term.lower() for term in search_text(params).split()))


def search_text(params: Mapping[str, str], name: str = "search") -> str:
    """A search parameter of at most MAX_SEARCH_LENGTH characters (what bounds a search's cost)."""
    return query_text(params, name, "", max_length=MAX_SEARCH_LENGTH, refuse=lambda _name, _raw: bad(
        f"{name}: Ensure this field has no more than {MAX_SEARCH_LENGTH} characters.")) or ""


def parse_instant(name: str, value: str, *, end_of_day: bool) -> int:
    """Epoch seconds of an RFC 3339 date-time, or of a date (the start or end of that UTC day)."""
    try:
        day = _DAY.fullmatch(value)
        if day is not None:
            start = dt.datetime(int(day[1]), int(day[2]), int(day[3]), tzinfo=dt.UTC)
            return int(start.timestamp()) + (86_399 if end_of_day else 0)
        moment = _RFC3339.fullmatch(value)
        if moment is None:
            raise ValueError(value)
        (year, month, mday, hour, minute, second), fraction = map(int, moment.groups()[:6]), moment[7]
        offset = 0 if moment[9] is None else (int(moment[10]) * 60 + int(moment[11])) * (1 if moment[9] == "+" else -1)
        if int(moment[10] or 0) > 23 or int(moment[11] or 0) > 59:
            raise ValueError(value)
        parsed = dt.datetime(year, month, mday, hour, minute, min(second, 59), tzinfo=dt.UTC)  # a leap second: :59
        del fraction  # whole seconds: release times have no fraction
        return int(parsed.timestamp()) - offset * 60
    except ValueError:
        raise bad(f"{name}: Enter a valid date/time (YYYY-MM-DDTHH:MM:SSZ) or date (YYYY-MM-DD).") from None


def _checked(name: str, value: str, pattern: str, expected: str) -> str:
    if not re.fullmatch(pattern, value):
        raise bad(f"{name}: {expected}")
    return value


def _countries(name: str, value: str) -> frozenset[int]:
    codes = _checked(name, value, COUNTRIES_PATTERN, "Enter ISO 3166-1 alpha-2 codes separated by commas (e.g. DE,FR).")
    # a well-formed code of a country outside the 44 markets simply matches no company
    return frozenset(i for i in (market_index(code) for code in codes.split(",")) if i is not None)


def _languages(name: str, value: str, pattern: str) -> frozenset[int]:
    codes = _checked(name, value, pattern, "Enter ISO 639-1 codes separated by commas (e.g. en,de).")
    return frozenset(LANGUAGES.index(LANGUAGE_BY_CODE[c.lower()]) for c in codes.split(",")
                     if c.lower() in LANGUAGE_BY_CODE)


def _integer(name: str, value: str) -> int:
    try:
        return ascii_int(value, minimum=0, maximum=JSON_INT_MAX)
    except InvalidInteger:
        raise bad(f"{name}: Enter a whole number.") from None


def _type_filter(found: Mapping[str, str]) -> frozenset[int] | None:
    """``filing_type`` (the seed's: a type name, code or id), ``type`` (one code) and ``types``
    (several codes, comma-separated); given together, a filing must satisfy all of them."""
    selected: frozenset[int] | None = None

    def narrow(chosen: frozenset[int]) -> None:
        nonlocal selected
        selected = chosen if selected is None else selected & chosen

    if "filing_type" in found:
        filing_type = resolve_type(found["filing_type"])
        if filing_type is None:
            raise bad(f"filing_type: Select a valid choice. {found['filing_type']!r} is not a filing type "
                      "name, code or id (see GET /filing-types/).")
        narrow(frozenset({filing_type.id - 1}))
    if "type" in found:
        if found["type"] not in TYPE_CODES:
            raise bad(f"type: Unknown filing type code {found['type']!r}. Codes are listed at GET /filing-types/.")
        narrow(frozenset({TYPE_CODES.index(found["type"])}))
    if "types" in found:
        codes = _checked("types", found["types"], TYPES_PATTERN,
                         "Unknown filing type code(s). Codes are listed at GET /filing-types/.")
        narrow(frozenset(TYPE_CODES.index(code) for code in codes.split(",")))
    return selected


def filing_params(raw: Mapping[str, str], default_size: int, max_size: int) -> FilingParams:
    found = canonical(raw, FILING_ALIASES)
    company_id = _integer("company", found["company"]) if "company" in found else None
    from_s = (parse_instant("release_datetime_from", found["release_datetime_from"], end_of_day=False)
              if "release_datetime_from" in found else None)
    to_s = (parse_instant("release_datetime_to", found["release_datetime_to"], end_of_day=True)
            if "release_datetime_to" in found else None)
    ordering_text = found.get("ordering", "-release_datetime")
    ordering = Ordering.parse(ordering_text)
    if ordering is None:
        allowed = ", ".join(ORDERING_FIELDS)
        raise bad(f"ordering: {ordering_text!r} is not an orderable field; use one of {allowed} "
                  "(a leading '-' orders descending).")
    return FilingParams(
        company_id=company_id,
        company_isin=_not_blank(found, "company_isin"),
        lei=_not_blank(found, "lei"),
        type_indexes=_type_filter(found),
        language_indexes=_language_filter(found),
        market_indexes=_countries("countries", found["countries"]) if "countries" in found else None,
        released_from_s=from_s,
        released_to_s=to_s,
        ordering=ordering,
        full_view=_view(found),
        paging=paging(found, default_size, max_size),
    )


def _not_blank(found: Mapping[str, str], name: str) -> str | None:
    if found.get(name) == "":
        raise bad(f"{name}: This field may not be blank.")
    return found.get(name)


def _language_filter(found: Mapping[str, str]) -> frozenset[int] | None:
    selected: frozenset[int] | None = None
    if "language" in found:
        selected = _languages("language", found["language"], LANGUAGE_PATTERN)
    if "languages" in found:
        chosen = _languages("languages", found["languages"], LANGUAGES_PATTERN)
        selected = chosen if selected is None else selected & chosen
    return selected


def _view(found: Mapping[str, str]) -> bool:
    view = found.get("view", "summary")
    if view not in ("summary", "full"):
        raise bad("view: Select a valid choice: summary or full.")
    return view == "full"


ISIC_PATTERNS = {"sector": r"^[A-Za-z]$", "industry_group": r"^[0-9]{2}$", "industry": r"^[0-9]{3}$",
                 "sub_industry": r"^[0-9]{4}$"}
_ISIC_PART: dict[str, Callable[[IsicClass], str]] = {  # parameter -> the part of a class it compares
    "sector": lambda cls: cls.section,
    "industry_group": lambda cls: cls.division,
    "industry": lambda cls: cls.group,
    "sub_industry": lambda cls: cls.code,
}


def company_params(raw: Mapping[str, str], default_size: int, max_size: int) -> CompanyParams:
    found = canonical(raw, COMPANY_ALIASES)
    classes: frozenset[int] | None = None
    for name, part in _ISIC_PART.items():
        if name not in found:
            continue
        value = found[name].upper()
        if not re.fullmatch(ISIC_PATTERNS[name], value):
            raise bad(f"{name}: not an ISIC code of this level ({found[name]!r}).")
        matching = frozenset(i for i, cls in enumerate(CLASSES) if part(cls) == value)
        classes = matching if classes is None else classes & matching
    ordering_text = found.get("ordering", "id")
    descending = ordering_text.startswith("-")
    ordering = ordering_text.lstrip("-")
    if ordering == "relevance":
        ordering = "id"
    if ordering not in COMPANY_ORDERINGS:
        raise bad(f"ordering: {ordering_text!r} is not an orderable field; use one of "
                  f"{', '.join(COMPANY_ORDERINGS)} (a leading '-' orders descending).")
    for name in ("isin", "lei", "ticker"):
        if found.get(name) == "":
            raise bad(f"{name}: This field may not be blank.")
    return CompanyParams(
        market_indexes=_countries("countries", found["countries"]) if "countries" in found else None,
        class_indexes=classes,
        isin=found.get("isin"),
        lei=found.get("lei"),
        ticker=found.get("ticker"),
        search=search_terms(found),
        ordering=ordering,
        descending=descending,
        full_view=_view(found),
        paging=paging(found, default_size, max_size),
    )
