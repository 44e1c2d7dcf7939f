"""Settings of the enrichment fake; defaults are the contract's values (docs/services/enrichment.md).

Where the real service (NinjaPear) differs from the seed, the seed is the default and the real
behaviour is a setting away: ``cost_header="X-NinjaPear-Credit-Cost"``,
``charge_failed_like_real=True``, ``details_max_cost=8``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from fakes.kernel.settings import FakeSettings, SettingsError, is_header_name

from .operations import OPERATIONS

#: the longest a trial, a pack or a cache window lasts (an expiry past year 9999 stays an exact number)
MAX_DAYS = 3650
ROUTE_PATHS = frozenset(path for op in OPERATIONS for path in op.paths)
PLANS = ("trial", "payg", "sub_49", "sub_299", "sub_899", "sub_1899")
SUBSCRIPTIONS = PLANS[2:]

#: base cost of each paid operation in credits (the seed's table; the reference where it is silent)
DEFAULT_COSTS: dict[str, float] = {
    "company_details": 3, "employee_count": 2, "company_funding": 2, "company_updates": 2,
    "company_website": 1, "customer_listing": 1, "competitor_listing": 0, "product_listing": 3,
    "person_profile": 3, "work_email": 2, "similar_people": 10, "employee_search": 2,
}
OPERATION_NAMES = frozenset({
    *DEFAULT_COSTS, "company_logo", "disposable_email", "credit_balance", "list_feeds", "create_feed", "get_feed",
    "update_feed", "delete_feed", "add_target", "update_target", "remove_target", "feed_rss"})
#: how much likelier than the average a company of each band is unknown (averages about 1 over the
#: generated world, so unknown_share stays the overall share)
DEFAULT_COVERAGE_WEIGHTS: dict[str, float] = {"micro": 2.8, "small": 1.5, "medium": 0.65, "large": 0.3,
                                               "enterprise": 0.15, "public": 0.05}
COVERAGE_BANDS = tuple(DEFAULT_COVERAGE_WEIGHTS)
DEFAULT_MCP_HOSTS = [
    "127.0.0.1", "127.0.0.1:*", "localhost", "localhost:*", "[::1]", "[::1]:*", "testserver",
    "enrichment", "enrichment:*", "enrichment.localhost", "enrichment.localhost:*",
    "fakes", "fakes:*", "gateway", "gateway:*", "0.0.0.0:*",
]


@dataclass
class EnrichmentSettings(FakeSettings):
    cost_header: str = field(default="X-Service-Credit-Cost", metadata={
        "help": "name of the credit-cost header on every response (real service: X-NinjaPear-Credit-Cost)"})
    cache_age_header: str = field(default="X-Service-Cache-Age-Days", metadata={
        "help": "name of the cache-age header of cacheable answers (real: X-NinjaPear-Cache-Age-Days)"})
    enrichment_status_header: str = field(default="X-Service-Enrichment-Status", metadata={
        "help": "name of the v2 person profile's enrichment-status header, pending or complete "
                "(real: X-NinjaPear-Enrichment-Status)"})
    detailed_enrichment_s: int = field(default=20, metadata={
        "help": "seconds of virtual time the detailed enrichment started by enrichment=fast takes (documented: "
                "poll 10 to 30 s later)"})
    cache_window_days: int = field(default=29, metadata={
        "help": "freshness window of use_cache=if-recent: a repeat inside it costs 0"})
    updates_cache_window_days: int = field(default=1, metadata={
        "help": "freshness window of company updates (documented: if-recent means 1 day there)"})
    unknown_share: float = field(default=0.02, metadata={
        "help": "average share of websites (besides *.invalid) that are unknown: 404; weighted per company "
                "by coverage_weights"})
    coverage_weights: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_COVERAGE_WEIGHTS), metadata={
        "help": "how much likelier than average a company of each size band is unknown (micro <= 10 "
                "employees, small <= 50, medium <= 200, large <= 1000, enterprise above, public listed); "
                "all 1 for uniform misses"})
    transient_failure_share: float = field(default=0.0, metadata={
        "help": "share of live (uncached) lookups of the operations documented with a 503 that fail "
                "for a while: 503 with Retry-After (funding: 200 with error_code service_temp_unavailable), "
                "never charged; a retry once Retry-After has passed is served"})
    transient_retry_after_s: int = field(default=5, metadata={
        "help": "Retry-After of a transient failure (seconds of virtual time)"})
    retired_paths: list[str] = field(default_factory=lambda: ["/proxycurl/*"], metadata={
        "help": "paths that answer 410 'This API is deprecated' (uncharged, before the key check): exact "
                "paths of the route table or prefixes ending in *; by default the Proxycurl API's"})
    charge_failed_like_real: bool = field(default=False, metadata={
        "help": "charge website lookups and 404-no-data answers as the real service does (documented: "
                "failed requests are never charged)"})
    costs: dict[str, float] = field(default_factory=dict, metadata={
        "help": "base credits per operation, over the built-in table (e.g. {\"product_listing\": 3})"})
    details_max_cost: float = field(default=6, metadata={
        "help": "cap of company details with every flag (documented: up to 6; real: 8)"})
    minimum_charge: float = field(default=0.1, metadata={
        "help": "least credits a successful, uncached paid call costs"})
    trial_days: int = field(default=3, metadata={"help": "lifetime of a trial key"})
    trial_credits: float = field(default=10, metadata={"help": "credits of a new trial account"})
    pack_min_usd: int = field(default=10, metadata={"help": "smallest credit pack"})
    credits_per_usd: int = field(default=10, metadata={"help": "credits a pack gives per dollar"})
    small_pack_expiry_days: int = field(default=30, metadata={"help": "expiry of the smallest pack's credits"})
    large_pack_expiry_days: int = field(default=90, metadata={"help": "expiry of larger packs' credits"})
    subscription_credits: dict[str, float] = field(default_factory=lambda: {
        "sub_49": 490, "sub_299": 2990, "sub_899": 8990, "sub_1899": 18990}, metadata={
        "help": "credits granted every 30 days per subscription (unused ones lapse at the next grant)"})
    paid_per_minute: int = field(default=50, metadata={"help": "paid requests a minute, every plan"})
    free_per_minute: dict[str, int] = field(default_factory=lambda: {
        "trial": 2, "payg": 2, "sub_49": 20, "sub_299": 50, "sub_899": 100, "sub_1899": 300}, metadata={
        "help": "free-endpoint requests a minute per plan"})
    latency_s: dict[str, float] = field(default_factory=dict, metadata={
        "help": "simulated latency per operation name (seconds; capped by the documented read timeouts)"})
    latency_in_manual_clock: str = field(default="none", metadata={
        "help": "what latency does on a manual clock: none, advance (moves the clock) or sleep"})
    real_paths_client_shapes: bool = field(default=True, metadata={
        "help": "answer the /api/... paths in the shapes the official client 1.6.0 parses: integer "
                "credit_balance (floor, exact value in credit_balance_exact), updates without youtube items"})
    work_email_hit_share: float = field(default=0.8, metadata={"help": "share of work-email lookups that hit"})
    item_rate_per_week: float = field(default=3.0, metadata={
        "help": "average blog/X/video updates a company publishes per week"})
    max_targets_per_feed: int = field(default=100, metadata={"help": "targets a feed may hold"})
    mcp_allowed_hosts: list[str] = field(default_factory=lambda: list(DEFAULT_MCP_HOSTS), metadata={
        "help": "Host values the MCP endpoint accepts (DNS-rebinding check; \"*\" turns the check off)"})
    locale: str = field(default="en_US", metadata={"help": "faker locale of the generated data"})

    def __post_init__(self) -> None:
        checks = [
            (all(is_header_name(name) for name in (self.cost_header, self.cache_age_header,
                                                  self.enrichment_status_header)),
             "cost_header, cache_age_header and enrichment_status_header must be header names"),
            (set(self.coverage_weights) == set(COVERAGE_BANDS)
             and all(_finite_at_least_0(w) for w in self.coverage_weights.values()),
             f"coverage_weights needs a number >= 0 for each of {', '.join(COVERAGE_BANDS)}"),
            (0 <= self.transient_failure_share <= 1, "transient_failure_share must be between 0 and 1"),
            (1 <= self.transient_retry_after_s <= 86_400, "transient_retry_after_s must be from 1 to 86400"),
            (0 <= self.detailed_enrichment_s <= 86_400, "detailed_enrichment_s must be from 0 to 86400"),
            (all(isinstance(p, str) and len(p) <= 300 and (p in ROUTE_PATHS or (p.startswith("/") and p.endswith("*")))
                 for p in self.retired_paths),
             "retired_paths are paths of the service (/v1/company/funding, /api/v1/employee/profile, ...) or "
             "prefixes ending in * (/proxycurl/*)"),
            (0 <= self.unknown_share <= 1, "unknown_share must be between 0 and 1"),
            (all(k in DEFAULT_COSTS and v >= 0 for k, v in self.costs.items()), "costs names an unknown operation"),
            (self.details_max_cost >= 0 and self.minimum_charge >= 0, "costs must be >= 0"),
            (0 <= self.trial_days <= MAX_DAYS and self.trial_credits >= 0,
             f"trial_days must be from 0 to {MAX_DAYS}, trial_credits >= 0"),
            (1 <= self.small_pack_expiry_days <= MAX_DAYS and 1 <= self.large_pack_expiry_days <= MAX_DAYS,
             f"pack expiries must be from 1 to {MAX_DAYS} days"),
            (0 <= self.cache_window_days <= MAX_DAYS and 0 <= self.updates_cache_window_days <= MAX_DAYS,
             f"cache windows must be from 0 to {MAX_DAYS} days"),
            (self.pack_min_usd >= 1 and self.credits_per_usd >= 1, "packs need at least $1 and 1 credit per $"),
            (set(self.subscription_credits) <= set(SUBSCRIPTIONS), "subscription_credits names an unknown plan"),
            (set(self.free_per_minute) == set(PLANS), "free_per_minute needs every plan"),
            (self.paid_per_minute >= 1 and min(self.free_per_minute.values(), default=1) >= 1,
             "rate limits must be >= 1"),
            (self.latency_in_manual_clock in ("none", "advance", "sleep"),
             "latency_in_manual_clock must be none, advance or sleep"),
            (0 <= self.work_email_hit_share <= 1, "work_email_hit_share must be between 0 and 1"),
            (self.item_rate_per_week >= 0, "item_rate_per_week must be >= 0"),
            (self.max_targets_per_feed >= 1, "max_targets_per_feed must be >= 1"),
            (all(name in OPERATION_NAMES and _in_tenths(v) for name, v in self.latency_s.items()),
             "latency_s maps operation names (company_details, ...) to seconds >= 0"),
        ]
        amounts = [self.trial_credits, self.minimum_charge, self.details_max_cost, *self.costs.values(),
                   *self.subscription_credits.values()]
        checks.append((all(_in_tenths(amount) for amount in amounts),
                       "credit amounts come in steps of 0.1 (costs, trial_credits, minimum_charge, ...)"))
        checks.append((all(isinstance(v, int) and not isinstance(v, bool) for v in self.free_per_minute.values()),
                       "free_per_minute values must be whole numbers"))
        problems = [message for ok, message in checks if not ok]
        if problems:
            raise SettingsError("enrichment: " + "; ".join(problems))

    def cost(self, operation: str) -> float:
        return self.costs.get(operation, DEFAULT_COSTS[operation])


def _finite_at_least_0(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < math.inf


def _in_tenths(amount: object) -> bool:
    """True for a finite number >= 0 that is a whole number of tenths (0.5 yes, 0.05 no)."""
    if isinstance(amount, bool) or not isinstance(amount, (int, float)):
        return False
    try:
        scaled = Decimal(str(amount)) * 10
    except InvalidOperation:
        return False
    return scaled.is_finite() and scaled >= 0 and scaled == scaled.to_integral_value()
