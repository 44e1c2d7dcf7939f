"""Billing rules and idempotency.

Billing (relay's key only; the seed's and the real relay's rules):
- never billed: upstream 5xx, timeouts, dropped connections, and upstream 401/402/403/405/407/408/429;
- a miss is free: an upstream 404, or a 2xx whose body holds nothing (``null``, ``{}``, ``[]``, an empty
  ``results``/``data``/``items`` list, or ``"found": false``), for every cost type;
- ``per_call``: the price for any other answer; ``per_success``: the price for a 2xx hit;
  ``per_result``: the price times the rows of a 2xx hit, never more than the estimate;
- ``free``: 0. The estimate (the 402 check and the hold) is the price, times ``limit`` (default 5,
  at most 100) for ``per_result``.

Idempotency: keys are scoped to the team and kept ``idempotency_ttl_s`` on the clock; the stored
answer is replayed; a different request with the key is a 422; a failed call (a refusal of the
relay, an upstream 5xx or timeout) frees its key; concurrent retries wait for the first one.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Container
from dataclasses import dataclass, field
from typing import Any

import orjson

from fakes.kernel.clock import MAX_EPOCH_MS
from fakes.kernel.statecheck import StateReader, check_text, refuse

#: the longest Idempotency-Key kept (treg truncates a longer one to this; a blank key is no key)
MAX_KEY_LENGTH = 200
HEADER_NAME = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
HEADER_VALUE = r"[\t\x20-\x7e\x80-\xff]*"
NOT_BILLED_STATUSES = frozenset({401, 402, 403, 405, 407, 408, 429})
_ROW_KEYS = ("results", "data", "items")


def estimate(price: dict[str, Any] | None, params: dict[str, str]) -> int:
    if price is None:
        return 0
    if price["type"] == "per_result":
        return int(price["value"]) * rows_wanted(params)
    return int(price["value"])


def rows_wanted(params: dict[str, str]) -> int:
    raw = params.get("limit", "")
    return min(int(raw), 100) if raw.isascii() and raw.isdigit() and len(raw) <= 9 and int(raw) > 0 else 5


def rows_in(body: Any) -> int | None:
    """Rows a body holds (None: not a list-shaped answer, counts as one row when non-empty)."""
    if isinstance(body, list):
        return len(body)
    if isinstance(body, dict):
        for key in _ROW_KEYS:
            if isinstance(body.get(key), list):
                return len(body[key])
    return None


def is_miss(status: int, body: Any) -> bool:
    if status == 404:
        return True
    if not 200 <= status < 300:
        return False
    if not body and body is not False and body != 0:  # None, {}, [], ""
        return True
    if isinstance(body, dict) and body.get("found") is False:
        return True
    return rows_in(body) == 0


def charge(price: dict[str, Any] | None, status: int, body: Any, estimated: int, miss: bool | None = None) -> int:
    """Micro-USD a relay-key call costs given the upstream's answer (0 when not billed)."""
    if miss is None:
        miss = is_miss(status, body)
    if price is None or status >= 500 or status in NOT_BILLED_STATUSES or miss:
        return 0
    kind, value = price["type"], int(price["value"])
    if kind == "per_call":
        return value
    if not 200 <= status < 300:
        return 0
    if kind == "per_success":
        return value
    if kind == "per_result":
        rows = rows_in(body)
        return min(value * (1 if rows is None else rows), estimated)
    return 0


def parse_json(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return orjson.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return "<not json>"  # a non-empty body that is not JSON counts as a hit


def fingerprint(method: str, target: str, query: str, body: bytes) -> str:
    return hashlib.sha256(b"\0".join([method.encode(), target.encode(), query.encode(), body])).hexdigest()


@dataclass
class StoredAnswer:
    fingerprint: str
    expires_ms: int
    status: int = 0
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    call_id: str = ""
    done: asyncio.Event | None = None  # set when the first call finishes (concurrent retries wait)
    complete: bool = False


class IdempotencyStore:
    def __init__(self) -> None:
        self.keys: dict[tuple[str, str], StoredAnswer] = {}

    def lookup(self, team_id: str, key: str, now_ms: int) -> StoredAnswer | None:
        found = self.keys.get((team_id, key))
        if found is not None and found.complete and found.expires_ms <= now_ms:
            del self.keys[(team_id, key)]
            return None
        return found

    def begin(self, team_id: str, key: str, fp: str, expires_ms: int) -> StoredAnswer:
        stored = StoredAnswer(fingerprint=fp, expires_ms=expires_ms, done=asyncio.Event())
        self.keys[(team_id, key)] = stored
        return stored

    def finish(self, team_id: str, key: str, stored: StoredAnswer, keep: bool) -> None:
        if keep:
            stored.complete = True
        elif self.keys.get((team_id, key)) is stored:
            del self.keys[(team_id, key)]
        if stored.done is not None:
            stored.done.set()

    def purge(self, now_ms: int) -> None:
        for k in [k for k, v in self.keys.items() if v.complete and v.expires_ms <= now_ms]:
            del self.keys[k]

    def to_state(self) -> list[dict[str, Any]]:
        return [{"team_id": t, "key": k, "fingerprint": v.fingerprint, "expires_ms": v.expires_ms, "status": v.status,
                 "headers": [list(h) for h in v.headers], "body": v.body.decode("latin-1"), "call_id": v.call_id}
                for (t, k), v in self.keys.items() if v.complete]

    def load(self, read: StateReader, teams: Container[str]) -> None:
        """One stored answer as :meth:`to_state` exports it, each field checked: it is replayed
        verbatim, so its status, header names and values and body must be sendable."""
        read.only(("team_id", "key", "fingerprint", "expires_ms", "status", "headers", "body", "call_id"))
        team_id = read.text("team_id", min_length=1, max_length=200)
        if team_id not in teams:
            refuse(read.where("team_id"), "names no team of this state")
        key = read.text("key", min_length=1, max_length=MAX_KEY_LENGTH)
        if key != key.strip():
            refuse(read.where("key"), "has leading or trailing white space (a sent key is stripped)")
        headers = []
        for index, pair in enumerate(read.array("headers", max_items=100)):
            where = read.where(f"headers[{index}]")
            if not isinstance(pair, list) or len(pair) != 2:
                refuse(where, "must be a [name, value] pair")
            name = check_text(pair[0], where, min_length=1, max_length=200, pattern=HEADER_NAME)
            value = check_text(pair[1], where, max_length=8000, pattern=HEADER_VALUE)
            headers.append((name, value))
        body = read.text("body", max_length=50_000_000)
        try:
            raw = body.encode("latin-1")
        except UnicodeEncodeError:
            refuse(read.where("body"), "must hold only characters U+0000 to U+00FF (the stored bytes, as latin-1)")
        self.keys[(team_id, key)] = StoredAnswer(
            fingerprint=read.text("fingerprint", pattern=r"[0-9a-f]{64}"),
            expires_ms=read.integer("expires_ms", minimum=0, maximum=MAX_EPOCH_MS + 10**12),
            status=read.integer("status", minimum=100, maximum=599), headers=headers, body=raw,
            call_id=read.text("call_id", max_length=200), complete=True)
