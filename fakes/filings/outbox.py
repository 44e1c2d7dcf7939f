"""Webhook events, deliveries and their log: what the clock's passing sends, and retries.

Events: ``filing.received`` when a filing reaches the platform (its ``added_to_platform``),
``filing.processed`` when its conversion completes (``processing_delay_s`` later; never for a
failed one), ``filing.updated`` when a user's filing is re-released, ``filing.processed.test`` from
``POST /webhooks/{id}/test/``. A webhook hears an event when it is active, was listening before
the event, asked for that kind, follows the filing's type (``subscribed_filing_types``) and its
company (its key's watchlist, or every company with ``track_all_companies``); a late filing
(reached the platform more than 48 hours after release, at most 30 days) only with
``deliver_late_filings``.

The model's catch-up (every request, every clock move, and a wall-clock tick while webhooks exist)
turns what the clock passed into deliveries: one record per attempt, ``pending`` until the sender
thread (:mod:`.delivery`) has posted it. A failed attempt (no answer, 408, 429 or 5xx) is tried
again after 1 min, 5 min, 30 min, 2 h and 6 h of virtual time, each a new record. Each webhook's
log keeps its last ``webhook_log_size`` attempts; one catch-up makes at most ``webhook_backlog``
deliveries (what a clock jump past that drops is counted in ``dropped``).
"""

from __future__ import annotations

import hashlib
import hmac
import uuid
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Protocol

from .catalogue.arith import stable_hash
from .catalogue.companies import company_full_json
from .catalogue.filing_types import TYPES
from .catalogue.markets import LANGUAGES, MARKETS
from .catalogue.records import FilingRecord, generated_record, iso_s, period_ending_date, source_json
from .query import FilingFilter, source_for
from .webhooks import Webhook

if TYPE_CHECKING:
    from .catalogue.companies import CompanyCore
    from .catalogue.generator import Catalogue
    from .watchlist import Watchlists

BACKOFF_S = (60, 300, 1800, 7200, 21600)
RETRIED = frozenset({408, 429})
LATE_S = 48 * 3600
TOO_LATE_S = 30 * 86400
UUID_SALT = 0x0D1D
USER_AGENT = "FinancialReports-Webhooks/1.0 (contract-fakes)"
EVENTS = ("filing.received", "filing.processed", "filing.updated", "filing.processed.test")
STATUSES = ("pending", "success", "failed")
NOT_SENT = "not sent: the URL's host is not a loopback host or in webhook_hosts"


class WebhookSource(Protocol):
    """What events and payloads read of the model (:class:`~fakes.filings.model.FilingsModel` is
    one): the catalogue, the added filings, the companies, and whose watchlist follows what."""

    seed: int
    filings: dict[int, FilingRecord]
    watchlists: Watchlists

    @property
    def catalogue(self) -> Catalogue: ...

    def find_record(self, filing_id: int) -> FilingRecord | None: ...

    def core(self, company_id: int) -> CompanyCore | None: ...

    def markdown_text(self, record: FilingRecord) -> str: ...

    def visible_count(self) -> int: ...


@dataclass
class Delivery:
    uuid: str
    webhook_id: int
    event_type: str
    filing_id: int | None
    event_s: int  # when the event happened (the payload's triggered_at)
    created_s: int  # when this attempt was made
    attempt: int = 1
    status: str = "pending"
    response_status_code: int | None = None
    duration_ms: int | None = None
    response_body: str | None = None
    retry_at_s: int | None = None  # a failed attempt's next try (None: none)
    changes: dict[str, Any] | None = None  # filing.updated: what changed

    def to_json(self) -> dict[str, Any]:
        return {"uuid": self.uuid, "webhook_id": self.webhook_id, "event_type": self.event_type,
                "filing_id": self.filing_id, "status": self.status, "response_status_code": self.response_status_code,
                "duration_ms": self.duration_ms, "created_at": iso_s(self.created_s)}

    def to_state(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Outgoing:
    """One POST for the sender thread: everything decided, nothing left to read from the model."""

    delivery: Delivery
    url: str
    headers: dict[str, str]
    body: bytes


def delivery_uuid(seed: int, epoch: int, number: int) -> str:
    high, low = stable_hash(seed, UUID_SALT, epoch, number, 0), stable_hash(seed, UUID_SALT, epoch, number, 1)
    return str(uuid.UUID(int=(high << 64 | low), version=4))


def signature(secret: str, timestamp: int, body: bytes) -> str:
    """``sha256=`` and the hex HMAC-SHA256 of ``"<timestamp>.<body>"`` keyed with the webhook's secret."""
    return "sha256=" + hmac.new(secret.encode(), str(timestamp).encode() + b"." + body, hashlib.sha256).hexdigest()


def headers_for(hook: Webhook, delivery: Delivery, timestamp: str, sign: str) -> dict[str, str]:
    return {"Content-Type": "application/json", "User-Agent": USER_AGENT, "X-Filing-Event": delivery.event_type,
            "X-Filing-Delivery": delivery.uuid, "X-Filing-Webhook-Id": str(hook.id), "X-Filing-Timestamp": timestamp,
            "X-Filing-Signature-256": sign}


def is_late(record: FilingRecord) -> bool:
    return record.added_s - record.release_s > LATE_S


def payload(model: WebhookSource, hook: Webhook, delivery: Delivery, base_url: str) -> dict[str, Any]:
    """The JSON body of a delivery, built from the filing as it is now."""
    body: dict[str, Any] = {"event_type": delivery.event_type, "webhook_id": str(hook.id),
                            "triggered_at": iso_s(delivery.event_s)}
    record = model.find_record(delivery.filing_id) if delivery.filing_id is not None else None
    if record is None:  # the test event: a sample filing
        record = generated_record(model.catalogue, 0)
    core = model.core(record.company_id)
    assert core is not None
    full = company_full_json(model.seed, core)
    market = MARKETS[core.market_index]
    company: dict[str, Any] = {
        "id": str(core.id), "name": core.name, "ticker": core.ticker, "lei": core.lei,
        "website": full["homepage_link"], "company_page": f"{base_url}/companies/{core.id}/",
        "country_name": market.name, "country_code_alpha2": core.country_code,
        "isins": list(core.isins) if hook.include_isins else []}
    if hook.include_isins:
        company["isin_count"] = len(core.isins)
    received = delivery.event_type == "filing.received"
    filing_type = TYPES[record.type_index]
    language = LANGUAGES[record.language_index]
    status = "PENDING" if received else ("FAILED" if record.failed else "COMPLETED")
    markdown = None
    if not received and hook.include_markdown and status == "COMPLETED":
        markdown = model.markdown_text(record)
    lag = round((record.added_s - record.release_s) / 3600, 1)
    body.update(filing_id=str(record.id), company=company, filing={
        "id": str(record.id), "processing_status": status,
        "filing_type_code": None if received else filing_type.code,
        "filing_type_name": None if received else filing_type.name,
        "language_code": None if received else language.code, "language_name": None if received else language.name,
        "title": record.title, "dissemination_datetime": iso_s(record.release_s),
        "release_datetime": iso_s(record.release_s), "ingestion_mode": record.ingestion_mode,
        "fiscal_year": None if received else record.fiscal_year,
        "fiscal_period": None if received else record.fiscal_period,
        "period_ending_date": None if received else period_ending_date(record.fiscal_year, record.fiscal_period),
        "updated_date": iso_s(record.added_s if record.updated_s is None else record.updated_s),
        "late": is_late(record), "ingest_lag_hours": lag if lag >= 0 else None,
        "document_url": f"{base_url}/filings/{record.id}/document/", "source_url": None,
        "source_filing_type": filing_type.name, "source": source_json(record.market_index),
        "markdown_content": markdown})
    if delivery.event_type == "filing.updated":
        body["changes"] = delivery.changes or {}
    return body


def hears(model: WebhookSource, hook: Webhook, record: FilingRecord, kind: str, event_s: int) -> bool:
    """Whether ``hook`` is told of event ``kind`` about ``record`` at ``event_s``."""
    if not hook.is_active or event_s < hook.listening_from_s:
        return False
    if not {"filing.received": hook.trigger_on_filing_received, "filing.processed": hook.trigger_on_filing_processed,
            "filing.updated": hook.trigger_on_filing_updated}[kind]:
        return False
    types = hook.type_indexes()
    if types is not None and record.type_index not in types:
        return False
    if not hook.track_all_companies and record.company_id not in model.watchlists.watched(hook.owner):
        return False
    if is_late(record):
        return hook.deliver_late_filings and record.added_s - record.release_s <= TOO_LATE_S
    return True


def generated_indexes(model: WebhookSource, hook: Webhook, after_s: int, until_s: int, limit: int) -> list[int]:
    """Generated filings ``hook`` follows that reached the platform in ``(after_s, until_s]``."""
    catalogue = model.catalogue
    timeline = catalogue.timeline
    lo = timeline.count_released_by(after_s)
    hi = min(timeline.count_released_by(until_s), model.visible_count())
    if hi <= lo or limit <= 0:
        return []
    companies = None if hook.track_all_companies else frozenset(
        cid for cid in model.watchlists.watched(hook.owner) if catalogue.has_company(cid))
    if companies is not None and not companies:
        return []
    source = source_for(catalogue, FilingFilter(company_ids=companies, type_indexes=hook.type_indexes()))
    base = source.count_below(lo)
    count = source.count_below(hi) - base
    return source.take(base, min(count, limit), hi)
