"""A company's financial figures for a fiscal year: a pure function of (seed, company, year).

Every money figure is a whole number of thousands in the reporting currency (its market's), so
the statements add up exactly as :mod:`.lineitems` nests them: gross profit = revenue - cost of
revenue, operating income = gross profit - operating expenses, total assets = current +
non-current, liabilities + equity = assets, and cash flows = this year's cash - last year's cash.
Years relate: revenue follows a per-company trend with yearly noise, cash carries over, and the
dividend a year's report proposes is the next year's dividends paid.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from .catalogue.arith import stable_hash
from .catalogue.companies import CompanyCore
from .catalogue.isic import CLASSES
from .catalogue.markets import MARKETS

FIGURES_SALT = 0xF19E
#: units of a currency worth about one euro (so a company's size reads alike in every market)
CURRENCY_SCALE = {"EUR": 1, "GBP": 0.85, "SEK": 11, "PLN": 4.3, "NOK": 11, "CHF": 0.95, "DKK": 7.5, "TRY": 35,
                  "UAH": 45, "RON": 5, "BGN": 2, "RSD": 117, "BAM": 2, "CZK": 25, "HUF": 390, "ISK": 150, "MKD": 61,
                  "ALL": 100, "MDL": 19}
CURRENCIES = {"EUR": ("Euro", "\u20ac"), "GBP": ("Pound sterling", "\u00a3"), "SEK": ("Swedish krona", "kr"),
              "PLN": ("Polish zloty", "z\u0142"), "NOK": ("Norwegian krone", "kr"), "CHF": ("Swiss franc", "CHF"),
              "DKK": ("Danish krone", "kr"), "TRY": ("Turkish lira", "\u20ba"), "UAH": ("Ukrainian hryvnia", "\u20b4"),
              "RON": ("Romanian leu", "lei"), "BGN": ("Bulgarian lev", "\u043b\u0432"),
              "RSD": ("Serbian dinar", "din."), "BAM": ("Convertible mark", "KM"), "CZK": ("Czech koruna", "K\u010d"),
              "HUF": ("Hungarian forint", "Ft"), "ISK": ("Icelandic krona", "kr"),
              "MKD": ("Macedonian denar", "\u0434\u0435\u043d"), "ALL": ("Albanian lek", "L"),
              "MDL": ("Moldovan leu", "L")}
BASE_YEAR = 2000
#: revenue before BASE_YEAR + this and after it grows no further (a trend must stay finite for any year)
TREND_YEARS = (-30, 60)


@dataclass(frozen=True, slots=True)
class Company:
    """What a company's figures depend on (hashable: the figures are cached)."""

    seed: int
    id: int
    market_index: int
    class_index: int
    size: int

    @classmethod
    def of(cls, seed: int, core: CompanyCore) -> Company:
        return cls(seed, core.id, core.market_index, core.class_index, core.size)


def template_of(core: CompanyCore | Company) -> str:
    code = CLASSES[core.class_index].code
    if code.startswith("641"):
        return "bank"
    if code.startswith("65"):
        return "insurer"
    return "industrial"


def currency_json(code: str) -> dict[str, str]:
    name, symbol = CURRENCIES[code]
    return {"code": code, "name": name, "symbol": symbol}


def _unit(h: int, shift: int) -> float:
    """A number in [0, 1) from 16 bits of ``h``."""
    return ((h >> shift) & 0xFFFF) / 65_536


@dataclass(frozen=True, slots=True)
class Profile:
    """What stays the same year after year: size, trend and ratios (yearly noise comes on top)."""

    template: str
    currency: str
    revenue_base: int  # thousands, at BASE_YEAR
    trend: float
    gross_margin: float
    opex_ratio: float
    rd_share: float
    da_ratio: float
    tax_rate: float
    payout: float
    asset_turnover: float
    leverage: float
    shares: int

    @classmethod
    def of(cls, core: Company) -> Profile:
        h = stable_hash(core.seed, FIGURES_SALT, core.id)
        currency = MARKETS[core.market_index].currency
        size_low, size_high = ((15_000, 200_000), (200_000, 2_000_000), (2_000_000, 30_000_000))[core.size]
        revenue = (size_low + int(_unit(h, 0) * (size_high - size_low))) * CURRENCY_SCALE[currency]
        template = template_of(core)
        return cls(template=template, currency=currency, revenue_base=int(revenue), trend=0.01 + _unit(h, 16) * 0.06,
                   gross_margin=0.22 + _unit(h, 32) * 0.4, opex_ratio=0.08 + _unit(h, 48) * 0.12,
                   rd_share=0.0 if template != "industrial" else _unit(h, 8) * 0.35,
                   da_ratio=0.02 + _unit(h, 24) * 0.05, tax_rate=0.18 + _unit(h, 40) * 0.12,
                   payout=0.25 + _unit(h, 56) * 0.35,
                   asset_turnover=(0.08 if template == "bank" else 0.25 if template == "insurer" else 0.6)
                   + _unit(h, 4) * 0.9, leverage=0.2 + _unit(h, 20) * 0.5,
                   shares=(1 + int(_unit(h, 36) * 40)) * (2_000_000, 20_000_000, 200_000_000)[core.size])


def _noise(core: Company, year: int, purpose: int) -> float:
    """A yearly wobble in [-1, 1)."""
    return _unit(stable_hash(core.seed, FIGURES_SALT, core.id, year, purpose), 0) * 2 - 1


def _trend(p: Profile, year: int) -> float:
    return float((1 + p.trend) ** min(max(year - BASE_YEAR, TREND_YEARS[0]), TREND_YEARS[1]))


@functools.lru_cache(maxsize=4096)
def income(core: Company, year: int) -> dict[str, int]:
    """The income statement of fiscal ``year`` (thousands), and the debt its interest is on."""
    p = Profile.of(core)
    revenue = max(1_000, int(p.revenue_base * _trend(p, year) * (1 + 0.08 * _noise(core, year, 1))))
    f: dict[str, int] = {"revenue": revenue}
    if p.template == "industrial":
        f["cost_of_revenue"] = int(revenue * (1 - p.gross_margin - 0.03 * _noise(core, year, 2)))
        f["gross_profit"] = revenue - f["cost_of_revenue"]
        top = f["gross_profit"]
    else:
        part = "net_interest_income" if p.template == "bank" else "net_premiums_earned"
        f[part] = int(revenue * (0.55 + 0.1 * _noise(core, year, 2)))
        top = revenue
    opex = int(revenue * (p.opex_ratio + 0.02 * _noise(core, year, 3)))
    f["depreciation_amortization"] = int(revenue * p.da_ratio)
    if p.template == "industrial":
        f["research_development"] = int(opex * p.rd_share)
    f["selling_general_admin"] = opex - f.get("research_development", 0)
    f["total_operating_expenses"] = opex + f["depreciation_amortization"]
    f["operating_income"] = top - f["total_operating_expenses"]
    f["ebitda"] = f["operating_income"] + f["depreciation_amortization"]
    # balance sheet (assets scale with revenue; the debt share with leverage)
    assets = int(revenue / p.asset_turnover)
    debt = int(assets * p.leverage * 0.5)
    f["short_term_debt"] = debt // 4
    f["long_term_debt"] = debt - f["short_term_debt"]
    f["interest_expense"] = int(debt * 0.035)
    f["pretax_income"] = f["operating_income"] - f["interest_expense"]
    f["income_tax_expense"] = max(0, int(f["pretax_income"] * p.tax_rate))
    f["net_income_loss"] = f["pretax_income"] - f["income_tax_expense"]
    f["shares_outstanding"] = p.shares
    f["assets"] = assets
    return f


@functools.lru_cache(maxsize=4096)
def figures(core: Company, year: int) -> dict[str, int]:
    """Every money figure (thousands) and the share count of fiscal ``year``."""
    p = Profile.of(core)
    f = dict(income(core, year))
    revenue, assets = f["revenue"], f.pop("assets")
    f["cash_and_equivalents"] = cash(core, year)
    if p.template == "industrial":
        f["accounts_receivable"] = int(revenue * 0.14)
        f["inventory"] = int(f["cost_of_revenue"] * 0.12)
    else:
        f["total_loans" if p.template == "bank" else "intangible_assets"] = int(assets * 0.6)
    f["property_plant_equipment"] = int(assets * 0.25)
    f.setdefault("intangible_assets", int(assets * 0.08))
    f["total_non_current_assets"] = (f["property_plant_equipment"] + f["intangible_assets"] + f.get("total_loans", 0))
    listed = f["cash_and_equivalents"] + f.get("accounts_receivable", 0) + f.get("inventory", 0)
    f["other_current_assets"] = max(int(assets * 0.05), assets - f["total_non_current_assets"] - listed)
    f["total_current_assets"] = listed + f["other_current_assets"]
    f["total_assets"] = f["total_current_assets"] + f["total_non_current_assets"]
    f["accounts_payable"] = int(revenue * 0.09)
    if p.template == "bank":
        f["total_deposits"] = int(assets * 0.55)
    f["total_current_liabilities"] = f["accounts_payable"] + f["short_term_debt"] + f.get("total_deposits", 0)
    f["total_non_current_liabilities"] = f["long_term_debt"]
    f["total_liabilities"] = f["total_current_liabilities"] + f["total_non_current_liabilities"]
    f["total_equity"] = f["total_assets"] - f["total_liabilities"]
    f["total_liabilities_and_equity"] = f["total_assets"]
    # cash flows: this year's cash less last year's, the financing part what the other two leave
    f["net_change_in_cash"] = f["cash_and_equivalents"] - cash(core, year - 1)
    f["cash_from_operations"] = f["net_income_loss"] + f["depreciation_amortization"]
    f["capital_expenditure"] = -int(f["depreciation_amortization"] * (1.1 + 0.3 * _noise(core, year, 4)))
    f["cash_from_investing"] = f["capital_expenditure"]
    f["dividends_paid"] = -dividend_total(core, year - 1)
    f["cash_from_financing"] = f["net_change_in_cash"] - f["cash_from_operations"] - f["cash_from_investing"]
    f["free_cash_flow"] = f["cash_from_operations"] + f["capital_expenditure"]
    return f


def cash(core: Company, year: int) -> int:
    """Cash at the end of ``year`` (thousands): a share of revenue, so it carries over smoothly."""
    p = Profile.of(core)
    return int(p.revenue_base * _trend(p, year) * (0.08 + 0.04 * (1 + _noise(core, year, 5))))


def dividend_per_share(core: Company, year: int) -> Decimal | None:
    """The dividend per share proposed with ``year``'s report (4 decimals), None when none is."""
    net_income = income(core, year)["net_income_loss"]
    p = Profile.of(core)
    if net_income <= 0:
        return None
    per_share = Decimal(net_income * 1000) * Decimal(str(round(p.payout, 4))) / Decimal(p.shares)
    per_share = per_share.quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP)
    return per_share if per_share > 0 else None


def dividend_total(core: Company, year: int) -> int:
    per_share = dividend_per_share(core, year)
    if per_share is None:
        return 0
    return int(per_share * Profile.of(core).shares / 1000)
