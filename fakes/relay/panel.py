"""The relay fake's dashboard panels: teams and balances, the ledger, the latest calls, and the
saturation switch.

Read through the fake's public reads (``team_info`` per team, the call records' ``values``, the
saturation's ``describe``) only; see docs/dashboard.md for the shapes.
"""

from __future__ import annotations

from collections import deque
from itertools import islice
from typing import Any, Protocol

from fakes.kernel.dashboard.panels import MAX_ROWS, Panel, collect, facts, table, when

from .model import RelayModel


class PanelSource(Protocol):
    """What the panels read of the fake: its model and each team's public view."""

    model: RelayModel

    def team_info(self, team_id: str) -> dict[str, Any]: ...


#: ledger rows and calls shown (the newest)
RECENT = 50


def panels(fake: PanelSource) -> list[Panel]:
    return collect(fake, teams, ledger, recent_calls, saturation)


def usd(micro: int) -> str:
    """Micro-USD as dollars: cents when whole cents, else every digit kept (``-$0.001234``)."""
    sign, micro = ("-" if micro < 0 else ""), abs(micro)
    text = f"{micro / 1_000_000:,.6f}".rstrip("0") if micro % 10_000 else f"{micro / 1_000_000:,.2f}"
    return f"{sign}${text}"


def _teams(fake: PanelSource, count: int) -> list[dict[str, Any]]:
    ids = list(reversed(list(fake.model.teams)))
    return [fake.team_info(team_id) for team_id in islice(ids, count)]


def teams(fake: PanelSource) -> Panel:
    rows = [[info["team_id"], info["team_name"], usd(info["balance_micro"]), usd(info["holds_micro"]),
             ", ".join(info["tools"]) or "-", ", ".join(info["secrets"]) or "-", len(info["ledger"])]
            for info in _teams(fake, MAX_ROWS)]
    return table("Teams", ["team", "name", "balance", "held", "own tools", "secrets", "ledger rows"], rows,
                 note="newest first; balances in USD (the relay counts micro-USD)")


def ledger(fake: PanelSource) -> Panel:
    rows: list[tuple[int, list[Any]]] = []
    for info in _teams(fake, MAX_ROWS):
        for row in reversed(info["ledger"][-RECENT:]):  # newest first, also within one instant
            rows.append((row["epoch_ms"], [when(row["epoch_ms"]), info["team_id"], row["kind"], row["call_id"] or "-",
                                           row["endpoint_id"] or "-", usd(row["amount_micro"]),
                                           usd(row["balance_micro"])]))
    rows.sort(key=lambda pair: -pair[0])  # stable: one team's rows of one instant keep their order
    return table("Ledger", ["at", "team", "kind", "call", "endpoint", "amount", "balance after"],
                 [row for _, row in rows[:RECENT]], note=f"the latest {RECENT} movements of every team, newest first")


def recent_calls(fake: PanelSource) -> Panel:
    latest = deque(fake.model.calls.values(), maxlen=RECENT)
    rows = [[call["call_id"], when(call["epoch_ms"]), call["team_id"], call["endpoint_id"] or "-",
             call["provider"] or "-", call["credential"] or "-", call["status"], usd(call["cost_micro"]),
             call["replayed"]] for call in reversed(latest)]
    return table("Recent calls", ["call", "at", "team", "endpoint", "provider", "credential", "status", "cost",
                                  "replayed"], rows, note=f"the latest {RECENT}, newest first")


def saturation(fake: PanelSource) -> Panel:
    state = fake.model.saturation.describe()
    return facts("Saturation", [("switched on", state["saturated"]), ("in flight", state["in_flight"]),
                                ("max in flight", state["max_in_flight"]), ("max per second", state["max_per_second"]),
                                ("Retry-After (s)", state["retry_after_s"])],
                 note="PUT /_fake/saturation turns the switch and sets the thresholds")
