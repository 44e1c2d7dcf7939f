"""Settings of the filings fake; defaults are the seed's values (or the real service's where the
seed is silent, noted per setting)."""

from __future__ import annotations

from dataclasses import dataclass, field

from fakes.kernel.settings import FakeSettings, SettingsError, is_header_name

from .catalogue.generator import Scale, ScaleError

MAX_QUOTA = 2**40  # calls a year; more is unlimited in all but name (and must fit the state's 64-bit integers)


@dataclass
class FilingsSettings(FakeSettings):
    scale: str = field(default="full", metadata={
        "help": "catalogue size: full (about 33,500 companies and 14.8 million filings), small (220 "
                "companies over all 44 markets, about 3,000 filings) or a number of companies"})
    api_key_header: str = field(default="X-API-Key", metadata={
        "help": "header carrying the API key (the official client's; Authorization: Bearer <key> also works)"})
    default_page_size: int = field(default=50, metadata={"help": "page size when the request gives none"})
    max_page_size: int = field(default=100, metadata={
        "help": "largest page_size a page holds: a larger one is cut to it (200, as Django REST framework does) and "
                "breaks the warning filings/lenient-input"})
    free_quota: int = field(default=100, metadata={"help": "calls a year of a free key (documented: 100)"})
    standard_quota: int = field(default=0, metadata={"help": "calls a year of a standard key; 0 = unlimited"})
    level2_quota: int = field(default=0, metadata={"help": "calls a year of a level2 key; 0 = unlimited"})
    enterprise_quota: int = field(default=0, metadata={
        "help": "default calls a year of an enterprise key (custom per key); 0 = unlimited"})
    live_feed: bool = field(default=True, metadata={
        "help": "keep releasing generated filings as the clock passes the catalogue's start instant "
                "(2026-01-05T09:00Z); false freezes the catalogue at its documented size"})
    processing_delay_s: int = field(default=900, metadata={
        "help": "seconds from a filing reaching the platform until its Markdown is ready"})
    burst_limit: str = field(default="50/second", metadata={
        "help": "value of the X-RateLimit-Burst-Limit header (informational, not enforced)"})
    walk_page_limit: int = field(default=10, metadata={
        "help": "unfiltered list pages (companies, filings) a client may walk before each further page breaks "
                "filings/walking-every-page"})
    watchlist_limit: int = field(default=10_000, metadata={"help": "companies one key's watchlist may hold"})
    webhook_limit: int = field(default=20, metadata={"help": "webhooks one key may hold"})
    webhook_other_hosts: str = field(default="record", metadata={
        "help": "a webhook URL outside loopback and webhook_hosts: record (kept, its deliveries logged as not "
                "sent) or refuse (400 when the webhook is created or changed)"})
    webhook_hosts: list[str] = field(default_factory=list, metadata={
        "help": "host names besides loopback that webhooks are delivered to"})
    webhook_timeout_s: float = field(default=5.0, metadata={"help": "timeout of one webhook POST (wall seconds)"})
    webhook_log_size: int = field(default=1000, metadata={"help": "delivery attempts kept per webhook (oldest out)"})
    webhook_backlog: int = field(default=10_000, metadata={
        "help": "deliveries one catch-up makes at most (a clock jump past that drops the rest, counted)"})
    agent_sandbox_calls: int = field(default=50, metadata={
        "help": "data calls an agent key's read-only sandbox allows before it needs its owner (402)"})

    def __post_init__(self) -> None:
        """Refuse settings that would only fail later (one clear line from `fakes serve`)."""
        problems = []
        try:
            Scale.parse(self.scale)
        except ScaleError as exc:
            problems.append(str(exc))
        if not 1 <= self.default_page_size <= self.max_page_size:
            problems.append("default_page_size must be between 1 and max_page_size")
        quotas = (self.free_quota, self.standard_quota, self.level2_quota, self.enterprise_quota)
        if min(*quotas, self.processing_delay_s) < 0:
            problems.append("quotas and processing_delay_s must be >= 0")
        if max(quotas) > MAX_QUOTA:
            problems.append(f"quotas must be at most {MAX_QUOTA} calls a year (0 = unlimited)")
        if not is_header_name(self.api_key_header):
            problems.append(f"api_key_header must be a header name such as X-API-Key, got {self.api_key_header!r}")
        if self.webhook_other_hosts not in ("record", "refuse"):
            problems.append("webhook_other_hosts must be record or refuse")
        limits = (self.watchlist_limit, self.webhook_limit, self.webhook_log_size, self.webhook_backlog,
                  self.agent_sandbox_calls)
        if min(limits) < 1 or max(limits) > 10_000_000:
            problems.append("watchlist_limit, webhook_limit, webhook_log_size, webhook_backlog and "
                            "agent_sandbox_calls must be from 1 to 10,000,000")
        if not 0 < self.webhook_timeout_s <= 600:
            problems.append("webhook_timeout_s must be above 0 and at most 600")
        if problems:
            raise SettingsError("filings: " + "; ".join(problems))
