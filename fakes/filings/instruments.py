"""ISINs and security listings: the companies' instruments, as lists and lookups.

Every ISIN a company shows (``isins`` of ``GET /companies/{id}/``) is an ``/isins/`` entry, its
first the primary; every company has one venue listing (``listings`` of the company), the
``/security-listings/`` entry whose id is the company's. Generated identifiers decode to their
company (:mod:`~fakes.filings.catalogue.identifiers`), so lookups by ISIN or FIGI are O(1); lists
over every generated company page by arithmetic, users' companies following in id order.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response

from fakes.kernel.errors import ServiceError
from fakes.kernel.http import JSON_INT_MAX, json_response

from .catalogue.companies import CompanyCore, company_core, company_minimal_json, exch_code
from .catalogue.directory import directory_for, normalize_ticker
from .catalogue.identifiers import decode_figi, make_figi
from .catalogue.markets import MARKET_INDEX, MARKETS
from .endpoints import Endpoint, not_found, notes_of, paginated, path_id
from .keys import REFERENCE, ApiKey
from .params import MAX_SEARCH_LENGTH, bad, boolean, ordering_terms, paging, whole_number
from .userdata import USER_ID_BASE

if TYPE_CHECKING:
    from .model import FilingsModel

ISIN_FILTERS = ("code", "codes", "company", "is_primary", "search")
LISTING_FILTERS = ("company", "exch_code", "figi", "mic", "ticker", "ordering")
LISTING_ORDERINGS = ("id", "ticker", "mic", "exch_code")
MAX_CODES = 500


def isin_json(core: CompanyCore, share_class: int) -> dict[str, Any]:
    market = MARKETS[core.market_index]
    common = share_class == 0
    return {
        "code": core.isins[share_class], "is_primary": common, "company": company_minimal_json(core),
        "figi": make_figi(core.id, share_class, 0), "composite_figi": make_figi(core.id, share_class, 1),
        "share_class_figi": make_figi(core.id, share_class, 2),
        "security_type": "Common Stock" if common else "Preferred Stock",
        "security_type2": "Common Stock" if common else "Preference", "market_sector": "Equity",
        "exch_code": exch_code(market), "figi_last_updated": f"{core.date_public}T06:00:00Z",
    }


def listing_json(core: CompanyCore) -> dict[str, Any]:
    market = MARKETS[core.market_index]
    return {"id": core.id, "company": company_minimal_json(core), "mic": market.mic, "ticker": core.ticker,
            "exch_code": exch_code(market), "exchange_name": market.exchange, "security_type": "Common Stock",
            "market_sector": "Equity", "figi": make_figi(core.id, 0, 0), "composite_figi": make_figi(core.id, 0, 1),
            "share_class_figi": make_figi(core.id, 0, 2)}


def _filters(request: Request, names: Sequence[str]) -> dict[str, str]:
    found = {}
    for name in names:
        value = request.query_params.get(name)
        if value is None:
            continue
        if value == "":
            notes_of(request).append(f"empty {name}= ignored (as django-filter does)")
        elif len(value) > (limit := 13 * MAX_CODES if name == "codes" else MAX_SEARCH_LENGTH):
            raise bad(f"{name}: Ensure this field has no more than {limit} characters.")
        else:
            found[name] = value
    return found


def _page(request: Request, model: FilingsModel, total: int, rows: Any) -> Response:
    """Page ``rows(offset, limit)`` of a list of ``total`` entries."""
    settings = model.settings
    page = paging(request.query_params, settings.default_page_size, settings.max_page_size, notes_of(request))
    start = (page.page - 1) * page.page_size
    if start >= total and page.page > 1:
        raise ServiceError(404, "Invalid page.", code="invalid_page")
    return paginated(request, page.page, page.page_size, total, rows(start, max(0, min(page.page_size,
                                                                                     total - start))))


# -- ISINs -----------------------------------------------------------------------------------------
def _isin_entries(model: FilingsModel, found: dict[str, str]) -> list[tuple[CompanyCore, int]] | None:
    """The ISINs selected by code, codes, company or search, in order (None: no such filter)."""
    directory = directory_for(model.catalogue)
    candidates: list[tuple[int, int]] | None = None  # (company id, share class) of generated ones
    users: list[tuple[CompanyCore, int]] = [(core, share) for core in model.companies.values()
                                            for share in range(len(core.isins))]

    def narrow(pairs: set[tuple[int, int]], user_test: Any) -> None:
        nonlocal candidates, users
        candidates = sorted(pairs) if candidates is None else sorted(set(candidates) & pairs)
        users = [(core, share) for core, share in users if user_test(core.isins[share], core)]

    for name in ("code", "codes"):
        if name in found:
            codes = {part.strip().upper() for part in found[name].split(",")}
            if len(codes) > MAX_CODES:
                raise bad(f"{name}: at most {MAX_CODES} codes.")
            narrow({owner for code in codes if (owner := directory.isin_owner(code)) is not None},
                   lambda isin, core, codes=codes: isin in codes)
    if "company" in found:
        company_id = whole_number(found, "company", "company: Enter a whole number.")
        assert company_id is not None
        pairs = set()
        if model.catalogue.has_company(company_id):
            start, end = directory.isin_starts[company_id - 1], directory.isin_starts[company_id]
            pairs = {(company_id, share) for share in range(end - start)}
        narrow(pairs, lambda isin, core: core.id == company_id)
    if "search" in found:
        needle = found["search"].strip().upper()
        text = directory.isin_text
        hits = set()
        at = text.find(needle) if needle and "\n" not in needle else -1
        while at >= 0:
            hits.add(directory.isin_at(at // 13))
            at = text.find(needle, at + 1)
        narrow(hits, lambda isin, core: needle in isin)
    if candidates is None:
        return None
    return [(company_core(model.catalogue, cid), share) for cid, share in candidates] + users


async def list_isins(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    found = _filters(request, ISIN_FILTERS)
    primary = boolean(found, "is_primary")
    entries = _isin_entries(model, found)
    if entries is not None:
        if primary is not None:
            entries = [(core, share) for core, share in entries if (share == 0) == primary]
        return _page(request, model, len(entries), lambda start, size: [
            isin_json(core, share) for core, share in entries[start:start + size]])
    directory = directory_for(model.catalogue)
    catalogue = model.catalogue
    users = [(core, share) for core in model.companies.values() for share in range(len(core.isins))
             if primary is None or (share == 0) == primary]
    starts = directory.isin_starts
    if primary is None:
        generated = starts[-1]

        def at(position: int) -> tuple[int, int]:
            return directory.isin_at(position)
    elif primary:
        generated = catalogue.company_count

        def at(position: int) -> tuple[int, int]:
            return position + 1, 0
    else:  # the secondary ISINs: company i holds starts[i] - starts[i-1] - 1 of them
        generated = starts[-1] - catalogue.company_count

        def at(position: int) -> tuple[int, int]:
            index = bisect.bisect_right(range(len(starts)), position, key=lambda i: starts[i] - i) - 1
            return index + 1, position - (starts[index] - index) + 1

    def rows(start: int, size: int) -> list[dict[str, Any]]:
        shown = []
        for position in range(start, start + size):
            if position < generated:
                company_id, share = at(position)
                shown.append(isin_json(company_core(catalogue, company_id), share))
            else:
                core, share = users[position - generated]
                shown.append(isin_json(core, share))
        return shown

    return _page(request, model, generated + len(users), rows)


async def get_isin(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    code = request.path_params["code"].strip().upper()
    owner = directory_for(model.catalogue).isin_owner(code)
    if owner is not None:
        return json_response(isin_json(company_core(model.catalogue, owner[0]), owner[1]))
    for core in model.companies.values():
        if code in core.isins:
            return json_response(isin_json(core, core.isins.index(code)))
    raise not_found()


# -- security listings -----------------------------------------------------------------------------
def _listed_ids(model: FilingsModel, found: dict[str, str]) -> list[int] | None:
    """Company ids whose listing the filters select, ascending (None: no filter)."""
    catalogue = model.catalogue
    directory = directory_for(catalogue)
    selected: set[int] | None = None

    def narrow(ids: set[int]) -> None:
        nonlocal selected
        selected = ids if selected is None else selected & ids

    users = list(model.companies.values())
    if "company" in found:
        company_id = whole_number(found, "company", "company: Enter a number.", maximum=JSON_INT_MAX)
        narrow({company_id} if company_id is not None and model.core(company_id) is not None else set())
    if "figi" in found:
        decoded = decode_figi(found["figi"])
        hit = decoded is not None and decoded[1] == 0 and decoded[2] == 0 and model.core(decoded[0]) is not None
        narrow({decoded[0]} if hit and decoded is not None else set())
    if "ticker" in found:
        ticker, _, country = found["ticker"].rpartition(".")
        if not ticker or country.upper() not in MARKET_INDEX:
            ticker, country = found["ticker"], ""
        wanted = normalize_ticker(ticker)
        ids = set(directory.tickers.get(wanted, ())) | {c.id for c in users if normalize_ticker(c.ticker) == wanted}
        if country:
            ids = {i for i in ids if (core := model.core(i)) is not None and core.country_code == country.upper()}
        narrow(ids)
    for name, part in (("mic", lambda m: m.mic), ("exch_code", exch_code)):
        if name in found:
            markets = {i for i, market in enumerate(MARKETS) if part(market) == found[name].upper()}
            ids = {cid for m in markets for cid in directory.by_market[m]}
            narrow(ids | {c.id for c in users if c.market_index in markets})
    return None if selected is None else sorted(selected)


async def list_listings(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    found = _filters(request, LISTING_FILTERS)
    order = ordering_terms(found.get("ordering"), LISTING_ORDERINGS, notes_of(request)) or ("id", False)
    ids = _listed_ids(model, found)
    catalogue = model.catalogue
    field, descending = order
    if ids is None and field == "id":  # every listing, by id: arithmetic
        users = sorted(model.companies)
        total = catalogue.company_count + len(users)

        def by_position(position: int) -> int:
            if descending:
                position = total - 1 - position
            return position + 1 if position < catalogue.company_count else users[position - catalogue.company_count]
        return _page(request, model, total, lambda start, size: [
            listing_json(model_core(model, by_position(p))) for p in range(start, start + size)])
    if ids is None:
        ordered = _all_ordered(model, field)
        if descending:
            ordered = ordered[::-1]
    else:
        ordered = sorted(ids, key=lambda cid: _listing_key(model, field, cid), reverse=descending)
    return _page(request, model, len(ordered), lambda start, size: [
        listing_json(model_core(model, cid)) for cid in ordered[start:start + size]])


def _all_ordered(model: FilingsModel, field: str) -> list[int]:
    """Every listing's company id in ``field`` order (ties by id): generated ones from orders the
    directory keeps, users' merged in."""
    catalogue = model.catalogue
    if field == "ticker":
        generated: Sequence[int] = directory_for(catalogue).by_ticker()
    else:
        code = (lambda m: m.mic) if field == "mic" else exch_code
        rank = {text: n for n, text in enumerate(sorted({code(m) for m in MARKETS}))}
        generated = sorted(range(1, catalogue.company_count + 1),
                           key=lambda cid: (rank[code(MARKETS[catalogue.market[cid - 1]])], cid))
    users = sorted(model.companies, key=lambda cid: _listing_key(model, field, cid))
    return sorted([*generated, *users], key=lambda cid: _listing_key(model, field, cid)) if users else list(generated)


def _listing_key(model: FilingsModel, field: str, company_id: int) -> tuple[str, int]:
    core = model_core(model, company_id)
    market = MARKETS[core.market_index]
    text = {"id": "", "ticker": core.ticker, "mic": market.mic, "exch_code": exch_code(market)}[field]
    return text, company_id


def model_core(model: FilingsModel, company_id: int) -> CompanyCore:
    core = model.core(company_id)
    assert core is not None, company_id
    return core


async def get_listing(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    core = model.core(path_id(request, "id"))
    if core is None or (core.id >= USER_ID_BASE and core.id not in model.companies):
        raise not_found()
    return json_response(listing_json(core))


ENDPOINTS = [
    Endpoint("GET", "/isins/", list_isins, REFERENCE),
    Endpoint("GET", "/isins/{code}/", get_isin, REFERENCE),
    Endpoint("GET", "/security-listings/", list_listings, REFERENCE),
    Endpoint("GET", "/security-listings/{id}/", get_listing, REFERENCE),
]
