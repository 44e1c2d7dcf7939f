"""Company extras: financials, dividends, segments, the next annual report, merges, resolve."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response

from fakes.kernel.errors import ServiceError
from fakes.kernel.http import base_url, json_response, read_json_object

from . import corporate
from .catalogue.companies import CompanyCore
from .dates import InvalidDate, instant_s, parse_date
from .endpoints import Endpoint, not_found, notes_of, page_of, path_id
from .financials import INCLUDES, STATEMENTS, FinancialsQuery, financials_json
from .keys import FINANCIALS, REFERENCE, ApiKey
from .lineitems import BY_CODE, ORDER, STATEMENT_NAMES, TEMPLATES
from .params import MAX_SEARCH_LENGTH, bad, boolean, short_texts, whole_number
from .resolve import resolve

if TYPE_CHECKING:
    from .model import FilingsModel

PERIODS = ("9M", "FY", "H1", "H2", "Q1", "Q2", "Q3", "Q4")


def _present(request: Request, names: tuple[str, ...]) -> dict[str, str]:
    found = {}
    for name in names:
        value = request.query_params.get(name)
        if value == "":
            notes_of(request).append(f"empty {name}= ignored (as django-filter does)")
        elif value is not None:
            if len(value) > MAX_SEARCH_LENGTH * 10:
                raise bad(f"{name}: Ensure this field has no more than {MAX_SEARCH_LENGTH * 10} characters.")
            found[name] = value
    return found


def _choice(found: Mapping[str, str], name: str, choices: tuple[str, ...]) -> str | None:
    value = found.get(name)
    if value is not None and value not in choices:
        raise bad(f"{name}: Select a valid choice. {value!r} is not one of {', '.join(choices)}.")
    return value


def _company(request: Request, model: FilingsModel) -> CompanyCore:
    core = model.core(path_id(request, "company_id"))
    if core is None:
        raise not_found()
    return core


def _year(found: Mapping[str, str], name: str) -> int | None:
    return whole_number(found, name, f"{name}: Enter a whole number.", maximum=9999)


def financials_query(request: Request) -> FinancialsQuery:
    found = _present(request, ("statement_type", "fiscal_year", "fiscal_year_from", "fiscal_year_to",
                               "fiscal_period", "line_items", "as_of", "as_known_at", "include"))
    line_items = None
    if "line_items" in found:
        line_items = tuple(dict.fromkeys(code.strip() for code in found["line_items"].split(",") if code.strip()))
        unknown = [code for code in line_items if code not in BY_CODE]
        if unknown:
            raise bad(f"line_items: Unknown line item code(s) {', '.join(unknown[:10])}; see /line-item-definitions/.")
    include: tuple[str, ...] = ()
    if "include" in found:
        include = tuple(dict.fromkeys(part.strip() for part in found["include"].split(",") if part.strip()))
        unknown = [part for part in include if part not in INCLUDES]
        if unknown:
            raise bad(f"include: Unknown value(s) {', '.join(unknown[:10])}; use {', '.join(INCLUDES)}.")
    as_of = as_known_at = None
    try:
        if "as_of" in found:
            as_of = parse_date(found["as_of"]).isoformat()
        if "as_known_at" in found:
            as_known_at = instant_s(found["as_known_at"], end_of_day=True)
    except InvalidDate:
        raise bad("as_of / as_known_at: Enter a valid date (as_of) or date-time (as_known_at).") from None
    return FinancialsQuery(
        statement_type=_choice(found, "statement_type", STATEMENTS), fiscal_year=_year(found, "fiscal_year"),
        fiscal_year_from=_year(found, "fiscal_year_from"), fiscal_year_to=_year(found, "fiscal_year_to"),
        fiscal_period=_choice(found, "fiscal_period", PERIODS), line_items=line_items, as_of=as_of,
        as_known_at=as_known_at, include=include)


async def get_financials(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    query = financials_query(request)
    return json_response(financials_json(model, _company(request, model), query, base_url(request)))


async def get_dividends(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    found = _present(request, ("status",))
    status = _choice(found, "status", corporate.DIVIDEND_STATUSES)
    core = _company(request, model)
    return json_response({"company_id": core.id, "filters": {"status": status},
                          "dividends": corporate.dividends(model, core, status, base_url(request))})


async def get_segments(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    found = _present(request, ("axis", "metric", "period"))
    axis = _choice(found, "axis", corporate.SEGMENT_AXES)
    metric = _choice(found, "metric", corporate.SEGMENT_METRICS)
    period = _choice(found, "period", corporate.SEGMENT_PERIODS)
    core = _company(request, model)
    return json_response({"company_id": core.id, "filters": {"axis": axis, "metric": metric, "period": period},
                          "segments": corporate.segments(model, core, axis, metric, period, base_url(request))})


async def get_next_annual_report(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    core = _company(request, model)
    prediction = corporate.next_annual_report(model, core.id)
    if prediction is None:
        raise ServiceError(404, "Not enough historical data to make a confident prediction.", code="not_found")
    return json_response(prediction)


async def list_merges(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    found = _present(request, ("merged_at_from", "updated_at_from"))
    bounds = {}
    for name, value in found.items():
        try:
            bounds[name] = instant_s(value, end_of_day=False)
        except InvalidDate:
            raise bad(f"{name}: Enter a valid date/time.") from None
    rows = model.merges.listing(bounds.get("merged_at_from"), bounds.get("updated_at_from"), model.now_s())
    return page_of(request, model, rows)


async def list_line_items(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    found = _present(request, ("depth", "is_capital_iq_standard", "parent_code", "search", "statement_type",
                               "template"))
    short_texts(found, ("parent_code", "search"))
    depth = whole_number(found, "depth", "depth: Enter a whole number.", maximum=32767)
    standard = boolean(found, "is_capital_iq_standard")
    statement = _choice(found, "statement_type", tuple(STATEMENT_NAMES))
    template = _choice(found, "template", TEMPLATES)
    term = found.get("search", "").strip().lower()
    rows = [item.to_json() for item in ORDER
            if (depth is None or item.depth == depth) and (standard is None or item.is_capital_iq_standard == standard)
            and ("parent_code" not in found or item.parent_code == found["parent_code"])
            and (statement is None or item.statement_type == statement)
            and (template is None or template in item.templates)
            and (not term or term in item.code or term in item.name.lower() or term in item.description.lower()
                 or any(term in alias.lower() for alias in item.aliases))]
    return page_of(request, model, rows)


async def get_line_item(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    item = BY_CODE.get(request.path_params["code"])
    if item is None:
        raise not_found()
    return json_response(item.to_json())


async def resolve_companies(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    return json_response(resolve(model, await read_json_object(request)))


ENDPOINTS = [
    Endpoint("GET", "/companies/merges/", list_merges, REFERENCE),
    Endpoint("POST", "/companies/resolve/", resolve_companies, REFERENCE, writes=False),  # a lookup
    Endpoint("GET", "/companies/{company_id}/financials/", get_financials, FINANCIALS),
    Endpoint("GET", "/companies/{company_id}/dividends/", get_dividends, FINANCIALS),
    Endpoint("GET", "/companies/{company_id}/segments/", get_segments, FINANCIALS),
    Endpoint("GET", "/companies/{company_id}/next-annual-report/", get_next_annual_report),
]
LINE_ITEM_ENDPOINTS = [
    Endpoint("GET", "/line-item-definitions/", list_line_items, REFERENCE),
    Endpoint("GET", "/line-item-definitions/{code}/", get_line_item, REFERENCE),
]
