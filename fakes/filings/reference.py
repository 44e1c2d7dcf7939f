"""Reference data: countries, languages, sources, filing categories and the ISIC tree.

Every value here is one the catalogue uses: the 44 markets are the countries (and each market's
regulator is a source), the filing languages are the languages, the filing types' categories are
the categories, and the ISIC tree holds every class a company can have with its group, division
and section. Ids are positions (1-based) in these fixed tables, so they never change. ISINs and
security listings, which belong to companies, are in :mod:`.instruments`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response

from fakes.kernel.http import json_response

from .catalogue.filing_types import CATEGORIES
from .catalogue.isic import CLASSES, DIVISIONS, GROUPS, SECTIONS, class_json, division_json, group_json, section_json
from .catalogue.markets import LANGUAGES, MARKETS
from .catalogue.records import language_json, source_json
from .endpoints import Endpoint, not_found, notes_of, page_of, path_id
from .instruments import ENDPOINTS as INSTRUMENT_ENDPOINTS
from .keys import REFERENCE, ApiKey
from .params import MAX_SEARCH_LENGTH, bad

if TYPE_CHECKING:
    from .model import FilingsModel

#: ISO 3166-1 alpha-3 and numeric codes of the 44 markets
ISO_CODES = {
    "GB": ("GBR", "826"), "DE": ("DEU", "276"), "FR": ("FRA", "250"), "SE": ("SWE", "752"), "IT": ("ITA", "380"),
    "ES": ("ESP", "724"), "PL": ("POL", "616"), "NO": ("NOR", "578"), "CH": ("CHE", "756"), "NL": ("NLD", "528"),
    "DK": ("DNK", "208"), "FI": ("FIN", "246"), "BE": ("BEL", "056"), "AT": ("AUT", "040"), "GR": ("GRC", "300"),
    "PT": ("PRT", "620"), "IE": ("IRL", "372"), "LU": ("LUX", "442"), "TR": ("TUR", "792"), "UA": ("UKR", "804"),
    "RO": ("ROU", "642"), "BG": ("BGR", "100"), "HR": ("HRV", "191"), "RS": ("SRB", "688"), "BA": ("BIH", "070"),
    "CZ": ("CZE", "203"), "HU": ("HUN", "348"), "SK": ("SVK", "703"), "SI": ("SVN", "705"), "EE": ("EST", "233"),
    "LV": ("LVA", "428"), "LT": ("LTU", "440"), "CY": ("CYP", "196"), "MT": ("MLT", "470"), "IS": ("ISL", "352"),
    "LI": ("LIE", "438"), "ME": ("MNE", "499"), "MK": ("MKD", "807"), "AL": ("ALB", "008"), "MD": ("MDA", "498"),
    "GG": ("GGY", "831"), "JE": ("JEY", "832"), "IM": ("IMN", "833"), "FO": ("FRO", "234"),
}
assert set(ISO_CODES) == {market.code for market in MARKETS}


def country_json(market_index: int) -> dict[str, Any]:
    market = MARKETS[market_index]
    alpha_3, numeric = ISO_CODES[market.code]
    return {"name": market.name, "alpha_2": market.code, "alpha_3": alpha_3, "numeric": numeric}


def category_json(category_id: int, name: str, sort_order: int) -> dict[str, Any]:
    return {"id": category_id, "name": name, "sort_order": sort_order}


COUNTRIES = tuple(country_json(i) for i in range(len(MARKETS)))
LANGUAGE_ROWS = tuple(language_json(i) for i in range(len(LANGUAGES)))
SOURCES = tuple(source_json(i) for i in range(len(MARKETS)))
CATEGORY_ROWS = tuple(category_json(*category) for category in CATEGORIES)

# The ISIC tree: every level in code order; an id is the position + 1.
SECTION_CODES = tuple(sorted(SECTIONS))
DIVISION_CODES = tuple(sorted(DIVISIONS))
GROUP_CODES = tuple(sorted(GROUPS))
CLASS_ROWS = tuple(sorted(CLASSES, key=lambda cls: cls.code))


class IsicLevel:
    """One level of the ISIC tree: its rows (JSON, code order) and the codes of each row's parents."""

    def __init__(self, rows: Sequence[dict[str, Any]], parents: Sequence[dict[str, str]],
                 filters: Sequence[str]) -> None:
        self.rows, self.parents, self.filters = tuple(rows), tuple(parents), tuple(filters)

    def select(self, query: dict[str, str]) -> list[dict[str, Any]]:
        code = query.get("code")
        exact = query.get("code__iexact")
        among = query.get("code__in")
        wanted = {part.strip().upper() for part in among.split(",")} if among is not None else None
        contains = query.get("name__icontains")
        found = []
        for row, parents in zip(self.rows, self.parents, strict=True):
            row_code = row["code"]
            if code is not None and row_code != code:
                continue
            if exact is not None and row_code.upper() != exact.upper():
                continue
            if wanted is not None and row_code.upper() not in wanted:
                continue
            if contains is not None and contains.lower() not in row["name"].lower():
                continue
            if any(name in query and parents[name].upper() != query[name].upper() for name in self.filters):
                continue
            found.append(row)
        return found


SECTIONS_LEVEL = IsicLevel([section_json(code) for code in SECTION_CODES], [{} for _ in SECTION_CODES], ())
DIVISIONS_LEVEL = IsicLevel([division_json(code) for code in DIVISION_CODES],
                            [{"sector_code": DIVISIONS[code][0]} for code in DIVISION_CODES], ("sector_code",))
GROUPS_LEVEL = IsicLevel([group_json(code) for code in GROUP_CODES],
                         [{"sector_code": DIVISIONS[code[:2]][0], "industry_group_code": code[:2]}
                          for code in GROUP_CODES], ("sector_code", "industry_group_code"))
CLASSES_LEVEL = IsicLevel([class_json(cls) for cls in CLASS_ROWS],
                          [{"sector_code": cls.section, "industry_group_code": cls.division, "industry_code": cls.group}
                           for cls in CLASS_ROWS], ("sector_code", "industry_group_code", "industry_code"))
ISIC_QUERY = ("code", "code__iexact", "code__in", "name__icontains", "sector_code", "industry_group_code",
              "industry_code")


def _query(request: Request, names: Sequence[str]) -> dict[str, str]:
    """The filter parameters present, empty ones dropped (django-filter ignores them), each bounded."""
    found: dict[str, str] = {}
    params = request.query_params
    for name in names:
        value = params.get(name)
        if value is None:
            continue
        if value == "":
            notes_of(request).append(f"empty {name}= ignored (as django-filter does)")
            continue
        if len(value) > MAX_SEARCH_LENGTH:
            raise bad(f"{name}: Ensure this field has no more than {MAX_SEARCH_LENGTH} characters.")
        found[name] = value
    return found


def _detail(rows: Sequence[dict[str, Any]], request: Request) -> Response:
    row_id = path_id(request, "id")
    if row_id > len(rows):
        raise not_found()
    return json_response(rows[row_id - 1])


def _static(rows: Sequence[dict[str, Any]]) -> tuple[Callable[..., Any], Callable[..., Any]]:
    async def listing(request: Request, model: FilingsModel, key: ApiKey) -> Response:
        return page_of(request, model, rows)

    async def detail(request: Request, model: FilingsModel, key: ApiKey) -> Response:
        return _detail(rows, request)

    return listing, detail


def _isic(level: IsicLevel) -> tuple[Callable[..., Any], Callable[..., Any]]:
    async def listing(request: Request, model: FilingsModel, key: ApiKey) -> Response:
        return page_of(request, model, level.select(_query(request, ("code", "code__iexact", "code__in",
                                                                     "name__icontains", *level.filters))))

    async def detail(request: Request, model: FilingsModel, key: ApiKey) -> Response:
        return _detail(level.rows, request)

    return listing, detail


def _pair(path: str, handlers: tuple[Callable[..., Any], Callable[..., Any]]) -> list[Endpoint]:
    listing, detail = handlers
    return [Endpoint("GET", f"/{path}/", listing, REFERENCE), Endpoint("GET", f"/{path}/{{id}}/", detail, REFERENCE)]


ENDPOINTS = [
    *_pair("countries", _static(COUNTRIES)),
    *_pair("languages", _static(LANGUAGE_ROWS)),
    *_pair("sources", _static(SOURCES)),
    *_pair("filing-categories", _static(CATEGORY_ROWS)),
    *_pair("isic-sections", _isic(SECTIONS_LEVEL)),
    *_pair("isic-divisions", _isic(DIVISIONS_LEVEL)),
    *_pair("isic-groups", _isic(GROUPS_LEVEL)),
    *_pair("isic-classes", _isic(CLASSES_LEVEL)),
    *INSTRUMENT_ENDPOINTS,
]
