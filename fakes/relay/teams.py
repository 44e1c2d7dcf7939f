"""Teams: prepaid balance in integer micro-USD with holds, registered tools, stored secrets,
tokens, the ledger, and the credential ladder (own tool, then stored secret, then the relay's key);
and their members (:class:`Membership`: a user of :mod:`fakes.relay.accounts.people` in a team, with
a role and the token that IS that pairing; treg ``src/treg/models.py`` ``Membership``). A team holds
its memberships in its account data and each names its team, so both live here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fakes.kernel.clock import MAX_EPOCH_MS, iso_ms
from fakes.kernel.statecheck import StateReader

from .accounts.orgdata import OrgData
from .accounts.people import User
from .ledger import FIELDS, LEDGER_ROWS, MAX_AMOUNT, Ledger, LedgerRow
from .records import Who

OWN_TOOL, SECRET, RELAY_KEY = "own_tool", "secret", "relay_key"
#: a provider whose rung-1 tool is chosen per call (several tools on its host, a path-scoped base URL,
#: a project scope): the full pipeline resolves it (fakes/relay/accounts/keys.py)
RESOLVE = "\0resolve"
_NO_HOLD = (0, "")


@dataclass
class Team:
    team_id: str
    name: str
    token: str  # the token of its first member (the owner); every member's token reaches the same balance
    balance_micro: int
    #: rung 1 and rung 2 of the ladder, provider -> key, derived from the team's tools and secrets
    #: (fakes/relay/accounts/keys.py refresh_ladder); a rung-1 value RESOLVE means "chosen per call"
    tools: dict[str, str] = field(default_factory=dict)
    secrets: dict[str, str] = field(default_factory=dict)
    holds: dict[str, tuple[int, str]] = field(default_factory=dict)  # call_id -> (amount_micro, endpoint_id)
    holds_micro: int = 0
    #: the last LEDGER_ROWS movements, oldest first (dicts, with the time formatted, are built when read)
    ledger: Ledger = field(default_factory=Ledger)
    #: False: the simulated providers neither count nor limit this team's calls (the benchmark's team,
    #: which calls one provider thousands of times at one virtual instant); other teams keep the limit
    upstream_rate_limited: bool = True
    #: its account data: slug, members, policy, credentials, billing (fakes/relay/accounts/orgdata.py)
    org: OrgData[Membership] = field(default_factory=OrgData)
    #: False while a team rule may refuse, reroute or rename a call (then no call is answered from a plan)
    plannable: bool = True

    @property
    def number(self) -> int:
        """The org id treg's routes name (``team_7`` is org 7)."""
        return int(self.team_id.rpartition("_")[2])

    @property
    def available_micro(self) -> int:
        return self.balance_micro - self.holds_micro

    def credential_for(self, provider: str) -> tuple[str, str | None]:
        """The seed's ladder, first match wins: (kind, the key injected upstream or None for the relay's)."""
        if provider in self.tools:
            return OWN_TOOL, self.tools[provider]
        if provider in self.secrets:
            return SECRET, self.secrets[provider]
        return RELAY_KEY, None

    def hold(self, call_id: str, amount: int, endpoint_id: str) -> None:
        self.holds[call_id] = (amount, endpoint_id)
        self.holds_micro += amount

    def ledger_rows(self) -> list[dict[str, Any]]:
        """The ledger as dicts (``at``, ``epoch_ms``, ``kind``, ``call_id``, ``endpoint_id``,
        ``amount_micro``, ``balance_micro``), oldest first."""
        return _with_at(self.ledger.dicts())

    def newest_ledger_rows(self, offset: int, limit: int) -> list[dict[str, Any]]:
        """``ledger_rows()`` newest first, ``limit`` of them after the ``offset`` newest (only those made)."""
        return _with_at(self.ledger.newest(offset, limit))

    def ledger_rows_of(self, call_id: str) -> list[dict[str, Any]]:
        """The rows of ``ledger_rows()`` of one call id, oldest first (only those made)."""
        return _with_at(self.ledger.of_call(call_id))

    def settle(self, call_id: str, charged: int, at_ms: int, endpoint_id: str) -> None:
        """Release the call's hold and take ``charged`` (never more than the hold)."""
        held = self.holds.pop(call_id, _NO_HOLD)[0]
        self.holds_micro -= held
        charged = min(charged, held)
        if charged > 0:
            self.balance_micro -= charged
            self.ledger.add(at_ms, "call", call_id, endpoint_id, -charged, self.balance_micro)

    def debit(self, call_id: str, charged: int, at_ms: int, endpoint_id: str) -> None:
        """Take ``charged`` for a call answered without a hold (nothing could run in between)."""
        self.balance_micro -= charged
        self.ledger.add(at_ms, "call", call_id, endpoint_id, -charged, self.balance_micro)

    def grant(self, at_ms: int) -> None:
        self.ledger.add(at_ms, "grant", None, None, self.balance_micro, self.balance_micro)

    def topup(self, amount: int, at_ms: int) -> None:
        if not 0 < amount < MAX_AMOUNT - self.balance_micro:  # refused before anything changes
            raise ValueError(f"a top-up is a positive amount that keeps the balance under {MAX_AMOUNT} micro-USD")
        self.balance_micro += amount
        self.ledger.add(at_ms, "topup", None, None, amount, self.balance_micro)

    def summary(self) -> dict[str, Any]:
        return {"team_id": self.team_id, "team_name": self.name, "balance_micro": self.balance_micro,
                "holds_micro": self.holds_micro, "balance_usd": round(self.balance_micro / 1_000_000, 6),
                "tools": sorted(self.tools), "secrets": sorted(self.secrets)}

    def to_state(self) -> dict[str, Any]:
        return {"team_id": self.team_id, "name": self.name, "token": self.token, "balance_micro": self.balance_micro,
                "ledger": self.ledger.dicts(), "org": self.org.to_state(),
                **({} if self.upstream_rate_limited else {"upstream_rate_limited": False})}

    @classmethod
    def from_state(cls, read: StateReader) -> Team:
        """A team as :meth:`to_state` exports it, each field checked (a 400 naming the field); its
        ``org`` is read by the accounts' state reader."""
        read.only(("team_id", "name", "token", "balance_micro", "ledger", "upstream_rate_limited", "org"))
        team_id = read.text("team_id", min_length=6, max_length=30, pattern=r"team_[1-9][0-9]{0,17}")
        team = cls(team_id=team_id, name=read.text("name", min_length=1, max_length=500),
                   token=read.text("token", min_length=1, max_length=500),
                   balance_micro=read.integer("balance_micro", minimum=0, maximum=MAX_AMOUNT - 1))
        if read.has("ledger"):
            for row in read.objects("ledger", max_items=LEDGER_ROWS):
                team.ledger.add(*_ledger_row(row))
        if read.has("upstream_rate_limited"):
            team.upstream_rate_limited = read.boolean("upstream_rate_limited")
        return team


@dataclass(slots=True, eq=False)
class Membership:
    """A user in a team: role, token and the per-member controls (treg models.py ``Membership``)."""

    user: User
    team: Team
    role: str
    token: str
    created_ms: int
    created_by: str = ""
    daily_call_cap: int = -1  # calls a day (calls, local and server runs); -1 = unlimited
    tool_access: list[str] | None = None  # None = every tool; else the only tool (and skill) names allowed
    project_access: list[int] | None = None  # None = the whole team; else the only project ids
    local_run_enabled: bool = True
    pinned_tags: dict[str, str] | None = None  # an agent pinned to one tag value (X-Treg-Meta cannot override)
    promoted_from: str = ""  # "member-email|runtime" of the observed agent this one replaced
    #: the (e-mail, client, tags, method) its plain GET calls record, shared by all of them
    who: Who = field(init=False)
    #: True when nothing per member can refuse its calls (no cap, no access lists, no pinned tags):
    #: then a repeated call may be answered from its plan (fakes/relay/plans.py)
    plain: bool = field(init=False)

    def __post_init__(self) -> None:
        self.who = (self.user.email, "", None, "GET")
        self.changed()

    def changed(self) -> None:
        self.plain = (self.daily_call_cap < 0 and self.tool_access is None and self.project_access is None
                      and not self.pinned_tags)

    @property
    def email(self) -> str:
        return self.user.email

    def to_state(self) -> dict[str, Any]:
        return {"user_id": self.user.user_id, "team_id": self.team.team_id, "role": self.role, "token": self.token,
                "created_ms": self.created_ms, "created_by": self.created_by, "daily_call_cap": self.daily_call_cap,
                "tool_access": self.tool_access, "project_access": self.project_access,
                "local_run_enabled": self.local_run_enabled, "pinned_tags": self.pinned_tags,
                "promoted_from": self.promoted_from}


def _ledger_row(read: StateReader) -> LedgerRow:
    read.only(FIELDS)
    kind = read.text("kind", min_length=1, max_length=40) if read.has("kind") else "call"
    call_id = read.text("call_id", max_length=200, nullable=True) if read.has("call_id") else None
    endpoint_id = read.text("endpoint_id", max_length=500, nullable=True) if read.has("endpoint_id") else None
    amount = read.integer("amount_micro", minimum=-MAX_AMOUNT + 1, maximum=MAX_AMOUNT - 1)
    balance = read.integer("balance_micro", minimum=-MAX_AMOUNT + 1, maximum=MAX_AMOUNT - 1) \
        if read.has("balance_micro") else 0
    return read.integer("epoch_ms", minimum=0, maximum=MAX_EPOCH_MS), kind, call_id, endpoint_id, amount, balance


def micro_amount(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < MAX_AMOUNT:
        raise ValueError(f"expected a non-negative integer of micro-USD under {MAX_AMOUNT}, got {value!r}")
    return value


def _with_at(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Ledger rows with ``at``, their instant in ISO 8601, first."""
    return [{"at": iso_ms(row["epoch_ms"]), **row} for row in rows]
