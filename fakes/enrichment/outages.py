"""Transient failures of live lookups: the 503 "retry later" the reference documents.

The reference gives a 503 (never charged) to the work email, person profile, similar people,
employee search and product listing lookups when a live enrichment fails or capacity is short, and
the funding lookup answers the same as HTTP 200 with ``error_code: service_temp_unavailable``. With
the setting ``transient_failure_share`` above 0, that share of live (uncached) lookups fails,
chosen by a hash of (seed, request, instant): the same calls on the same clock fail the same way.
A failed request is unavailable until its ``Retry-After`` has passed; the first retry after that
is served. Cached answers never fail (they are no live lookup).
"""

from __future__ import annotations

import math

from fakes.kernel.clock import MAX_EPOCH_MS
from fakes.kernel.statecheck import StateReader, check_text, refuse

from .data import unit

#: requests remembered as unavailable at once; past it, the ones whose wait is over are dropped
MAX_KEPT = 10_000
KEY_MAX = 4096


class Outages:
    def __init__(self, seed: int, share: float, retry_after_s: int) -> None:
        self.seed = seed
        self.share = share
        self.retry_after_ms = retry_after_s * 1000
        #: request key -> the instant from which its retry is served
        self.until: dict[str, int] = {}

    def wait_s(self, key: str, now_ms: int) -> int | None:
        """None when the live lookup of ``key`` runs now; else the seconds until it may be retried."""
        if not self.share:
            return None
        until = self.until.get(key)
        if until is not None:
            if now_ms < until:
                return max(1, math.ceil((until - now_ms) / 1000))
            del self.until[key]  # the retry after Retry-After is served
            return None
        if unit(self.seed, "transient", key, now_ms) >= self.share:
            return None
        if len(self.until) >= MAX_KEPT:
            self.until = {k: at for k, at in self.until.items() if at > now_ms}
            if len(self.until) >= MAX_KEPT:
                return None  # bounded: past the cap, lookups run
        self.until[key] = now_ms + self.retry_after_ms
        return self.retry_after_ms // 1000

    def to_state(self) -> dict[str, int]:
        return dict(self.until)

    def load_state(self, read: StateReader, name: str) -> None:
        entries = read.object(name)
        if len(entries.value) > MAX_KEPT:
            refuse(entries.path, f"holds more than {MAX_KEPT} requests")
        for key in entries.value:
            check_text(key, entries.where(key), min_length=1, max_length=KEY_MAX)
            self.until[key] = entries.integer(key, minimum=0, maximum=MAX_EPOCH_MS + 86_400_000)
