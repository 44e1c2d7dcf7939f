"""The line-item dictionary (``/line-item-definitions/``): every KPI a statement can hold.

The hierarchy is the one :mod:`.financials` computes: a ``depth`` 1 item is a component of its
``parent_code`` (its value part of the parent's), ``depth`` 0 items are totals and headings.
``templates`` says which company types an item is reported for (``industrial``, ``bank``,
``insurer``); a bank's statements leave out the industrial-only items, and hold their own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

STATEMENT_NAMES = {"IS": "Income Statement", "BS": "Balance Sheet", "CFS": "Cash Flow Statement",
                   "SUP": "Supplemental / Ratio"}
TEMPLATES = ("industrial", "bank", "insurer")
ALL = ("industrial", "bank", "insurer")
INDUSTRIAL = ("industrial",)


@dataclass(frozen=True, slots=True)
class LineItem:
    code: str
    name: str
    statement_type: str
    depth: int
    parent_code: str | None
    sort_order: int
    category: str
    description: str
    aliases: tuple[str, ...]
    templates: tuple[str, ...]
    is_capital_iq_standard: bool = True
    #: "money" (in the reporting currency), "per_share" (currency per share), "shares" or "ratio"
    unit: str = "money"

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "name": self.name, "statement_type": self.statement_type,
                "statement_type_display": STATEMENT_NAMES[self.statement_type], "depth": self.depth,
                "parent_code": self.parent_code, "sort_order": self.sort_order, "category": self.category,
                "description": self.description, "aliases": list(self.aliases), "templates": list(self.templates),
                "is_capital_iq_standard": self.is_capital_iq_standard}


def _i(code: str, name: str, statement: str, depth: int, parent: str | None, order: int, category: str,
       description: str, aliases: str = "", templates: tuple[str, ...] = ALL, unit: str = "money",
       standard: bool = True) -> LineItem:
    return LineItem(code, name, statement, depth, parent, order, category, description,
                    tuple(a for a in aliases.split("|") if a), templates, standard, unit)


LINE_ITEMS: tuple[LineItem, ...] = (
    # income statement
    _i("revenue", "Total Revenue", "IS", 0, None, 10, "Revenue", "Revenue from the company's ordinary activities.",
       "Net sales|Turnover|Sales"),
    _i("net_interest_income", "Net Interest Income", "IS", 1, "revenue", 12, "Revenue",
       "Interest received less interest paid (banks).", "NII", ("bank",)),
    _i("net_premiums_earned", "Net Premiums Earned", "IS", 1, "revenue", 14, "Revenue",
       "Premiums earned net of reinsurance (insurers).", "Insurance revenue", ("insurer",)),
    _i("cost_of_revenue", "Cost of Revenue", "IS", 1, "gross_profit", 20, "Cost of Revenue",
       "Direct costs of the goods and services sold.", "Cost of sales|COGS", INDUSTRIAL),
    _i("gross_profit", "Gross Profit", "IS", 0, None, 40, "Gross Profit", "Revenue less cost of revenue.",
       "Gross margin", INDUSTRIAL),
    _i("selling_general_admin", "Selling, General & Administrative", "IS", 1, "total_operating_expenses", 50,
       "Operating Expenses", "Selling, distribution and administrative expenses.", "SG&A"),
    _i("research_development", "Research & Development", "IS", 1, "total_operating_expenses", 60,
       "Operating Expenses", "Research and development expenses.", "R&D", INDUSTRIAL),
    _i("depreciation_amortization", "Depreciation & Amortization", "IS", 1, "total_operating_expenses", 70,
       "Operating Expenses", "Depreciation of tangible and amortisation of intangible assets.", "D&A"),
    _i("total_operating_expenses", "Total Operating Expenses", "IS", 0, None, 80, "Operating Expenses",
       "Operating expenses other than the cost of revenue.", "Operating costs"),
    _i("operating_income", "Operating Income", "IS", 0, None, 90, "Operating Income",
       "Gross profit (revenue for banks and insurers) less operating expenses.", "EBIT|Operating profit"),
    _i("ebitda", "EBITDA", "IS", 0, None, 95, "Operating Income",
       "Operating income before depreciation and amortisation.", "", ALL, "money", False),
    _i("interest_expense", "Interest Expense", "IS", 1, "pretax_income", 100, "Non-Operating",
       "Interest on the company's debt.", "Finance costs"),
    _i("pretax_income", "Income Before Taxes", "IS", 0, None, 110, "Pre-Tax Income",
       "Operating income less interest expense.", "EBT|Profit before tax"),
    _i("income_tax_expense", "Income Tax Expense", "IS", 1, "net_income_loss", 120, "Taxes",
       "Current and deferred income taxes.", "Tax"),
    _i("net_income_loss", "Net Income", "IS", 0, None, 130, "Net Income",
       "Income before taxes less income tax expense.", "Profit for the year|Net profit"),
    _i("eps_basic", "EPS (Basic)", "IS", 0, None, 140, "Per Share", "Net income per weighted basic share.",
       "Basic earnings per share", ALL, "per_share"),
    _i("eps_diluted", "EPS (Diluted)", "IS", 0, None, 150, "Per Share", "Net income per diluted share.",
       "Diluted earnings per share", ALL, "per_share"),
    # balance sheet
    _i("cash_and_equivalents", "Cash & Equivalents", "BS", 1, "total_current_assets", 10, "Current Assets",
       "Cash and short-term deposits at the end of the year.", "Cash and cash equivalents"),
    _i("accounts_receivable", "Accounts Receivable", "BS", 1, "total_current_assets", 20, "Current Assets",
       "Trade and other receivables.", "Receivables", INDUSTRIAL),
    _i("inventory", "Inventory", "BS", 1, "total_current_assets", 30, "Current Assets", "Inventories.", "Stock",
       INDUSTRIAL),
    _i("other_current_assets", "Other Current Assets", "BS", 1, "total_current_assets", 40, "Current Assets",
       "Current assets not itemised above.", ""),
    _i("total_current_assets", "Total Current Assets", "BS", 0, None, 50, "Current Assets",
       "Assets expected to be realised within a year.", ""),
    _i("total_loans", "Net Loans", "BS", 1, "total_non_current_assets", 55, "Non-Current Assets",
       "Loans to customers, net of allowances (banks).", "Loans and advances", ("bank",)),
    _i("property_plant_equipment", "Property, Plant & Equipment", "BS", 1, "total_non_current_assets", 60,
       "Non-Current Assets", "Tangible fixed assets, net.", "PP&E"),
    _i("intangible_assets", "Intangible Assets", "BS", 1, "total_non_current_assets", 70, "Non-Current Assets",
       "Intangible assets including goodwill.", ""),
    _i("total_non_current_assets", "Total Non-Current Assets", "BS", 0, None, 80, "Non-Current Assets",
       "Assets held for more than a year.", ""),
    _i("total_assets", "Total Assets", "BS", 0, None, 90, "Assets", "Current and non-current assets.", ""),
    _i("accounts_payable", "Accounts Payable", "BS", 1, "total_current_liabilities", 100, "Current Liabilities",
       "Trade and other payables.", "Payables"),
    _i("total_deposits", "Total Deposits", "BS", 1, "total_current_liabilities", 105, "Current Liabilities",
       "Customer deposits (banks).", "Deposits from customers", ("bank",)),
    _i("short_term_debt", "Short-Term Debt", "BS", 1, "total_current_liabilities", 110, "Current Liabilities",
       "Borrowings due within a year.", "Current borrowings"),
    _i("total_current_liabilities", "Total Current Liabilities", "BS", 0, None, 120, "Current Liabilities",
       "Liabilities due within a year.", ""),
    _i("long_term_debt", "Long-Term Debt", "BS", 1, "total_non_current_liabilities", 130, "Non-Current Liabilities",
       "Borrowings due after more than a year.", "Non-current borrowings"),
    _i("total_non_current_liabilities", "Total Non-Current Liabilities", "BS", 0, None, 140,
       "Non-Current Liabilities", "Liabilities due after more than a year.", ""),
    _i("total_liabilities", "Total Liabilities", "BS", 0, None, 150, "Liabilities",
       "Current and non-current liabilities.", ""),
    _i("total_equity", "Total Equity", "BS", 0, None, 160, "Equity", "Total assets less total liabilities.",
       "Shareholders' equity"),
    _i("total_liabilities_and_equity", "Total Liabilities & Equity", "BS", 0, None, 170, "Equity",
       "Equals total assets.", ""),
    # cash flow statement
    _i("cash_from_operations", "Cash from Operations", "CFS", 0, None, 10, "Operating Activities",
       "Net cash from operating activities.", "Operating cash flow"),
    _i("capital_expenditure", "Capital Expenditure", "CFS", 1, "cash_from_investing", 20, "Investing Activities",
       "Purchases of property, plant and equipment (an outflow: negative).", "Capex"),
    _i("cash_from_investing", "Cash from Investing", "CFS", 0, None, 30, "Investing Activities",
       "Net cash from investing activities.", ""),
    _i("dividends_paid", "Dividends Paid", "CFS", 1, "cash_from_financing", 40, "Financing Activities",
       "Dividends paid to shareholders (an outflow: negative).", ""),
    _i("cash_from_financing", "Cash from Financing", "CFS", 0, None, 50, "Financing Activities",
       "Net cash from financing activities.", ""),
    _i("net_change_in_cash", "Net Change in Cash", "CFS", 0, None, 60, "Net Change",
       "Operating, investing and financing cash flows together: this year's cash less last year's.", ""),
    # supplemental
    _i("free_cash_flow", "Free Cash Flow", "SUP", 0, None, 10, "Cash Flow",
       "Cash from operations plus capital expenditure.", "FCF", ALL, "money", False),
    _i("shares_outstanding", "Shares Outstanding", "SUP", 0, None, 20, "Shares",
       "Weighted basic shares outstanding.", "", ALL, "shares"),
    _i("net_margin", "Net Margin", "SUP", 0, None, 30, "Ratios", "Net income over revenue.", "", ALL, "ratio"),
    _i("debt_to_equity", "Debt to Equity", "SUP", 0, None, 40, "Ratios",
       "Short- and long-term debt over total equity.", "", ALL, "ratio", False),
)
BY_CODE = {item.code: item for item in LINE_ITEMS}
assert all(item.parent_code is None or item.parent_code in BY_CODE for item in LINE_ITEMS)
#: the line items of each statement, in display order
ORDER = sorted(LINE_ITEMS, key=lambda item: (("IS", "BS", "CFS", "SUP").index(item.statement_type), item.sort_order))
