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

**Bounded.** The SDK answers each POSTed message ``202 Accepted`` at once and holds its answer
until the stream carries it; a client that posts without reading its stream made the fake hold
every answer (about 23 KiB for a ``tools/list``: 12,000 of them took 450 MB). The gate counts each
session's requests whose answer has not gone out on its stream yet; past
:data:`MAX_PENDING` a message is refused with 429 before the SDK sees it, and a session's count
goes with the session when its stream closes (the SDK frees its answers then too).
"""

from __future__ import annotations

import logging
import re

import orjson
from starlette._utils import get_route_path
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fakes.kernel.http import json_response

from .mcp_context import GATE_KEY, ToolHost

log = logging.getLogger("fakes.enrichment")
SESSION_ID = re.compile(rb"session_id=([0-9a-f]{32})")
#: requests of one session whose answers may wait for its stream (a client reading its stream
#: never comes near; one that does not read it is refused past this)
MAX_PENDING = 32
MESSAGE_EVENT = b"event: message"


class McpGate:
    """In front of the SDK's SSE app: checks the key, binds it to the session, adds the cost header."""

    def __init__(self, fake: ToolHost) -> None:
        self.fake = fake
        self._inner: ASGIApp | None = None
        self.sessions: dict[str, str] = {}   # session id (hex) -> api key
        self.pending: dict[str, int] = {}    # session id -> requests whose answer has not gone out

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

        if scope["type"] == "http" and scope["method"] == "POST":
            await self._message(scope, receive, send_with_cost)
            return
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
            answers = 0
            if message["type"] == "http.response.body":
                body = message.get("body", b"")
                if not bound:
                    found = SESSION_ID.search(body)
                    if found:
                        session = found.group(1).decode()
                        self.sessions[session] = str(api_key)
                        self.pending[session] = 0
                        bound.append(session)
                else:
                    answers = body.count(MESSAGE_EVENT)
            await send_with_cost(message)  # waits while the client does not read (flow control)
            if answers and bound[0] in self.pending:  # gone out: they no longer wait in the fake
                self.pending[bound[0]] = max(0, self.pending[bound[0]] - answers)

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
                self.pending.pop(session, None)

    async def _message(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A POSTed message of a session: refused past :data:`MAX_PENDING` waiting answers, else
        handed to the SDK and counted (by its requests) once the SDK has accepted it."""
        session = Request(scope).query_params.get("session_id", "")
        waiting = self.pending.get(session)
        if waiting is not None and waiting >= MAX_PENDING:
            await json_response({"error": f"this session has {waiting} answers its event stream has not taken yet: "
                                          "read the stream (GET /mcp/sse) before sending more"}, 429,
                                {"Retry-After": "1", self.fake.settings.cost_header: "0"})(scope, receive, send)
            return
        chunks: list[bytes] = []
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client left before its message ended
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        replayed = [False]

        async def replay() -> Message:
            if not replayed[0]:
                replayed[0] = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        async def send_counting(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 202 and session in self.pending:
                self.pending[session] += _requests_in(body)
            await send(message)

        await self.inner(scope, replay, send_counting)


def _requests_in(body: bytes) -> int:
    """JSON-RPC requests (a method and an id: they get an answer) in a message body."""
    try:
        parsed = orjson.loads(body)
    except orjson.JSONDecodeError:
        return 0
    items = parsed if isinstance(parsed, list) else [parsed]
    return sum(1 for item in items if isinstance(item, dict) and "method" in item and "id" in item)


__all__ = ["GATE_KEY", "McpGate"]
