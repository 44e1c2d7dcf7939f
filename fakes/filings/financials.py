"""``GET /companies/{id}/financials/``: standardised statements per fiscal year, from the filings.

A fiscal year has statements once the company's annual report for it is released (a ``10-K`` or
``10-K-ESEF`` filing, generated or a user's): the latest such filing by ``as_of`` /
``as_known_at`` (and by now) is the statement's ``source_filing``, all of them its ``sources``.
The figures themselves are :mod:`.figures`' (the same numbers whichever filing is selected), laid
out as :mod:`.lineitems` defines them. The most recent ``MAX_PERIODS`` fiscal years are served.
"""

from __future__ import annotations

import calendar
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from .catalogue.companies import CompanyCore
from .catalogue.filing_types import TYPES
from .catalogue.markets import MARKETS
from .catalogue.records import FilingRecord, generated_record, iso_s
from .figures import Company, currency_json, figures, template_of
from .lineitems import ORDER, STATEMENT_NAMES, LineItem

if TYPE_CHECKING:
    from .model import FilingsModel

ANNUAL_TYPES = frozenset({0, 1})  # 10-K and 10-K-ESEF
MAX_PERIODS = 30
STATEMENTS = ("IS", "BS", "CFS")
INCLUDES = ("revisions", "preliminary", "as_reported", "standalone_quarters")
EXTRACTION_MODEL = "contract-fakes-extractor"


@dataclass(frozen=True)
class FinancialsQuery:
    statement_type: str | None = None
    fiscal_year: int | None = None
    fiscal_year_from: int | None = None
    fiscal_year_to: int | None = None
    fiscal_period: str | None = None
    line_items: tuple[str, ...] | None = None
    as_of: str | None = None  # YYYY-MM-DD
    as_known_at: int | None = None  # epoch seconds
    include: tuple[str, ...] = ()

    def cutoff_s(self, now_s: int) -> int:
        """Filings released after this instant are not considered."""
        limits = [now_s]
        if self.as_of is not None:
            limits.append(calendar.timegm((int(self.as_of[:4]), int(self.as_of[5:7]), int(self.as_of[8:10]),
                                           23, 59, 59)))
        if self.as_known_at is not None:
            limits.append(self.as_known_at)
        return min(limits)

    def wants_year(self, year: int) -> bool:
        return ((self.fiscal_year is None or year == self.fiscal_year)
                and (self.fiscal_year_from is None or year >= self.fiscal_year_from)
                and (self.fiscal_year_to is None or year <= self.fiscal_year_to))


def annual_reports(model: FilingsModel, company_id: int, until_s: int) -> dict[int, list[FilingRecord]]:
    """The company's annual reports released by ``until_s``, by fiscal year (oldest first within a
    year), for its ``MAX_PERIODS`` most recent fiscal years."""
    found: dict[int, list[FilingRecord]] = {}
    catalogue = model.catalogue
    if catalogue.has_company(company_id):
        positions = [p for p, type_index, _lang in catalogue.company_pattern(company_id) if type_index in ANNUAL_TYPES]
        visible = min(model.visible_count(), catalogue.timeline.count_released_by(until_s))
        size = catalogue.round_size
        round_number = (visible - 1) // size if visible > 0 else -1
        while round_number >= 0 and len(found) <= MAX_PERIODS:
            for position in positions:
                index = round_number * size + position
                if index < visible:
                    record = generated_record(catalogue, index)
                    if record.fiscal_year is not None:
                        found.setdefault(record.fiscal_year, []).append(record)
            round_number -= 1
    now_s = model.now_s()
    for record in model.filings.values():
        if (record.company_id == company_id and record.type_index in ANNUAL_TYPES and record.added_s <= now_s
                and record.release_s <= until_s and record.fiscal_year is not None):
            found.setdefault(record.fiscal_year, []).append(record)
    years = sorted(found, reverse=True)[:MAX_PERIODS]
    return {year: sorted(found[year], key=lambda r: (r.release_s, r.id)) for year in years}


def source_filing_json(record: FilingRecord, base_url: str) -> dict[str, Any]:
    return {"id": record.id, "filing_type": TYPES[record.type_index].code, "release_datetime": iso_s(record.release_s),
            "document_url": f"{base_url}/filings/{record.id}/document/", "viewer_url": None}


def _amount(thousands: int) -> str:
    return f"{thousands * 1000}.00"


def line_item_json(item: LineItem, values: dict[str, int], currency: str, scale: str, stamp: str,
                   available: str, shares: int, include: Iterable[str]) -> dict[str, Any] | None:
    """One line item as served, or None when the company reports no such figure."""
    net_income, revenue = values["net_income_loss"], values["revenue"]
    raw: str | None = None
    item_scale: str | None = None
    item_currency: str | None = currency
    if item.unit == "money":
        if item.code not in values:
            return None
        value = _amount(values[item.code])
        if item.is_capital_iq_standard:
            divisor = 1 if scale == "thousands" else 1000
            raw = f"{Decimal(values[item.code]) / divisor:.6f}"
            item_scale = scale
    elif item.unit == "per_share":
        per_share = Decimal(net_income * 1000) / Decimal(shares * (1.0 if item.code == "eps_basic" else 1.02))
        value = f"{per_share:.2f}"
        raw, item_scale = value, "units"
    elif item.unit == "shares":
        value, raw, item_scale, item_currency = f"{shares}.00", f"{shares}.000000", "units", None
    else:  # ratios: computed, never read off a page
        item_currency = None
        if item.code == "net_margin":
            value = f"{Decimal(net_income) / Decimal(revenue):.4f}" if revenue else "0.0000"
        else:
            equity = values["total_equity"]
            debt = values["short_term_debt"] + values["long_term_debt"]
            value = f"{Decimal(debt) / Decimal(equity):.4f}" if equity > 0 else None  # type: ignore[assignment]
    row: dict[str, Any] = {
        "code": item.code, "name": item.name, "statement_type": item.statement_type, "depth": item.depth,
        "parent_code": item.parent_code, "sort_order": item.sort_order, "value": value, "raw_value": raw,
        "scale": item_scale, "currency": item_currency, "confidence": None, "source_page": None,
        "updated_at": stamp, "available_at": available,
    }
    if "revisions" in include:
        row["revisions"] = [{"changed_at": stamp, "op": "insert", "old_value": None, "new_value": value,
                             "reason": "extraction"}]
    return row


def _statement_items(statement: str, template: str) -> list[LineItem]:
    home = ("IS", "SUP") if statement == "IS" else (statement,)
    return [item for item in ORDER if item.statement_type in home and template in item.templates]


def financials_json(model: FilingsModel, core: CompanyCore, query: FinancialsQuery, base_url: str) -> dict[str, Any]:
    company = Company.of(model.seed, core)
    template = template_of(core)
    reports = annual_reports(model, core.id, query.cutoff_s(model.now_s()))
    currency = currency_json(_currency(core))
    scale = "millions" if core.size == 2 else "thousands"
    periods = []
    for year, filings in reports.items():
        if not query.wants_year(year) or query.fiscal_period not in (None, "FY"):
            continue
        selected = filings[-1]
        values = figures(company, year)
        stamp = iso_s(selected.release_s + 86_400)
        statements = []
        for statement in STATEMENTS:
            if query.statement_type is not None and statement != query.statement_type:
                continue
            items = [row for item in _statement_items(statement, template)
                     if query.line_items is None or item.code in query.line_items
                     if (row := line_item_json(item, values, currency["code"], scale, stamp,
                                               iso_s(selected.release_s), values["shares_outstanding"],
                                               query.include)) is not None]
            if not items:
                continue
            statements.append({
                "statement_type": statement, "statement_type_display": STATEMENT_NAMES[statement],
                "currency": currency, "currency_mismatch": False,
                "accounting_standard": "IFRS", "accounting_standard_basis": "market_default",
                "extraction": {"model": EXTRACTION_MODEL, "prompt_version": "1", "extracted_at": stamp, "notes": None},
                "line_items": items, "is_comparative": False,
                "source_filing": source_filing_json(selected, base_url),
                "sources": [{"filing_id": record.id, "filing_type": TYPES[record.type_index].code,
                             "release_datetime": iso_s(record.release_s), "is_selected": record is selected}
                            for record in filings],
            })
        if statements:
            periods.append({"fiscal_year": year, "fiscal_period": "FY", "period_start_date": f"{year}-01-01",
                            "period_end_date": f"{year}-12-31", "statements": statements})
    answer: dict[str, Any] = {
        "company_id": core.id, "template": template, "currency": currency, "sources_masked": False,
        "filters": {"statement_type": query.statement_type, "fiscal_year": query.fiscal_year,
                    "fiscal_year_from": query.fiscal_year_from, "fiscal_year_to": query.fiscal_year_to,
                    "fiscal_period": query.fiscal_period,
                    "line_items": list(query.line_items) if query.line_items is not None else None,
                    "as_of": query.as_of,
                    "as_known_at": iso_s(query.as_known_at) if query.as_known_at is not None else None,
                    "include": list(query.include) or None},
        "period_count": len(periods), "periods": periods,
    }
    if "preliminary" in query.include:
        answer["preliminary_results"] = []
    if "standalone_quarters" in query.include:
        answer["standalone_quarters"] = []
    return answer


def _currency(core: CompanyCore) -> str:
    return MARKETS[core.market_index].currency
