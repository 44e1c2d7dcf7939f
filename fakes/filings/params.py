"""Query parameters -> filters: the helpers every list shares, and the company list's parameters.

Pure functions of a ``Mapping[str, str]`` (no Starlette), so the rules are testable alone. Where
Django REST framework and django-filter (the real service's stack) are lenient, so is this
parser, and it says so in ``notes`` (each note becomes a ``filings/lenient-input`` warning
verdict): an empty filter value is ignored, unknown ordering terms are dropped (none left: the
default order), a ``page_size`` above the maximum is cut to it. Anything else malformed is a 400
``{"detail": ...}`` naming the parameter. Filing parameters are in :mod:`.filingparams`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from fakes.kernel.errors import ServiceError
from fakes.kernel.http import JSON_INT_MAX, InvalidInteger, ascii_int, query_int, query_text

from .catalogue.directory import COMPANY_ORDERINGS
from .catalogue.isic import CLASSES, IsicClass
from .catalogue.markets import MARKET_INDEX

Notes = list[str]

#: the longest ``search`` (longer is a 400): a search's work grows with its terms, so its length bounds it
MAX_SEARCH_LENGTH = 200
MAX_PAGE = 10**9
#: parameters whose empty value is not "no filter": an empty page is DRF's 404 `Invalid page.`
NOT_IGNORED_WHEN_EMPTY = frozenset({"page"})

# One source of truth for what a parameter accepts: the parser checks these, and the OpenAPI
# document publishes them, so a schema-valid value is never refused and an invalid one always is.
COUNTRIES_PATTERN = r"^[A-Za-z]{2}(,[A-Za-z]{2})*$"
COMPANY_ALIASES = {
    "country": "countries", "location": "countries",
    "isic_section": "sector", "isic_division": "industry_group", "isic_group": "industry",
    "isic_class": "sub_industry",
}
#: real company filters this fake does not model: accepted, ignored, and reported as a warning
UNSUPPORTED_COMPANY_PARAMS = frozenset({
    "cik", "date_public_after", "date_public_before", "date_public_cursor", "oics_class", "oics_entity_type",
    "oics_group", "oics_industry", "oics_sector",
})
LISTING_STATUSES = ("LISTED", "DELISTED", "SUSPENDED", "UNKNOWN")
BOOLEAN_WORDS = {"true": True, "True": True, "1": True, "false": False, "False": False, "0": False}
#: what counts as blank (ASCII whitespace: a JSON Schema ``\S`` and Python's ``str.strip`` differ beyond it)
BLANKS = " \t\n\r\f\v"
NOT_BLANK = "[^ \t\n\r\f\v]"


def bad(message: str) -> ServiceError:
    return ServiceError(400, message, code="invalid_parameter")


@dataclass(frozen=True, slots=True)
class Paging:
    page: int
    page_size: int


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
    listed: bool = True  # False: a listing status no company has (all are LISTED)
    on_watchlist: bool | None = None
    paging: Paging = field(default_factory=lambda: Paging(1, 50))


def canonical(params: Mapping[str, str], aliases: Mapping[str, str], known: frozenset[str],
              notes: Notes) -> dict[str, str]:
    """Parameters under their canonical names, empty ones dropped (noted when the name is known); a
    name and its alias together must agree."""
    found: dict[str, str] = {}
    for name, value in params.items():
        target = aliases.get(name, name)
        if value == "" and target not in NOT_IGNORED_WHEN_EMPTY:
            if target in known:
                notes.append(f"empty {name}= ignored (as django-filter does)")
            continue
        if target in found and found[target] != value:
            raise bad(f"{name} and {target} filter the same field and disagree")
        found[target] = value
    return found


def whole_number(params: Mapping[str, str], name: str, message: str, default: int | None = None, *,
                 minimum: int = 0, maximum: int = JSON_INT_MAX) -> int | None:
    """An integer parameter of ASCII digits (the kernel's parser) in the service's 400 wording."""
    return query_int(params, name, default, minimum=minimum, maximum=maximum,
                     refuse=lambda _name, _raw, _reason: bad(message))


def boolean(params: Mapping[str, str], name: str) -> bool | None:
    """django-filter's BooleanFilter: true/True/1 or false/False/0."""
    raw = params.get(name)
    if raw is None:
        return None
    if raw not in BOOLEAN_WORDS:
        raise bad(f"{name}: Select a valid choice. {raw!r} is not one of true or false.")
    return BOOLEAN_WORDS[raw]


def _invalid_page(name: str, raw: str, reason: InvalidInteger) -> ServiceError:
    return ServiceError(404, "Invalid page.", code="invalid_page")  # DRF's answer to any page it cannot serve


def paging(params: Mapping[str, str], default_size: int, max_size: int, notes: Notes | None = None) -> Paging:
    # a page past MAX_PAGE is past the end of any list (and would overflow an offset)
    page = query_int(params, "page", 1, minimum=1, maximum=MAX_PAGE, refuse=_invalid_page)

    def page_size_refusal(name: str, raw: str, reason: InvalidInteger) -> ServiceError:
        return bad("page_size: A positive integer is required.")

    raw_size = params.get("page_size")
    if raw_size == "":
        raw_size = None  # DRF: an empty page_size is the default one
    size = default_size
    if raw_size is not None:
        try:
            size = ascii_int(raw_size, minimum=1, maximum=JSON_INT_MAX)
        except InvalidInteger as reason:
            if reason.problem != "maximum":
                raise page_size_refusal("page_size", raw_size, reason) from None
            size = max_size + 1  # a huge page_size is cut like any other above the maximum
        if size > max_size:  # DRF cuts a page_size at max_page_size
            if notes is not None:
                notes.append(f"page_size={raw_size} cut to the maximum {max_size} (as Django REST framework does)")
            size = max_size
    assert page is not None
    return Paging(page, size)


def ordering_terms(text: str | None, allowed: Sequence[str], notes: Notes) -> tuple[str, bool] | None:
    """DRF's OrderingFilter: comma-separated terms, ``-`` descending; terms that name no orderable
    field are dropped (noted). The first remaining term orders (ties by id, in its direction); None
    when none remains: the list's default order."""
    if text is None:
        return None
    chosen: tuple[str, bool] | None = None
    for term in text.split(","):
        term = term.strip()
        name = term[1:] if term.startswith("-") else term
        if name not in allowed:
            notes.append(f"ordering term {term!r} is not orderable here; ignored (as Django REST framework does)")
        elif chosen is None:
            chosen = (name, term.startswith("-"))
    return chosen


def search_terms(params: Mapping[str, str]) -> tuple[str, ...]:
    """The distinct lower-case terms of ``search``: each term costs work, so none counts twice."""
    return tuple(dict.fromkeys(term.lower() for term in search_text(params).split()))


def search_text(params: Mapping[str, str], name: str = "search") -> str:
    """A search parameter of at most MAX_SEARCH_LENGTH characters (what bounds a search's cost)."""
    return query_text(params, name, "", max_length=MAX_SEARCH_LENGTH, refuse=lambda _name, _raw: bad(
        f"{name}: Ensure this field has no more than {MAX_SEARCH_LENGTH} characters.")) or ""


def short_texts(found: Mapping[str, str], names: tuple[str, ...]) -> None:
    """Free-text filters bounded, as documented, at MAX_SEARCH_LENGTH characters (a longer one is a 400)."""
    for name in names:
        if len(found.get(name, "")) > MAX_SEARCH_LENGTH:
            raise bad(f"{name}: Ensure this field has no more than {MAX_SEARCH_LENGTH} characters.")


def checked(name: str, value: str, pattern: str, expected: str) -> str:
    if not re.fullmatch(pattern, value):
        raise bad(f"{name}: {expected}")
    return value


def countries(name: str, value: str) -> frozenset[int]:
    codes = checked(name, value, COUNTRIES_PATTERN, "Enter ISO 3166-1 alpha-2 codes separated by commas (e.g. DE,FR).")
    # a well-formed code of a country outside the 44 markets simply matches no company
    return frozenset(MARKET_INDEX[code] for code in codes.upper().split(",") if code in MARKET_INDEX)


def view(found: Mapping[str, str]) -> bool:
    chosen = found.get("view", "summary")
    if chosen not in ("summary", "full"):
        raise bad("view: Select a valid choice: summary or full.")
    return chosen == "full"


def listing_status(found: Mapping[str, str]) -> bool:
    status = found.get("listing_status", "LISTED")
    if status not in LISTING_STATUSES:
        raise bad(f"listing_status: Select a valid choice. {status!r} is not one of the available choices.")
    return status == "LISTED"


ISIC_PATTERNS = {"sector": r"^[A-Za-z]$", "industry_group": r"^[0-9]{2}$", "industry": r"^[0-9]{3}$",
                 "sub_industry": r"^[0-9]{4}$"}
_ISIC_PART: dict[str, Callable[[IsicClass], str]] = {  # parameter -> the part of a class it compares
    "sector": lambda cls: cls.section,
    "industry_group": lambda cls: cls.division,
    "industry": lambda cls: cls.group,
    "sub_industry": lambda cls: cls.code,
}
COMPANY_PARAMS = frozenset({"countries", *ISIC_PATTERNS, "isin", "lei", "ticker", "search", "ordering", "view",
                            "page_size", "listing_status", "on_watchlist"})


def company_params(raw: Mapping[str, str], default_size: int, max_size: int, notes: Notes) -> CompanyParams:
    found = canonical(raw, COMPANY_ALIASES, COMPANY_PARAMS, notes)
    classes: frozenset[int] | None = None
    for name, part in _ISIC_PART.items():
        if name not in found:
            continue
        value = found[name].upper()
        if not re.fullmatch(ISIC_PATTERNS[name], value):
            raise bad(f"{name}: not an ISIC code of this level ({found[name]!r}).")
        matching = frozenset(i for i, cls in enumerate(CLASSES) if part(cls) == value)
        classes = matching if classes is None else classes & matching
    ordering = ordering_terms(found.get("ordering"), (*COMPANY_ORDERINGS, "relevance"), notes) or ("id", False)
    name, descending = ordering
    return CompanyParams(
        market_indexes=countries("countries", found["countries"]) if "countries" in found else None,
        class_indexes=classes,
        isin=found.get("isin"),
        lei=found.get("lei"),
        ticker=found.get("ticker"),
        search=search_terms(found),
        ordering="id" if name == "relevance" else name,
        descending=descending,
        full_view=view(found),
        listed=listing_status(found),
        on_watchlist=boolean(found, "on_watchlist"),
        paging=paging(found, default_size, max_size, notes),
    )
