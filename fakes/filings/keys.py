"""API keys: tier, quota and calls used - data on the key, checked on every call.

Tiers, from the seed and the real service's access levels: ``free`` (a yearly allowance, no
filing types), ``standard`` (Level 1: adds ``/filing-types/``), ``level2`` (adds Markdown
content) and ``enterprise`` (everything, custom quota). A quota counts calls per calendar year
(UTC); a refused call (401, 403, 429, or any other error) does not count.
"""

from __future__ import annotations

import bisect
import datetime as dt
from dataclasses import asdict, dataclass
from typing import Any

from fakes.kernel.clock import MAX_EPOCH_MS, utc_datetime
from fakes.kernel.errors import ServiceError

TIERS = ("free", "standard", "level2", "enterprise")
PLAN_LABELS = {"free": "Free", "standard": "Level 1", "level2": "Level 2", "enterprise": "Enterprise"}

FILING_TYPES = "filing_types"
REFERENCE = "reference"
WATCHLIST = "watchlist"
WEBHOOKS = "webhooks"
MARKDOWN = "markdown"
FINANCIALS = "financials"
#: account calls (``/agent/...``, ``/usage/``): open to every key, whatever its agent account's state
AGENT_ACCOUNT = "account"
#: the lowest tier of each gated feature, with the real service's wording of the refusal; Level 3
#: (standardised financials) is this fake's enterprise tier
GATES: dict[str, tuple[str, str]] = {
    FILING_TYPES: ("standard", "Access to filing types requires **Standard Access** (Level 1) or higher."),
    REFERENCE: ("standard", "Access to reference data requires **Standard Access** (Level 1) or higher."),
    WATCHLIST: ("standard", "Access to the watchlist requires **Standard Access** (Level 1) or higher."),
    WEBHOOKS: ("standard", "Access to webhooks requires **Standard Access** (Level 1) or higher."),
    MARKDOWN: ("level2", "Access to full filing content in Markdown requires a **Level 2** Plan or higher."),
    FINANCIALS: ("enterprise", "Access to standardized financials requires **Financial KPIs (Level 3)**."),
}
UNAUTHENTICATED = "Authentication credentials were not provided or are invalid."


@dataclass(slots=True)
class ApiKey:
    key: str
    tier: str
    quota: int | None  # calls per calendar year; None = unlimited
    created_ms: int
    year: int  # the calendar year ``used`` counts
    used: int = 0
    refused_year: int | None = None  # the year a quota refusal was last answered (client history)
    agent: str | None = None  # the email of the agent account this key belongs to

    def to_state(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> ApiKey:
        key = cls(**state)
        if key.tier not in TIERS:
            raise ValueError(f"unknown tier {key.tier!r}")
        return key

    # -- rules ---------------------------------------------------------------------------------
    def roll_over(self, now_ms: int) -> None:
        """A new calendar year starts with a fresh allowance."""
        year = year_of(now_ms)
        if year != self.year:
            self.year, self.used = year, 0

    def remaining(self) -> int | None:
        return None if self.quota is None else max(0, self.quota - self.used)

    def require(self, feature: str) -> None:
        if feature not in GATES:
            return
        lowest, wording = GATES[feature]
        if TIERS.index(self.tier) < TIERS.index(lowest):
            raise ServiceError(403, f"Your current plan ({PLAN_LABELS[self.tier]}) does not permit access. {wording}",
                               code="permission_denied")

    def require_quota(self, now_ms: int, burst_limit: str) -> None:
        self.roll_over(now_ms)
        if self.quota is None or self.used < self.quota:
            return
        reset_ms = year_start_ms(self.year + 1)
        wait_s = max(1, -((now_ms - reset_ms) // 1000))
        refusal = ServiceError(
            429, f"Request was throttled. Expected available in {wait_s} seconds.", code="quota_limit_exceeded",
            headers={"Retry-After": str(wait_s), **self.headers(burst_limit)},
            error="Too Many Requests", type="quota_limit_exceeded", scope="quota",
            resolution="Wait until the allowance resets or upgrade your plan.",
            retry_after_seconds=wait_s, limit=self.quota, interval="annual", resets_on=f"{self.year + 1:04d}-01-01",
            upgrade_url="https://financialreports.eu/pricing/",
        )
        # `message` is also ServiceError's own parameter: set the body field afterwards
        refusal.extra["message"] = (f"Your {PLAN_LABELS[self.tier]} plan's allowance of {self.quota} API calls "
                                    "a year is used up.")
        raise refusal

    def count_call(self) -> None:
        self.used += 1

    def headers(self, burst_limit: str) -> dict[str, str]:
        """The real service's rate-limit headers (its names; the allowance here is yearly)."""
        remaining = self.remaining()
        return {
            "X-RateLimit-Burst-Limit": burst_limit,
            "X-RateLimit-Monthly-Limit": "Unlimited" if self.quota is None else str(self.quota),
            "X-RateLimit-Monthly-Remaining": "Unlimited" if remaining is None else str(remaining),
            "X-RateLimit-Monthly-Unit": "requests",
        }


_YEAR_STARTS_MS = [int(dt.datetime(year, 1, 1, tzinfo=dt.UTC).timestamp() * 1000) for year in range(1970, 2401)]


def year_of(epoch_ms: int) -> int:
    """The UTC calendar year of an instant (a bisect: every call of every key asks)."""
    if epoch_ms >= _YEAR_STARTS_MS[-1]:  # past the table (a clock moved far ahead): exact, up to year 9999
        return utc_datetime(epoch_ms).year
    return 1969 + bisect.bisect_right(_YEAR_STARTS_MS, epoch_ms)


def year_start_ms(year: int) -> int:
    """The first instant of a UTC year; 10000 is the one after the clock's last (fakes.kernel.clock)."""
    if year > 9999:
        return MAX_EPOCH_MS + 1
    return int(dt.datetime(year, 1, 1, tzinfo=dt.UTC).timestamp() * 1000)


def unauthenticated() -> ServiceError:
    return ServiceError(401, UNAUTHENTICATED, code="not_authenticated",
                        headers={"WWW-Authenticate": 'Api-Key realm="api"'})
