"""A filing as data (:class:`FilingRecord`), generated from its index or added by a user, and its
JSON shapes (the real service's FilingSummary for lists, Filing for one filing).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, fields
from operator import attrgetter
from typing import Any

from .arith import hash_at
from .companies import company_core
from .filing_types import TYPES, fiscal_period
from .generator import Catalogue
from .markets import LANGUAGES, MARKETS

#: Filings released before this instant were imported in bulk when the platform started
#: (``BACKFILLED``); later ones arrived as they were published (``REALTIME``).
PLATFORM_LAUNCH_S = 1_609_459_200  # 2021-01-01T00:00:00Z
REALTIME_WINDOW_S = 48 * 3600  # the real service's "5 to 48 hours after release"
FAILED_PER_MILLE = 4  # share of generated filings whose conversion to Markdown failed


@dataclass(slots=True)  # not frozen: a frozen dataclass's __init__ is measurably slower here
class FilingRecord:
    """Everything a response about one filing is rendered from (times in epoch seconds)."""

    id: int
    company_id: int
    type_index: int
    language_index: int
    market_index: int
    release_s: int
    added_s: int  # when it reached the platform: visible from then on
    title: str
    fiscal_year: int | None
    fiscal_period: str | None
    file_size: int
    failed: bool  # its Markdown conversion failed
    confidence: float
    source_filing_id: str
    markdown: str | None = None  # a user's own content; generated filings compute theirs
    updated_s: int | None = None  # last re-release (None: never, the record is as it arrived)

    @property
    def ingestion_mode(self) -> str:
        realtime = self.release_s >= PLATFORM_LAUNCH_S and self.added_s - self.release_s <= REALTIME_WINDOW_S
        return "REALTIME" if realtime else "BACKFILLED"

    def to_state(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> FilingRecord:
        return cls(**state)


def iso_s(epoch_s: int) -> str:
    t = time.gmtime(epoch_s)
    return f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d}T{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d}Z"


def date_s(epoch_s: int) -> str:
    t = time.gmtime(epoch_s)
    return f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d}"


def period_fields(code: str, release_s: int,
                  released: time.struct_time | None = None) -> tuple[int | None, str | None]:
    """(fiscal year, fiscal period) of a report of type ``code`` released at ``release_s``."""
    released = released or time.gmtime(release_s)
    return fiscal_fields(code, released.tm_year, released.tm_mon)


def fiscal_fields(code: str, year: int, month: int) -> tuple[int | None, str | None]:
    """(fiscal year, fiscal period) of a report of type ``code`` released in ``month`` of ``year``."""
    period = fiscal_period(code, month)
    if period is None:
        return None, None
    # the period ended before the report: this year's if its last month is already over
    end_month = {"Q1": 3, "H1": 6, "9M": 9}.get(period, 12)
    return (year if end_month < month else year - 1), period


_PERIOD_ENDS = {"FY": "12-31", "Q4": "12-31", "H2": "12-31", "Q1": "03-31", "H1": "06-30", "Q2": "06-30",
                "9M": "09-30", "Q3": "09-30"}


def period_ending_date(fiscal_year: int | None, period: str | None) -> str | None:
    if fiscal_year is None or period is None:
        return None
    return f"{fiscal_year}-{_PERIOD_ENDS[period]}"


_TITLES = {
    "10-K": "Annual Report {fy}", "10-K-ESEF": "Annual Financial Report {fy} (ESEF)",
    "IR": "Interim Report {period} {fy}", "ER": "{period} {fy} Results", "CT": "{period} {fy} Earnings Call",
    "AGM": "Notice of Annual General Meeting {year}", "AGM-R": "Results of the Annual General Meeting {year}",
    "DD": "Managers' Transactions", "ADHOC": "Inside Information", "VR": "Voting Rights Notification",
    "PR": "Press Release", "ESG": "Sustainability Report {fy}", "PROSP": "Prospectus",
}
#: the subject of an ad hoc notice or press release: one per release month, so that what a title
#: says is a function of (type, year, month) and a title search is a set of timeline cells
_TOPICS = ("Contract award", "Capital increase", "Share buyback programme", "Change in the Management Board",
           "Guidance update", "Acquisition completed", "Strategic partnership", "Dividend proposal",
           "Bond issue", "Product launch", "New production site", "Divestment agreed")


def label_for(code: str, year: int, month: int) -> str:
    """What a generated title says after ``"<company name>: "``, for a filing of type ``code``
    released in ``month`` of ``year``."""
    fiscal_year, period = fiscal_fields(code, year, month)
    label = _TITLES[code].format(fy=fiscal_year or year - 1, period=period or "", year=year)
    if code in ("ADHOC", "PR"):
        label = f"{label}: {_TOPICS[month - 1]}"
    return label


def title_for(code: str, company_name: str, release_s: int, released: time.struct_time | None = None) -> str:
    released = released or time.gmtime(release_s)
    return f"{company_name}: {label_for(code, released.tm_year, released.tm_mon)}"


RECORD_CACHE_SIZE = 32_768  # pages are read again and again (polling, paging back)
_record_values = attrgetter(*(f.name for f in fields(FilingRecord)))  # a record as a plain tuple


def generated_record(catalogue: Catalogue, index: int) -> FilingRecord:
    """Generated filing ``index`` (id ``index + 1``): a pure function of (seed, scale, index).

    Kept in a plain dict of the catalogue, int -> plain tuple of plain values: the collector stops
    tracking such tuples and then the dict itself, so tens of thousands of cached filings cost a
    full collection nothing. (``functools.lru_cache`` of dataclasses kept every entry tracked, and
    each full collection rescanned them: the 35-46 ms pauses of never-seen pages.) Oldest out first."""
    cache = catalogue.record_cache
    found = cache.get(index)
    if found is not None:
        return FilingRecord(*found)
    record = _generate_record(catalogue, index)
    cache[index] = _record_values(record)
    if len(cache) > RECORD_CACHE_SIZE:
        del cache[next(iter(cache))]
    return record


def _generate_record(catalogue: Catalogue, index: int) -> FilingRecord:
    where = catalogue.locate(index)
    filing_type = TYPES[where.type_index]
    release = catalogue.timeline.release_s(index)
    released = time.gmtime(release)
    fiscal_year, period = period_fields(filing_type.code, release, released)
    core = company_core(catalogue, where.company_id)
    h = hash_at(catalogue.record_hash_base, index)
    return FilingRecord(
        id=index + 1, company_id=where.company_id, type_index=where.type_index,
        language_index=where.language_index, market_index=where.market_index,
        release_s=release, added_s=release,
        title=title_for(filing_type.code, core.name, release, released),
        fiscal_year=fiscal_year, fiscal_period=period,
        file_size=40_000 + (h >> 8) % (12_000_000 if filing_type.code.startswith("10-K") else 900_000),
        failed=(h >> 40) % 1000 < FAILED_PER_MILLE,
        confidence=round(0.8 + ((h >> 50) % 200) / 1000, 3),
        source_filing_id=f"{MARKETS[where.market_index].code}-{index + 1:010d}",
    )


# -- JSON --------------------------------------------------------------------------------------
def language_json(index: int) -> dict[str, Any]:
    language = LANGUAGES[index]
    return {"id": language.id, "code": language.code, "name": language.name}


# Rendered once: responses share these (never mutated) instead of building them per filing.
_LANGUAGES_JSON = tuple(language_json(i) for i in range(len(LANGUAGES)))
_TYPES_JSON = tuple(t.to_json() for t in TYPES)


def source_json(market_index: int) -> dict[str, Any]:
    market = MARKETS[market_index]
    return {"id": market_index + 1, "name": market.regulator, "url": None,
            "description": f"Regulatory filings of issuers listed in {market.name}.", "has_named_speakers": None}


def processing_status(record: FilingRecord, now_s: int, delay_s: int) -> str:
    """Conversion to Markdown takes ``delay_s`` after a filing reaches the platform."""
    if record.failed:
        return "FAILED"
    age = now_s - record.added_s
    if age >= delay_s:
        return "COMPLETED"
    return "PROCESSING" if age * 2 >= delay_s else "PENDING"


@dataclass(frozen=True, slots=True)
class RenderContext:
    """What rendering needs beyond the record: where the fake is served, and the time."""

    base_url: str
    now_s: int
    processing_delay_s: int


def summary_json(record: FilingRecord, company: dict[str, Any], ctx: RenderContext) -> dict[str, Any]:
    """The FilingSummary shape of list items (plus the seed's ``language``, ``filing_date``, ``year``)."""
    document_url = f"{ctx.base_url}/filings/{record.id}/document/"
    filing_type = TYPES[record.type_index]
    released = iso_s(record.release_s)
    return {
        "id": record.id,
        "title": record.title,
        "release_datetime": released,
        "filing_date": released[:10],
        "year": record.fiscal_year or int(released[:4]),
        "language": _LANGUAGES_JSON[record.language_index],
        "document_url": document_url,
        "proxy_url": document_url,
        "viewer_url": None,
        "company": company,
        "filing_type": _TYPES_JSON[record.type_index],
        "processing_status": processing_status(record, ctx.now_s, ctx.processing_delay_s),
        "file_extension": filing_type.extension,
        "file_size": record.file_size,
        "ingestion_mode": record.ingestion_mode,
        "source_url": None,
        "source_filing_type": filing_type.name,
        "source_filing_id": record.source_filing_id,
    }


def detail_json(record: FilingRecord, company: dict[str, Any], ctx: RenderContext) -> dict[str, Any]:
    """The Filing shape of ``GET /filings/{id}/``."""
    summary = summary_json(record, company, ctx)
    completed = summary["processing_status"] == "COMPLETED"
    return {
        **summary,
        "added_to_platform": iso_s(record.added_s),
        "updated_date": iso_s(record.added_s if record.updated_s is None else record.updated_s),
        "dissemination_datetime": summary["release_datetime"],
        "source": source_json(record.market_index),
        "document": summary["document_url"],
        "markdown_url": f"{ctx.base_url}/filings/{record.id}/markdown/" if completed else None,
        "filing_type_confidence": record.confidence,
        "filing_type_reasoning": f"The document's cover page and structure match a {TYPES[record.type_index].name}.",
        "language_confidence": 0.99,
        "language_verified_at": iso_s(record.added_s),
        "fiscal_year": record.fiscal_year,
        "fiscal_period": record.fiscal_period,
        "period_ending_date": period_ending_date(record.fiscal_year, record.fiscal_period),
    }
