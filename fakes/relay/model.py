"""The relay's state and rules: the catalogue (shared) plus user additions
(:mod:`fakes.relay.overlay`), teams, the call pipeline (:mod:`fakes.relay.calls`), the
idempotency store, saturation, upstreams, and the exported state. Plain Python, no HTTP types.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakes.kernel.clock import Clock
from fakes.kernel.errors import ControlError

from . import asyncjobs, billing, catalogue, data, state
from .accounts.identity import Accounts
from .accounts.orgdata import CreditBlock
from .accounts.people import User, slugify
from .calls import CallPipeline
from .catalogue import Entry, Provider
from .headers import headers_for
from .plans import Plan
from .records import CallRecords
from .saturation import Saturation
from .settings import RelaySettings
from .teams import Membership, Team, micro_amount
from .upstreamlog import UpstreamLog
from .upstreams import AsgiUpstream, Handler, SimulatedUpstream


class RelayModel(CallPipeline):
    def __init__(self, clock: Clock, settings: RelaySettings, seed: int,
                 world_of: Callable[[], str | None] = lambda: None) -> None:
        self.world_of = world_of
        self.clock = clock
        self.settings = settings
        self.seed = seed
        self.h = headers_for(settings.header_prefix)
        self.base = catalogue.build(seed, settings.providers, settings.endpoints, settings.relay_name,
                                    settings.upstream_rate_limit, settings.trial_allowance)
        self.extra_providers: dict[str, Provider] = {}
        self.extra_entries: dict[str, Entry] = {}
        self.extra_routes: dict[tuple[str, str, str], str] = {}
        #: catalogue id -> (entry, provider, path, routed, required parameters); emptied when entries change
        self._targets: dict[str, tuple[Entry, str, str, bool, tuple[str, ...]]] = {}
        self.teams: dict[str, Team] = {}
        self.by_token: dict[str, Membership] = {}  # every member's token -> its membership (and team)
        self.calls = CallRecords(f"call_{data.token_text(seed, 'calls')[:10]}")
        self._plans: dict[tuple[str, str], Plan] = {}  # (catalogue id, query) -> plan of a repeated call
        self.stats: dict[str, list[int]] = {}  # entry id -> [calls answered, hits]
        self.idempotency = billing.IdempotencyStore()
        self.saturation = Saturation(settings.max_in_flight, settings.max_per_second, settings.retry_after_s)
        self.simulated = SimulatedUpstream(seed, settings.hit_rate, settings.upstream_rate_limit)
        self.upstreams: dict[str, Handler] = {}
        self.upstream_log = UpstreamLog(settings.record_upstream_requests)  # what each upstream was sent
        self.upstream_specs: dict[str, dict[str, Any]] = {}  # exportable registrations (canned tables, fakes)
        self.provider_specs: dict[str, dict[str, Any]] = {}  # the bodies providers and entries were added with
        self.entry_specs: dict[str, dict[str, Any]] = {}
        self.call_seq = 0
        self.team_seq = 0
        self.not_before_ms: dict[str, int] = {}  # team -> end of its last 503's Retry-After
        self.billed_posts: dict[str, dict[str, int]] = {}  # team -> fingerprint of a billed keyless POST -> at
        self.tasks: dict[str, asyncjobs.Task] = {}  # asynchronous submissions (fakes/relay/asyncjobs.py)
        self.accounts = Accounts(self)  # users, memberships, logins, invites, checkouts (fakes/relay/accounts/)

    # -- teams -----------------------------------------------------------------------------------
    def create_team(self, balance_micro: int | None = None, name: str | None = None, *,
                    upstream_rate_limited: bool = True, owner: User | None = None, demo: bool = False,
                    sandbox: bool = False) -> Team:
        """A team (treg's org) with its first member, the owner, whose token is the team's token. A
        team made through the control plane gets an owner of its own (``owner@<slug>.example``); a
        demo or sandbox team starts with nothing (treg grants no promotion to those)."""
        if balance_micro is not None:
            balance_micro = micro_amount(balance_micro)  # refused before a team number is taken
        while True:  # an imported team may hold the next number's id or token: skip it
            self.team_seq += 1
            team_id = f"team_{self.team_seq}"
            token = f"{self.settings.relay_name}_{data.token_text(self.seed, 'team', self.team_seq)}"
            if team_id not in self.teams and token not in self.by_token:
                break
        if balance_micro is None:
            balance_micro = 0 if demo or sandbox else self.settings.start_balance_micro
        team = Team(team_id=team_id, name=name or data.team_name(self.seed, self.team_seq), token=token,
                    balance_micro=balance_micro, upstream_rate_limited=upstream_rate_limited)
        slug = self.accounts.unique_slug(slugify(team.name))
        self.teams[team_id] = team
        self.accounts.attach_org(team, owner or self.accounts.user(f"owner@{slug}.example"), slug=slug, demo=demo,
                                 sandbox=sandbox)
        if balance_micro:
            team.grant(self.clock.now_ms())
            team.org.blocks.append(CreditBlock(self.accounts.next("block"), "promo", balance_micro,
                                               self.clock.now_ms()))
        return team

    def team(self, team_id: str) -> Team:
        team = self.teams.get(team_id)
        if team is None:
            raise ControlError(404, f"no team {team_id!r}", code="not_found")
        return team

    def known_provider(self, service: str, *, status: int = 404) -> None:
        """Refuse a provider the catalogue lacks: 404, or ``status`` where the request's own target
        exists (a team's tool: 409, so that a 404 there means the team)."""
        if self.provider(service) is None:
            raise ControlError(status, f"no provider {service!r} in the catalogue (POST /_fake/providers adds one)",
                               code="not_found" if status == 404 else "unknown_provider", field="provider")
    # -- upstreams -------------------------------------------------------------------------------
    def register_upstream(self, provider: str, handler: Handler, spec: dict[str, Any] | None = None) -> None:
        self.known_provider(provider)
        self.upstreams[provider] = handler
        if spec is not None:
            self.upstream_specs[provider] = spec
        else:
            self.upstream_specs.pop(provider, None)
    def record_simulated_upstreams(self, on: bool) -> None:
        """Log the simulated providers' requests too (or stop); planned calls, which send no request,
        are dropped meanwhile."""
        self.upstream_log.simulated = on
        self._plans.clear()

    # -- state (fakes/relay/state.py) --------------------------------------------------------------
    def to_state(self) -> dict[str, Any]:
        return state.export(self)

    def load_state(self, raw: dict[str, Any]) -> None:
        state.load(self, raw)

    @property
    def world_id(self) -> str | None:
        """The world this model serves (None outside worlds), for upstreams found by name."""
        return self.world_of()


def asgi_upstream(app: Any) -> Handler:
    return AsgiUpstream(app)
