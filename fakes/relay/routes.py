"""The relay's HTTP surface: the web firewall, ``/call/``, the catalogue, balance and call
records, the plain-text indexes, ``/install.sh`` and the MCP connector at ``/mcp/v2/``.

Parse -> model -> the relay's own bodies. Every answer under ``/call/`` carries the call-id header,
except the firewall's 403, which comes from in front of the relay and carries no relay header.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

from starlette._utils import get_route_path
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route

from fakes.kernel.errors import ServiceError
from fakes.kernel.http import JSONBytesResponse, json_response, named_header, parse_query, query_int
from fakes.kernel.routing import claim_methods
from fakes.kernel.verdicts import flag

from . import asyncjobs, pages, rules
from .accounts import billing as accounts_billing
from .accounts import http as accounts_http
from .accounts import routes_auth, routes_keys, routes_more, routes_orgs
from .accounts.http import decode_body
from .calls import CallInput, CallOutput
from .headers import Headers
from .mcp import MCP_APP
from .served import ServedRelay, fake_of
from .teams import Team

_SQL = re.compile(rb"\b(select\s[^;]{0,200}?\sfrom\s|insert\s+into\s|update\s+\w+\s+set\s|delete\s+from\s|"
                  rb"drop\s+(table|database)\s|union(\s+all)?\s+select\s)", re.IGNORECASE)
_HTML = re.compile(rb"<\s*(!doctype|html|head|body|script|iframe|img|svg|style|form|div|span|a|p|table|object)\b",
                   re.IGNORECASE)
FIREWALL_PAGE = (b"<!DOCTYPE html>\n<html><head><title>403 Forbidden</title></head><body>\n"
                 b"<h1>403 Forbidden</h1>\n<p>Request blocked by the web application firewall: the request body "
                 b"looks like SQL or HTML.</p>\n<p>Sending a query or markup on purpose? Encode the body in base64 "
                 b"and declare it with the body-encoding header.</p>\n</body></html>\n")


def blocked_by_firewall(body: bytes) -> bool:
    return bool(body) and bool(_SQL.search(body) or _HTML.search(body))


class RawResponse(Response):
    """Status, headers and body exactly as given (an upstream's answer, verbatim); skips Response's
    header setup, which the hot path does not need."""

    def __init__(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
        self.status_code = status
        self.body = body
        self.background = None
        names = _NAME_BYTES
        raw = [(b"content-length", str(len(body)).encode())]
        for k, v in headers:
            name = names.get(k)
            if name is None:
                name = k.lower().encode("latin-1")
                if len(names) < 1024:  # the few names the relay and its upstreams use, encoded once
                    names[k] = name
            raw.append((name, v.encode("latin-1")))
        self.raw_headers = raw


_NAME_BYTES: dict[str, bytes] = {}


raw_response = RawResponse


def planned_response(names: Headers, status: int, limits: tuple[tuple[str, str], ...], call_id: str,
                     cost: int | None, body: bytes) -> Response:
    """:class:`RawResponse` of a planned answer (fakes/relay/plans.py): the same header list, its
    parts that repeat (the provider's content type and rate-limit headers, the length, the cost)
    encoded once each; only the call id is new."""
    encoded = _ENCODED_HEADERS.get(limits)
    if encoded is None:
        encoded = tuple((name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in limits)
        _keep(_ENCODED_HEADERS, limits, encoded)
    response = RawResponse.__new__(RawResponse)
    response.status_code = status
    response.body = body
    response.background = None
    raw = [(b"content-length", _digits(len(body))), *encoded, (names.call_id_b, call_id.encode("latin-1"))]
    if cost is not None:
        raw.append((names.cost_b, _digits(cost)))
    response.raw_headers = raw
    return response


def _digits(number: int) -> bytes:
    digits = _DIGITS.get(number)
    if digits is None:
        digits = str(number).encode()
        _keep(_DIGITS, number, digits)
    return digits


def _keep(table: dict[Any, Any], key: Any, value: Any) -> None:
    if len(table) >= 4096:  # a few lengths, costs and rate-limit states: bounded all the same
        table.clear()
    table[key] = value


#: rate-limit header tuples (by value) -> their encoded pairs; numbers -> their digits
_ENCODED_HEADERS: dict[tuple[tuple[str, str], ...], tuple[tuple[bytes, bytes], ...]] = {}
_DIGITS: dict[int, bytes] = {}


#: request headers that keep a GET off the planned path (and the relay's body-encoding header)
_NOT_PLANNED = frozenset({b"content-length", b"transfer-encoding", b"idempotency-key"})
#: treg's /call/ answers every method (the kernel answers HEAD as GET without the body)
CALL_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


def _has_body(method: str, headers: Mapping[bytes, bytes]) -> bool:
    """Whether a request may carry a body (a GET without length or chunking carries none)."""
    return method != "GET" or b"content-length" in headers or b"transfer-encoding" in headers


def team_of(request: Request) -> Team:
    fake = fake_of(request)
    h = fake.model.h
    team = fake.model.team_for_token(named_header(request, h.token) or _bearer(request))
    if team is None:
        raise ServiceError(401, f"missing or unknown {h.token}", code="unauthorized")
    return team


async def call(request: Request) -> Response:
    scope = request.scope
    fake: ServedRelay = scope["app"]
    names = fake.model.h
    if scope["method"] == "GET":  # a repeated call may be answered from its plan (fakes/relay/plans.py)
        token = None
        prefix = names.lower_prefix_b
        for name, value in scope["headers"]:
            if name == names.token_b:
                token = value
            elif name in _NOT_PLANNED or name.startswith(prefix):
                break  # a body, an idempotency key or another relay header (org, tags, route): the full pipeline
        else:
            answer = fake.model.call_planned(scope["path_params"]["target"],
                                             scope["query_string"].decode("latin-1"),
                                             token.decode("latin-1") if token is not None else None)
            if answer is not None:
                return planned_response(names, *answer)
    headers = dict(scope["headers"])
    raw = await request.body() if _has_body(scope["method"], headers) else b""
    encoding_raw = headers.get(names.body_encoding_b)
    encoding = encoding_raw.decode("latin-1") if encoding_raw is not None else None
    if blocked_by_firewall(raw):
        flag(request, rules.UNENCODED_SQL_OR_HTML, f"{len(raw)}-byte body without {names.body_encoding}: base64")
        if fake.settings.firewall:
            return raw_response(403, [("content-type", "text/html; charset=utf-8")], FIREWALL_PAGE)
    body = raw
    if encoding is not None:
        try:
            body = decode_body(raw, encoding)
        except ValueError as exc:
            call_id = fake.model.next_call_id()
            return raw_response(400, [("content-type", "application/json"), (names.call_id, call_id),
                                      (names.error, "1")],
                                fake.render({"detail": f"invalid {names.body_encoding} body",  # treg's, exactly
                                             "error": "invalid_body_encoding",
                                             "reason": f"{exc} (base64, gzip or base64+gzip, and a body that "
                                                       "decodes)"}))
    query_string = scope["query_string"]
    params = dict(parse_query(request).items())  # the kernel parses each query string once
    token = headers.get(names.token_b)
    key = headers.get(b"idempotency-key")
    output: CallOutput = await fake.model.call(CallInput(
        method=scope["method"], target=scope["path_params"]["target"],
        query=query_string.decode("latin-1"), params=params, headers=scope["headers"],
        body=body, token=_token(request, token), idempotency_key=key.decode("latin-1") if key is not None else None,
        decoded=encoding is not None, try_plan=False))
    for rule, detail in output.flags:
        flag(request, rule, detail)
    return raw_response(output.status, output.headers, output.body)


async def search(request: Request) -> Response:
    query = parse_query(request)
    limit = query_int(request, "limit", 25, minimum=1, maximum=100)
    assert limit is not None
    model, words = fake_of(request).model, query.get("q", "")
    return JSONBytesResponse(model.rendered(("search", words, limit), lambda: model.search(words, limit)))


async def endpoint(request: Request) -> Response:
    model = fake_of(request).model
    entry_id = request.path_params["entry_id"]
    detail = model.endpoint_detail(entry_id)
    if detail is None:
        raise ServiceError(404, f"no catalogue entry {entry_id!r}", code="unknown_endpoint",
                           did_you_mean=[r["id"] for r in model.search(entry_id, 3)["results"]])
    return JSONBytesResponse(model.rendered(("detail", entry_id), lambda: detail))


async def access(request: Request) -> Response:
    model = fake_of(request).model
    entry_id = request.path_params["entry_id"]
    team = model.team_for_token(named_header(request, model.h.token) or _bearer(request))
    answer = model.access(entry_id, team)
    if answer is None:
        raise ServiceError(404, f"no catalogue entry {entry_id!r}", code="unknown_endpoint")
    return json_response(answer)


async def platforms(request: Request) -> Response:
    model = fake_of(request).model
    return JSONBytesResponse(model.rendered(("platforms",), lambda: {"platforms": model.platforms()}))


async def balance(request: Request) -> Response:
    fake = fake_of(request)
    team = accounts_http.member(request).team
    asyncjobs.settle_due(fake.model, team)
    accounts_billing.settle_due(fake.model.accounts, team)
    return json_response(team.summary())


async def platform(request: Request) -> Response:
    """One provider's entries grouped by capability (treg ``catalog_platform``: 404 for no such one)."""
    model = fake_of(request).model
    slug = request.path_params["slug"]
    hidden = request.query_params.get("include_hidden", "0")
    if hidden not in ("0", "1"):
        raise accounts_http.invalid(["query", "include_hidden"], "Input should be a valid integer", "int_parsing")
    found = model.platform(slug)
    if found is None:
        raise ServiceError(404, f"unknown platform {slug!r}", code="not_found")
    return JSONBytesResponse(model.rendered(("platform", slug), lambda: found))


async def text_page(request: Request) -> Response:
    return pages.render(fake_of(request), get_route_path(request.scope))


@functools.cache
def routes() -> list[BaseRoute]:
    """The relay's routes, built once per process and shared by every fake and world. A method a
    path does not take is a 405 naming those it does (treg's FastAPI would let ``DELETE
    /connections/token`` reach ``DELETE /connections/{secret_id}``, a 422: the document's path owns it)."""
    return claim_methods([
        Route("/call/{target:path}", call, methods=list(CALL_METHODS)),
        Route("/catalog/search", search, methods=["GET"]),
        Route("/catalog/endpoints/{entry_id}/access", access, methods=["GET"]),
        Route("/catalog/endpoints/{entry_id:path}", endpoint, methods=["GET"]),
        Route("/catalog/platforms", platforms, methods=["GET"]),
        Route("/catalog/platforms/{slug}", platform, methods=["GET"]),
        Route("/balance", balance, methods=["GET"]),
        *[Route(path, text_page, methods=["GET"]) for path in pages.PATHS],
        *accounts_http.body_first([*routes_auth.ROUTES, *routes_orgs.ROUTES, *routes_keys.ROUTES,
                                   *routes_more.ROUTES]),
        Route("/tools/{provider}", text_page, methods=["GET"]),
        Mount("/mcp/v2", app=MCP_APP),
        Mount("/mcp", app=MCP_APP),
    ])


def _token(request: Request, raw: bytes | None) -> str | None:
    """The call's token: the token header, else a bearer token (treg reads both)."""
    if raw is not None:
        return raw.decode("latin-1")
    return _bearer(request)


def _bearer(request: Request) -> str | None:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def _org_number(team: Team) -> int:
    return int(team.team_id.rpartition("_")[2])


def _org_row(team: Team) -> dict[str, Any]:
    return {"org_id": _org_number(team), "slug": team.team_id.replace("_", "-"), "name": team.name, "role": "owner",
            "active": True}
