"""The public HTTP surface: parse the request, ask the model, render JSON (or Markdown, a PDF).

Every route goes through :func:`guarded`: the API key (401), the tier (403) and the quota (429)
are checked before the handler runs, and the call is counted only when it succeeds.
"""

from __future__ import annotations

import html
import io
import zipfile
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from fakes.kernel.errors import ServiceError
from fakes.kernel.http import JSON_INT_MAX, bearer_token, json_response
from fakes.kernel.verdicts import Broken, flag_all

from .catalogue.filing_types import TYPES
from .keys import FILING_TYPES, MARKDOWN, ApiKey
from .params import (
    UNSUPPORTED_COMPANY_PARAMS,
    UNSUPPORTED_FILING_PARAMS,
    bad,
    company_params,
    filing_params,
    paging,
    search_text,
    whole_number,
)
from .rules import listing_rules_broken

if TYPE_CHECKING:
    from . import FilingsFake
    from .model import FilingsModel

Handler = Callable[[Request, "FilingsModel", ApiKey], Awaitable[Response]]
MARKDOWN_MEDIA_TYPE = "text/markdown; charset=utf-8"
MAX_MARKDOWN_WINDOW = 200_000


Feature = str | None | Callable[[Request], str | None]  # the gated feature a request uses


def markdown_if_asked(request: Request) -> str | None:
    """``GET /filings/{id}/?format=markdown`` is the Markdown, with the Markdown's gate."""
    return MARKDOWN if request.query_params.get("format") == "markdown" else None


def routes(fake: FilingsFake) -> list[BaseRoute]:
    def route(path: str, handler: Handler, feature: Feature = None, unmodelled: frozenset[str] | None = None) -> Route:
        return Route(path, guarded(fake, handler, feature, unmodelled), methods=["GET"])

    return [
        route("/companies/", list_companies, unmodelled=UNSUPPORTED_COMPANY_PARAMS),
        route("/companies/{company_id:int}/", get_company),
        route("/filings/", list_filings, unmodelled=UNSUPPORTED_FILING_PARAMS),
        route("/filings/{filing_id:int}/", get_filing, markdown_if_asked),
        route("/filings/{filing_id:int}/markdown/", get_markdown, MARKDOWN),
        route("/filings/{filing_id:int}/document/", get_document),
        route("/filing-types/", list_filing_types, FILING_TYPES),
        route("/filing-types/{type_id:int}/", get_filing_type, FILING_TYPES),
    ]


def api_key_of(request: Request, header: str) -> str | None:
    """The key from the configured header (the official client's X-API-Key) or a Bearer token."""
    return request.headers.get(header) or bearer_token(request)


def guarded(fake: FilingsFake, handler: Handler, feature: Feature,
            unmodelled: frozenset[str] | None) -> Callable[[Request], Awaitable[Response]]:
    """``unmodelled`` (the real filters this fake ignores) marks a list route: its client rules
    (unsupported filters, walking every page) are checked once per URL, with the cached body."""
    async def endpoint(request: Request) -> Response:
        model: FilingsModel = fake.model  # read per request: reset and import replace it
        burst = fake.settings.burst_limit
        needs = feature(request) if callable(feature) else feature
        refused: Broken = []
        try:
            key = model.begin_call(api_key_of(request, fake.settings.api_key_header), needs, refused)
        except ServiceError:
            flag_all(request, refused)  # e.g. a call after the quota's refusal
            raise
        # A body is a function of the state, the second and the URL: the same request in the same
        # second (a poller, a benchmark, a client paging back) is answered from the cache.
        scope = request.scope
        cache_key = (model.instance, model.version, model.now_s(), scope["path"], scope["query_string"],
                     request.headers.get("host", ""), scope.get("root_path", ""), scope.get("scheme", "http"))
        cached = fake.responses.get(cache_key)
        if cached is None:
            try:
                response = await handler(request, model, key)
            except ServiceError as err:  # refused: not counted, but the caller still sees its allowance
                err.headers = {**key.headers(burst), **err.headers}
                raise
            broken = (listing_rules_broken(request.query_params, unmodelled, fake.settings.walk_page_limit)
                      if unmodelled is not None else [])
            cached = fake.responses.put(cache_key, response, broken)
            if cached is None:
                key.count_call()
                response.headers.update(key.headers(burst))
                return response
        body, media_type, headers, broken = cached
        if broken:
            flag_all(request, broken)
        key.count_call()
        return cached_response(body, media_type, headers, key.headers(burst))

    return endpoint


def cached_response(body: bytes, media_type: str | None, headers: dict[str, str],
                    allowance: dict[str, str]) -> Response:
    """What ``Response(body, media_type=..., headers={**headers, **allowance})`` sends, the same
    header list in the same order, without Starlette building and checking it per request (a
    repeated page's largest cost after the routing)."""
    response = Response.__new__(Response)
    response.status_code = 200
    response.body = body
    response.background = None
    response.media_type = media_type
    raw = [(name.lower().encode("latin-1"), value.encode("latin-1"))
           for name, value in {**headers, **allowance}.items()]
    raw.append((b"content-length", str(len(body)).encode("latin-1")))
    if media_type is not None:
        if media_type.startswith("text/") and "charset=" not in media_type.lower():
            media_type += "; charset=" + Response.charset
        raw.append((b"content-type", media_type.encode("latin-1")))
    response.raw_headers = raw
    return response


CacheKey = tuple[int, int, int, str, bytes, str, str, str]
Cached = tuple[bytes, str | None, dict[str, str], Broken]


class ResponseCache:
    """The last few successful bodies (with the client rules their URL breaks), least recently used out."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self.entries: OrderedDict[CacheKey, Cached] = OrderedDict()

    def get(self, key: CacheKey) -> Cached | None:
        entry = self.entries.get(key)
        if entry is not None:
            self.entries.move_to_end(key)
        return entry

    def put(self, key: CacheKey, response: Response, broken: Broken) -> Cached | None:
        """Keep a 200 answer; None (nothing kept) for any other."""
        if response.status_code != 200:
            return None
        extra = {name: value for name, value in response.headers.items()
                 if name not in ("content-length", "content-type")}
        entry = (bytes(response.body), response.media_type, extra, broken)
        self.entries[key] = entry
        if len(self.entries) > self.size:
            self.entries.popitem(last=False)
        return entry


def base_url(request: Request) -> str:
    return str(request.base_url).rstrip("/")


def paginated(request: Request, page: int, page_size: int, total: int, results: list[Any]) -> Response:
    """Django REST framework's page-number envelope; next/previous keep every other parameter."""
    url = request.url
    following = str(url.include_query_params(page=page + 1)) if page * page_size < total else None
    if page <= 1:
        preceding = None
    elif page == 2:
        preceding = str(url.remove_query_params("page"))
    else:
        preceding = str(url.include_query_params(page=page - 1))
    return json_response({"count": total, "next": following, "previous": preceding, "results": results})


# -- companies ------------------------------------------------------------------------------------
async def list_companies(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    settings = model.settings
    params = company_params(request.query_params, settings.default_page_size, settings.max_page_size)
    total, results = model.list_companies(params)
    return paginated(request, params.paging.page, params.paging.page_size, total, results)


async def get_company(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    return json_response(model.company_json(request.path_params["company_id"]))


# -- filings --------------------------------------------------------------------------------------
async def list_filings(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    settings = model.settings
    params = filing_params(request.query_params, settings.default_page_size, settings.max_page_size)
    total, results = model.list_filings(params, base_url(request))
    return paginated(request, params.paging.page, params.paging.page_size, total, results)


async def get_filing(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    filing_id = request.path_params["filing_id"]
    form = request.query_params.get("format", "json")
    if form == "markdown":  # the same answer as /filings/{id}/markdown/ (its gate: markdown_if_asked)
        return await get_markdown(request, model, key)
    if form != "json":
        raise bad("format: Select a valid choice: json or markdown.")
    return json_response(model.filing_json(filing_id, base_url(request)))


async def get_markdown(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    offset = _window_number(request, "offset", 0, None)
    limit = _window_number(request, "limit", 1, MAX_MARKDOWN_WINDOW)
    text = model.markdown(request.path_params["filing_id"])
    if offset is not None or limit is not None:
        start = offset or 0
        text = text[start:start + (limit or MAX_MARKDOWN_WINDOW)]
    return Response(text, media_type=MARKDOWN_MEDIA_TYPE)


def _window_number(request: Request, name: str, minimum: int, maximum: int | None) -> int | None:
    upper = f" and <= {maximum}" if maximum is not None else ""
    return whole_number(request.query_params, name, f"{name}: Ensure this value is a whole number >= {minimum}{upper}.",
                        minimum=minimum, maximum=JSON_INT_MAX if maximum is None else maximum)


async def get_document(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    """The original document: a one-page PDF, or an ESEF package (a ZIP with the XHTML report)."""
    record = model.record(request.path_params["filing_id"])
    extension = TYPES[record.type_index].extension
    disposition = {"Content-Disposition": f'attachment; filename="filing-{record.id}.{extension.lower()}"'}
    if extension == "ZIP":
        return Response(esef_package(record.id, record.title), media_type="application/zip", headers=disposition)
    return Response(one_page_pdf(record.title), media_type="application/pdf", headers=disposition)


# -- filing types ---------------------------------------------------------------------------------
async def list_filing_types(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    settings = model.settings
    page = paging(request.query_params, settings.default_page_size, settings.max_page_size)
    category = whole_number(request.query_params, "category", "category: Enter a whole number.")
    found = model.filing_types(search_text(request.query_params), category)
    start = (page.page - 1) * page.page_size
    if start >= len(found) and page.page > 1:
        raise ServiceError(404, "Invalid page.", code="invalid_page")
    return paginated(request, page.page, page.page_size, len(found), found[start:start + page.page_size])


async def get_filing_type(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    return json_response(model.filing_type(request.path_params["type_id"]))


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
