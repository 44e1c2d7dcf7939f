"""The public API: every operation of the route table at the seed's path and the real /api paths.

A request goes: bearer key (or the RSS token) -> model.begin (401, trial 403, 429) -> the
operation (400, 404, 403 out of credits) -> the answer with its cost header. Every answer of this
router carries the cost header, errors and unknown routes included (a catch-all route answers
404/405 here instead of the kernel, which knows no service headers).
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from fakes.kernel.clock import Clock
from fakes.kernel.errors import ServiceError
from fakes.kernel.exchange import answer_send
from fakes.kernel.http import base_url, bearer_token, dumps, encoded_header_list, json_response, parse_query, read_json
from fakes.kernel.limits import BodyTooLarge
from fakes.kernel.verdicts import VERDICTS_KEY, ClientRule

from .calls import Call
from .feeds import FeedError
from .llms import llms_full_txt, llms_txt
from .model import EnrichmentModel
from .operations import OPERATIONS, Operation
from .settings import EnrichmentSettings

log = logging.getLogger("fakes.enrichment")
ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
MAX_BODY = 1_000_000


class ServedFake(Protocol):
    """What the routes need of the fake they serve (read per request: reset and import replace the model)."""

    settings: EnrichmentSettings
    clock: Clock
    model: EnrichmentModel

    def openapi(self) -> dict[str, Any]: ...

    def mcp_app(self) -> ASGIApp: ...


#: the route table, built once per process: exact paths, then paths with ids
#: (path -> method -> (operation, whether the path is a real /api one, the path itself))
Methods = dict[str, tuple[Operation, bool, str]]
EXACT: dict[str, Methods] = {}
WITH_IDS: list[tuple[re.Pattern[str], Methods]] = []


def _route_table() -> None:
    by_path: dict[str, Methods] = {}
    for op in OPERATIONS:
        for path in op.paths:
            by_path.setdefault(path, {})[op.method] = (op, path.startswith("/api/"), path)
    for path, methods in by_path.items():
        if "{" in path:
            WITH_IDS.append((re.compile(re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", path)), methods))
        else:
            EXACT[path] = methods


_route_table()


def service_routes(fake: ServedFake) -> list[BaseRoute]:
    """One route for the whole service: a world costs one route object, not one per path (each
    Starlette route holds its own converters, formats and names); the table above is shared. The
    route is the same object for every fake and world of the same retired paths (its endpoint
    finds the fake serving it in ``scope["app"]``), so a new world builds none."""
    retired = tuple(fake.settings.retired_paths)  # settings are fixed for the fake's life
    found = _SHARED_ROUTES.get(retired)
    if found is None:
        if len(_SHARED_ROUTES) >= 16:
            _SHARED_ROUTES.clear()
        route = Route("/{anything:path}", ServiceEndpoint(retired), methods=ALL_METHODS)
        route.path_regex = re.compile(route.path_regex.pattern, re.DOTALL)  # ids may hold any character, "\n" too
        found = _SHARED_ROUTES[retired] = [route]
    return list(found)


#: retired paths -> the service's one route for fakes of those settings
_SHARED_ROUTES: dict[tuple[str, ...], list[BaseRoute]] = {}


class ServiceEndpoint:
    """The service's ASGI endpoint: finds the operation of a path and serves it; ``/llms.txt``,
    ``/openapi.json`` and the MCP endpoints below ``/mcp`` beside."""

    def __init__(self, retired: tuple[str, ...]) -> None:
        self.retired = frozenset(path for path in retired if not path.endswith("*"))
        self.retired_prefixes = tuple(path[:-1] for path in retired if path.endswith("*"))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        fake: ServedFake = scope["app"]  # the fake or world serving the request
        path = "/" + scope["path_params"]["anything"]
        methods = EXACT.get(path)
        path_params: dict[str, str] = {}
        if methods is None:
            for pattern, candidate in WITH_IDS:
                match = pattern.fullmatch(path)
                if match:
                    methods, path_params = candidate, match.groupdict()
                    break
        # the prefix test inline: the default settings retire one prefix, tested on every request
        if (self.retired_prefixes and path.startswith(self.retired_prefixes)) or \
                (self.retired and self.is_retired(path, methods)):
            raise ServiceError(410, "This API is retired (deprecated); use the current API's paths.",
                               headers={fake.settings.cost_header: "0"})
        if methods is None:
            await self.other(scope, receive, send, path)
            return
        chosen = methods.get(scope["method"])
        if chosen is None:
            raise ServiceError(405, f"Method {scope['method']} is not allowed here.",
                               headers={fake.settings.cost_header: "0", "Allow": ", ".join(sorted(methods))})
        try:
            await serve(fake, scope, receive, send, *chosen, path_params)
        except ServiceError:
            raise
        except Exception as exc:  # the kernel's safety net, but with the cost header: a bug still says "0"
            log.exception("unexpected error in fake enrichment")
            raise ServiceError(500, f"internal error in the fake: {exc!r}",
                               headers={fake.settings.cost_header: "0"}) from None

    def is_retired(self, path: str, methods: Methods | None) -> bool:
        """Whether the path (or the route-table path it matched) is one of the setting retired_paths."""
        if path.startswith(self.retired_prefixes) or path in self.retired:
            return True
        return methods is not None and next(iter(methods.values()))[2] in self.retired

    async def other(self, scope: Scope, receive: Receive, send: Send, path: str) -> None:
        fake: ServedFake = scope["app"]
        header = {fake.settings.cost_header: "0"}
        if path == "/mcp" or path.startswith("/mcp/"):  # as a Starlette Mount("/mcp") would hand it on
            root = scope.get("root_path", "")
            inner = {**scope, "path_params": {}, "app_root_path": scope.get("app_root_path", root),
                     "root_path": root + "/mcp"}
            await fake.mcp_app()(inner, receive, send)
            return
        method = scope["method"]
        if path in ("/llms.txt", "/llms-full.txt", "/openapi.json") and method != "GET":
            raise ServiceError(405, f"Method {method} is not allowed here.", headers={**header, "Allow": "GET"})
        if path == "/openapi.json":
            response: Response = json_response(fake.openapi(), headers=header)
        elif path in ("/llms.txt", "/llms-full.txt"):
            text = llms_full_txt(fake.settings) if path == "/llms-full.txt" else llms_txt(fake.settings)
            response = PlainTextResponse(text, headers=header)
        else:
            raise ServiceError(404, f"No such resource: {method} {path}.", headers=header)
        await response(scope, receive, send)


async def serve(fake: ServedFake, scope: Scope, receive: Receive, send: Send, op: Operation, real: bool,
                route_path: str, path_params: dict[str, str]) -> None:
    """Answer one request of ``op``. The hot path of every call: a Starlette Request only where one
    is read (a body, the feed's token, a query or host not seen lately), the answer's two messages
    sent here (what Starlette's Response would send)."""
    model: EnrichmentModel = fake.model  # read per request: reset/import replace it
    # the rules the request breaks go straight to the kernel's list (the journal's warnings)
    flags: list[tuple[ClientRule, str]] | None = scope.get(VERDICTS_KEY)
    request = None
    if op.name == "feed_rss":
        request = Request(scope, receive, send)
        account = rss_account(model, path_params.get("feed_id", ""), request)
    else:
        account = None
    call = model.begin(op.name, bearer_token(scope), account, flags)
    call.route_path = route_path
    body = None
    if op.body:
        request = request or Request(scope, receive, send)
        body = await read_body(model, call, request)
    if fake.settings.latency_s:
        await simulate_latency(fake, op)
    # the same query of the same operation parses to the same values (400s are not remembered)
    query: bytes = scope["query_string"]
    parsed = _PARSED.get((op.name, query))
    if parsed is None:
        request = request or Request(scope, receive, send)
        # a plain dict: QueryParams.get costs a microsecond a call
        parsed = model.lookups.parse(call, dict(parse_query(request).items()))
        if len(query) <= MAX_PARSED_QUERY:
            if len(_PARSED) >= MAX_PARSED:
                _PARSED.clear()
            _PARSED[(op.name, query)] = parsed
    answer = model.lookups.answer(call, parsed, base=base_url(scope), real=real, body=body, path_params=path_params)
    raw = answer.body
    if raw.__class__ is not bytes:  # most answers are bytes already (kept rendered): render() inlined
        raw = raw.encode() if isinstance(raw, str) else raw if isinstance(raw, bytes) else dumps(raw)
    headers = encoded_header_list(answer.media_type, len(raw), call.headers)
    if op.streamed:
        await StreamedResponse.send(send, answer.status, headers, raw)
        return
    send = answer_send(send, answer.status, headers, raw)  # recorded for the journal at once
    await send({"type": "http.response.start", "status": answer.status, "headers": headers})
    await send({"type": "http.response.body", "body": raw})


#: (operation, query string) -> its parsed parameters, read only (the operations never change them;
#: the parameters' rules are the same for every fake): at most MAX_PARSED, of queries of at most
#: MAX_PARSED_QUERY bytes
_PARSED: dict[tuple[str, bytes], dict[str, Any]] = {}
MAX_PARSED = 4096
MAX_PARSED_QUERY = 512


class StreamedResponse:
    """A rendered answer sent as a stream: its headers (the cost header among them, worked out by the
    model before anything is sent) without a ``Content-Length``, then the body in chunks (a server
    sends it chunked), as the real service streams funding and similar people."""

    @staticmethod
    async def send(send: Send, status: int, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
        headers = [pair for pair in headers if pair[0] != b"content-length"]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        for start in range(0, len(body), STREAM_CHUNK):
            await send({"type": "http.response.body", "body": body[start:start + STREAM_CHUNK], "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


#: bytes per message of a streamed answer (a few messages for the usual answer: each is a send)
STREAM_CHUNK = 4096


def rss_account(model: EnrichmentModel, feed_id: str, request: Request) -> Any:
    """The RSS document needs no key: the feed's token (or a public feed) lets the reader in."""
    feed = model.feeds.feeds.get(feed_id)
    header = {model.settings.cost_header: "0"}
    if feed is None:
        raise ServiceError(404, "Feed not found.", headers=header)
    if not feed.is_public and request.query_params.get("token") != feed.token:
        raise ServiceError(401, "This feed is private: pass its token (see rss_url).", headers=header)
    return model.ledger.accounts[feed.owner]


async def read_body(model: EnrichmentModel, call: Call, request: Request) -> Any:
    raw_length = request.headers.get("content-length", "0")
    if raw_length.isdigit() and (len(raw_length) > 18 or int(raw_length) > MAX_BODY):
        raise model.error(call, 413, "The request body is too large.")
    try:
        return await read_json(request)
    except BodyTooLarge as err:  # the kernel's body cap (fakes/kernel/limits.py): still a 413
        refusal = model.error(call, 413, err.message)
        refusal.headers["Connection"] = "close"
        raise refusal from None
    except ServiceError as err:
        raise model.error(call, 400, err.message) from None


async def simulate_latency(fake: ServedFake, op: Operation) -> None:
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
