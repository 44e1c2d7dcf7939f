"""What every public route shares: the key's checks, the response cache, paging, path ids.

Every route goes through :func:`guarded`: the API key (401), the tier (403), an agent account's
state (402) and the quota (429) are checked before the handler runs, and the call is counted only
when it succeeds. A GET's 200 body is a function of the state, the second, the caller and the URL,
so the same request in the same second (a poller, a benchmark, a client paging back) is answered
from a small cache (:mod:`.response_cache`), and so is a GET's refusal of its own (a 4xx the handler
raised: a bad parameter, an unknown id); other methods always run.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from fakes.kernel.errors import ServiceError
from fakes.kernel.http import (
    InvalidInteger,
    ascii_int,
    bearer_token,
    dumps,
    header_value,
    json_response,
    named_header,
)
from fakes.kernel.verdicts import Broken, flag_all

from .keys import ApiKey
from .params import Notes, paging
from .response_cache import cached_response
from .rules import LENIENT_INPUT, listing_rules_broken

if TYPE_CHECKING:
    from .model import FilingsModel
    from .served import ServedFilings

Handler = Callable[[Request, "FilingsModel", ApiKey], Awaitable[Response]]
Feature = str | None | Callable[[Request], str | None]  # the gated feature a request uses
NOTES_KEY = "filings.lenient"
NOT_FOUND = "Not found."


@dataclass(frozen=True)
class Endpoint:
    method: str
    path: str
    handler: Handler
    feature: Feature = None
    #: the real filters this list ignores: a list route, whose client rules are checked once per URL
    unmodelled: frozenset[str] | None = None
    #: False: never counted against the quota, nor refused for it (GET /usage/)
    counted: bool = True
    #: whether it changes state (an agent's read-only sandbox refuses it); None: every method but GET
    writes: bool | None = None


def routes_of(endpoints: Sequence[Endpoint]) -> list[Route]:
    """Routes for ``endpoints``, the same objects for every fake: each request finds its fake in
    ``scope["app"]`` (the kernel's app puts it there), so a world builds no routes of its own."""
    by_path: dict[str, list[Endpoint]] = {}
    for endpoint in endpoints:
        by_path.setdefault(endpoint.path, []).append(endpoint)
    found = []
    for path, group in by_path.items():
        if len(group) == 1:
            found.append(Route(path, guarded(group[0]), methods=[group[0].method]))
            continue
        handlers = {endpoint.method: guarded(endpoint) for endpoint in group}

        async def dispatch(request: Request, handlers: dict[str, Callable[[Request], Awaitable[Response]]] = handlers,
                           ) -> Response:
            method = "GET" if request.method == "HEAD" else request.method
            return await handlers[method](request)
        found.append(Route(path, dispatch, methods=list(handlers)))
    return found


def api_key_of(request: Request, header: str) -> str | None:
    """The key from the configured header (the official client's X-API-Key) or a Bearer token."""
    return named_header(request, header) or bearer_token(request)


def notes_of(request: Request) -> Notes:
    """Where a handler's parsing records what it leniently ignored (see :mod:`.params`)."""
    notes: Notes | None = request.scope.get(NOTES_KEY)
    if notes is None:
        notes = request.scope[NOTES_KEY] = []
    return notes


def fake_of(request: Request) -> ServedFilings:
    fake: ServedFilings = request.scope["app"]
    return fake


def guarded(endpoint: Endpoint) -> Callable[[Request], Awaitable[Response]]:
    handler, feature, unmodelled = endpoint.handler, endpoint.feature, endpoint.unmodelled
    cacheable = endpoint.method == "GET"
    writes = not cacheable if endpoint.writes is None else endpoint.writes

    async def run(request: Request) -> Response:
        fake = fake_of(request)
        model: FilingsModel = fake.model  # read per request: reset and import replace it
        fake.sync()  # what the clock passed (webhook deliveries) happens before anything is read
        burst = fake.settings.burst_limit
        needs = feature(request) if callable(feature) else feature
        refused: Broken = []
        try:
            key = model.begin_call(api_key_of(request, fake.settings.api_key_header), needs, refused,
                                   counted=endpoint.counted, write=writes)
        except ServiceError:
            flag_all(request, refused)  # e.g. a call after the quota's refusal
            raise
        scope = request.scope
        cache_key = (model.instance, model.version, model.now_s(), key.key, scope["path"], scope["query_string"],
                     header_value(request, b"host") or "", scope.get("root_path", ""), scope.get("scheme", "http"))
        cached = fake.responses.get(cache_key) if cacheable else None
        if cached is None:
            try:
                response = await handler(request, model, key)
            except ServiceError as err:  # refused: not counted, but the caller still sees its allowance
                lenient = _lenient(request)
                if cacheable and 400 <= err.status < 500 and not err.headers:
                    # a refusal is as much a function of the state, second, caller and URL as a page
                    fake.responses.put_refusal(cache_key, err.status, dumps(fake.error_body(err)), lenient)
                err.headers = {**key.headers(burst), **err.headers}
                flag_all(request, lenient)
                raise
            broken = _lenient(request)
            if unmodelled is not None:
                broken += listing_rules_broken(request.query_params, unmodelled, fake.settings.walk_page_limit)
            cached = fake.responses.put(cache_key, response, broken) if cacheable else None
            if cached is None:
                flag_all(request, broken)
                if endpoint.counted:
                    key.count_call()
                    model.touch(key)
                response.headers.update(key.headers(burst))
                return response
        body, media_type, headers, status, broken = cached
        if broken:
            flag_all(request, broken)
        if endpoint.counted and status < 400:  # a refusal is not counted
            key.count_call()
            model.touch(key)
        return cached_response(body, media_type, headers, key.headers(burst), status)

    return run


def _lenient(request: Request) -> Broken:
    return [(LENIENT_INPUT, note) for note in request.scope.get(NOTES_KEY, ())]


# -- answers -------------------------------------------------------------------------------------
def paginated(request: Request, page: int, page_size: int, total: int, results: list[Any],
              **extra: Any) -> Response:
    """Django REST framework's page-number envelope; next/previous keep every other parameter."""
    url = request.url
    following = str(url.include_query_params(page=page + 1)) if page * page_size < total else None
    if page <= 1:
        preceding = None
    elif page == 2:
        preceding = str(url.remove_query_params("page"))
    else:
        preceding = str(url.include_query_params(page=page - 1))
    return json_response({"count": total, "next": following, "previous": preceding, "results": results, **extra})


def page_of(request: Request, model: FilingsModel, items: Sequence[Any], **extra: Any) -> Response:
    """A page of a list held whole (reference data, a watchlist): DRF paging over ``items``."""
    settings = model.settings
    page = paging(request.query_params, settings.default_page_size, settings.max_page_size, notes_of(request))
    start = (page.page - 1) * page.page_size
    if start >= len(items) and page.page > 1:
        raise ServiceError(404, "Invalid page.", code="invalid_page")
    return paginated(request, page.page, page.page_size, len(items), list(items[start:start + page.page_size]),
                     **extra)


def path_id(request: Request, name: str) -> int:
    """A numeric id from the path; anything that names no record (``-1``, ``abc``) is the same
    404 ``Not found.`` as an unknown id (DRF looks the value up and finds nothing)."""
    raw = request.path_params[name]
    try:
        return ascii_int(raw, minimum=1, maximum=2**63 - 1)
    except InvalidInteger:
        raise not_found() from None


def not_found() -> ServiceError:
    return ServiceError(404, NOT_FOUND, code="not_found")
