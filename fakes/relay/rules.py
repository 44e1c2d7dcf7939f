"""The relay's documented client rules (verdicts), flagged from its routes."""

from __future__ import annotations

from fakes.kernel.verdicts import ClientRule

BILLED_POST_RETRY = ClientRule(
    id="relay/billed-post-retry-without-idempotency-key",
    severity="error",
    explanation="A POST that was billed was sent again, unchanged, without an Idempotency-Key: the relay "
                "forwards and bills it a second time. Send an Idempotency-Key so that a retry is replayed, "
                "not paid twice.",
    source="https://treg.to/llms.txt (Retrying a call: Idempotency-Key; a retry without it is a new, billed call); "
           "docs/services/relay.md#idempotency")

RETRY_BEFORE_RETRY_AFTER = ClientRule(
    id="relay/retry-before-retry-after",
    severity="warning",
    explanation="After a 503 proxy_saturated the client called again before Retry-After had passed; a "
                "saturated relay refuses it again. Wait for Retry-After.",
    source="https://treg.to/llms.txt (Concurrency: a saturated relay answers 503 with Retry-After: wait that long "
           "and retry); docs/services/relay.md#saturation")

UNENCODED_SQL_OR_HTML = ClientRule(
    id="relay/sql-or-html-body-without-base64",
    severity="warning",
    explanation="A request body containing SQL or HTML was sent without the body-encoding header: the web "
                "firewall in front of the relay blocks it with a 403 page. Send it base64-encoded with "
                "X-Proxy-Body-Encoding: base64 (the official client does).",
    source="https://treg.to/llms.txt (a body carrying SQL or HTML is refused with a 403 by the hosting edge: send "
           "it base64-encoded with the body-encoding header); docs/services/relay.md#refusals")

ALL = (BILLED_POST_RETRY, RETRY_BEFORE_RETRY_AFTER, UNENCODED_SQL_OR_HTML)
