"""Companies and filings added through the control plane: validation of the request bodies.

User companies and filings get ids from :data:`USER_ID_BASE` up, above every id the catalogue
can generate at any scale, so they never collide with generated ones and an exported state
stays valid whatever the clock does.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from fakes.kernel.errors import ServiceError

from .catalogue.arith import stable_hash
from .catalogue.companies import CompanyCore
from .catalogue.filing_types import TYPES, resolve_type
from .catalogue.identifiers import is_valid_isin, is_valid_lei, make_isin, make_lei
from .catalogue.isic import CLASS_INDEX, CLASSES
from .catalogue.markets import LANGUAGE_BY_CODE, LANGUAGES, MARKET_INDEX, MARKETS
from .catalogue.records import FilingRecord, period_fields, title_for
from .dates import InvalidDate, instant_s

USER_ID_BASE = 1_000_000_000
USER_SALT = 0x05E4


def _bad(message: str) -> ServiceError:
    return ServiceError(400, message, code="invalid_body")


def _text(body: dict[str, Any], name: str, default: str | None = None, *, limit: int = 500) -> str:
    value = body.get(name, default)
    if not isinstance(value, str) or not value.strip():
        raise _bad(f"{name} must be a non-empty string")
    if len(value) > limit:
        raise _bad(f"{name} is longer than {limit} characters")
    return value.strip()


def new_company(body: dict[str, Any], company_id: int, now_ms: int,
                identifier_taken: Callable[[str], bool]) -> CompanyCore:
    """A company from a ``POST /_fake/companies`` body (``name`` and ``country_code`` required)."""
    unknown = set(body) - {"name", "country_code", "isins", "lei", "ticker", "sub_industry_code", "tagline",
                           "city", "date_ipo", "year_founded"}
    if unknown:
        raise _bad(f"unknown field(s): {', '.join(sorted(unknown))}")
    name = _text(body, "name")
    country = _text(body, "country_code").upper()
    market = MARKET_INDEX.get(country)
    if market is None:
        raise _bad(f"country_code must be one of the 44 markets: {', '.join(m.code for m in MARKETS)}")
    class_code = _text(body, "sub_industry_code", "6420")
    if class_code not in CLASS_INDEX:
        raise _bad(f"sub_industry_code must be an ISIC class of the catalogue: {', '.join(CLASS_INDEX)}")
    isins = body.get("isins", [make_isin(country, company_id % 100_000_000 or 1, 9)])
    if not isinstance(isins, list) or not isins or not all(isinstance(i, str) and is_valid_isin(i) for i in isins):
        raise _bad("isins must be a non-empty list of valid ISINs (12 characters, correct check digit)")
    isins = [i.upper() for i in isins]
    lei = body.get("lei", make_lei("9845", company_id))
    if not isinstance(lei, str) or not is_valid_lei(lei):
        raise _bad("lei must be a valid LEI (20 characters, ISO 17442 check digits)")
    for identifier in [*isins, lei.upper()]:
        if identifier_taken(identifier):
            raise ServiceError(409, f"{identifier} already identifies another company", code="conflict")
    h = stable_hash(company_id, USER_SALT)
    cls = CLASSES[CLASS_INDEX[class_code]]
    today = dt.datetime.fromtimestamp(now_ms / 1000, tz=dt.UTC).date().isoformat()
    return CompanyCore(
        id=company_id, name=name, ticker=_text(body, "ticker", name[:4].upper(), limit=20),
        country_code=country, isins=tuple(isins), lei=lei.upper(), class_index=CLASS_INDEX[class_code],
        tagline=_text(body, "tagline", f"A {MARKETS[market].name} company in {cls.name.lower()}."),
        city=_text(body, "city", MARKETS[market].cities[h % len(MARKETS[market].cities)], limit=100),
        date_public=today, date_ipo=_date_field(body, "date_ipo", today),
        year_founded=_date_field(body, "year_founded", "2000-01-01"), market_index=market, size=1,
    )


def _date_field(body: dict[str, Any], name: str, default: str) -> str:
    value = body.get(name, default)
    try:
        return dt.date.fromisoformat(value).isoformat()
    except (TypeError, ValueError):
        raise _bad(f"{name} must be a date YYYY-MM-DD") from None


def company_from_state(state: dict[str, Any]) -> CompanyCore:
    return CompanyCore(**{**state, "isins": tuple(state["isins"])})


def new_filing(body: dict[str, Any], filing_id: int, now_s: int, company: CompanyCore | None,
               main_language: int) -> FilingRecord:
    """A filing from a ``POST /_fake/filings`` body (``company`` required).

    It reaches the platform now - or at its ``release_datetime`` if that is in the future - and
    is visible to the API from then on; a past ``release_datetime`` makes a late (backfilled)
    arrival, which an incremental sync ordered by release time may miss.
    """
    unknown = set(body) - {"company", "filing_type", "language", "title", "release_datetime", "markdown"}
    if unknown:
        raise _bad(f"unknown field(s): {', '.join(sorted(unknown))}")
    company_id = body.get("company")
    if isinstance(company_id, bool) or not isinstance(company_id, int):
        raise _bad("company must be a company's id (an integer)")
    type_text = body.get("filing_type", "Press Release")
    filing_type = resolve_type(str(type_text)) if isinstance(type_text, (str, int)) else None
    if filing_type is None:
        raise _bad(f"filing_type must be a type name, code or id: {', '.join(t.name for t in TYPES)}")
    language_code = body.get("language", LANGUAGES[main_language].code)
    if not isinstance(language_code, str) or language_code.lower() not in LANGUAGE_BY_CODE:
        raise _bad(f"language must be one of {', '.join(lang.code for lang in LANGUAGES)}")
    release_text = body.get("release_datetime")
    if release_text is None:
        release_s = now_s
    elif isinstance(release_text, str):
        try:
            release_s = instant_s(release_text, end_of_day=False)
        except InvalidDate:
            raise _bad("release_datetime must be an ISO 8601 date-time") from None
        if not 0 <= release_s <= 253_402_300_799:
            raise _bad("release_datetime must be between 1970 and the end of 9999")
    else:
        raise _bad("release_datetime must be an ISO 8601 string")
    markdown = body.get("markdown")
    if markdown is not None and not isinstance(markdown, str):
        raise _bad("markdown must be a string")
    if company is None:  # a well-formed reference to nothing: the record is not there
        raise ServiceError(404, f"no company {company_id}", code="not_found")
    fiscal_year, period = period_fields(filing_type.code, release_s)
    title = _text(body, "title", title_for(filing_type.code, company.name, release_s), limit=4000)
    return FilingRecord(
        id=filing_id, company_id=company.id, type_index=filing_type.id - 1,
        language_index=LANGUAGES.index(LANGUAGE_BY_CODE[language_code.lower()]),
        market_index=company.market_index, release_s=release_s, added_s=max(now_s, release_s), title=title,
        fiscal_year=fiscal_year, fiscal_period=period,
        file_size=len(markdown.encode()) if markdown else 120_000, failed=False, confidence=1.0,
        source_filing_id=f"USER-{filing_id}", markdown=markdown,
    )

