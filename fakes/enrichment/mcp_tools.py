"""The MCP server's tools, built once per process (imported by :mod:`.mcp` on the first /mcp request).

The server holds no per-fake state: each tool finds the fake (or world) it answers for and the
session's key through the gate that the POST came through (``scope[GATE_KEY]``), so every fake
shares the 15 tool schemas while its sessions, keys, model and journal stay its own. The SDK takes
over a second to import, which is why the service imports this module only when MCP is used.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.types import ASGIApp

from fakes.kernel.errors import ServiceError
from fakes.kernel.verdicts import ClientRule

from .data import normalize_website
from .mcp_context import GATE_KEY, ToolGate


def build_server() -> MCPServer[Any]:
    """The server and its 15 tools. Turning a tool's signature into its pydantic argument model and
    JSON schema is most of the cost (about 8 ms a tool): done once per process, not per fake."""
    # the SDK configures the root logger (basicConfig, INFO) when a server is made: a library must not
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    server: MCPServer[Any] = MCPServer(
        "enrichment", instructions="Company and person enrichment: the same operations, credits and rate "
                                   "limits as the REST API. Feed tools manage monitoring feeds.", log_level="WARNING")
    root.handlers[:] = handlers
    root.setLevel(level)

    def invoke(ctx: Context[Any], tool: str, op_name: str, params: dict[str, Any], body: Any = None,
               path_params: dict[str, str] | None = None) -> dict[str, Any]:
        request = ctx.request_context.request
        scope = request.scope if isinstance(request, Request) else {}
        gate: ToolGate | None = scope.get(GATE_KEY)  # the fake (or world) whose /mcp answers this POST
        if gate is None:
            raise ToolError(json.dumps({"status": 500, "error": "the tool was called outside an MCP request"}))
        fake = gate.fake
        session = Request(scope).query_params.get("session_id", "")
        api_key = gate.sessions.get(session)
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

    return server


def transport_security(hosts: list[str]) -> TransportSecuritySettings:
    if "*" in hosts:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    origins = [f"{scheme}://{host}" for host in hosts for scheme in ("http", "https")]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=list(hosts),
                                     allowed_origins=origins)


def sse_app(gate: ToolGate) -> ASGIApp:
    """The SSE transport of one fake (its sessions and Host check are its own) over the shared server."""
    return SERVER.sse_app(sse_path="/sse", message_path="/messages/",
                          transport_security=transport_security(gate.fake.settings.mcp_allowed_hosts))


SERVER = build_server()



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


__all__ = ["SERVER", "sse_app"]
