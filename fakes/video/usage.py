"""Usage and cost of a project from the seed's prices.

Minutes stored are integrated over virtual time (minutes of video x time kept, in minute-months of
30 days, the unit of the per-minute storage price); minutes watched count what the fake's own
playback assets served (HLS segments, the MP4) plus views recorded through the control plane;
transcription and summary minutes count the source minutes of each generated caption/summary.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fakes.kernel.statecheck import StateReader

MONTH_MS = 30 * 86_400_000


@dataclass
class Usage:
    closed_stored_minute_ms: float = 0.0  # minutes x milliseconds of videos no longer stored
    watched_seconds: float = 0.0
    transcript_minutes: float = 0.0
    abstract_minutes: float = 0.0
    takeaways_minutes: float = 0.0
    closed_domain_ms: float = 0.0  # extra custom domains x milliseconds before the last change of their count

    def to_state(self) -> dict[str, Any]:
        return dict(vars(self))

    @classmethod
    def from_state(cls, read: StateReader) -> Usage:
        names = tuple(cls.__dataclass_fields__)
        read.only(names)
        return cls(**{name: read.number(name, minimum=0, maximum=1e30) for name in names
                      if name != "closed_domain_ms" or read.has(name)})  # absent from states of older versions


def report(usage: Usage, open_stored_minute_ms: float, stored_minutes_now: float, prices: dict[str, float],
           domains: tuple[int, float] = (0, 0.0), domain_month_eur: float = 0.0) -> dict[str, Any]:
    """The figures and costs; ``domains``: the project's extra custom domains now and the domain x
    milliseconds since their count last changed (billed like storage, in euros: the seed's price)."""
    minute_months = (usage.closed_stored_minute_ms + open_stored_minute_ms) / MONTH_MS
    domain_months = (usage.closed_domain_ms + domains[1]) / MONTH_MS
    watched_minutes = usage.watched_seconds / 60
    figures = {
        "stored_minutes_now": round(stored_minutes_now, 4),
        "stored_minute_months": round(minute_months, 6),
        "watched_minutes": round(watched_minutes, 4),
        "transcript_minutes": round(usage.transcript_minutes, 4),
        "summary_abstract_minutes": round(usage.abstract_minutes, 4),
        "summary_takeaways_minutes": round(usage.takeaways_minutes, 4),
        "extra_custom_domains": domains[0],
        "custom_domain_months": round(domain_months, 6),
    }
    dollars = {
        "hosting": minute_months * prices["stored_minute_month"],
        "delivery": watched_minutes * prices["watched_minute"],
        "transcription": usage.transcript_minutes * prices["transcript_minute"],
        "summaries": usage.abstract_minutes * prices["summary_abstract_minute"]
        + usage.takeaways_minutes * prices["summary_takeaways_minute"],
        "encoding": 0.0,
    }
    cost = {key: round(value, 6) for key, value in dollars.items()}
    cost["total"] = round(sum(dollars.values()), 6)
    domains_eur = round(domain_months * domain_month_eur, 6)
    return {"usage": figures, "cost_usd": cost, "prices_usd": dict(prices),
            "cost_eur": {"custom_domains": domains_eur, "total": domains_eur},
            "prices_eur": {"custom_domain_month": domain_month_eur}}
