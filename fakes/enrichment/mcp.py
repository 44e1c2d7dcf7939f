"""The MCP surface: a real MCP server over server-sent events at ``/mcp/sse`` (official ``mcp`` SDK 2.x).

The key comes in the query parameter ``api_key`` of the request that opens the stream (missing or
unknown: 401 before the stream opens). The SDK's client then POSTs each message to
``/mcp/messages/?session_id=<hex>`` *without* the key, so the gate below reads the session id the
server announces in the stream's first event and binds the key to it; tools look it up from the
POST they answer. Each tool runs the same model pipeline as its REST operation: same credits,
same rate limits, and a journal entry (``MCP /mcp/tools/<name>``).
"""

from __future__ import annotations

import json
import logging
import re
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from starlette._utils import get_route_path
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fakes.kernel.errors import ServiceError
from fakes.kernel.http import json_response
from fakes.kernel.verdicts import ClientRule

if TYPE_CHECKING:
    from . import EnrichmentFake

SESSION_ID = re.compile(rb"session_id=([0-9a-f]{32})")


def transport_security(hosts: list[str]) -> TransportSecuritySettings:
    if "*" in hosts:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    origins = [f"{scheme}://{host}" for host in hosts for scheme in ("http", "https")]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=list(hosts),
                                     allowed_origins=origins)


class McpGate:
    """In front of the SDK's SSE app: checks the key, binds it to the session, adds the cost header."""

    def __init__(self, fake: EnrichmentFake, inner: ASGIApp) -> None:
        self.fake = fake
        self.inner = inner
        self.sessions: dict[str, str] = {}   # session id (hex) -> api key

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        header = (self.fake.settings.cost_header.lower().encode(), b"0")

        async def send_with_cost(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), header]}
            await send(message)

        if scope["type"] != "http" or get_route_path(scope).rstrip("/") != "/sse":
            await self.inner(scope, receive, send_with_cost)
            return
        api_key = Request(scope).query_params.get("api_key")
        model = self.fake.model
        account = model.ledger.accounts.get(api_key or "")
        if account is None or model.ledger.trial_expired(account, model.clock.now_ms()):
            status, text = ((401, "Invalid API Key: pass it as the api_key query parameter.") if account is None
                            else (403, "Your trial has ended; buy a credit pack to keep using this key."))
            await json_response({"error": text}, status, {self.fake.settings.cost_header: "0"})(scope, receive, send)
            return
        bound: list[str] = []

        async def send_binding(message: Message) -> None:
            if not bound and message["type"] == "http.response.body":
                found = SESSION_ID.search(message.get("body", b""))
                if found:
                    session = found.group(1).decode()
                    self.sessions[session] = str(api_key)
                    bound.append(session)
            await send_with_cost(message)

        try:
            await self.inner(scope, receive, send_binding)
        finally:
            for session in bound:
                self.sessions.pop(session, None)


def build_mcp(fake: EnrichmentFake) -> McpGate:
    # the SDK configures the root logger (basicConfig, INFO) when a server is made: a library must not
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    server: MCPServer[Any] = MCPServer(
        "enrichment", instructions="Company and person enrichment: the same operations, credits and rate "
                                   "limits as the REST API. Feed tools manage monitoring feeds.", log_level="WARNING")
    root.handlers[:] = handlers
    root.setLevel(level)
    gate_box: list[McpGate] = []

    def invoke(ctx: Context[Any], tool: str, op_name: str, params: dict[str, Any], body: Any = None,
               path_params: dict[str, str] | None = None) -> dict[str, Any]:
        request = ctx.request_context.request
        scope = request.scope if isinstance(request, Request) else {}
        session = Request(scope).query_params.get("session_id", "") if scope else ""
        api_key = gate_box[0].sessions.get(session)
        model = fake.model
        flags: list[tuple[ClientRule, str]] = []
        status = 200
        at_ms = model.clock.now_ms()
        text = {k: ("true" if v is True else "false" if v is False else str(v))
                for k, v in params.items() if v is not None}
        try:
            call = model.begin(op_name, api_key, None, flags)
            answer = model.lookups.run(call, text, base=_base(scope), real=False, body=body, path_params=path_params)
            status = answer.status
            if tool == "consume_feed":
                return model.lookups.consume(call, (path_params or {}).get("feed_id", ""))
            if isinstance(answer.body, bytes) and answer.media_type == "application/json":
                loaded: dict[str, Any] = json.loads(answer.body)
                return {**loaded, "credit_cost": call.headers[fake.settings.cost_header]}
            if isinstance(answer.body, dict):
                return {**answer.body, "credit_cost": call.headers[fake.settings.cost_header]}
            return {"credit_cost": call.headers[fake.settings.cost_header]}
        except ServiceError as err:
            status = err.status
            raise ToolError(json.dumps({"status": err.status, "error": err.message,
                                        "credit_cost": err.headers.get(fake.settings.cost_header, "0"),
                                        **({"retry_after": err.headers["Retry-After"]}
                                           if "Retry-After" in err.headers else {})})) from None
        finally:
            query = json.dumps(params, separators=(",", ":"), default=str)
            entry = {"method": "MCP", "path": f"/mcp/tools/{tool}", "query": query, "status": status,
                     "epoch_ms": at_ms, "warnings": []}
            fake.journal.record(entry)
            for rule, detail in flags:
                fake.verdict_log.record(rule, detail, {k: entry[k] for k in ("method", "path", "query", "status",
                                                                               "epoch_ms")})

    @server.tool(description="Company details: metadata, leadership, financials (3 credits, up to 6 with flags).")
    def get_company_details(ctx: Context[Any], website: str, include_employee_count: bool | None = None,
                            follower_count: str | None = None, addresses: str | None = None,
                            use_cache: str | None = None) -> dict[str, Any]:
        return invoke(ctx, "get_company_details", "company_details", {
            "website": website, "include_employee_count": include_employee_count, "follower_count": follower_count,
            "addresses": addresses, "use_cache": use_cache})

    @server.tool(description="Customers, investors and partners of a company (1 credit + 2 per company).")
    def get_customer_listing(ctx: Context[Any], website: str, cursor: str | None = None,
                             page_size: int | None = None, quality_filter: bool | None = None,
                             use_cache: str | None = None) -> dict[str, Any]:
        return invoke(ctx, "get_customer_listing", "customer_listing", {
            "website": website, "cursor": cursor, "page_size": page_size, "quality_filter": quality_filter,
            "use_cache": use_cache})

    @server.tool(description="Estimated headcount of a company (2 credits).")
    def get_employee_count(ctx: Context[Any], website: str, use_cache: str | None = None) -> dict[str, Any]:
        return invoke(ctx, "get_employee_count", "employee_count", {"website": website, "use_cache": use_cache})

    @server.tool(description="Whether an email address is disposable or a free provider's (free).")
    def check_disposable_email(ctx: Context[Any], email: str) -> dict[str, Any]:
        return invoke(ctx, "check_disposable_email", "disposable_email", {"email": email})

    @server.tool(description="Remaining credits (free).")
    def get_credit_balance(ctx: Context[Any]) -> dict[str, Any]:
        return invoke(ctx, "get_credit_balance", "credit_balance", {})

    @server.tool(description="URL of the company's 128x128 PNG logo (free).")
    def get_company_logo_url(ctx: Context[Any], website: str) -> dict[str, Any]:
        invoke(ctx, "get_company_logo_url", "company_logo", {"website": website})
        from .data import normalize_website

        request = ctx.request_context.request
        return {"logo_url": f"{_base(request.scope if request is not None else None)}/v1/company/logo?website="
                            f"{normalize_website(website)}", "credit_cost": "0"}

    @server.tool(description="Your monitoring feeds.")
    def list_feeds(ctx: Context[Any]) -> dict[str, Any]:
        return invoke(ctx, "list_feeds", "list_feeds", {})

    @server.tool(description="Create a monitoring feed (3 credits). targets: [{website_url, settings?}]; settings: "
                             "monitor_blog, monitor_x, monitor_website, monitor_youtube, frequency_days (1-30).")
    def create_feed(ctx: Context[Any], targets: list[dict[str, Any]], name: str | None = None,
                    is_public: bool | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"targets": targets}
        if name is not None:
            body["name"] = name
        if is_public is not None:
            body["is_public"] = is_public
        return invoke(ctx, "create_feed", "create_feed", {}, body)

    @server.tool(description="One feed with its targets.")
    def describe_feed(ctx: Context[Any], feed_id: str) -> dict[str, Any]:
        return invoke(ctx, "describe_feed", "get_feed", {}, None, {"feed_id": feed_id})

    @server.tool(description="Rename, publish, suspend (suspension_reason=manual) or resume a feed.")
    def update_feed(ctx: Context[Any], feed_id: str, name: str | None = None, is_public: bool | None = None,
                    is_suspended: bool | None = None, suspension_reason: str | None = None) -> dict[str, Any]:
        body = {k: v for k, v in {"name": name, "is_public": is_public, "is_suspended": is_suspended,
                                  "suspension_reason": suspension_reason}.items() if v is not None}
        return invoke(ctx, "update_feed", "update_feed", {}, body, {"feed_id": feed_id})

    @server.tool(description="Delete a feed.")
    def delete_feed(ctx: Context[Any], feed_id: str) -> dict[str, Any]:
        return invoke(ctx, "delete_feed", "delete_feed", {}, None, {"feed_id": feed_id})

    @server.tool(description="Add a company to a feed; settings as in create_feed.")
    def add_target(ctx: Context[Any], feed_id: str, website_url: str,
                   settings: dict[str, Any] | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"website_url": website_url}
        if settings is not None:
            body["settings"] = settings
        return invoke(ctx, "add_target", "add_target", {}, body, {"feed_id": feed_id})

    @server.tool(description="Change a target's settings.")
    def update_target(ctx: Context[Any], feed_id: str, target_id: str, settings: dict[str, Any]) -> dict[str, Any]:
        return invoke(ctx, "update_target", "update_target", {}, {"settings": settings},
                      {"feed_id": feed_id, "target_id": target_id})

    @server.tool(description="Remove a target from a feed.")
    def remove_target(ctx: Context[Any], feed_id: str, target_id: str) -> dict[str, Any]:
        return invoke(ctx, "remove_target", "remove_target", {}, None, {"feed_id": feed_id, "target_id": target_id})

    @server.tool(description="The feed's items that are new since the last consume_feed call (each item once).")
    def consume_feed(ctx: Context[Any], feed_id: str) -> dict[str, Any]:
        return invoke(ctx, "consume_feed", "get_feed", {}, None, {"feed_id": feed_id})

    inner = server.sse_app(sse_path="/sse", message_path="/messages/",
                           transport_security=transport_security(fake.settings.mcp_allowed_hosts))
    gate = McpGate(fake, inner)
    gate_box.append(gate)
    return gate


def _base(scope: Any) -> str:
    """The fake's base URL seen from inside the /mcp mount."""
    if not scope:
        return ""
    request = Request(scope)
    root = str(scope.get("root_path", ""))
    mounted = root.rfind("/mcp")  # the SDK's own mount adds /messages below ours
    if mounted >= 0:
        root = root[:mounted]
    host = request.headers.get("host", "testserver")
    return f"{request.url.scheme}://{host}{root}"


__all__ = ["McpGate", "build_mcp"]
