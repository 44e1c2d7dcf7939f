"""Settings of the call relay fake; defaults are the contract's values (docs/services/relay.md).

Where the real relay (treg) differs, the seed's behaviour is the default and the real one is a
setting away: ``header_prefix="X-Treg"`` gives the real header names (and ``treg.`` routed ids),
``error_envelope="detail"`` nests the 402 fields under ``detail`` as the real FastAPI service does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fakes.kernel.settings import FakeSettings, SettingsError, is_header_name


@dataclass
class RelaySettings(FakeSettings):
    header_prefix: str = field(default="X-Proxy", metadata={
        "help": "prefix of every relay header (-Token, -Body-Encoding, -Call-Id, -Cost-Micro, "
                "-Idempotent-Replay, -Error, -Served-By); X-Treg gives the real service's names and "
                "its routed ids (treg.people.email.find)"})
    error_envelope: str = field(default="flat", metadata={
        "help": "flat: the documented 402 body {detail, error, balance_micro, ...}; detail: the real "
                "service's {detail: {error, message, balance_micro, ...}}"})
    start_balance_micro: int = field(default=1_000_000, metadata={
        "help": "balance of a new team in micro-USD (documented: $1.00 free credit)"})
    topup_url: str = field(default="/app#billing", metadata={"help": "topup_url of the 402 body"})
    max_in_flight: int = field(default=512, metadata={
        "help": "calls forwarded at once above which the relay is saturated (503); 0: no limit"})
    max_per_second: int = field(default=0, metadata={
        "help": "calls started in one clock second above which the relay is saturated (503); 0 (default): no "
                "limit, since a manual clock never leaves its second and a long test loop would trip it"})
    retry_after_s: int = field(default=2, metadata={"help": "Retry-After of a saturation 503"})
    idempotency_ttl_s: int = field(default=86_400, metadata={
        "help": "seconds an Idempotency-Key and its stored answer are kept (real service: 24 h)"})
    hit_rate: float = field(default=0.8, metadata={
        "help": "share of seeded lookups (neither the example input nor a .invalid input) that hit"})
    upstream_latency_ms: int = field(default=0, metadata={
        "help": "latency the simulated upstreams report (recorded on the clock; only a real clock waits)"})
    upstream_rate_limit: int = field(default=600, metadata={
        "help": "calls per minute a simulated provider accepts per credential before its own 429"})
    firewall: bool = field(default=True, metadata={
        "help": "the web firewall in front of the relay: a body with SQL or HTML is a 403 HTML page"})
    platform_daily_cap_micro: int = field(default=0, metadata={
        "help": "a day's spend on the relay's keys per team when the team set no ceiling of its own (0: none; "
                "treg's platform_daily_cap_usd, default 0)"})
    trial_allowance: int = field(default=50, metadata={
        "help": "calls a team may make per UTC day to a trial-pool provider (served at $0 on the relay's free key)"})
    async_task_s: int = field(default=30, metadata={
        "help": "seconds of the fake's clock an asynchronous provider takes to finish a submitted task"})
    topup_min_usd: int = field(default=10, metadata={"help": "the smallest top-up through a checkout (treg: $10)"})
    checkout_s: int = field(default=60, metadata={
        "help": "seconds of the fake's clock after which a started checkout is paid (unless paid or cancelled "
                "through the control plane first)"})
    record_upstream_requests: bool = field(default=False, metadata={
        "help": "log what the simulated providers are sent too (GET /_fake/upstreams/requests; registered upstreams "
                "are always logged); costs every call a little and turns planned calls off"})
    providers: int = field(default=60, metadata={"help": "catalogued providers (documented: about 60)"})
    endpoints: int = field(default=2900, metadata={"help": "catalogued endpoints (documented: about 2,900)"})

    def __post_init__(self) -> None:
        if self.error_envelope not in ("flat", "detail"):
            raise SettingsError(f"error_envelope must be flat or detail, got {self.error_envelope!r}")
        prefix = self.header_prefix.strip()
        if not is_header_name(prefix) or not all(ch.isalnum() or ch == "-" for ch in prefix) or prefix.endswith("-"):
            raise SettingsError(f"header_prefix must be a header name such as X-Proxy, got {self.header_prefix!r}")
        for name in ("start_balance_micro", "max_in_flight", "max_per_second", "retry_after_s",
                     "idempotency_ttl_s", "upstream_latency_ms", "upstream_rate_limit", "platform_daily_cap_micro",
                     "trial_allowance", "async_task_s", "topup_min_usd", "checkout_s"):
            if getattr(self, name) < 0:
                raise SettingsError(f"{name} must be >= 0")
        if self.start_balance_micro > 10**12:  # the most a control-plane body may name (bodies.MAX_MICRO)
            raise SettingsError("start_balance_micro must be <= 1000000000000 (one million USD)")
        if self.platform_daily_cap_micro > 10**12 or self.async_task_s > 86_400 or self.checkout_s > 86_400 \
                or self.topup_min_usd > 10_000 or self.trial_allowance > 10**6:
            raise SettingsError("platform_daily_cap_micro <= 10^12, async_task_s and checkout_s <= 86400, "
                                "topup_min_usd <= 10000, trial_allowance <= 10^6")
        if not 0 <= self.hit_rate <= 1:
            raise SettingsError("hit_rate must be between 0 and 1")
        if not 20 <= self.providers <= 200 or not 100 <= self.endpoints <= 20_000:
            raise SettingsError("providers must be 20..200 and endpoints 100..20000")

    @property
    def relay_name(self) -> str:
        """First segment of routed ids: X-Proxy -> proxy, X-Treg -> treg."""
        name = self.header_prefix.lower()
        return name[2:] if name.startswith("x-") else name
