"""What the shared MCP tools need of the fake a message came through, and where they find it.

The tools (:mod:`.mcp_tools`, built once per process) hold no fake; the gate in front of each
fake's SSE app (:mod:`.mcp`) puts itself into the request's scope under :data:`GATE_KEY`, and a
tool reads the session's key and the fake from there. Both sides depend on this module only.
"""

from __future__ import annotations

from typing import Protocol

from fakes.kernel.journal import Journal
from fakes.kernel.verdicts import Verdicts

from .model import EnrichmentModel
from .settings import EnrichmentSettings

GATE_KEY = "fakes.enrichment.mcp_gate"  # the scope entry through which the shared tools find their fake


class ToolHost(Protocol):
    """The fake (or world) a tool answers for: its model, settings, journal and verdicts."""

    settings: EnrichmentSettings
    model: EnrichmentModel
    journal: Journal
    verdict_log: Verdicts


class ToolGate(Protocol):
    """The gate a message came through: its fake and the key bound to each session."""

    @property
    def fake(self) -> ToolHost: ...

    @property
    def sessions(self) -> dict[str, str]: ...
