"""What the relay's routes need of the fake (or world) a request reached.

Routes are built once per process and shared by every fake and world; the kernel puts the one a
request reached in its scope (``app``). The routes, pages, connector and account routes read it as
:class:`ServedRelay`, never as :class:`fakes.relay.RelayFake`, which imports them: the package
reads bottom-up. Its settings and model are read per request (reset and import replace the model).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from starlette.requests import Request

from .model import RelayModel
from .settings import RelaySettings

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer


class ServedRelay(Protocol):
    """The fake serving a request: its settings, its model and its JSON rendering."""

    settings: RelaySettings
    model: RelayModel

    def render(self, body: Any) -> bytes: ...


class ConnectorHost(ServedRelay, Protocol):
    """The fake behind the connector (:mod:`fakes.relay.mcp`): it keeps the MCP server built on its
    first connector request."""

    mcp_server: MCPServer | None


def fake_of(request: Request) -> ServedRelay:
    """The fake (or world) this request reached: the kernel puts it in the scope. Routes are built
    once per process and shared by every fake and world (a world then costs no routes of its own)."""
    fake: ServedRelay = request.scope["app"]
    return fake
