"""Teams: prepaid balance in integer micro-USD with holds, registered tools, stored secrets,
tokens, the ledger, and the credential ladder (own tool, then stored secret, then the relay's key).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fakes.kernel.clock import iso_ms

OWN_TOOL, SECRET, RELAY_KEY = "own_tool", "secret", "relay_key"
LEDGER_ROWS = 5_000
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
    #: the last LEDGER_ROWS movements, oldest first: {epoch_ms, kind, call_id, endpoint_id, amount_micro,
    #: balance_micro} (times formatted when read: a billed call costs no date formatting)
    ledger: list[dict[str, Any]] = field(default_factory=list)
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

    def _book(self, row: dict[str, Any]) -> None:
        self.ledger.append(row)
        if len(self.ledger) > 2 * LEDGER_ROWS:
            del self.ledger[:-LEDGER_ROWS]

    def ledger_rows(self) -> list[dict[str, Any]]:
        return [{"at": iso_ms(row["epoch_ms"]), **row} for row in self.ledger[-LEDGER_ROWS:]]

    def settle(self, call_id: str, charged: int, at_ms: int, endpoint_id: str) -> None:
        """Release the call's hold and take ``charged`` (never more than the hold)."""
        held = self.holds.pop(call_id, _NO_HOLD)[0]
        self.holds_micro -= held
        charged = min(charged, held)
        if charged > 0:
            self.balance_micro -= charged
            self._book({"epoch_ms": at_ms, "kind": "call", "call_id": call_id, "endpoint_id": endpoint_id,
                        "amount_micro": -charged, "balance_micro": self.balance_micro})

    def debit(self, call_id: str, charged: int, at_ms: int, endpoint_id: str) -> None:
        """Take ``charged`` for a call answered without a hold (nothing could run in between)."""
        self.balance_micro -= charged
        self._book({"epoch_ms": at_ms, "kind": "call", "call_id": call_id, "endpoint_id": endpoint_id,
                    "amount_micro": -charged, "balance_micro": self.balance_micro})

    def grant(self, at_ms: int) -> None:
        self._book({"epoch_ms": at_ms, "kind": "grant", "call_id": None, "endpoint_id": None,
                    "amount_micro": self.balance_micro, "balance_micro": self.balance_micro})

    def topup(self, amount: int, at_ms: int) -> None:
        self.balance_micro += amount
        self._book({"epoch_ms": at_ms, "kind": "topup", "call_id": None, "endpoint_id": None,
                    "amount_micro": amount, "balance_micro": self.balance_micro})

    def summary(self) -> dict[str, Any]:
        return {"team_id": self.team_id, "team_name": self.name, "balance_micro": self.balance_micro,
                "holds_micro": self.holds_micro, "balance_usd": round(self.balance_micro / 1_000_000, 6),
                "tools": sorted(self.tools), "secrets": sorted(self.secrets)}

    def to_state(self) -> dict[str, Any]:
        return {"team_id": self.team_id, "name": self.name, "token": self.token, "balance_micro": self.balance_micro,
                "tools": dict(self.tools), "secrets": dict(self.secrets), "ledger": list(self.ledger),
                **({} if self.upstream_rate_limited else {"upstream_rate_limited": False})}

    @classmethod
    def from_state(cls, raw: dict[str, Any]) -> Team:
        team = cls(team_id=_text(raw["team_id"]), name=_text(raw["name"]), token=_text(raw["token"]),
                   balance_micro=_micro(raw["balance_micro"]))
        team.tools = {_text(k): _text(v) for k, v in dict(raw.get("tools", {})).items()}
        team.secrets = {_text(k): _text(v) for k, v in dict(raw.get("secrets", {})).items()}
        team.ledger = [dict(row) for row in raw.get("ledger", [])]
        limited = raw.get("upstream_rate_limited", True)
        if not isinstance(limited, bool):
            raise ValueError(f"upstream_rate_limited must be true or false, got {limited!r}")
        team.upstream_rate_limited = limited
        for row in team.ledger:
            if not isinstance(row.get("epoch_ms"), int) or not isinstance(row.get("amount_micro"), int):
                raise ValueError("each ledger row needs integer epoch_ms and amount_micro")
        return team


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError(f"expected a non-empty string, got {value!r}")
    return value


def _micro(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"expected a non-negative integer of micro-USD, got {value!r}")
    return value
