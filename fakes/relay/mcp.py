"""The connector at ``/mcp/v2/``: a real MCP server (official ``mcp`` 2.x SDK) over streamable HTTP,
stateless with JSON answers, as the real relay serves it.

Tools: ``catalog_search``, ``catalog_get`` and ``balance`` (read-only), and ``call`` (metered like
``/call/``, idempotency key supported). Only curated catalogue entries are exposed; reads are
separated from writes: ``call`` runs a write endpoint only with ``write=true``.
The token comes from the token header or ``Authorization: Bearer``.

The SDK's session manager needs a running task group (``run()``), normally entered by the parent
app's lifespan. The kernel runs no sub-app lifespan and the in-process transport none at all, so
each MCP request runs its own stateless manager: ``run()`` then ``handle_request`` (stateless mode
keeps nothing between requests, so nothing is lost, and no task group outlives its event loop).
"""

# No `from __future__ import annotations` here: the SDK reads the tools' annotations (Context
# injection, input schemas) and the SDK is imported lazily (it takes over a second to import),
# so the annotations must be real objects at definition time.

import weakref
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.types import Message, Receive, Scope, Send

from fakes.kernel.errors import ServiceError
from fakes.kernel.http import bearer_token, dumps, json_response, parse_json

from .callio import CallInput
from .served import ConnectorHost
from .teams import Team

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer


def build_server(fake: ConnectorHost) -> "MCPServer":
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.server.mcpserver.exceptions import ToolError as McpError
    from mcp.types import ToolAnnotations

    _READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
    _CALL = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=True)
    server: MCPServer = MCPServer(name="relay", log_level="WARNING",
                                  instructions="Catalogue search and metered calls of the relay.")

    def team_of(ctx: Context) -> Team:
        request = ctx.request_context.request
        headers = getattr(request, "headers", None)
        token = None
        if headers is not None:
            token = headers.get(fake.model.h.token)
            scheme, _, bearer = headers.get("authorization", "").partition(" ")
            if token is None and scheme.lower() == "bearer":
                token = bearer.strip()
        team = fake.model.team_for_token(token)
        if team is None:
            raise McpError(f"missing or unknown token: send {fake.model.h.token} or Authorization: Bearer")
        return team

    def curated(endpoint_id: str) -> dict[str, Any]:
        entry = fake.model.entry(endpoint_id)
        if entry is None or not entry["curated"]:
            raise McpError(f"{endpoint_id!r} is not a connector endpoint; catalog_search lists them")
        return entry

    @server.tool(annotations=_READ)
    def catalog_search(query: str, limit: int = 8) -> dict[str, Any]:
        """Search the connector's curated catalogue endpoints."""
        found = fake.model.search(query, 1_000)
        results = [r for r in found["results"] if r["curated"]][:max(1, min(limit, 100))]
        return {"query": query, "count": len(results), "results": results, "hints": found["hints"]}

    @server.tool(annotations=_READ)
    def catalog_get(endpoint_id: str) -> dict[str, Any]:
        """One curated endpoint: price, parameters, call template and example response."""
        curated(endpoint_id)
        detail = fake.model.endpoint_detail(endpoint_id)
        assert detail is not None
        return detail

    @server.tool(annotations=_READ)
    def balance(ctx: Context) -> dict[str, Any]:
        """The team's prepaid balance in micro-USD (and USD)."""
        team = team_of(ctx)
        summary = team.summary()
        return {"team": team.team_id, "team_name": team.name, "balance_micro": summary["balance_micro"],
                "balance_usd": summary["balance_usd"], "holds_micro": summary["holds_micro"]}

    @server.tool(annotations=_CALL)
    async def call(endpoint_id: str, ctx: Context, params: dict[str, str | int | float | bool] | None = None,
                   body: str | dict[str, Any] | list[Any] | None = None, idempotency_key: str | None = None,
                   write: bool = False) -> dict[str, Any]:
        """Call a curated endpoint, metered like /call/. Write endpoints need write=true. ``body`` is
        sent as given: a string verbatim, an object or array as JSON."""
        team = team_of(ctx)
        entry = curated(endpoint_id)
        if entry["scope"] == "write" and not write:
            raise McpError(f"{endpoint_id} writes: pass write=true to run it (reads and writes are separated)")
        values = {k: _param_text(v) for k, v in (params or {}).items()}
        query = urlencode(values)  # one query string per parameter set, as over HTTP
        raw = body.encode() if isinstance(body, str) else b"" if body is None else dumps(body)
        sent = [] if body is None or isinstance(body, str) else [(b"content-type", b"application/json")]
        output = await fake.model.call(CallInput(
            method=entry["method"], target=endpoint_id, query=query, params=values,
            headers=sent, body=raw, token=team.token, idempotency_key=idempotency_key))
        headers = dict(output.headers)
        result: dict[str, Any] = {"status": output.status, "endpoint_id": endpoint_id, "body": output.json()}
        cost = headers.get(fake.model.h.cost)
        if cost is not None:
            result["cost_usd"] = int(cost) / 1_000_000
            result["cost_micro"] = int(cost)
        if headers.get(fake.model.h.replay) == "true":
            result["replayed"] = True
        if isinstance(result["body"], dict) and fake.model.h.error in headers:
            result["body"].pop("topup_url", None)  # as the real connector does
            result["hint"] = "the relay refused the call; see body.detail"
        return result

    return server


class McpApp:
    """ASGI app of the connector: one stateless session manager per request (see the module doc).
    One app serves every fake and world (the fake is the scope's ``app``); each fake builds its own
    MCP server on its first connector request."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        fake: ConnectorHost = scope["app"]
        request = Request(scope, receive)
        h = fake.model.h
        if scope["method"] != "POST":
            if scope["method"] not in ("GET", "HEAD"):
                await json_response({"detail": "the connector takes POST (JSON-RPC) and GET (this description)",
                                     "error": "method_not_allowed"}, 405, {"Allow": "GET, POST"})(scope, receive, send)
                return
            await json_response({"name": "relay", "transport": "streamable-http", "stateless": True,
                                 "auth": f"{h.token} header or Authorization: Bearer <token>",
                                 "tools": ["catalog_search", "catalog_get", "call", "balance"]})(scope, receive, send)
            return
        token = request.headers.get(h.token) or bearer_token(request)
        if fake.model.team_for_token(token) is None:
            await json_response({"detail": f"missing or unknown token: send {h.token} or Authorization: Bearer",
                                 "error": "unauthorized"}, 401, {"WWW-Authenticate": "Bearer"})(scope, receive, send)
            return
        body = await request.body()
        problem = _jsonrpc_problem(body)
        if problem:
            await json_response({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": problem}},
                                400)(scope, receive, send)
            return
        receive = _replay_body(body)
        if "application/json" not in request.headers.get("accept", ""):
            # the SDK insists on Accept: application/json; a client that sends */* is served anyway
            scope = {**scope, "headers": [(k, v) for k, v in scope["headers"] if k != b"accept"]
                     + [(b"accept", b"application/json, text/event-stream")]}
        from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
        from mcp.server.transport_security import TransportSecuritySettings

        if fake.mcp_server is None:
            fake.mcp_server = build_server(fake)
        server = fake.mcp_server
        if _is_initialize(body):
            # the SDK's own answer to these very bytes, asked with the same Accept (see _INITIALIZED)
            greeting = (request.headers.get("accept", "").encode("latin-1"), body)
            kept = _INITIALIZED.setdefault(server, {}).get(greeting)
            if kept is not None:
                for message in kept:
                    await send(message)
                return
            send = _Keeper(send, server, greeting)
        manager = StreamableHTTPSessionManager(app=server._lowlevel_server, json_response=True, stateless=True,
                                               security_settings=TransportSecuritySettings(
                                                   enable_dns_rebinding_protection=False))
        async with manager.run():
            await manager.handle_request(scope, receive, send)


#: server -> (Accept, initialize request body) -> the ASGI messages the SDK answered it with. A stateless
#: session's answer to ``initialize`` depends on the request's bytes alone (the protocol version
#: asked for, the id), and every client opens with it: running the SDK's session for it cost
#: 2-3 ms of CPU. Other methods always run the SDK. Bounded per server.
_INITIALIZED: weakref.WeakKeyDictionary[Any, dict[tuple[bytes, bytes], list[Message]]] = weakref.WeakKeyDictionary()
MAX_KEPT_GREETINGS = 32


def _is_initialize(raw: bytes) -> bool:
    return len(raw) <= 4096 and b'"initialize"' in raw and parse_json(raw).get("method") == "initialize"


class _Keeper:
    """Hands the SDK's messages on and keeps them if the answer was a whole 200."""

    def __init__(self, send: Send, server: Any, greeting: tuple[bytes, bytes]) -> None:
        self.send, self.server, self.greeting = send, server, greeting
        self.messages: list[Message] = []

    async def __call__(self, message: Message) -> None:
        self.messages.append(message)
        await self.send(message)
        whole = message["type"] == "http.response.body" and not message.get("more_body")
        if whole and self.messages[0].get("status") == 200:
            kept = _INITIALIZED.setdefault(self.server, {})
            if len(kept) >= MAX_KEPT_GREETINGS:
                kept.clear()
            kept[self.greeting] = list(self.messages)


MCP_APP = McpApp()


def _param_text(value: object) -> str:
    """A parameter as its query-string text (JSON's true/false for booleans)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _jsonrpc_problem(raw: bytes) -> str:
    """Why a body is not one JSON-RPC 2.0 message the connector takes ("" when it is one)."""
    try:  # the kernel's reader: no lone surrogates, NaN/Infinity or runaway nesting reach the SDK
        message = parse_json(raw)
    except ServiceError as exc:
        return exc.message
    if not isinstance(message, dict):
        return "the body must be one JSON-RPC message (an object; batches are not supported)"
    if set(message) - {"jsonrpc", "id", "method", "params", "result", "error"}:
        return "unknown member(s) in the JSON-RPC message"
    if message.get("jsonrpc") != "2.0":
        return 'jsonrpc must be "2.0"'
    if "id" in message and (isinstance(message["id"], bool) or not isinstance(message["id"], (int, str))):
        return "id must be an integer or a string"
    if "method" in message and not isinstance(message["method"], str):
        return "method must be a string"
    if "params" in message and not isinstance(message["params"], dict):
        return "params must be an object"
    return ""


def _replay_body(body: bytes) -> Receive:
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive
