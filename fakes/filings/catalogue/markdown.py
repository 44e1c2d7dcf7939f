"""Plausible Markdown content of a filing - headings, tables, paragraphs - from the seed.

Generated on request (a few KB, well under a millisecond) and never stored: the content of a
filing is a pure function of (seed, filing id), with figures in the market's currency and
people's names from a Faker of the market's locale.
"""

from __future__ import annotations

import random
import threading
from functools import lru_cache

from faker import Faker

from .arith import stable_hash
from .companies import CompanyCore
from .filing_types import TYPES
from .markets import MARKETS
from .records import FilingRecord, date_s, period_ending_date

CONTENT_SALT = 0x3D0C
_faker_lock = threading.Lock()


@lru_cache(maxsize=48)
def _faker(locale: str) -> Faker:
    return Faker(locale)


def people(locale: str, seed: int, count: int) -> list[str]:
    """``count`` person names of a locale, a pure function of ``seed``."""
    with _faker_lock:  # a Faker's seed is instance state: one user at a time
        faker = _faker(locale)
        faker.seed_instance(seed)
        return [f"{faker.first_name()} {faker.last_name()}" for _ in range(count)]


def _money(rng: random.Random, low: float, high: float) -> float:
    return round(rng.uniform(low, high), 1)


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _figures(rng: random.Random, currency: str, previous_label: str, current_label: str) -> str:
    revenue = _money(rng, 40, 9_000)
    growth = rng.uniform(-0.12, 0.25)
    margin = rng.uniform(0.03, 0.28)
    rows = []
    for label, value in [("Revenue", revenue), ("EBITDA", revenue * (margin + 0.06)),
                         ("Operating profit (EBIT)", revenue * margin),
                         ("Net income", revenue * margin * 0.7)]:
        rows.append([f"{label} ({currency} m)", f"{value / (1 + growth):,.1f}", f"{value:,.1f}",
                     f"{growth * 100:+.1f} %"])
    eps, staff = rng.uniform(0.1, 9), rng.randint(50, 60_000)
    rows.append(["Earnings per share", f"{eps / (1 + growth):.2f}", f"{eps:.2f}", f"{growth * 100:+.1f} %"])
    rows.append(["Employees (FTE)", f"{round(staff / (1 + growth / 3)):,}", f"{staff:,}", ""])
    return _table(["Key figures", previous_label, current_label, "Change"], rows)


def _paragraph(rng: random.Random, company: str) -> str:
    openers = [f"{company} continued to execute its strategy in a demanding market environment.",
               "Demand developed in line with expectations across the main regions.",
               "The order intake remained solid and the order backlog reached a new record.",
               "Cost discipline and pricing measures supported profitability.",
               "Investments in digitalisation and sustainability continued as planned."]
    middles = ["Cash flow from operating activities improved, and net debt decreased.",
               "The Board proposes a dividend in line with the dividend policy.",
               "Currency effects weighed on reported growth.",
               "The integration of recent acquisitions is progressing well.",
               "Energy and raw material costs stabilised during the period."]
    closers = ["The outlook for the full year is confirmed.",
               "Management expects moderate growth for the coming year.",
               "The company remains well positioned for profitable growth.",
               "Further details are available on the company's investor relations website."]
    return " ".join([rng.choice(openers), rng.choice(middles), rng.choice(closers)])


def render_markdown(record: FilingRecord, core: CompanyCore, seed: int) -> str:
    """The Markdown of a filing (a user's own content when they supplied one)."""
    if record.markdown is not None:
        return record.markdown
    rng = random.Random(stable_hash(seed, CONTENT_SALT, record.id))
    market = MARKETS[record.market_index]
    code = TYPES[record.type_index].code
    names = people(market.faker_locale, stable_hash(seed, CONTENT_SALT, core.id) & 0xFFFFFFFF, 4)
    ceo, cfo, chair, manager = names
    released = date_s(record.release_s)
    heading = f"# {record.title}\n\n*{core.name} - {market.name} - released {released}*\n"
    fy = record.fiscal_year or int(released[:4])
    body: list[str]
    if code in ("10-K", "10-K-ESEF", "IR", "ER", "ESG"):
        period = record.fiscal_period or "FY"
        end = period_ending_date(fy, period) or f"{fy}-12-31"
        body = [f"## Highlights\n\n- Reporting period: {period} {fy} (ending {end})\n"
                f"- Currency: {market.currency}\n- {_paragraph(rng, core.name)}",
                f"## Key figures\n\n{_figures(rng, market.currency, f'{period} {fy - 1}', f'{period} {fy}')}",
                f"## Letter from the CEO\n\n{_paragraph(rng, core.name)}\n\n{_paragraph(rng, core.name)}\n\n"
                f"{ceo}, Chief Executive Officer",
                f"## Outlook\n\n{_paragraph(rng, core.name)}"]
        if code == "ESG":
            body.insert(1, "## Environmental indicators\n\n" + _table(
                ["Indicator", "Value"],
                [["Scope 1 emissions (t CO2e)", f"{rng.randint(500, 900_000):,}"],
                 ["Scope 2 emissions (t CO2e)", f"{rng.randint(300, 400_000):,}"],
                 ["Renewable electricity share", f"{rng.randint(10, 100)} %"],
                 ["Women in management", f"{rng.randint(12, 48)} %"]]))
    elif code == "CT":
        body = [f"## Participants\n\n- {ceo} - Chief Executive Officer\n- {cfo} - Chief Financial Officer",
                f"## Presentation\n\n**Operator:** Good morning and welcome to the {core.name} results call.\n\n"
                f"**{ceo}:** {_paragraph(rng, core.name)}\n\n**{cfo}:** {_paragraph(rng, core.name)}",
                f"## Questions and answers\n\n**Analyst:** How do you see margins developing next year?\n\n"
                f"**{cfo}:** {_paragraph(rng, core.name)}"]
    elif code in ("AGM", "AGM-R"):
        items = ["Presentation of the annual financial statements", "Appropriation of the balance sheet profit",
                 "Discharge of the members of the Management Board", "Discharge of the Supervisory Board",
                 "Appointment of the auditor", "Remuneration report", "Authorisation to repurchase own shares"]
        if code == "AGM":
            agenda = "\n".join(f"{n}. {item}" for n, item in enumerate(items, start=1))
            body = [f"## Invitation\n\nShareholders are invited to the Annual General Meeting of {core.name} in "
                    f"{core.city}.", f"## Agenda\n\n{agenda}", f"{chair}, Chair of the Board"]
        else:
            rows = []
            for n, item in enumerate(items[1:], start=2):
                share = rng.uniform(85, 99.9)
                rows.append([str(n), item, f"{share:.2f} %", f"{100 - share:.2f} %"])
            body = ["## Voting results\n\n" + _table(["Item", "Resolution", "For", "Against"], rows)]
    elif code == "DD":
        body = ["## Notification of managers' transactions\n\n" + _table(
            ["Field", "Value"],
            [["Name", manager], ["Position", rng.choice(["Member of the Board", "CFO", "CEO", "Director"])],
             ["Issuer", core.name], ["Instrument", f"Share, ISIN {core.isins[0]}"],
             ["Nature of transaction", rng.choice(["Purchase", "Sale", "Exercise of options"])],
             ["Price", f"{rng.uniform(2, 400):.2f} {market.currency}"], ["Volume", f"{rng.randint(100, 90_000):,}"],
             ["Date", released], ["Venue", market.exchange]])]
    elif code == "VR":
        threshold = rng.choice([3, 5, 10, 15, 20, 25])
        body = [f"## Voting rights notification\n\nA shareholder of {core.name} notified the company that its "
                f"voting rights crossed the threshold of {threshold} %.",
                _table(["", "Previous", "Now"], [["Voting rights attached to shares", f"{threshold - 0.4:.2f} %",
                                                  f"{threshold + 0.3:.2f} %"],
                                                 ["Financial instruments", "0.00 %", f"{rng.uniform(0, 2):.2f} %"]])]
    else:
        body = [f"## {record.title.split(': ', 1)[-1]}\n\n{_paragraph(rng, core.name)}\n\n{_paragraph(rng, core.name)}",
                f"## About {core.name}\n\n{core.tagline} The company's shares are listed on {market.exchange} "
                f"(ISIN {core.isins[0]}).",
                f"## Contact\n\nInvestor Relations, {core.city}"]
    return heading + "\n" + "\n\n".join(body) + "\n"
