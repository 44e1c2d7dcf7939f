"""Webhook subscriptions of each API key: what is sent where, signed with which secret.

A webhook belongs to the key that created it (another key's id is a 404). Its fields are the real
service's; the URL must be an absolute ``https`` URL, or ``http`` on a loopback host, at most 500
characters. Deliveries go to loopback receivers (and ``webhook_hosts``); a webhook on another
host is kept (``webhook_other_hosts=record``, the default: its deliveries are logged as not sent)
or refused (``refuse``). Events, payloads and attempts are in :mod:`.outbox`.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import urlsplit

from fakes.kernel.errors import ServiceError
from fakes.kernel.statecheck import StateReader, refuse

from .catalogue.arith import stable_hash
from .catalogue.filing_types import TYPES, resolve_type
from .catalogue.records import iso_s

SECRET_SALT = 0x5EC7
FLAGS = {  # the boolean fields and their defaults
    "is_active": True, "include_markdown": True, "include_isins": False, "track_all_companies": False,
    "trigger_on_filing_received": False, "trigger_on_filing_processed": True, "trigger_on_filing_updated": False,
    "deliver_late_filings": False,
}
TRUE_WORDS = {True, "true", "True", "1", "yes", "on", "y", "t"}
FALSE_WORDS = {False, "false", "False", "0", "no", "off", "n", "f"}
MAX_URL = 500
_PORT = "([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])"
#: what a webhook URL may be: https anywhere, or http on a loopback host; a port, a path and a query
URL_PATTERN = ("^(https://[A-Za-z0-9.-]{1,200}|http://(127\\.0\\.0\\.1|localhost|\\[::1\\]))(:" + _PORT + ")?"
               "(/[A-Za-z0-9._~%/-]{0,250})?(\\?[A-Za-z0-9._~%&=+-]{0,250})?$")
MAX_TYPES = len(TYPES) * 3
MAX_EPOCH_S = 253_402_300_799


def _bad(message: str) -> ServiceError:
    return ServiceError(400, message, code="invalid_body")


def is_loopback(host: str) -> bool:
    host = host.lower().strip("[]")
    if host in ("localhost", "localhost.") or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def secret_key(seed: int, epoch: int, number: int) -> str:
    """A fresh signing secret: ``whk_sec_`` and 48 hex digits, unique per (epoch, number)."""
    parts = (stable_hash(seed, SECRET_SALT, epoch, number, k) for k in range(3))
    return "whk_sec_" + "".join(f"{part:016x}" for part in parts)


@dataclass
class Webhook:
    id: int
    owner: str  # the API key that created it
    url: str
    secret: str
    created_s: int
    updated_s: int
    #: events from this instant on (creation, or the last time it was turned back on)
    listening_from_s: int
    subscribed_filing_types: list[str] = field(default_factory=list)
    is_active: bool = True
    include_markdown: bool = True
    include_isins: bool = False
    track_all_companies: bool = False
    trigger_on_filing_received: bool = False
    trigger_on_filing_processed: bool = True
    trigger_on_filing_updated: bool = False
    deliver_late_filings: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "url": self.url, **{name: getattr(self, name) for name in FLAGS},
                "subscribed_filing_types": list(self.subscribed_filing_types),
                "created_at": iso_s(self.created_s), "updated_at": iso_s(self.updated_s)}

    def type_indexes(self) -> frozenset[int] | None:
        """The filing types it follows (None: every type)."""
        if not self.subscribed_filing_types:
            return None
        found = set()
        for value in self.subscribed_filing_types:
            filing_type = resolve_type(value)
            if filing_type is not None:
                found.add(filing_type.id - 1)
        return frozenset(found)

    def to_state(self) -> dict[str, Any]:
        return asdict(self)


def _flag(name: str, value: Any) -> bool:
    """Django REST framework's BooleanField: booleans, 0/1 and the usual words."""
    if isinstance(value, (bool, int, str)) and not isinstance(value, float):
        if value in TRUE_WORDS:
            return True
        if value in FALSE_WORDS:
            return False
    raise _bad(f"{name}: Must be a valid boolean.")


def checked_url(value: Any, other_hosts: str, allowed: list[str]) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _bad("url: This field is required.")
    url = value.strip()
    if len(url) > MAX_URL:
        raise _bad(f"url: Ensure this field has no more than {MAX_URL} characters.")
    if not re.fullmatch(URL_PATTERN, url):
        raise _bad("url: Enter a valid URL: https, or http on a loopback host (127.0.0.1, localhost, [::1]).")
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        _ = parts.port
    except ValueError:
        raise _bad("url: Enter a valid URL.") from None
    if parts.scheme not in ("http", "https") or not host or any(ch.isspace() for ch in url):
        raise _bad("url: Enter a valid URL.")
    local = is_loopback(host) or host in {h.lower() for h in allowed}
    if parts.scheme == "http" and not local:
        raise _bad("url: The webhook URL must use HTTPS.")
    if not local and other_hosts == "refuse":
        raise _bad("url: this fake delivers webhooks only to loopback hosts (127.0.0.1, ::1, localhost) and "
                   "webhook_hosts; set filings.webhook_other_hosts=record to keep others unsent")
    return url


def apply(hook: Webhook | None, body: dict[str, Any], *, partial: bool, other_hosts: str,
          allowed: list[str]) -> dict[str, Any]:
    """The changes a create / PUT / PATCH body makes, validated whole (unknown and read-only
    fields are ignored, as Django REST framework does)."""
    changes: dict[str, Any] = {}
    if "url" in body or not partial:
        changes["url"] = checked_url(body.get("url"), other_hosts, allowed)
    for name in FLAGS:
        if name in body:
            changes[name] = _flag(name, body[name])
    if "subscribed_filing_types" in body:
        types = body["subscribed_filing_types"]
        if types is None:
            types = []
        if not isinstance(types, list) or len(types) > MAX_TYPES:
            raise _bad(f"subscribed_filing_types: Expected a list of at most {MAX_TYPES} filing type codes.")
        for index, value in enumerate(types):
            if not isinstance(value, str) or resolve_type(value) is None:
                raise _bad(f"subscribed_filing_types[{index}]: {value!r} is not a filing type code or name "
                           f"({', '.join(t.code for t in TYPES)}).")
        changes["subscribed_filing_types"] = list(dict.fromkeys(types))
    return changes


def read_webhooks(read: StateReader, name: str, keys: set[str]) -> dict[int, Webhook]:
    found: dict[int, Webhook] = {}
    for item in read.objects(name):
        item.only(("id", "owner", "url", "secret", "created_s", "updated_s", "listening_from_s",
                   "subscribed_filing_types", *FLAGS))
        hook_id = item.integer("id", minimum=1, maximum=2**40)
        if hook_id in found:
            refuse(item.where("id"), "repeats a webhook id")
        owner = item.text("owner", max_length=200)
        if owner not in keys:
            refuse(item.where("owner"), "names no key of model.keys")
        url = item.text("url", min_length=1, max_length=MAX_URL)
        try:
            checked_url(url, "record", [])
        except ServiceError:
            refuse(item.where("url"), "is not a webhook URL")
        types = item.array("subscribed_filing_types", max_items=MAX_TYPES)
        for index, value in enumerate(types):
            if not isinstance(value, str) or resolve_type(value) is None:
                refuse(item.where(f"subscribed_filing_types[{index}]"), "is not a filing type code or name")
        created = item.integer("created_s", minimum=0, maximum=MAX_EPOCH_S)
        found[hook_id] = Webhook(
            id=hook_id, owner=owner, url=url, secret=item.text("secret", min_length=8, max_length=200),
            created_s=created, updated_s=item.integer("updated_s", minimum=created, maximum=MAX_EPOCH_S),
            listening_from_s=item.integer("listening_from_s", minimum=created, maximum=MAX_EPOCH_S),
            subscribed_filing_types=list(types), **{flag: item.boolean(flag) for flag in FLAGS})
    return found
