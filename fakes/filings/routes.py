"""The core public surface: companies, filings (JSON, Markdown, the original document), filing types.

The other resources have their own modules (reference data, financials, watchlist, webhooks,
agent accounts); :func:`routes` gathers them all. Handlers parse the request, ask the model and
render the service's bodies; :mod:`.endpoints` checks the key and caches answers around them.
"""

from __future__ import annotations

import html
import io
import zipfile
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from fakes.kernel.http import JSON_INT_MAX, base_url, json_response
from fakes.kernel.routing import claim_methods

from . import agent_routes, company_routes, reference, watchlist_routes, webhook_routes
from .catalogue.filing_types import TYPES
from .endpoints import Endpoint, notes_of, page_of, paginated, path_id, routes_of
from .filingparams import UNSUPPORTED_FILING_PARAMS, filing_params
from .keys import FILING_TYPES, MARKDOWN, ApiKey
from .params import BLANKS, UNSUPPORTED_COMPANY_PARAMS, bad, company_params, search_text, whole_number

if TYPE_CHECKING:
    from .model import FilingsModel

MARKDOWN_MEDIA_TYPE = "text/markdown; charset=utf-8"
MAX_MARKDOWN_WINDOW = 200_000
MAX_SEARCH_HITS = 50


def markdown_if_asked(request: Request) -> str | None:
    """``GET /filings/{id}/?format=markdown`` is the Markdown, with the Markdown's gate."""
    return MARKDOWN if request.query_params.get("format") == "markdown" else None


def routes() -> list[BaseRoute]:
    """Every public route, built once and shared by every fake and world (see ``routes_of``)."""
    global _ROUTES
    if _ROUTES is None:
        # a method a path does not take is a 405 naming those it does, whatever templated path follows
        _ROUTES = claim_methods([*routes_of(ENDPOINTS), *agent_routes.UNAUTHENTICATED])
    return _ROUTES


_ROUTES: list[BaseRoute] | None = None


def _endpoints() -> list[Endpoint]:
    return [
        Endpoint("GET", "/companies/", list_companies, unmodelled=UNSUPPORTED_COMPANY_PARAMS),
        *company_routes.ENDPOINTS,
        Endpoint("GET", "/companies/{company_id}/", get_company),
        Endpoint("GET", "/filings/", list_filings, unmodelled=UNSUPPORTED_FILING_PARAMS),
        Endpoint("GET", "/filings/{filing_id}/", get_filing, markdown_if_asked),
        Endpoint("GET", "/filings/{filing_id}/markdown/", get_markdown, MARKDOWN),
        Endpoint("GET", "/filings/{filing_id}/markdown/search/", search_markdown, MARKDOWN),
        Endpoint("GET", "/filings/{filing_id}/document/", get_document),
        Endpoint("GET", "/filings/{filing_id}/history/", get_history),
        Endpoint("GET", "/filing-types/", list_filing_types, FILING_TYPES),
        Endpoint("GET", "/filing-types/{type_id}/", get_filing_type, FILING_TYPES),
        *reference.ENDPOINTS,
        *company_routes.LINE_ITEM_ENDPOINTS,
        *watchlist_routes.ENDPOINTS,
        *webhook_routes.ENDPOINTS,
        *agent_routes.ENDPOINTS,
    ]


# -- companies ------------------------------------------------------------------------------------
async def list_companies(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    settings = model.settings
    params = company_params(request.query_params, settings.default_page_size, settings.max_page_size,
                            notes_of(request))
    total, results = model.list_companies(params, model.watched(key))
    return paginated(request, params.paging.page, params.paging.page_size, total, results)


async def get_company(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    return json_response(model.company_json(path_id(request, "company_id")))


# -- filings --------------------------------------------------------------------------------------
async def list_filings(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    settings = model.settings
    params = filing_params(request.query_params, settings.default_page_size, settings.max_page_size,
                           notes_of(request))
    total, results = model.list_filings(params, base_url(request), model.watched(key))
    return paginated(request, params.paging.page, params.paging.page_size, total, results)


async def get_filing(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    filing_id = path_id(request, "filing_id")
    form = request.query_params.get("format", "json")
    if form == "markdown":  # the same answer as /filings/{id}/markdown/ (its gate: markdown_if_asked)
        return await get_markdown(request, model, key)
    if form != "json":
        raise bad("format: Select a valid choice: json or markdown.")
    return json_response(model.filing_json(filing_id, base_url(request)))


async def get_markdown(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    offset = _window_number(request, "offset", 0, None)
    limit = _window_number(request, "limit", 1, MAX_MARKDOWN_WINDOW)
    text = model.markdown(path_id(request, "filing_id"))
    headers = {"X-Total-Chars": str(len(text))}
    if offset is not None or limit is not None:
        start = offset or 0
        end = start + (limit or MAX_MARKDOWN_WINDOW)
        if end < len(text):
            headers["X-Next-Offset"] = str(end)
        text = text[start:end]
    return Response(text, media_type=MARKDOWN_MEDIA_TYPE, headers=headers)


async def search_markdown(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    """Case-insensitive substring hits in document order, each with ~440 characters around it."""
    query = search_text(request.query_params, "q").strip(BLANKS)
    if not query:
        raise bad("q: This field is required (1-200 characters).")
    limit = whole_number(request.query_params, "max_hits", f"max_hits: Ensure this value is a whole number from 1 "
                         f"to {MAX_SEARCH_HITS}.", 10, minimum=1, maximum=MAX_SEARCH_HITS)
    assert limit is not None
    filing_id = path_id(request, "filing_id")
    text = model.markdown(filing_id)
    lowered, needle = text.lower(), query.lower()
    offsets: list[int] = []
    at = lowered.find(needle)
    while at >= 0:
        offsets.append(at)
        at = lowered.find(needle, at + 1)
    hits = [{"offset": at, "context": text[max(0, at - 200):at + len(query) + 200]} for at in offsets[:limit]]
    return json_response({"filing_id": filing_id, "q": query, "total_hits": len(offsets), "returned": len(hits),
                          "total_chars": len(text), "hits": hits})


async def get_history(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    return page_of(request, model, model.history_of(path_id(request, "filing_id")))


def _window_number(request: Request, name: str, minimum: int, maximum: int | None) -> int | None:
    upper = f" and <= {maximum}" if maximum is not None else ""
    return whole_number(request.query_params, name, f"{name}: Ensure this value is a whole number >= {minimum}{upper}.",
                        minimum=minimum, maximum=JSON_INT_MAX if maximum is None else maximum)


async def get_document(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    """The original document: a one-page PDF, or an ESEF package (a ZIP with the XHTML report)."""
    record = model.record(path_id(request, "filing_id"))
    extension = TYPES[record.type_index].extension
    disposition = {"Content-Disposition": f'attachment; filename="filing-{record.id}.{extension.lower()}"'}
    if extension == "ZIP":
        return Response(esef_package(record.id, record.title), media_type="application/zip", headers=disposition)
    return Response(one_page_pdf(record.title), media_type="application/pdf", headers=disposition)


# -- filing types ---------------------------------------------------------------------------------
async def list_filing_types(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    query = request.query_params
    category = None
    if query.get("category"):  # an empty filter value is no filter (django-filter)
        category = whole_number(query, "category", "category: Enter a whole number.")
    elif "category" in query:
        notes_of(request).append("empty category= ignored (as django-filter does)")
    return page_of(request, model, model.filing_types(search_text(query), category))


async def get_filing_type(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    return json_response(model.filing_type(path_id(request, "type_id")))


# -- documents ------------------------------------------------------------------------------------
def one_page_pdf(title: str) -> bytes:
    """A minimal valid PDF showing the filing's title."""
    text = title.encode("latin-1", "replace").replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")
    stream = b"BT /F1 14 Tf 60 780 Td (" + text[:120] + b") Tj ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(f"{number} 0 obj\n".encode() + body + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    for offset in offsets:
        out.write(f"{offset:010d} 00000 n \n".encode())
    out.write(f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode())
    return out.getvalue()


def esef_package(filing_id: int, title: str) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr(f"report-{filing_id}/reports/report.xhtml",
                         f'<html xmlns="http://www.w3.org/1999/xhtml"><body><h1>{html.escape(title)}</h1></body></html>')
    return out.getvalue()


ENDPOINTS = _endpoints()
