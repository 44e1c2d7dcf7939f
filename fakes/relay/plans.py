"""Planned calls: a repeated catalogue call answered with the least work.

Clients repeat their calls (an agent enriching leads, a test suite, the benchmark). What a
GET ``/call/<catalogue id>?<query>`` resolves to cannot change while the catalogue does not:
its entry, provider, price and estimate, and the simulated provider's answer with what it would
cost on the relay's key. The first call through the full pipeline leaves that as a :class:`Plan`;
later identical calls answered at once use it and still apply every rule that depends on state
(the token's team, the credential ladder, the balance, saturation, the provider's rate limit).
Whenever one of those would refuse, or anything needs more than an instant answer (a registered
or slow upstream, an idempotency key, a pending Retry-After), the call takes the full pipeline,
which words the refusal; a plan never answers differently from it (tested call by call).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fakes.kernel.clock import Clock

from . import billing
from .catalogue import Entry
from .ledger import shared_pair
from .overlay import CatalogueOverlay
from .records import CallRecords
from .saturation import Saturation
from .settings import RelaySettings
from .teams import OWN_TOOL, RELAY_KEY, RESOLVE, SECRET, Membership, Team
from .upstreams import Handler, SimulatedUpstream

MAX_PLANS = 4096
MAX_PLANNED_QUERY = 1024
#: a planned call's answer: (status, the provider's content type and rate-limit headers, the call id,
#: what it cost on the relay's key (None: the team's own tool or secret served it), body); the
#: headers in this order are :meth:`PlannedCalls.planned_headers`, a route encodes them itself
Planned = tuple[int, tuple[tuple[str, str], ...], str, "int | None", bytes]


@dataclass(slots=True, frozen=True)
class Plan:
    endpoint_id: str
    provider: str
    priced: bool  # the entry has a published price (else the relay's key refuses it)
    estimated: int  # micro-USD held against the balance (the 402 check)
    status: int
    body: bytes
    hit: bool  # counted as a success in the statistics
    relay_cost: int  # micro-USD it costs on the relay's key
    ledger_pair: tuple[str, str | None]  # its ledger rows' shared (kind, endpoint)


class PlannedCalls(CatalogueOverlay):
    """The planned part of the relay's call pipeline (the model sets these attributes)."""

    clock: Clock
    settings: RelaySettings
    teams: dict[str, Team]
    by_token: dict[str, Membership]
    calls: CallRecords
    stats: dict[str, list[int]]
    saturation: Saturation
    simulated: SimulatedUpstream
    upstreams: dict[str, Handler]
    not_before_ms: dict[str, int]
    call_seq: int

    def next_call_id(self) -> str:
        self.call_seq += 1
        return f"{self.calls.id_prefix}{self.call_seq:010x}"

    def remember_plan(self, target: str, query: str, params: dict[str, str], entry: Entry, status: int, body: bytes,
                      parsed: Any, miss: bool) -> None:
        """Keep what a GET of ``target`` with ``query`` (a catalogue id, not routed, answered by the
        simulated provider's plain answer) resolved to, whichever credential served it."""
        if len(query) > MAX_PLANNED_QUERY:
            return
        if len(self._plans) >= MAX_PLANS:
            self._plans.clear()
        price = entry["cost"]
        estimated = billing.estimate(price, params)  # on the relay's key (an own credential held nothing)
        cost = min(billing.charge(price, status, parsed, estimated, miss), estimated) if price is not None else 0
        self._plans[(target, query)] = Plan(entry["id"], entry["provider"], price is not None, estimated, status,
                                            body, not miss and status < 400, cost, shared_pair("call", entry["id"]))

    def call_planned(self, target: str, query: str, token: str | None) -> Planned | None:
        """The answer (:data:`Planned`) to a GET of ``target`` with ``query`` (no body, no idempotency
        key) from its plan, or None when the full pipeline must answer it (nothing changed then: not
        even a call id was taken)."""
        plan = self._plans.get((target, query))
        if plan is None or self.not_before_ms:
            return None
        member = self.by_token.get(token) if token else None
        # a member with a cap, access lists or pinned tags, or a team with a rule that may refuse,
        # reroute or rename the call (deny rules, pins, budgets, a spend ceiling, a tool named like the
        # catalogue id): the full pipeline answers
        if member is None or not member.plain or not member.team.plannable:
            return None
        return self.answer_planned(member, plan)

    def planned_headers(self, limits: tuple[tuple[str, str], ...], call_id: str, cost: int | None
                        ) -> list[tuple[str, str]]:
        """The headers of a planned answer, in order (the full pipeline's for the same call)."""
        headers = [*limits, (self.h.call_id, call_id)]
        if cost is not None:
            headers.append((self.h.cost, str(cost)))
        return headers

    def answer_planned(self, member: Membership, plan: Plan) -> Planned | None:
        provider = plan.provider
        if provider in self.upstreams or (self.settings.upstream_latency_ms and self.clock.mode != "manual"):
            return None
        team = member.team
        own = team.tools.get(provider)
        if own is not None:
            if own == RESOLVE:
                return None  # rung 1 is chosen per call
            credential = OWN_TOOL
        else:
            credential = SECRET if provider in team.secrets else RELAY_KEY
        cost = 0
        if credential == RELAY_KEY:
            if not plan.priced or plan.estimated > team.balance_micro - team.holds_micro:
                return None  # the 404 of an unpriced entry, or the 402
            cost = plan.relay_cost
        now = self.clock.now_ms()
        simulated = self.simulated
        calls = simulated.window(provider, credential, now)
        limited = team.upstream_rate_limited
        if (limited and calls > simulated.rate_limit) or self.saturation.admit_instant(now) is not None:
            return None  # the provider's 429, or the relay's 503
        if limited:
            simulated.count(provider, credential, now, calls)
        self.call_seq = seq = self.call_seq + 1
        call_id = f"{self.calls.id_prefix}{seq:010x}"
        endpoint_id = plan.endpoint_id
        if cost:  # Team.debit, inlined: the charge is at most the estimate, which the balance covers
            team.balance_micro -= cost
            team.ledger.put(now, plan.ledger_pair, call_id, -cost, team.balance_micro)
        stat = self.stats.get(endpoint_id)
        if stat is None:
            stat = self.stats[endpoint_id] = [0, 0]
        stat[0] += 1
        if plan.hit:
            stat[1] += 1
        self.calls.put(seq, endpoint_id, provider, credential, team.team_id, plan.status, cost, now, member.who)
        return (plan.status, simulated.limit_headers(calls, now), call_id, cost if credential == RELAY_KEY else None,
                plan.body)
