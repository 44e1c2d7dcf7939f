"""How the account surface writes times and money: an optional ISO 8601 time, micro-USD as
dollars, and the start of a calendar month (UTC) that monthly figures count from. Shared by the
org, billing and member modules, below all of them."""

from __future__ import annotations

from datetime import UTC, datetime

from fakes.kernel.clock import iso_ms


def iso(epoch_ms: int | None) -> str | None:
    return iso_ms(epoch_ms) if epoch_ms is not None else None


def usd(micro: int) -> float:
    return round(micro / 1_000_000, 6)


def month_start(now_ms: int) -> int:
    moment = datetime.fromtimestamp(now_ms / 1000, tz=UTC)
    return int(moment.replace(day=1, hour=0, minute=0, second=0, microsecond=0).timestamp() * 1000)
