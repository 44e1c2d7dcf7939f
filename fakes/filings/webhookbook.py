"""The model's webhooks: subscriptions, their delivery logs, and the catch-up that fills them.

Plain state and rules (:mod:`.webhooks` checks bodies, :mod:`.outbox` builds events and
payloads); HTTP is the sender thread's (:mod:`.delivery`), which reports each attempt back through
:meth:`WebhookBook.record`. ``outgoing`` holds the attempts made but not handed to the sender yet.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from fakes.kernel.errors import ServiceError
from fakes.kernel.statecheck import StateReader, refuse

from .catalogue.records import FilingRecord, generated_record
from .outbox import (
    BACKOFF_S,
    EVENTS,
    NOT_SENT,
    RETRIED,
    STATUSES,
    Delivery,
    Outgoing,
    WebhookSource,
    delivery_uuid,
    generated_indexes,
    headers_for,
    hears,
    payload,
    signature,
)
from .webhooks import Webhook, apply, is_loopback, read_webhooks, secret_key

if TYPE_CHECKING:
    from .settings import FilingsSettings

MAX_EPOCH_S = 253_402_300_799


class WebhookBook:
    def __init__(self, seed: int, epoch: int, settings: FilingsSettings) -> None:
        self.seed, self.epoch, self.settings = seed, epoch, settings
        self.hooks: dict[int, Webhook] = {}
        self.logs: dict[int, list[Delivery]] = {}  # per webhook, oldest first
        self.by_uuid: dict[str, Delivery] = {}
        self.hook_seq = 0
        self.delivery_seq = 0
        self.secret_seq = 0
        self.synced_s = 0
        self.dropped = 0
        self.outgoing: list[Outgoing] = []
        self.base_url = "http://testserver"

    # -- subscriptions -------------------------------------------------------------------------
    def _secret(self) -> str:
        self.secret_seq += 1
        return secret_key(self.seed, self.epoch, self.secret_seq)

    def create(self, owner: str, body: dict[str, Any], now_s: int) -> Webhook:
        settings = self.settings
        changes = apply(None, body, partial=False, other_hosts=settings.webhook_other_hosts,
                        allowed=settings.webhook_hosts)
        if sum(1 for hook in self.hooks.values() if hook.owner == owner) >= settings.webhook_limit:
            raise ServiceError(400, f"An account holds at most {settings.webhook_limit} webhooks.",
                               code="invalid_body")
        if not any(hook.is_active for hook in self.hooks.values()):
            self.synced_s = now_s  # nothing listened before: the past sends nothing
        self.hook_seq += 1
        hook = Webhook(self.hook_seq, owner, changes.pop("url"), self._secret(), now_s, now_s, now_s, **changes)
        self.hooks[hook.id] = hook
        self.logs[hook.id] = []
        return hook

    def of(self, owner: str, hook_id: int) -> Webhook:
        hook = self.hooks.get(hook_id)
        if hook is None or hook.owner != owner:
            raise ServiceError(404, "Not found.", code="not_found")
        return hook

    def listing(self, owner: str) -> list[Webhook]:
        return [hook for hook in self.hooks.values() if hook.owner == owner]

    def update(self, hook: Webhook, body: dict[str, Any], *, partial: bool, now_s: int) -> Webhook:
        changes = apply(hook, body, partial=partial, other_hosts=self.settings.webhook_other_hosts,
                        allowed=self.settings.webhook_hosts)
        if changes.get("is_active") and not hook.is_active:
            hook.listening_from_s = now_s  # turned back on: what happened while off is not sent
            if not any(other.is_active for other in self.hooks.values()):
                self.synced_s = now_s
        for name, value in changes.items():
            setattr(hook, name, value)
        hook.updated_s = now_s
        return hook

    def delete(self, hook: Webhook) -> None:
        del self.hooks[hook.id]
        for delivery in self.logs.pop(hook.id, []):
            self.by_uuid.pop(delivery.uuid, None)

    def regenerate(self, hook: Webhook, now_s: int) -> str:
        hook.secret = self._secret()
        hook.updated_s = now_s
        return hook.secret

    # -- deliveries ----------------------------------------------------------------------------
    def deliverable(self, hook: Webhook) -> bool:
        host = (urlsplit(hook.url).hostname or "").lower()
        return is_loopback(host) or host in {h.lower() for h in self.settings.webhook_hosts}

    def attempt(self, model: WebhookSource, hook: Webhook, event: str, filing_id: int | None, event_s: int,
                now_s: int, number: int = 1, changes: dict[str, Any] | None = None) -> Delivery:
        """A new attempt, logged and (for a loopback URL) handed to the sender."""
        self.delivery_seq += 1
        delivery = Delivery(delivery_uuid(self.seed, self.epoch, self.delivery_seq), hook.id, event, filing_id,
                            event_s, now_s, number, changes=changes)
        log = self.logs.setdefault(hook.id, [])
        log.append(delivery)
        self.by_uuid[delivery.uuid] = delivery
        if len(log) > self.settings.webhook_log_size:
            self.by_uuid.pop(log.pop(0).uuid, None)
        if not self.deliverable(hook):
            delivery.status, delivery.response_body = "failed", NOT_SENT
            return delivery
        body = json.dumps(payload(model, hook, delivery, self.base_url), separators=(",", ":")).encode()
        timestamp = now_s
        self.outgoing.append(Outgoing(delivery, hook.url, headers_for(
            hook, delivery, str(timestamp), signature(hook.secret, timestamp, body)), body))
        return delivery

    def record(self, delivery: Delivery, status_code: int | None, body: str | None, duration_ms: int | None) -> None:
        """The sender's report of one attempt: its outcome, and the next try if it failed."""
        delivery.response_status_code = status_code
        delivery.response_body = None if body is None else body[:2000]
        delivery.duration_ms = duration_ms
        ok = status_code is not None and 200 <= status_code < 300
        delivery.status = "success" if ok else "failed"
        retry = status_code is None or status_code >= 500 or status_code in RETRIED
        if not ok and retry and delivery.attempt <= len(BACKOFF_S) and delivery.event_type != "filing.processed.test":
            delivery.retry_at_s = min(MAX_EPOCH_S, delivery.created_s + BACKOFF_S[delivery.attempt - 1])

    def take_outgoing(self) -> list[Outgoing]:
        found, self.outgoing = self.outgoing, []
        return found

    # -- the clock's consequences ----------------------------------------------------------------
    def catch_up(self, model: WebhookSource, now_s: int) -> None:
        """Make the attempts of every event and retry due in ``(synced_s, now_s]``."""
        start = self.synced_s
        if now_s <= start:
            return
        self.synced_s = now_s
        budget = self.settings.webhook_backlog
        for log in list(self.logs.values()):
            for delivery in list(log):
                if delivery.retry_at_s is not None and delivery.retry_at_s <= now_s:
                    hook = self.hooks.get(delivery.webhook_id)
                    if hook is not None and hook.is_active:
                        self.attempt(model, hook, delivery.event_type, delivery.filing_id, delivery.event_s,
                                     delivery.retry_at_s, delivery.attempt + 1, delivery.changes)
                    delivery.retry_at_s = None
        active = [hook for hook in self.hooks.values() if hook.is_active]
        if not active:
            return
        delay = self.settings.processing_delay_s
        events: list[tuple[int, int, str, int, FilingRecord]] = []
        for record in model.filings.values():
            if start < record.added_s <= now_s:
                events.append((record.added_s, record.id, "filing.received", 0, record))
            done = record.added_s + delay
            if not record.failed and start < done <= now_s:
                events.append((done, record.id, "filing.processed", 0, record))
        for hook in active:
            kinds = []
            if hook.trigger_on_filing_received:
                kinds.append(("filing.received", 0))
            if hook.trigger_on_filing_processed:
                kinds.append(("filing.processed", delay))
            for kind, shift in kinds:
                for index in generated_indexes(model, hook, start - shift, now_s - shift, budget + 1 - len(events)):
                    record = generated_record(model.catalogue, index)
                    if kind == "filing.processed" and record.failed:
                        continue
                    events.append((record.added_s + shift, record.id, kind, hook.id, record))
        events.sort(key=lambda event: event[:3])
        made = 0
        for event_s, filing_id, kind, only, record in events:
            for hook in active:
                if (only and only != hook.id) or not hears(model, hook, record, kind, event_s):
                    continue
                if made >= budget:
                    self.dropped += 1
                    continue
                self.attempt(model, hook, kind, filing_id, event_s, event_s)
                made += 1

    def updated(self, model: WebhookSource, record: FilingRecord, changes: dict[str, Any], now_s: int) -> None:
        """A user's filing was re-released: tell the webhooks that asked for ``filing.updated``."""
        for hook in list(self.hooks.values()):
            if hears(model, hook, record, "filing.updated", now_s):
                self.attempt(model, hook, "filing.updated", record.id, now_s, now_s, changes=changes)

    def received_now(self, model: WebhookSource, record: FilingRecord, now_s: int) -> None:
        """A user's filing reached the platform at once: its received event, now."""
        for hook in list(self.hooks.values()):
            if hears(model, hook, record, "filing.received", now_s):
                self.attempt(model, hook, "filing.received", record.id, now_s, now_s)

    # -- state ---------------------------------------------------------------------------------
    def to_state(self) -> dict[str, Any]:
        return {"hooks": [hook.to_state() for hook in self.hooks.values()],
                "deliveries": [delivery.to_state() for log in self.logs.values() for delivery in log],
                "hook_seq": self.hook_seq, "delivery_seq": self.delivery_seq, "secret_seq": self.secret_seq,
                "synced_s": self.synced_s, "dropped": self.dropped}

    def load(self, read: StateReader, keys: set[str], has_filing: Any) -> None:
        read.only(("hooks", "deliveries", "hook_seq", "delivery_seq", "secret_seq", "synced_s", "dropped"))
        hooks = read_webhooks(read, "hooks", keys)
        hook_seq = read.integer("hook_seq", minimum=max(hooks, default=0), maximum=2**40)
        logs: dict[int, list[Delivery]] = {hook_id: [] for hook_id in hooks}
        by_uuid: dict[str, Delivery] = {}
        for item in read.objects("deliveries"):
            delivery = _delivery(item, hooks, has_filing)
            if delivery.uuid in by_uuid:
                refuse(item.where("uuid"), "repeats a delivery")
            logs[delivery.webhook_id].append(delivery)
            by_uuid[delivery.uuid] = delivery
        for log in logs.values():
            if len(log) > self.settings.webhook_log_size:
                refuse(read.where("deliveries"), f"holds more than webhook_log_size ({self.settings.webhook_log_size}) "
                                                 "attempts of one webhook")
        self.hooks, self.logs, self.by_uuid, self.hook_seq = hooks, logs, by_uuid, hook_seq
        self.delivery_seq = read.integer("delivery_seq", minimum=0, maximum=2**40)
        self.secret_seq = read.integer("secret_seq", minimum=len(hooks), maximum=2**40)
        self.synced_s = read.integer("synced_s", minimum=0, maximum=MAX_EPOCH_S)
        self.dropped = read.integer("dropped", minimum=0, maximum=2**53)


def _delivery(item: StateReader, hooks: dict[int, Webhook], has_filing: Any) -> Delivery:
    item.only(("uuid", "webhook_id", "event_type", "filing_id", "event_s", "created_s", "attempt", "status",
               "response_status_code", "duration_ms", "response_body", "retry_at_s", "changes"))
    hook_id = item.integer("webhook_id")
    if hook_id not in hooks:
        refuse(item.where("webhook_id"), "names no webhook")
    filing_id = None if item.raw("filing_id") is None else item.integer("filing_id", minimum=1)
    if filing_id is not None and not has_filing(filing_id):
        refuse(item.where("filing_id"), "names no filing")
    event = item.choice("event_type", EVENTS)
    if (filing_id is None) != (event == "filing.processed.test"):
        refuse(item.where("filing_id"), "must be null exactly for a test event")
    changes = item.raw("changes")
    if changes is not None:
        if not isinstance(changes, dict) or len(json.dumps(changes)) > 100_000:
            refuse(item.where("changes"), "must be an object (at most 100,000 characters of JSON) or null")
        item.json("changes")
    optional = {name: None if item.raw(name) is None else item.integer(name, minimum=0, maximum=limit)
                for name, limit in (("response_status_code", 999), ("duration_ms", 2**31),
                                    ("retry_at_s", MAX_EPOCH_S))}
    return Delivery(
        uuid=item.text("uuid", pattern=r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
        webhook_id=hook_id, event_type=event, filing_id=filing_id,
        event_s=item.integer("event_s", minimum=0, maximum=MAX_EPOCH_S),
        created_s=item.integer("created_s", minimum=0, maximum=MAX_EPOCH_S),
        attempt=item.integer("attempt", minimum=1, maximum=len(BACKOFF_S) + 1), status=item.choice("status", STATUSES),
        response_body=None if item.raw("response_body") is None else item.text("response_body", max_length=2000),
        changes=changes, **optional)
