"""Webhook subscriptions and the outbox of every delivery (HTTP sending lives in delivery.py).

An event is emitted when the clock has crossed its instant (the model's catch-up, see model.py);
each subscription of the video's project that listens to the event gets one delivery: the JSON
body, ``X-Api-Video-WebhookID`` and ``X-Api-Video-Signature`` = hex HMAC-SHA256 of the exact body
bytes keyed with the subscription's ``signatureSecret``, as the reference describes.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
from collections.abc import Container
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from fakes.kernel.clock import MAX_EPOCH_MS
from fakes.kernel.statecheck import StateReader, check_text, refuse

from . import data
from .problems import attribute_required, invalid_attribute, not_found

MAX_COUNT = 10**12
EVENTS = ("video.encoding.quality.completed", "video.source.recorded", "video.caption.generated",
          "video.summary.generated", "live-stream.broadcast.started", "live-stream.broadcast.ended")


def signature(secret: str, body: bytes) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def is_loopback(host: str) -> bool:
    if host.lower() in ("localhost", "localhost.") or host.lower().endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass
class Subscription:
    webhook_id: str
    project_id: str
    created_ms: int
    events: list[str]
    url: str
    secret: str
    deliverable: bool  # False: kept in the outbox only (a host outside loopback, when allowed)

    def to_json(self, atom: Any) -> dict[str, Any]:
        return {"webhookId": self.webhook_id, "createdAt": atom(self.created_ms), "events": list(self.events),
                "url": self.url, "signatureSecret": self.secret}

    def to_state(self) -> dict[str, Any]:
        return dict(vars(self))


@dataclass
class Delivery:
    seq: int
    webhook_id: str
    project_id: str
    url: str
    event: str
    emitted_ms: int
    body: str
    headers: dict[str, str]
    deliverable: bool
    status: str = "pending"  # pending | delivered | failed | not_sent
    response_status: int | None = None
    error: str | None = None
    attempts: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "webhookId": self.webhook_id, "project_id": self.project_id, "url": self.url,
                "event": self.event, "emittedAt_ms": self.emitted_ms, "body": json.loads(self.body),
                "raw_body": self.body, "headers": dict(self.headers), "status": self.status,
                "response_status": self.response_status, "error": self.error, "attempts": self.attempts}

    def to_state(self) -> dict[str, Any]:
        return {k: v for k, v in vars(self).items() if k != "extra"}


class Webhooks:
    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.subscriptions: dict[str, Subscription] = {}
        self.outbox: list[Delivery] = []
        self.count = 0

    def subscribe(self, project_id: str, body: dict[str, Any], now_ms: int, *, other_hosts: str,
                  allowed_hosts: list[str]) -> Subscription:
        events = body.get("events")
        url = body.get("url")
        if events is None:
            raise attribute_required("events")
        if url is None:
            raise attribute_required("url")
        if not isinstance(events, list) or not events or not all(e in EVENTS for e in events):
            raise invalid_attribute("events", f"events must be a non-empty list of {', '.join(EVENTS)}")
        if not isinstance(url, str) or len(url) > 2048:
            raise invalid_attribute("url", "url must be an http(s) URL")
        try:
            parts = urlsplit(url)
            host = parts.hostname or ""
            _ = parts.port
        except ValueError:
            host = ""
            parts = urlsplit("")
        if parts.scheme not in ("http", "https") or not host:
            raise invalid_attribute("url", "url must be an absolute http(s) URL")
        local = is_loopback(host) or host.lower() in {h.lower() for h in allowed_hosts}
        if not local and other_hosts == "refuse":
            raise invalid_attribute("url", "this fake delivers webhooks only to loopback URLs (127.0.0.1, ::1, "
                                           "localhost); set video.webhook_other_hosts=record to keep them unsent")
        self.count += 1
        subscription = Subscription(data.webhook_id(self.seed, self.count), project_id, now_ms,
                                    list(dict.fromkeys(events)), url, data.signature_secret(self.seed, self.count),
                                    local)
        self.subscriptions[subscription.webhook_id] = subscription
        return subscription

    def subscription(self, project_id: str, webhook_id: str) -> Subscription:
        sub = self.subscriptions.get(webhook_id)
        if sub is None or sub.project_id != project_id:
            raise not_found("webhookId")
        return sub

    def unsubscribe(self, project_id: str, webhook_id: str) -> None:
        del self.subscriptions[self.subscription(project_id, webhook_id).webhook_id]

    def of_project(self, project_id: str) -> list[Subscription]:
        return [s for s in self.subscriptions.values() if s.project_id == project_id]

    def emit(self, project_id: str, event: str, payload: dict[str, Any], emitted_ms: int,
             emitted_at: str) -> list[Delivery]:
        made = []
        for sub in self.of_project(project_id):
            if event not in sub.events or sub.created_ms > emitted_ms:
                continue
            body = json.dumps({"type": event, "emittedAt": emitted_at, **payload}, separators=(",", ":"))
            headers = {"Content-Type": "application/json", "X-Api-Video-WebhookID": sub.webhook_id,
                       "X-Api-Video-Signature": signature(sub.secret, body.encode())}
            delivery = Delivery(len(self.outbox) + 1, sub.webhook_id, project_id, sub.url, event, emitted_ms, body,
                                headers, sub.deliverable, "pending" if sub.deliverable else "not_sent")
            self.outbox.append(delivery)
            made.append(delivery)
        return made

    def unsent(self) -> list[Delivery]:
        """Deliveries not attempted yet (a restored fake sends them, as the original would have)."""
        return [d for d in self.outbox if d.status == "pending"]

    def to_state(self) -> dict[str, Any]:
        return {"subscriptions": [s.to_state() for s in self.subscriptions.values()],
                "outbox": [d.to_state() for d in self.outbox], "count": self.count}

    def load_state(self, read: StateReader, projects: Container[str]) -> None:
        """Subscriptions and the outbox of an imported state, each field checked."""
        read.only(("subscriptions", "outbox", "count"))
        self.count = read.integer("count", minimum=0, maximum=MAX_COUNT)
        for item in read.objects("subscriptions", max_items=1_000_000):
            item.only(("webhook_id", "project_id", "created_ms", "events", "url", "secret", "deliverable"))
            events = item.array("events", max_items=len(EVENTS))
            if not events or any(e not in EVENTS for e in events) or len(set(events)) != len(events):
                refuse(item.where("events"), "must be a non-empty list of distinct events")
            sub = Subscription(item.text("webhook_id", pattern=r"webhook_[0-9A-Za-z]{22}"),
                               item.text("project_id", max_length=64),
                               item.integer("created_ms", minimum=0, maximum=MAX_EPOCH_MS), list(events),
                               item.text("url", min_length=1, max_length=2048),
                               item.text("secret", max_length=64), item.boolean("deliverable"))
            if sub.project_id not in projects:
                refuse(item.where("project_id"), "names no project of this state")
            if sub.webhook_id in self.subscriptions:
                refuse(item.where("webhook_id"), "repeats a subscription of this state")
            self.subscriptions[sub.webhook_id] = sub
        for item in read.objects("outbox", max_items=10_000_000):
            item.only(("seq", "webhook_id", "project_id", "url", "event", "emitted_ms", "body", "headers",
                       "deliverable", "status", "response_status", "error", "attempts"))
            body = item.text("body", max_length=1_000_000)
            try:
                json.loads(body)
            except ValueError:
                refuse(item.where("body"), "must be the JSON text of a delivery")
            headers = item.mapping("headers")
            for name, value in headers.items():
                check_text(value, f"{item.where('headers')}.{name}", max_length=1000)
            delivery = Delivery(item.integer("seq", minimum=1, maximum=MAX_COUNT),
                                item.text("webhook_id", max_length=64), item.text("project_id", max_length=64),
                                item.text("url", max_length=2048), item.choice("event", EVENTS),
                                item.integer("emitted_ms", minimum=0, maximum=MAX_EPOCH_MS), body, dict(headers),
                                item.boolean("deliverable"),
                                item.choice("status", ("pending", "delivered", "failed", "not_sent")),
                                item.integer("response_status", minimum=100, maximum=599, nullable=True),
                                item.text("error", max_length=10_000, nullable=True),
                                item.integer("attempts", minimum=0, maximum=MAX_COUNT))
            if delivery.status == "pending" and not delivery.deliverable:
                refuse(item.where("status"), "is pending for a delivery that is never sent (not_sent)")
            self.outbox.append(delivery)
