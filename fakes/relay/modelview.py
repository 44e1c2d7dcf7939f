"""The relay's model as the modules it is made of see it: small protocols of what they read.

:class:`fakes.relay.model.RelayModel` sits on top: it composes the call pipeline, the accounts,
the asynchronous jobs and the exported state, whose modules each take the model. They annotate it
with these protocols (or extensions of their own: ``asyncjobs.JobsModel``, ``routed.RoutingModel``,
``accounts.identity.AccountsModel``, ``accounts.state.AccountsHolder``, ``state.ExportedModel``),
never with the class that imports them, so the package reads bottom-up; mypy checks that the model
satisfies each where it hands itself over.
"""

from __future__ import annotations

from typing import Any, Protocol

from fakes.kernel.clock import Clock

from .catalogue import Entry, Provider
from .headers import Headers
from .records import CallRecords
from .settings import RelaySettings
from .teams import Membership, Team


class CatalogueLookup(Protocol):
    """The catalogue: the relay's own entries and providers plus the users' (:mod:`fakes.relay.overlay`)."""

    def entry(self, entry_id: str) -> Entry | None: ...

    def provider(self, service: str) -> Provider | None: ...

    def provider_for_host(self, host: str) -> str | None: ...

    def entry_for_route(self, provider: str, method: str, path: str) -> Entry | None: ...

    def search(self, query: str, limit: int) -> dict[str, Any]: ...

    def all_entries(self) -> list[Entry]: ...


class ModelView(CatalogueLookup, Protocol):
    """The catalogue, the clock, the settings and seed, the header names, the teams, every member's
    token and the call records: what the rules a call passes read (:mod:`fakes.relay.callguard`)."""

    clock: Clock
    settings: RelaySettings
    seed: int
    h: Headers
    teams: dict[str, Team]
    by_token: dict[str, Membership]
    calls: CallRecords
