"""Filing types and categories, and how many filings of each type a company publishes a year.

Codes ``10-K``, ``10-K-ESEF``, ``IR``, ``ER`` and ``CT`` are the real service's; the other codes
are this fake's (the real list is behind Standard Access). A type's position in :data:`TYPES`
is its index in the catalogue arithmetic, so the order must never change.
"""

from __future__ import annotations

from dataclasses import dataclass

CATEGORIES: tuple[tuple[int, str, int], ...] = (  # (id, name, sort_order)
    (1, "Financial Reporting", 1),
    (2, "News & Announcements", 2),
    (3, "Shareholders & Capital", 3),
    (4, "Governance & Meetings", 4),
    (5, "ESG", 5),
    (6, "Capital Markets", 6),
)
CATEGORY_BY_ID = {cat[0]: cat for cat in CATEGORIES}

# Company size classes: how much a company publishes.
SMALL, MID, LARGE = 0, 1, 2
SIZE_PERCENT = (55, 33, 12)  # share of companies in each class


@dataclass(frozen=True, slots=True)
class FilingType:
    id: int
    code: str
    name: str
    description: str
    category_id: int
    per_year: tuple[int, int, int]  # filings a year by size class (small, mid, large)
    english_copy: bool  # also published in English by companies that publish English copies
    esef_only: bool = False  # only EU/EEA issuers (ESEF packages)
    extension: str = "PDF"

    def to_json(self) -> dict[str, object]:
        cat_id, cat_name, sort_order = CATEGORY_BY_ID[self.category_id]
        return {"id": self.id, "code": self.code, "name": self.name, "description": self.description,
                "category": {"id": cat_id, "name": cat_name, "sort_order": sort_order}}


TYPES: tuple[FilingType, ...] = (
    FilingType(1, "10-K", "Annual Report", "Audited annual financial report with the management report.",
               1, (1, 1, 1), True),
    FilingType(2, "10-K-ESEF", "Annual Report (ESEF)",
               "Annual financial report in the European Single Electronic Format (XHTML with iXBRL tags).",
               1, (1, 1, 1), False, esef_only=True, extension="ZIP"),
    FilingType(3, "IR", "Interim Report", "Half-year or quarterly financial report.", 1, (1, 3, 3), True),
    FilingType(4, "ER", "Earnings Release", "Press release announcing the results of a reporting period.",
               1, (0, 2, 4), True),
    FilingType(5, "CT", "Earnings Call Transcript", "Transcript of the results conference call.",
               1, (0, 0, 4), False),
    FilingType(6, "AGM", "General Meeting Notice", "Invitation and agenda of the annual general meeting.",
               4, (1, 1, 1), True),
    FilingType(7, "AGM-R", "General Meeting Results", "Voting results of the general meeting.",
               4, (0, 1, 1), False),
    FilingType(8, "DD", "Managers' Transactions",
               "Notification of transactions by persons discharging managerial responsibilities.",
               3, (2, 4, 8), False),
    FilingType(9, "ADHOC", "Inside Information", "Ad hoc disclosure of inside information.",
               2, (1, 2, 4), True),
    FilingType(10, "VR", "Voting Rights Notification", "Notification of major holdings of voting rights.",
               3, (1, 4, 10), False),
    FilingType(11, "PR", "Press Release", "Corporate news and other press releases.", 2, (3, 8, 24), True),
    FilingType(12, "ESG", "Sustainability Report", "Sustainability statement or non-financial report.",
               5, (0, 1, 1), False),
    FilingType(13, "PROSP", "Prospectus", "Securities prospectus or supplement.", 6, (0, 0, 1), False),
)
TYPE_BY_ID = {t.id: t for t in TYPES}
TYPE_BY_CODE = {t.code: t for t in TYPES}
TYPE_BY_NAME = {t.name: t for t in TYPES}

# Fiscal periods a type's filings report on, by the release month (1-12); None: no period. A
# period is a function of (type, month) alone, so every filter on a filing's period or fiscal year
# is a set of (type, month) cells of the timeline (see :mod:`~fakes.filings.regions`).
PERIODIC_CODES = frozenset({"10-K", "10-K-ESEF", "IR", "ER", "CT"})


def fiscal_period(code: str, release_month: int) -> str | None:
    """The period a report released in ``release_month`` covers (annual reports: FY, etc.)."""
    if code not in PERIODIC_CODES:
        return None
    if code in ("10-K", "10-K-ESEF"):
        return "FY"
    if release_month <= 3:
        return "FY" if code in ("ER", "CT") else "9M"
    if release_month <= 6:
        return "Q1"
    if release_month <= 9:
        return "H1"
    return "9M"


_TYPE_BY_ANY_KEY = {**{str(t.id): t for t in TYPES}, **TYPE_BY_CODE, **TYPE_BY_NAME}


def resolve_type(value: str | int) -> FilingType | None:
    """A type by id, code or name, exactly as ``GET /filing-types/`` lists them."""
    return _TYPE_BY_ANY_KEY.get(str(value))
