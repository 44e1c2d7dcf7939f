"""The enrichment service's client rules (see :mod:`fakes.kernel.verdicts`), flagged from routes."""

from __future__ import annotations

from fakes.kernel.verdicts import ClientRule

RETRY_BEFORE_RETRY_AFTER = ClientRule(
    "enrichment/retry-before-retry-after", "warning",
    "After a 429 the client called the same rate-limit bucket again before Retry-After had passed; "
    "every such call is refused again and still counts against the account.",
    "https://nubela.co/docs (Rate limit: a 429 when rate limited; back off); docs/services/enrichment.md#public-api "
    "(a 429 carries Retry-After, the seconds until the window resets)")
PAID_TWICE_IN_CACHE_WINDOW = ClientRule(
    "enrichment/paid-twice-in-cache-window", "warning",
    "The client paid again for a lookup it had already paid for inside the cache's freshness window "
    "(use_cache=never or force_refresh); the default use_cache=if-recent would have answered it for 0 credits.",
    "https://nubela.co/blog/updates-to-rate-limits-and-caching/ (use_cache: a cached answer is not charged "
    "again); docs/services/enrichment.md#public-api (billing rule 3)")
IGNORED_RATE_LIMIT_HEADERS = ClientRule(
    "enrichment/ignored-rate-limit-headers", "warning",
    "The client sent a request after an answer of the same minute said X-RateLimit-Remaining: 0, before "
    "X-RateLimit-Reset; reading the headers would have avoided the 429.",
    "https://nubela.co/docs (Rate limit); docs/services/enrichment.md#public-api (every answer of a "
    "rate-limited account carries X-RateLimit-Limit, -Remaining and -Reset)")

CLIENT_RULES = (RETRY_BEFORE_RETRY_AFTER, PAID_TWICE_IN_CACHE_WINDOW, IGNORED_RATE_LIMIT_HEADERS)
