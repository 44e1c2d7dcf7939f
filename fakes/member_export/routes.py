"""The public API: parse the request, ask the model, answer Rest.li-shaped JSON.

Checks run in the real service's order as far as it is observable: version header (426), then
the token (401/403), then the daily limits (429), then the parameters (400), then the data (404).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from fakes.kernel.errors import ServiceError
from fakes.kernel.http import bearer_token, dumps, json_response, named_header, parse_query, query_int, read_json
from fakes.kernel.limits import BodyTooLarge
from fakes.kernel.querymemo import QueryMemo
from fakes.kernel.verdicts import Broken, flag, flag_all

from .model import SERVICE_ERROR_GENERIC, Member, MemberExportModel, SnapshotPage, bad_request
from .rules import NO_VERSION_HEADER
from .tokens import Token

if TYPE_CHECKING:
    from .served import ServedMemberExport

SNAPSHOT_PATH = "/rest/memberSnapshotData"
CHANGELOG_PATH = "/rest/memberChangeLogs"
AUTHORIZATION_PATH = "/rest/memberAuthorizations"
MAX_START = 2**31 - 1       # Rest.li paging parameters are int32
MAX_EPOCH_MS = 2**63 - 1    # timestamps are int64
AUTHORIZATION_PAGE_COUNT = 10  # Rest.li finder default, as in a public capture
T = TypeVar("T")


def served(request: Request) -> ServedMemberExport:
    fake: ServedMemberExport = request.scope["app"]  # the fake or world serving the request
    return fake


def service_routes() -> list[BaseRoute]:
    """The routes, the same objects for every fake and world of the process: an endpoint finds the
    fake serving it in ``scope["app"]``, so a new world builds none of its own."""
    return list(_service_routes())


@functools.cache
def _service_routes() -> tuple[BaseRoute, ...]:
    def caller(request: Request, resource: str) -> tuple[MemberExportModel, Token, Member]:
        """The current model, token and member, after the version, token and daily-limit checks."""
        settings = served(request).settings
        check_version(request, settings.version_header, settings.accepted_version)
        model: MemberExportModel = served(request).model  # read per request: reset/import replace it
        token = model.authenticate_token(bearer_token(request))
        if settings.member_daily_limit or settings.application_daily_limit:
            judged(request, lambda broken: model.limits.count(
                resource, token.application, token.member_id, model.clock.now_ms(),
                member_limit=settings.member_daily_limit, application_limit=settings.application_daily_limit,
                broken=broken))
        return model, token, model.members[token.member_id]

    async def snapshot(request: Request) -> Response:
        model, _, member = caller(request, "memberSnapshotData")
        rendered = served(request).rendered_pages  # pages that cannot change yet, as bytes (page_cache)
        query, prefix, now = request.scope["query_string"], request.scope.get("root_path", ""), model.clock.now_ms()
        answer = rendered.get(member, query, prefix, now)
        if answer is None:
            domain, start = snapshot_query(request)
            page = judged(request, lambda broken: model.snapshot(member, domain, start, broken))
            answer, kept = rendered.put(member, query, prefix, domain, now, dumps(snapshot_body(page, domain, prefix)),
                                        lambda: model.invitations_until(member, now))
            if kept:
                model.rows_rendered(page)
        return answer

    async def changelog(request: Request) -> Response:
        model, _, member = caller(request, "memberChangeLogs")
        start_time, count = changelog_query(request)
        events = judged(request, lambda broken: model.changelog(member, start_time, count, broken))
        used = served(request).settings.changelog_default_count if count is None else count
        return json_response({"elements": events, "paging": {"start": 0, "count": used, "links": []}})

    async def authorizations(request: Request) -> Response:
        model, token, member = caller(request, "memberAuthorizations")
        if request.method == "POST":
            parse_query(request)
            check_query(request, ())
            await read_empty_object(request)
            model.start_archiving(member)
            return Response(status_code=201)
        authorizations_query(request)
        record = model.authorization(member, token.application)
        return json_response({
            "elements": [record] if record else [],
            "paging": {"start": 0, "count": AUTHORIZATION_PAGE_COUNT, "links": []},
        })

    return (
        Route(SNAPSHOT_PATH, snapshot, methods=["GET"]),
        Route(CHANGELOG_PATH, changelog, methods=["GET"]),
        Route(AUTHORIZATION_PATH, authorizations, methods=["GET", "POST"]),
    )


def judged(request: Request, act: Callable[[Broken], T]) -> T:
    """``act(broken)``; the client rules it appended to ``broken`` flagged on the request, even when
    it refuses the request."""
    broken: Broken = []
    try:
        return act(broken)
    finally:
        flag_all(request, broken)


# The parameter checks of each finder read the query string alone (after the version, token and
# limit checks): remembered per query string (fakes/kernel/querymemo.py), refusals included.
def _snapshot_query(request: Request) -> tuple[str | None, int]:
    """(domain, start) of a snapshot request; absent domain: all domains, empty: an unknown one."""
    parse_query(request)
    check_query(request, ("q", "domain", "start", "count"))
    require_finder(request, "criteria")
    domain = request.query_params.get("domain")
    start = integer_param(request, "start", MAX_START)
    integer_param(request, "count", MAX_START)  # the API's own next links carry count=10: accepted, ignored
    return domain, 0 if start is None else start


def _changelog_query(request: Request) -> tuple[int | None, int | None]:
    """(startTime, count) of a changelog request."""
    parse_query(request)
    check_query(request, ("q", "startTime", "count"))
    require_finder(request, "memberAndApplication")
    return integer_param(request, "startTime", MAX_EPOCH_MS), integer_param(request, "count", MAX_START)


def _authorizations_query(request: Request) -> None:
    parse_query(request)
    check_query(request, ("q",))
    require_finder(request, "memberAndApplication")


snapshot_query = QueryMemo(_snapshot_query)
changelog_query = QueryMemo(_changelog_query)
authorizations_query = QueryMemo(_authorizations_query)


async def read_empty_object(request: Request) -> None:
    """The authorization POST takes ``{}`` (an absent body is tolerated; whitespace is not JSON)."""
    try:
        body = await read_json(request)
    except BodyTooLarge:
        raise
    except ServiceError:
        body = None
    if not isinstance(body, dict):
        raise bad_request("The request body must be an empty JSON object: {}")


def check_version(request: Request, header: str, accepted: str) -> None:
    sent = named_header(request, header)
    if sent is None:
        flag(request, NO_VERSION_HEADER, f"no {header} header (every call must carry {header}: {accepted})")
        raise ServiceError(426, f"A version must be present. Please specify a version by adding the {header} "
                                "header.", code="NONEXISTENT_VERSION", service_error_code=SERVICE_ERROR_GENERIC)
    if sent != accepted:
        raise ServiceError(426, f"Requested version {sent} is not active", code="NONEXISTENT_VERSION",
                           service_error_code=SERVICE_ERROR_GENERIC)


def check_query(request: Request, allowed: tuple[str, ...]) -> None:
    """Unknown or repeated query parameters are refused, as the real gateway refuses them."""
    names = [name for name, _ in request.query_params.multi_items()]
    unknown = sorted({name for name in names if name not in allowed})
    repeated = sorted({name for name in names if names.count(name) > 1})
    if unknown or repeated:
        problem = f"unknown {', '.join(unknown)}" if unknown else f"repeated {', '.join(repeated)}"
        raise bad_request(f"Invalid query parameters passed to request ({problem}; this resource takes "
                          f"{', '.join(allowed) or 'none'})")


def integer_param(request: Request, name: str, maximum: int) -> int | None:
    """A decimal integer query parameter: the kernel's strict parser (ASCII digits, no blanks, no
    '+', no digit groups, not empty) with the service's own 400."""
    return query_int(request, name, maximum=maximum, refuse=lambda _name, raw, _reason: bad_request(
        f"Invalid value {raw!r} for query parameter '{name}': an integer up to {maximum} is required"))


def require_finder(request: Request, finder: str) -> None:
    sent = request.query_params.get("q")
    if sent != finder:
        raise bad_request(f"Invalid finder q={sent!r}: this resource supports only q={finder}")


def snapshot_body(page: SnapshotPage, domain: str | None, prefix: str) -> dict[str, Any]:
    def link(rel: str, start: int) -> dict[str, str]:
        query = f"q=criteria&start={start}" + (f"&domain={domain}" if domain else "")
        return {"type": "application/json", "rel": rel, "href": f"{prefix}{SNAPSHOT_PATH}?{query}"}

    # "next" is on every page, the last one too: only the 404 ends paging (documented rule 1).
    links = ([link("prev", page.start - 1)] if page.has_previous else []) + [link("next", page.start + 1)]
    return {
        "paging": {"start": page.start, "count": page.page_size, "links": links, "total": page.total},
        "elements": [{"snapshotDomain": page.domain, "snapshotData": page.records}],
    }
