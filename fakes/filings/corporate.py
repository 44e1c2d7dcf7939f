"""What a company's annual reports imply: the next one's date, its dividends, its segments.

* Next annual report: from the release days of its last five annual reports (each year's latest):
  their median day of the year, a window around it wide enough for most of them, in the year after
  the last report; ``confidence`` is the share of those five released within the window.
* Dividends: the dividend per share each year's report proposes (:func:`.figures.dividend_per_share`),
  announced with that report, approved at the general meeting ~45 days later, then ex, record and
  payment dates; ``upcoming`` until it is paid.
* Segments: companies of the ESEF markets' largest size class tag three business segments and three
  geographic areas in their ESEF reports; each year's revenue, operating profit and assets are
  shared out between them and add up to the company's own figures.
"""

from __future__ import annotations

import datetime as dt
import statistics
from typing import TYPE_CHECKING, Any

from .catalogue.arith import stable_hash
from .catalogue.companies import CompanyCore
from .catalogue.markets import MARKETS
from .catalogue.records import FilingRecord, iso_s
from .figures import Company, dividend_per_share, figures
from .financials import annual_reports, source_filing_json

if TYPE_CHECKING:
    from .model import FilingsModel

SEGMENT_SALT = 0x5E6
DIVIDEND_STATUSES = ("upcoming", "paid", "cancelled")
SEGMENT_AXES = ("business", "geographic")
SEGMENT_METRICS = ("revenue", "operating_profit", "assets")
SEGMENT_PERIODS = ("FY", "9M", "H", "Q")
BUSINESS_LINES = ("Core Products", "Services", "Solutions", "Industrial", "Consumer", "Digital", "Infrastructure",
                  "Specialty")
REGIONS = ("Rest of Europe", "Rest of World")
CONCEPTS = {"revenue": "ifrs-full:Revenue", "operating_profit": "ifrs-full:ProfitLossFromOperatingActivities",
            "assets": "ifrs-full:Assets"}


def _day(epoch_s: int) -> dt.date:
    return dt.datetime.fromtimestamp(epoch_s, tz=dt.UTC).date()


def _latest_per_year(model: FilingsModel, company_id: int) -> list[FilingRecord]:
    reports = annual_reports(model, company_id, model.now_s())
    return [filings[-1] for _year, filings in sorted(reports.items())]


def next_annual_report(model: FilingsModel, company_id: int) -> dict[str, Any] | None:
    """The predicted window, or None without two annual reports to go by."""
    latest = _latest_per_year(model, company_id)[-5:]
    if len(latest) < 2:
        return None
    days = [min(_day(r.release_s).timetuple().tm_yday, 365) for r in latest]
    center = int(statistics.median(days))
    spread = max(3, sorted(abs(day - center) for day in days)[max(0, len(days) * 4 // 5 - 1)])
    year = min(9999, _day(latest[-1].release_s).year + 1)  # after year 9999 there is no next year to predict
    start = dt.date(year, 1, 1) + dt.timedelta(days=max(0, center - spread - 1))
    end = dt.date(year, 1, 1) + dt.timedelta(days=min(364, center + spread - 1))
    within = sum(1 for day in days if center - spread <= day <= center + spread)
    today = _day(model.now_s())
    return {"start_date": start.isoformat(), "end_date": end.isoformat(),
            "confidence": round(100 * within / len(days)), "is_overdue": today > end}


def _business_days_after(day: dt.date, count: int) -> dt.date:
    """``count`` weekdays later (stopping at the last day a date can be)."""
    while count > 0 and day < dt.date.max:
        day += dt.timedelta(days=1)
        if day.weekday() < 5:
            count -= 1
    return day


def dividends(model: FilingsModel, core: CompanyCore, status: str | None, base_url: str) -> list[dict[str, Any]]:
    company = Company.of(model.seed, core)
    today = _day(model.now_s())
    currency = MARKETS[core.market_index].currency
    found = []
    for record in _latest_per_year(model, core.id):
        year = record.fiscal_year
        assert year is not None
        per_share = dividend_per_share(company, year)
        if per_share is None:
            continue
        announced = _day(record.release_s)
        agm = _business_days_after(announced, 32)
        ex_date = _business_days_after(agm, 2)
        record_date = _business_days_after(ex_date, 1)
        payment = _business_days_after(ex_date, 5)
        state = "upcoming" if payment >= today else "paid"
        if status is not None and state != status:
            continue
        found.append({
            "id": core.id * 10_000 + year % 10_000, "status": state, "stage": "proposed" if today < agm else "approved",
            "kind": "regular", "is_interest_on_equity": False, "share_class": "common", "fiscal_period": "FY",
            "instalment": None, "amount": f"{per_share}", "currency": currency,
            "announcement_date": announced.isoformat(), "agm_date": agm.isoformat(),
            "last_cum_date": _business_days_after(agm, 1).isoformat(), "ex_date": ex_date.isoformat(),
            "record_date": record_date.isoformat(), "payment_date": payment.isoformat(), "ex_date_derived": False,
            "derived_dates": {}, "date_changes": [],
            "announcement_filing": source_filing_json(record, base_url), "source_filing_ids": [record.id],
            "evidence_quote": f"The Board proposes a dividend of {currency} {per_share} per share for {year}.",
            "updated_at": iso_s(record.release_s),
        })
    found.reverse()  # newest first
    return found


def _shares(h: int, count: int) -> list[int]:
    """``count`` positive weights out of 1000, from ``h``, adding up to 1000."""
    raw = [5 + ((h >> (8 * k)) & 0xFF) for k in range(count)]
    total = sum(raw)
    parts = [w * 1000 // total for w in raw]
    parts[0] += 1000 - sum(parts)
    return parts


def tags_segments(core: CompanyCore) -> bool:
    return core.size == 2 and MARKETS[core.market_index].esef


def segments(model: FilingsModel, core: CompanyCore, axis: str | None, metric: str | None, period: str | None,
             base_url: str) -> list[dict[str, Any]]:
    if not tags_segments(core):
        return []
    company = Company.of(model.seed, core)
    h = stable_hash(model.seed, SEGMENT_SALT, core.id)
    names = {"business": [BUSINESS_LINES[(h >> (4 * k)) % len(BUSINESS_LINES)] for k in range(3)],
             "geographic": [MARKETS[core.market_index].name, *REGIONS]}
    names["business"] = list(dict.fromkeys(names["business"]))
    reports = {year: filings for year, filings in annual_reports(model, core.id, model.now_s()).items()
               if any(r.type_index == 1 for r in filings)}  # tagged: the ESEF report
    currency = MARKETS[core.market_index].currency
    found = []
    for axis_name in SEGMENT_AXES:
        if axis is not None and axis != axis_name:
            continue
        labels = names[axis_name]
        weights = _shares(h >> (16 if axis_name == "geographic" else 0), len(labels))
        kind = "Segment" if axis_name == "business" else "Area"
        for number, label in enumerate(labels):
            values = []
            for year, filings in sorted(reports.items(), reverse=True):
                source = [r for r in filings if r.type_index == 1][-1]
                totals = figures(company, year)
                for metric_name, total in (("revenue", totals["revenue"]),
                                           ("operating_profit", totals["operating_income"]),
                                           ("assets", totals["total_assets"])):
                    if metric is not None and metric != metric_name:
                        continue
                    balance = metric_name == "assets"
                    if period is not None and (balance or period != "FY"):
                        continue  # a balance has no period length; the reports are yearly
                    share = total * weights[number] // 1000
                    values.append({
                        "metric": metric_name, "period": None if balance else "FY",
                        "period_start": None if balance else f"{year}-01-01", "period_end": f"{year}-12-31",
                        "value": f"{share * 1000}", "currency": currency,
                        "concept": CONCEPTS[metric_name],
                        "member": f"fr:{label.replace(' ', '')}{kind}Member",
                        "source_filing": source_filing_json(source, base_url),
                    })
            if values:
                found.append({"axis": axis_name, "name": label, "values": values})
    return found
