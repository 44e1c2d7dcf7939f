"""Reading an imported filings state: every key, company and filing validated before it is taken.

:meth:`~fakes.filings.model.FilingsModel.load_state` calls :func:`read_state`; anything a later
request would trust (a tier, a market index, a company a filing points at, an id the next
``POST`` would reuse) is checked here, and a refusal names the field (``model.filings[2].type_index``).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
from typing import Any, cast

from fakes.kernel.statecheck import StateReader, check_text, refuse

from .catalogue.companies import CompanyCore
from .catalogue.filing_types import TYPES
from .catalogue.identifiers import is_valid_isin, is_valid_lei
from .catalogue.isic import CLASSES
from .catalogue.markets import LANGUAGES, MARKETS
from .catalogue.records import FilingRecord
from .keys import TIERS, ApiKey
from .userdata import USER_ID_BASE

MAX_EPOCH_S = 253_402_300_799  # the end of year 9999, what the service's date-times can write
MAX_COUNT = 2**40
FISCAL_PERIODS = ("FY", "Q1", "Q2", "Q3", "Q4", "H1", "H2", "9M")
KEY_PATTERN = r"[A-Za-z0-9_-]{1,200}"
MAX_MARKDOWN = 10_000_000


@dataclass
class FilingsState:
    keys: dict[str, ApiKey]
    keys_issued: int
    demo_keys: dict[str, str]
    companies: dict[int, CompanyCore]
    filings: dict[int, FilingRecord]


def read_state(state: Any, *, seed: int, scale_label: str, has_company: Any) -> FilingsState:
    """``has_company(id)``: whether the catalogue generates that company (for filings' references)."""
    read = StateReader(state, "model").only(("catalogue", "keys", "keys_issued", "demo_keys", "companies",
                                             "filings"))
    catalogue = read.raw("catalogue")
    if catalogue != {"seed": seed, "scale": scale_label}:
        refuse(read.where("catalogue"), f"is {catalogue!r}; this fake's is seed {seed} scale {scale_label}")
    keys: dict[str, ApiKey] = {}
    for item in read.objects("keys"):
        key = _key(item)
        if key.key in keys:
            refuse(item.where("key"), f"repeats the key {key.key}")
        keys[key.key] = key
    demo = read.object("demo_keys").only(TIERS)
    demo_keys = {}
    for tier in TIERS:
        token = demo.text(tier, max_length=200)
        if token not in keys or keys[token].tier != tier:
            refuse(demo.where(tier), f"must name a {tier} key of model.keys")
        demo_keys[tier] = token
    companies: dict[int, CompanyCore] = {}
    for index, item in enumerate(read.objects("companies")):
        core = _company(item, USER_ID_BASE + index + 1)
        companies[core.id] = core
    filings: dict[int, FilingRecord] = {}
    for index, item in enumerate(read.objects("filings")):
        record = _filing(item, USER_ID_BASE + index + 1)
        if record.company_id not in companies and not (record.company_id < USER_ID_BASE
                                                       and has_company(record.company_id)):
            refuse(item.where("company_id"), f"names no company ({record.company_id})")
        filings[record.id] = record
    return FilingsState(keys, read.integer("keys_issued", minimum=len(TIERS), maximum=MAX_COUNT), demo_keys,
                        companies, filings)


def _key(read: StateReader) -> ApiKey:
    read.only(("key", "tier", "quota", "created_ms", "year", "used", "refused_year"))
    return ApiKey(key=read.text("key", pattern=KEY_PATTERN), tier=read.choice("tier", TIERS),
                  quota=read.integer("quota", minimum=0, maximum=MAX_COUNT, nullable=True),
                  created_ms=read.integer("created_ms", minimum=0, maximum=MAX_EPOCH_S * 1000 + 999),
                  year=read.integer("year", minimum=1970, maximum=9999),
                  used=read.integer("used", minimum=0, maximum=MAX_COUNT),
                  # client history the rules read; states exported before the rules had none
                  refused_year=(read.integer("refused_year", minimum=1970, maximum=9999, nullable=True)
                                if read.has("refused_year") else None))


def _date(read: StateReader, name: str) -> str:
    text = read.text(name, max_length=10)
    try:
        return dt.date.fromisoformat(text).isoformat()
    except ValueError:
        refuse(read.where(name), "must be a date YYYY-MM-DD")


def _company(read: StateReader, expected_id: int) -> CompanyCore:
    read.only(field.name for field in dataclasses.fields(cast(Any, CompanyCore)))
    company_id = read.integer("id")
    if company_id != expected_id:  # the next POST /_fake/companies numbers from the count
        refuse(read.where("id"), f"must be {expected_id} (user companies are numbered from {USER_ID_BASE + 1})")
    market_index = read.integer("market_index", minimum=0, maximum=len(MARKETS) - 1)
    country = read.text("country_code", max_length=2)
    if country != MARKETS[market_index].code:
        refuse(read.where("country_code"), f"must be {MARKETS[market_index].code}, the code of its market_index")
    isins = read.array("isins", max_items=100)
    if not isins:
        refuse(read.where("isins"), "must list at least one ISIN")
    for index, isin in enumerate(isins):
        where = read.where(f"isins[{index}]")
        if not isinstance(check_text(isin, where, max_length=12), str) or not is_valid_isin(isin):
            refuse(where, "is not a valid ISIN")
    lei = read.text("lei", max_length=20)
    if not is_valid_lei(lei):
        refuse(read.where("lei"), "is not a valid LEI")
    return CompanyCore(
        id=company_id, name=read.text("name", min_length=1, max_length=500),
        ticker=read.text("ticker", min_length=1, max_length=20), country_code=country, isins=tuple(isins),
        lei=lei, class_index=read.integer("class_index", minimum=0, maximum=len(CLASSES) - 1),
        tagline=read.text("tagline", min_length=1, max_length=500),
        city=read.text("city", min_length=1, max_length=100), date_public=_date(read, "date_public"),
        date_ipo=_date(read, "date_ipo"), year_founded=_date(read, "year_founded"),
        market_index=market_index, size=read.integer("size", minimum=0, maximum=2),
    )


def _filing(read: StateReader, expected_id: int) -> FilingRecord:
    read.only(field.name for field in dataclasses.fields(cast(Any, FilingRecord)))
    filing_id = read.integer("id")
    if filing_id != expected_id:
        refuse(read.where("id"), f"must be {expected_id} (user filings are numbered from {USER_ID_BASE + 1})")
    period = read.value.get("fiscal_period")
    if period is not None and period not in FISCAL_PERIODS:
        refuse(read.where("fiscal_period"), f"must be one of {', '.join(FISCAL_PERIODS)} or null")
    return FilingRecord(
        id=filing_id, company_id=read.integer("company_id", minimum=1),
        type_index=read.integer("type_index", minimum=0, maximum=len(TYPES) - 1),
        language_index=read.integer("language_index", minimum=0, maximum=len(LANGUAGES) - 1),
        market_index=read.integer("market_index", minimum=0, maximum=len(MARKETS) - 1),
        release_s=read.integer("release_s", minimum=0, maximum=MAX_EPOCH_S),
        added_s=read.integer("added_s", minimum=0, maximum=MAX_EPOCH_S),
        title=read.text("title", min_length=1, max_length=4000),
        fiscal_year=read.integer("fiscal_year", minimum=1, maximum=9999, nullable=True),
        fiscal_period=read.text("fiscal_period", max_length=2, nullable=True),
        file_size=read.integer("file_size", minimum=0, maximum=2**53),
        failed=read.boolean("failed"), confidence=read.number("confidence", minimum=0, maximum=1),
        source_filing_id=read.text("source_filing_id", max_length=200),
        markdown=read.text("markdown", max_length=MAX_MARKDOWN, nullable=True),
    )
