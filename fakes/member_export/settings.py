"""Settings of the member data export fake; defaults are the seed's values.

Where the real LinkedIn DMA API differs from the seed (header name, token lifetime) the seed's
value is the default and the real one is a setting away (``version_header="LinkedIn-Version"``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fakes.kernel.settings import FakeSettings, SettingsError, is_header_name

from .domains import DOMAINS

#: EU member states, the other EEA countries and Switzerland (ISO 3166-1 alpha-2).
ELIGIBLE_REGIONS = [
    "AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE", "IT", "LV",
    "LT", "LU", "MT", "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE",  # EU
    "IS", "LI", "NO",  # rest of the EEA
    "CH",
]


@dataclass
class MemberExportSettings(FakeSettings):
    version_header: str = field(default="Service-Version", metadata={
        "help": "name of the required version header (the real API uses LinkedIn-Version)"})
    accepted_version: str = field(default="202312", metadata={
        "help": "the single accepted value of the version header; anything else is 426"})
    token_lifetime_s: int = field(default=31_536_000, metadata={
        "help": "expires_in of issued access tokens (documented: about one year; no refresh token)"})
    scope: str = field(default="r_dma_portability_self_serve", metadata={
        "help": "OAuth scope a token needs for the portability endpoints"})
    eligible_regions: list[str] = field(default_factory=lambda: list(ELIGIBLE_REGIONS), metadata={
        "help": "profile locations whose members may use the API (EU/EEA + CH)"})
    default_region: str = field(default="DE", metadata={"help": "region of members created without one"})
    page_size: int = field(default=10, metadata={
        "help": "records per snapshot page (echoed as paging.count)"})
    build_times: dict[str, int] = field(default_factory=dict, metadata={
        "help": "seconds from consent until a domain is available, per domain; overrides the built-in "
                "defaults (per-member build_times override these)"})
    sizes: dict[str, int] = field(default_factory=dict, metadata={
        "help": "records per domain for new members; overrides the seeded default sizes"})
    invitation_history_days: int = field(default=183, metadata={
        "help": "INVITATIONS keeps only this many days (documented: last 6 months)"})
    changelog_retention_days: int = field(default=28, metadata={
        "help": "changelog events are kept, and startTime may look back, this many days"})
    changelog_max_count: int = field(default=50, metadata={"help": "largest accepted changelog count"})
    changelog_default_count: int = field(default=10, metadata={
        "help": "count used when the request gives none (the documented recommendation)"})
    changelog_time_field: str = field(default="processedAt", metadata={
        "help": "event timestamp that startTime filters, orders and retains on: processedAt (the "
                "documented cursor never loses a late event) or capturedAt"})
    processing_delay_s: int = field(default=5, metadata={
        "help": "seconds between a member's own action and its changelog event becoming visible"})
    reply_delay_s: int = field(default=7_200, metadata={
        "help": "seconds until a received message shows in the changelog (documented: within hours)"})
    poll_interval_s: int = field(default=3_600, metadata={
        "help": "documented changelog polling cadence; faster polls break member-export/polling-too-fast"})
    locale: str = field(default="en_US", metadata={"help": "faker locale of the generated data"})
    authorization_code_lifetime_s: int = field(default=1_800, metadata={
        "help": "seconds an OAuth authorization code can be exchanged (LinkedIn: 30 minutes)"})
    refresh_tokens: bool = field(default=False, metadata={
        "help": "programmatic refresh tokens for applications registered without refresh_tokens (LinkedIn "
                "grants them to select partners only)"})
    refresh_token_lifetime_s: int = field(default=31_536_000, metadata={
        "help": "lifetime of a programmatic refresh token, fixed when the member authorizes (LinkedIn: 365 days)"})
    archive_on_consent: bool = field(default=False, metadata={
        "help": "the OAuth token exchange also starts archiving and the builds (LinkedIn's pages: 'automatically "
                "registered'); default: POST /rest/memberAuthorizations does (the documented DMA flow)"})
    member_daily_limit: int = field(default=0, metadata={
        "help": "calls per member, application and resource per UTC day before 429 (0: no limit; LinkedIn "
                "publishes no number, see the app's Analytics tab)"})
    application_daily_limit: int = field(default=0, metadata={
        "help": "calls per application and resource per UTC day before 429 (0: no limit; LinkedIn publishes no "
                "number)"})

    def __post_init__(self) -> None:
        """Refuse settings that would only fail later, at the first request that needs them."""
        checks = [
            (self.page_size >= 1, "page_size must be >= 1"),
            (is_header_name(self.version_header),
             f"version_header must be a header name such as LinkedIn-Version, got {self.version_header!r}"),
            (1 <= self.changelog_default_count <= self.changelog_max_count,
             "changelog_default_count must be between 1 and changelog_max_count"),
            (self.changelog_retention_days >= 1, "changelog_retention_days must be >= 1"),
            (self.invitation_history_days >= 0, "invitation_history_days must be >= 0"),
            (min(self.processing_delay_s, self.reply_delay_s, self.poll_interval_s, self.token_lifetime_s,
                 self.refresh_token_lifetime_s, self.member_daily_limit, self.application_daily_limit) >= 0,
             "delays, intervals, lifetimes and limits must be >= 0"),
            (self.authorization_code_lifetime_s >= 1, "authorization_code_lifetime_s must be >= 1"),
            (self.changelog_time_field in ("processedAt", "capturedAt"),
             "changelog_time_field must be processedAt or capturedAt"),
        ]
        for name, table in (("sizes", self.sizes), ("build_times", self.build_times)):
            for domain, value in table.items():
                checks.append((domain in DOMAINS, f"{name} names an unknown domain {domain!r}"))
                checks.append((isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0,
                               f"{name}.{domain} must be a number >= 0"))
            if name == "sizes":
                checks.append((all(isinstance(v, int) for v in table.values()), "sizes must be whole numbers"))
        problems = [message for ok, message in checks if not ok]
        if problems:
            raise SettingsError("member-export: " + "; ".join(problems))
