"""What every operation's answer is built with: the world, the billing, and the shared helpers.

The operations themselves live in :mod:`.company_lookups`, :mod:`.people_lookups` and
:mod:`.monitor_lookups`; :mod:`.lookups` puts them together. Each ``op_<name>`` takes a call that
passed the model's ``begin`` (key, trial, rate limit), its checked parameters, the base URL links
point at, whether the request came in on the real ``/api`` paths, the JSON body and the path
parameters; it consults the cache window, builds the body from the world and charges it.
"""

from __future__ import annotations

import functools
from typing import Any

from . import rules
from .billing import Billing
from .calls import Answer, Call
from .credits import DAY_MS, Ledger, tenths
from .data import normalize_website
from .feeds import Feeds
from .outages import Outages
from .settings import EnrichmentSettings
from .world import World

#: the most paid-twice details a model keeps (one per cache key asked again inside its window), and
#: the longest key kept (a client's long names are worded each time: a world's memory stays small)
MAX_KEPT_DETAILS = 256
MAX_KEPT_DETAIL_KEY = 256


class LookupBase:
    def __init__(self, settings: EnrichmentSettings, seed: int, world: World, feeds: Feeds, ledger: Ledger,
                 billing: Billing, outages: Outages) -> None:
        self.settings = settings
        self.seed = seed
        self.world = world
        self.feeds = feeds
        self.ledger = ledger
        self.billing = billing
        self.outages = outages
        self.costs: dict[str, int] = {}
        #: (operation, cache key) -> the detail of its paid-twice verdict (the window is fixed)
        self.paid_twice_details: dict[tuple[str, str], str] = {}

    # -- helpers -------------------------------------------------------------------------------
    def _domain(self, call: Call, raw: str, name: str = "website") -> str:
        domain = normalize_website(raw)
        if domain is None:  # not a host name: no company can have it (the real service takes names too)
            raise self.billing.error(call, 404, f"No company found for {name}={raw!r}.")
        return domain

    def _company(self, call: Call, domain: str, charge_like_real: float = 0) -> dict[str, Any]:
        record = self.world.company(domain)
        if record is None:
            charged = self.billing.charge_failure(call, charge_like_real) if charge_like_real else 0
            raise self.billing.error(call, 404, f"No data found for {domain}.", charged=charged)
        return record

    def _cached(self, call: Call, parsed: dict[str, Any], key: str, version: int) -> int | None:
        """The instant of a free cached answer, or None (fresh, charged). 404 for if-present-only misses."""
        mode = parsed.get("use_cache", "if-recent")
        if parsed.get("force_refresh") or parsed.get("_force_refresh"):
            mode = "never"
        billing = self.billing
        paid_at = billing.paid_for(call, key, version)  # the cache entry read once for both questions
        at = billing.free_at(call, paid_at, mode)
        if at is None and mode == "if-present-only":
            raise billing.error(call, 404, "Nothing cached for this request (use_cache=if-present-only).")
        if at is None and mode == "never" and billing.within_window(call, paid_at):
            call.flags.append((rules.PAID_TWICE_IN_CACHE_WINDOW, self._paid_twice(call.op.name, key)))
        return at

    def _paid_twice(self, operation: str, key: str) -> str:
        """The verdict's detail of paying for ``key`` again (the same text for the same key: kept)."""
        detail = self.paid_twice_details.get((operation, key))
        if detail is None:
            detail = (f"{operation} {key.split('|', 1)[1]} was paid for already inside the "
                      f"{self.settings.cache_window_days}-day window")
            if len(key) <= MAX_KEPT_DETAIL_KEY:
                if len(self.paid_twice_details) >= MAX_KEPT_DETAILS:
                    self.paid_twice_details.clear()
                self.paid_twice_details[(operation, key)] = detail
        return detail

    def _live(self, call: Call, key: str, message: str = "The lookup failed for now; please retry") -> None:
        """Before a live (uncached) lookup of the operations the reference gives a 503: a transient
        failure (setting transient_failure_share), never charged, with the wait in Retry-After."""
        wait = self.outages.wait_s(key, call.now_ms)
        if wait is not None:
            raise self.billing.error(call, 503, f"{message} after {wait} s.", headers={"Retry-After": str(wait)})

    def _bill(self, call: Call, key: str, version: int, cached: int | None, cost: int) -> None:
        if cached is not None:
            call.headers[self.settings.cost_header] = "0"  # a free answer: nothing to charge or check
            age = (call.now_ms - cached) // DAY_MS
        else:
            self.billing.settle(call, cost)
            self.billing.remember(call, key, version)
            age = 0
        call.headers[self.settings.cache_age_header] = str(age)

    def _cost(self, name: str) -> int:
        known = self.costs.get(name)
        if known is None:
            known = self.costs[name] = tenths(self.settings.cost(name))
        return known

    @staticmethod
    def _answer(body: Any, status: int = 200, media_type: str = "application/json") -> Answer:
        return Answer(body, status, media_type)

    @staticmethod
    @functools.lru_cache(maxsize=256)
    def _paths(base: str, real: bool) -> dict[str, str]:
        """The links of answers below ``base`` (shared: read only)."""
        prefix = base + ("/api" if real else "")
        return {"details": f"{prefix}/v1/company/details", "logo": f"{prefix}/v1/company/logo",
                "competitors": f"{prefix}/v1/competitor/listing", "updates": f"{prefix}/v1/company/updates",
                "funding": f"{prefix}/v1/company/funding",
                "profile": f"{base}{'/api/v2' if real else '/v2'}/employee/profile",
                "similar": f"{prefix}/v1/employee/similar", "work_email": f"{prefix}/v1/employee/work-email"}
