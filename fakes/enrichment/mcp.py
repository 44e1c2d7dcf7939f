"""The MCP surface: a real MCP server over server-sent events at ``/mcp/sse`` (official ``mcp`` SDK 2.x).

The key comes in the query parameter ``api_key`` of the request that opens the stream (missing or
unknown: 401 before the stream opens). The SDK's client then POSTs each message to
``/mcp/messages/?session_id=<hex>`` *without* the key, so the gate below reads the session id the
server announces in the stream's first event and binds the key to it; tools look it up from the
POST they answer. Each tool runs the same model pipeline as its REST operation: same credits,
same rate limits, and a journal entry (``MCP /mcp/tools/<name>``).

Cost: the SDK (over a second to import) and the server with its tool schemas (about 120 ms) are
built once per process, on the first /mcp request of any fake (:mod:`.mcp_tools`); a fake that is
never asked for MCP pays nothing. Each fake keeps its own SSE transport, sessions and keys.
"""

from __future__ import annotations

import logging
import re

from starlette._utils import get_route_path
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fakes.kernel.http import json_response

from .mcp_context import GATE_KEY, ToolHost

log = logging.getLogger("fakes.enrichment")
SESSION_ID = re.compile(rb"session_id=([0-9a-f]{32})")


class McpGate:
    """In front of the SDK's SSE app: checks the key, binds it to the session, adds the cost header."""

    def __init__(self, fake: ToolHost) -> None:
        self.fake = fake
        self._inner: ASGIApp | None = None
        self.sessions: dict[str, str] = {}   # session id (hex) -> api key

    @property
    def inner(self) -> ASGIApp:
        """The SDK's SSE app of this fake, made on first use over the process-wide server."""
        if self._inner is None:
            from .mcp_tools import sse_app  # imports the SDK and builds the tools once per process

            self._inner = sse_app(self)
        return self._inner

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope = {**scope, GATE_KEY: self}
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

        answered: list[bool] = []  # the refusal's body went out whole

        async def send_watching(message: Message) -> None:
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                answered.append(True)
            await send_binding(message)

        try:
            await self.inner(scope, receive, send_watching)
        except ValueError:
            # the SDK refuses a Host or Origin it does not allow by answering (421, 403) and then
            # raising: the client has its whole answer, which is what the journal records
            if not answered:
                raise
            log.debug("MCP stream refused by the SDK's transport security")
        finally:
            for session in bound:
                self.sessions.pop(session, None)


__all__ = ["GATE_KEY", "McpGate"]
