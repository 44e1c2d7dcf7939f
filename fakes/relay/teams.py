"""Teams: prepaid balance in integer micro-USD with holds, registered tools, stored secrets,
tokens, the ledger, and the credential ladder (own tool, then stored secret, then the relay's key).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fakes.kernel.clock import iso_ms

from .ledger import MAX_AMOUNT, Ledger, LedgerRow

OWN_TOOL, SECRET, RELAY_KEY = "own_tool", "secret", "relay_key"
_NO_HOLD = (0, "")


@dataclass
class Team:
    team_id: str
    name: str
    token: str
    balance_micro: int
    tools: dict[str, str] = field(default_factory=dict)    # provider -> the team's own key
    secrets: dict[str, str] = field(default_factory=dict)  # provider -> stored secret
    holds: dict[str, tuple[int, str]] = field(default_factory=dict)  # call_id -> (amount_micro, endpoint_id)
    holds_micro: int = 0
    #: the last LEDGER_ROWS movements, oldest first (dicts, with the time formatted, are built when read)
    ledger: Ledger = field(default_factory=Ledger)
    #: False: the simulated providers neither count nor limit this team's calls (the benchmark's team,
    #: which calls one provider thousands of times at one virtual instant); other teams keep the limit
    upstream_rate_limited: bool = True

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
        return [{"at": iso_ms(row["epoch_ms"]), **row} for row in self.ledger.dicts()]

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
                "tools": dict(self.tools), "secrets": dict(self.secrets),
                "ledger": self.ledger.dicts(),
                **({} if self.upstream_rate_limited else {"upstream_rate_limited": False})}

    @classmethod
    def from_state(cls, raw: dict[str, Any]) -> Team:
        team = cls(team_id=_text(raw["team_id"]), name=_text(raw["name"]), token=_text(raw["token"]),
                   balance_micro=micro_amount(raw["balance_micro"]))
        team.tools = {_text(k): _text(v) for k, v in dict(raw.get("tools", {})).items()}
        team.secrets = {_text(k): _text(v) for k, v in dict(raw.get("secrets", {})).items()}
        for row in raw.get("ledger", []):
            team.ledger.add(*_ledger_row(row))
        limited = raw.get("upstream_rate_limited", True)
        if not isinstance(limited, bool):
            raise ValueError(f"upstream_rate_limited must be true or false, got {limited!r}")
        team.upstream_rate_limited = limited
        return team


def _ledger_row(raw: Any) -> LedgerRow:
    if not isinstance(raw, dict) or not all(isinstance(raw.get(name), int) and not isinstance(raw.get(name), bool)
                                            for name in ("epoch_ms", "amount_micro")):
        raise ValueError("each ledger row needs integer epoch_ms and amount_micro")
    kind, call_id, endpoint_id = raw.get("kind", "call"), raw.get("call_id"), raw.get("endpoint_id")
    if not isinstance(kind, str) or not all(v is None or isinstance(v, str) for v in (call_id, endpoint_id)):
        raise ValueError("a ledger row's kind is a string, its call_id and endpoint_id strings or null")
    balance = raw.get("balance_micro", 0)
    if not isinstance(balance, int) or isinstance(balance, bool):
        raise ValueError("a ledger row's balance_micro is an integer")
    return raw["epoch_ms"], kind, call_id, endpoint_id, raw["amount_micro"], balance


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError(f"expected a non-empty string, got {value!r}")
    return value


def micro_amount(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < MAX_AMOUNT:
        raise ValueError(f"expected a non-negative integer of micro-USD under {MAX_AMOUNT}, got {value!r}")
    return value
