"""Settings of the video fake; defaults are the seed's values, or the reference's where the seed is silent.

Where the real api.video differs from the seed, or where the fake had to choose, the choice is a
setting (see docs/services/video.md, "Assumptions").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fakes.kernel.cors import check_origins
from fakes.kernel.settings import FakeSettings, SettingsError

from .geo import CONTINENT_OF

#: requests a minute per class (uploads, writes, reads), per environment, from the reference
SANDBOX_LIMITS = {"uploads": 40, "writes": 40, "reads": 100}
PRODUCTION_LIMITS = {"uploads": 100, "writes": 200, "reads": 500}
#: the seed's prices in dollars
PRICES = {"stored_minute_month": 0.00285, "watched_minute": 0.0017, "transcript_minute": 0.10,
          "summary_abstract_minute": 0.10, "summary_takeaways_minute": 0.05}


@dataclass
class VideoSettings(FakeSettings):
    environment: str = field(default="sandbox", metadata={
        "help": "which environment this fake plays: sandbox (30 s limit, watermark, 24 h deletion) or production; "
                "the other environment's keys are refused with 401"})
    public_base_url: str = field(default="", metadata={
        "help": "base URL written into asset URLs (behind a proxy); empty: the address each request reached"})
    cors_origins: list[str] = field(default_factory=lambda: ["*"], metadata={
        "help": "origins whose web pages may call the API, the delegated upload and the assets (CORS, as api.video's "
                "browser uploader needs): [\"*\"] any (default), a list such as [\"https://app.example\"], or [] none "
                "(no CORS headers; a preflight then gets the API's 405)"})
    not_ready_status: int = field(default=202, metadata={
        "help": "what the HLS manifest or the MP4 of a video whose source is in but not yet encoded answers: 202 with "
                "an empty body (default; api.video's uploader polls the manifest while it gets that) or 404"})
    sandbox_max_duration_s: float = field(default=30.0, metadata={
        "help": "longest source the sandbox accepts, in seconds (documented: 30)"})
    sandbox_retention_s: int = field(default=86_400, metadata={
        "help": "a sandbox video is deleted this long after its creation (documented: 24 h)"})
    keep_discarded_videos: bool = field(default=False, metadata={
        "help": "whether new projects have api.video's Video Restore feature: a deleted video is discarded "
                "(listed under /discarded/videos, restorable) for discarded_retention_s, then deleted; "
                "POST /_fake/projects {\"keeps_discarded\": true} turns it on for one project"})
    discarded_retention_s: int = field(default=90 * 86_400, metadata={
        "help": "how long a discarded video is kept before it is deleted for good (documented: 90 days)"})
    playback_country: str = field(default="US", metadata={
        "help": "the country (ISO 3166 alpha-2) analytics give plays of the fake's own player and HLS (it has no "
                "IP geolocation); POST /_fake/plays names its own"})
    max_image_bytes: int = field(default=8 * 1024 * 1024, metadata={
        "help": "largest image upload (thumbnails, logos, watermarks), bytes"})
    token_lifetime_s: int = field(default=3_600, metadata={"help": "expires_in of /auth/api-key access tokens"})
    max_upload_bytes: int = field(default=200 * 1024 * 1024, metadata={
        "help": "largest file part of one upload request (documented: 200 MiB); more is uploaded-file-too-large"})
    min_chunk_bytes: int = field(default=5 * 1024 * 1024, metadata={
        "help": "smallest Content-Range chunk except the last (documented: 5 MiB)"})
    max_parts: int = field(default=10_000, metadata={"help": "highest part number of a part upload"})
    max_total_bytes: int = field(default=52_428_800_000, metadata={
        "help": "largest total_bytes of a byte-range upload (documented: 52,428,800,000)"})
    queue_s: float = field(default=1.0, metadata={
        "help": "seconds an uploaded source waits (ingest status uploaded) before ingesting starts"})
    ingest_base_s: float = field(default=2.0, metadata={"help": "fixed part of the ingest time, seconds"})
    ingest_per_source_s: float = field(default=0.1, metadata={
        "help": "ingest seconds per second of source"})
    encode_base_s: float = field(default=3.0, metadata={"help": "fixed part of each quality's encoding time"})
    encode_per_source_s: float = field(default=0.5, metadata={
        "help": "encoding seconds per second of source, per quality (qualities encode one after another)"})
    caption_per_source_s: float = field(default=0.5, metadata={
        "help": "seconds per second of source from the end of encoding to the generated captions"})
    summary_delay_s: float = field(default=10.0, metadata={
        "help": "seconds from the captions to the generated summary"})
    default_page_size: int = field(default=25, metadata={"help": "pageSize when the request gives none"})
    min_page_size: int = field(default=1, metadata={
        "help": "smallest pageSize (documented: 1-100 in the parameter, 10 in one 400 example)"})
    max_page_size: int = field(default=100, metadata={"help": "largest pageSize"})
    rate_limits: dict[str, int] = field(default_factory=dict, metadata={
        "help": "requests a minute per class (uploads, writes, reads); empty: the environment's documented "
                "limits (sandbox 40/40/100, production 100/200/500)"})
    webhook_other_hosts: str = field(default="refuse", metadata={
        "help": "a webhook URL outside loopback and webhook_hosts: refuse (400 at subscription) or record "
                "(kept in the outbox, never POSTed)"})
    webhook_hosts: list[str] = field(default_factory=list, metadata={
        "help": "host names besides loopback that deliveries may be POSTed to (e.g. a compose service)"})
    webhook_timeout_s: float = field(default=5.0, metadata={"help": "timeout of one webhook POST"})
    status_poll_interval_s: float = field(default=2.0, metadata={
        "help": "polling one video's status again sooner than this (virtual seconds) breaks the tight-loop rule"})
    custom_domain_month_eur: float = field(default=60.0, metadata={
        "help": "euros a month per extra custom domain of a project (documented: 60), reported in cost_eur"})
    prices: dict[str, float] = field(default_factory=dict, metadata={
        "help": "dollar prices over the documented ones: stored_minute_month, watched_minute, transcript_minute, "
                "summary_abstract_minute, summary_takeaways_minute"})

    def __post_init__(self) -> None:
        checks = [
            (self.environment in ("sandbox", "production"), "environment must be sandbox or production"),
            (self.webhook_other_hosts in ("refuse", "record"), "webhook_other_hosts must be refuse or record"),
            (1 <= self.min_page_size <= self.default_page_size <= self.max_page_size,
             "page sizes must satisfy 1 <= min_page_size <= default_page_size <= max_page_size"),
            (min(self.queue_s, self.ingest_base_s, self.ingest_per_source_s, self.encode_base_s,
                 self.encode_per_source_s, self.caption_per_source_s, self.summary_delay_s) >= 0,
             "timeline durations must be >= 0"),
            (self.token_lifetime_s >= 1 and self.sandbox_retention_s >= 1 and self.discarded_retention_s >= 1,
             "lifetimes must be >= 1"),
            (1 <= self.max_image_bytes <= 64 * 1024 * 1024, "max_image_bytes must be from 1 to 64 MiB"),
            (self.playback_country in CONTINENT_OF, "playback_country must be an ISO 3166 alpha-2 country code"),
            (self.max_upload_bytes >= 1 and self.min_chunk_bytes >= 0 and self.max_parts >= 1,
             "upload limits must be positive"),
            (set(self.rate_limits) <= set(SANDBOX_LIMITS), "rate_limits keys are uploads, writes, reads"),
            (all(isinstance(v, int) and v >= 1 for v in self.rate_limits.values()), "rate limits must be >= 1"),
            (set(self.prices) <= set(PRICES), f"prices keys are {', '.join(PRICES)}"),
            (0 <= self.custom_domain_month_eur <= 1e6, "custom_domain_month_eur must be from 0 to 1e6"),
            (not self.public_base_url or self.public_base_url.startswith(("http://", "https://")),
             "public_base_url must start with http:// or https://"),
            (check_origins(self.cors_origins) is None, f"cors_origins: {check_origins(self.cors_origins)}"),
            (self.not_ready_status in (202, 404), "not_ready_status must be 202 or 404"),
        ]
        problems = [message for ok, message in checks if not ok]
        if problems:
            raise SettingsError("video: " + "; ".join(problems))

    @property
    def sandbox(self) -> bool:
        return self.environment == "sandbox"

    def limits(self) -> dict[str, int]:
        base = SANDBOX_LIMITS if self.sandbox else PRODUCTION_LIMITS
        return {**base, **self.rate_limits}

    def price_table(self) -> dict[str, float]:
        return {**PRICES, **self.prices}
