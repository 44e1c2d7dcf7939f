"""Brute-force answers over a small catalogue: every filing materialised, filtered in plain Python.

Independent of the fake's index arithmetic: records come from the pure per-index generator
(the definition of the catalogue), and filters and orderings are re-implemented here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fakes.filings import FilingsFake
from fakes.filings.catalogue.companies import CompanyCore
from fakes.filings.catalogue.filing_types import TYPES
from fakes.filings.catalogue.markets import LANGUAGES, MARKETS
from fakes.filings.catalogue.records import FilingRecord, generated_record


@dataclass
class World:
    filings: list[FilingRecord]  # visible now: generated and user-added
    companies: dict[int, CompanyCore]


def world(fake: FilingsFake) -> World:
    model = fake.model
    now_s = model.now_s()
    generated = [generated_record(model.catalogue, i) for i in range(model.visible_count())]
    users = [r for r in model.filings.values() if r.added_s <= now_s]
    companies: dict[int, CompanyCore] = {}
    for company_id in range(1, model.catalogue.company_count + 1):
        core = model.core(company_id)
        assert core is not None
        companies[company_id] = core
    companies.update(model.companies)
    return World(generated + users, companies)


def expected_filing_ids(w: World, params: dict[str, str]) -> list[int]:
    rows = w.filings
    if "company" in params:
        rows = [r for r in rows if r.company_id == int(params["company"])]
    if "company_isin" in params:
        rows = [r for r in rows if params["company_isin"].upper() in w.companies[r.company_id].isins]
    if "lei" in params:
        rows = [r for r in rows if params["lei"].upper() == w.companies[r.company_id].lei]
    if "filing_type" in params:
        wanted = params["filing_type"]
        rows = [r for r in rows if wanted in (TYPES[r.type_index].name, TYPES[r.type_index].code,
                                              str(TYPES[r.type_index].id))]
    if "type" in params:
        rows = [r for r in rows if TYPES[r.type_index].code == params["type"]]
    if "types" in params:
        rows = [r for r in rows if TYPES[r.type_index].code in params["types"].split(",")]
    for name in ("language", "languages"):
        if name in params:
            codes = {c.lower() for c in params[name].split(",")}
            rows = [r for r in rows if LANGUAGES[r.language_index].code in codes]
    if "countries" in params:
        codes = {c.upper() for c in params["countries"].split(",")}
        rows = [r for r in rows if MARKETS[r.market_index].code in codes]
    if "fiscal_year" in params:
        rows = [r for r in rows if r.fiscal_year == int(params["fiscal_year"])]
    if "fiscal_period" in params:
        rows = [r for r in rows if r.fiscal_period == params["fiscal_period"]]
    if "search" in params:  # every term in the title or the company's name
        terms = list(dict.fromkeys(params["search"].lower().split()))
        rows = [r for r in rows if all(t in r.title.lower() or t in w.companies[r.company_id].name.lower()
                                       for t in terms)]
    if "release_datetime_from" in params:
        rows = [r for r in rows if r.release_s >= int(params["_from_s"])]
    if "release_datetime_to" in params:
        rows = [r for r in rows if r.release_s <= int(params["_to_s"])]
    ordering = params.get("ordering", "-release_datetime")
    field = ordering.lstrip("-")

    def key(r: FilingRecord) -> tuple[int, int]:
        if field == "id":
            return (r.id, 0)
        return ((r.added_s if field == "added_to_platform" else r.release_s), r.id)

    rows = sorted(rows, key=key, reverse=ordering.startswith("-"))
    return [r.id for r in rows]


def _norm(ticker: str) -> str:
    return "".join(ch for ch in ticker.upper() if ch.isalnum())


def expected_company_ids(w: World, params: dict[str, Any]) -> list[int]:
    from fakes.filings.catalogue.isic import CLASSES

    rows = list(w.companies.values())
    if "countries" in params:
        codes = {c.upper() for c in params["countries"].split(",")}
        rows = [c for c in rows if c.country_code in codes]
    levels = {"sector": lambda k: k.section, "industry_group": lambda k: k.division,
              "industry": lambda k: k.group, "sub_industry": lambda k: k.code}
    for name, part in levels.items():
        if name in params:
            rows = [c for c in rows if part(CLASSES[c.class_index]) == params[name].upper()]
    if "isin" in params:
        rows = [c for c in rows if params["isin"].upper() in c.isins]
    if "lei" in params:
        rows = [c for c in rows if params["lei"].upper() == c.lei]
    if "ticker" in params:
        rows = [c for c in rows if _norm(params["ticker"]) == _norm(c.ticker)]
    for term in params.get("search", "").lower().split():
        rows = [c for c in rows if term in c.name.lower() or term.upper() == c.lei or term.upper() in c.isins
                or _norm(term) == _norm(c.ticker)]
    ordering = params.get("ordering", "id")
    field = ordering.lstrip("-")
    keys = {"id": lambda c: ("", c.id), "name": lambda c: (c.name.lower(), c.id),
            "date_ipo": lambda c: (c.date_ipo, c.id), "year_founded": lambda c: (c.year_founded, c.id),
            "country_iso__name": lambda c: (MARKETS[c.market_index].name, c.id)}
    rows = sorted(rows, key=keys[field], reverse=ordering.startswith("-"))
    return [c.id for c in rows]
