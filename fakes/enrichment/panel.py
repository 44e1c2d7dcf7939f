"""The enrichment fake's dashboard panels: accounts with their credit balances and expiries, and
the monitoring feeds.

Read through the model's public reads (``account_info`` per account of the ledger) and the feeds'
records only; see docs/dashboard.md for the shapes.
"""

from __future__ import annotations

from itertools import islice
from typing import Any, Protocol

from fakes.kernel.clock import Clock, iso_ms
from fakes.kernel.dashboard.panels import MAX_ROWS, Panel, collect, lane, span, table, timeline, when


class EnrichmentFake(Protocol):
    """What the panels read of the fake (no import of the package: modules read bottom-up)."""

    clock: Clock
    model: Any

    def account(self, api_key: str) -> dict[str, Any]: ...

#: accounts drawn on the expiry timeline (the newest ones)
TIMELINE_ACCOUNTS = 10


def panels(fake: EnrichmentFake) -> list[Panel]:
    return collect(fake, accounts, credit_expiries, feeds)


def _newest(fake: EnrichmentFake, count: int) -> list[dict[str, Any]]:
    keys = list(reversed(list(fake.model.ledger.accounts)))
    return [fake.account(key) for key in islice(keys, count)]


def _expiries(info: dict[str, Any]) -> str:
    parts = [f"{row['credits']} {'never expire' if row['expires_ms'] is None else 'until ' + iso_ms(row['expires_ms'])}"
             for row in info["expiries"]]
    return "; ".join(parts) or "none"


def accounts(fake: EnrichmentFake) -> Panel:
    rows = [[info["api_key"], info["plan"], info["balance_text"], _expiries(info),
             when(info["trial_expires_ms"]) if info["trial_expires_ms"] is not None else "-",
             sum(info["calls"].values()), info["spent"], len(info["feeds"])]
            for info in _newest(fake, MAX_ROWS)]
    total = len(fake.model.ledger.accounts)
    return table("Accounts", ["api key", "plan", "credits", "expiries", "trial ends", "calls", "credits spent",
                              "feeds"], rows, note=f"{total} account{'' if total == 1 else 's'}, newest first")


def credit_expiries(fake: EnrichmentFake) -> Panel:
    """Each account's live credits, from the account's start until they expire."""
    lanes = []
    for info in _newest(fake, TIMELINE_ACCOUNTS):
        for row in info["expiries"]:
            if row["expires_ms"] is not None:
                label = f"{row['credits']} credits"
                lanes.append(lane(label, [span(info["created_ms"], row["expires_ms"], label)],
                                  group=f"{info['api_key']} ({info['plan']})"))
    return timeline("Credit expiries", lanes, now_ms=fake.clock.now_ms(),
                    note="credits that expire (trial, subscription month, pack); credits that never expire are "
                         "in the table")


def feeds(fake: EnrichmentFake) -> Panel:
    rows = []
    for feed in reversed(list(fake.model.feeds.feeds.values())):
        suspended = f"yes ({feed.suspension_reason})" if feed.is_suspended else "no"
        rows.append([feed.id, feed.name, feed.owner, len(feed.targets), feed.sequence - feed.consumed,
                     feed.sequence, suspended, feed.is_public, when(feed.created_ms)])
    return table("Monitoring feeds", ["feed", "name", "owner key", "targets", "items unread", "items", "suspended",
                                      "public", "created"], rows, note="newest first")
