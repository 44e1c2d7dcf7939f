"""The public API: every operation of the route table at the seed's path and the real /api paths.

A request goes: bearer key (or the RSS token) -> model.begin (401, trial 403, 429) -> the
operation (400, 404, 403 out of credits) -> the answer with its cost header. Every answer of this
router carries the cost header, errors and unknown routes included (a catch-all route answers
404/405 here instead of the kernel, which knows no service headers).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount, Route

from fakes.kernel.errors import ServiceError
from fakes.kernel.http import bearer_token, dumps, encoded_headers, json_response, parse_query, read_json
from fakes.kernel.limits import BodyTooLarge
from fakes.kernel.verdicts import ClientRule, flag

from .calls import Answer, Call
from .feeds import FeedError
from .llms import llms_full_txt, llms_txt
from .model import EnrichmentModel
from .operations import OPERATIONS, Operation

if TYPE_CHECKING:
    from . import EnrichmentFake

log = logging.getLogger("fakes.enrichment")
ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
MAX_BODY = 1_000_000


def base_of(request: Request) -> str:
    """Scheme, host and mount prefix of this request: links in answers point back at this fake."""
    scope = request.scope
    host = b""
    for name, value in scope["headers"]:
        if name == b"host":
            host = value
            break
    key = (scope.get("scheme", "http"), host, scope.get("root_path", ""))
    known = _BASES.get(key)
    if known is None:
        if len(_BASES) > 1024:
            _BASES.clear()
        known = _BASES[key] = str(request.base_url).rstrip("/")
    return known


_BASES: dict[tuple[str, bytes, str], str] = {}


def service_routes(fake: EnrichmentFake) -> list[BaseRoute]:
    by_path: dict[str, dict[str, tuple[Operation, bool]]] = {}
    for op in OPERATIONS:
        for path in op.paths:
            by_path.setdefault(path, {})[op.method] = (op, path.startswith("/api/"))

    def endpoint_for(methods: dict[str, tuple[Operation, bool]]) -> Callable[[Request], Any]:
        async def endpoint(request: Request) -> Response:
            chosen = methods.get(request.method)
            if chosen is None:
                raise ServiceError(405, f"Method {request.method} is not allowed here.",
                                   headers={fake.settings.cost_header: "0", "Allow": ", ".join(sorted(methods))})
            try:
                return await serve(fake, request, *chosen)
            except ServiceError:
                raise
            except Exception as exc:  # the kernel's safety net, but with the cost header: a bug still says "0"
                log.exception("unexpected error in fake enrichment")
                raise ServiceError(500, f"internal error in the fake: {exc!r}",
                                   headers={fake.settings.cost_header: "0"}) from None
        return endpoint

    routes: list[BaseRoute] = [Route(path, endpoint_for(methods), methods=ALL_METHODS)
                               for path, methods in by_path.items()]

    async def llms(request: Request) -> Response:
        text = llms_full_txt(fake.settings) if request.url.path.endswith("llms-full.txt") else llms_txt(fake.settings)
        return PlainTextResponse(text, headers={fake.settings.cost_header: "0"})

    async def fallback(request: Request) -> Response:
        if request.url.path.endswith("/openapi.json") and request.method == "GET":
            return json_response(fake.openapi(), headers={fake.settings.cost_header: "0"})
        raise ServiceError(404, f"No such resource: {request.method} {request.url.path}.",
                           headers={fake.settings.cost_header: "0"})

    routes += [Route("/llms.txt", llms, methods=["GET"]), Route("/llms-full.txt", llms, methods=["GET"]),
               Mount("/mcp", app=fake.mcp_app()),
               Route("/{anything:path}", fallback, methods=ALL_METHODS)]
    return routes


async def serve(fake: EnrichmentFake, request: Request, op: Operation, real: bool) -> Response:
    model: EnrichmentModel = fake.model  # read per request: reset/import replace it
    flags: list[tuple[ClientRule, str]] = []
    try:
        params = dict(parse_query(request).items())  # a plain dict: QueryParams.get costs a microsecond a call
        account = rss_account(model, op, request) if op.name == "feed_rss" else None
        call = model.begin(op.name, bearer_token(request), account, flags)
        body = await read_body(model, call, request) if op.body else None
        if fake.settings.latency_s:
            await simulate_latency(fake, op)
        answer = model.lookups.run(call, params, base=base_of(request), real=real, body=body,
                                   path_params=request.path_params)
    finally:
        for rule, detail in flags:
            flag(request, rule, detail)
    return render(answer, call)


class RawResponse(Response):
    """A response whose header list is built here in one pass (Starlette's init_headers re-lowers and
    re-scans every header; this is the hot path of every call)."""

    def __init__(self, body: bytes, status: int, headers: dict[str, str], media_type: str) -> None:
        self.status_code = status
        self.body = body
        self.background = None
        raw = encoded_headers(headers)  # the few names and values every answer repeats, encoded once
        raw.append((b"content-length", str(len(body)).encode()))
        raw.append((b"content-type", (media_type + "; charset=utf-8" if media_type.startswith("text/")
                                      else media_type).encode()))
        self.raw_headers = raw


def render(answer: Answer, call: Call) -> Response:
    body = answer.body
    if isinstance(body, str):
        body = body.encode()
    elif not isinstance(body, bytes):
        body = dumps(body)
    return RawResponse(body, answer.status, call.headers, answer.media_type)


def rss_account(model: EnrichmentModel, op: Operation, request: Request) -> Any:
    """The RSS document needs no key: the feed's token (or a public feed) lets the reader in."""
    feed_id = request.path_params.get("feed_id", "")
    feed = model.feeds.feeds.get(feed_id)
    header = {model.settings.cost_header: "0"}
    if feed is None:
        raise ServiceError(404, "Feed not found.", headers=header)
    if not feed.is_public and request.query_params.get("token") != feed.token:
        raise ServiceError(401, "This feed is private: pass its token (see rss_url).", headers=header)
    return model.ledger.accounts[feed.owner]


async def read_body(model: EnrichmentModel, call: Call, request: Request) -> Any:
    raw_length = request.headers.get("content-length", "0")
    if raw_length.isdigit() and int(raw_length) > MAX_BODY:
        raise model.error(call, 413, "The request body is too large.")
    try:
        return await read_json(request)
    except BodyTooLarge as err:  # the kernel's body cap (fakes/kernel/limits.py): still a 413
        refusal = model.error(call, 413, err.message)
        refusal.headers["Connection"] = "close"
        raise refusal from None
    except ServiceError as err:
        raise model.error(call, 400, err.message) from None


async def simulate_latency(fake: EnrichmentFake, op: Operation) -> None:
    seconds = fake.settings.latency_s.get(op.name)
    if not seconds:
        return
    seconds = min(float(seconds), float(op.timeout_s))  # never past the documented read timeout
    clock = fake.clock
    if clock.mode != "manual":
        await asyncio.sleep(seconds / clock.rate)
    elif fake.settings.latency_in_manual_clock == "advance":
        clock.advance(seconds)
    elif fake.settings.latency_in_manual_clock == "sleep":
        await asyncio.sleep(seconds)


__all__ = ["FeedError", "service_routes"]
