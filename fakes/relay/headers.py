"""The relay's header names, all under one prefix (``X-Proxy`` by default, ``X-Treg`` for the real
service's names)."""

from __future__ import annotations

import functools
from dataclasses import dataclass


@dataclass
class Headers:
    """The relay's header names under one prefix (X-Proxy by default, X-Treg for the real names)."""

    prefix: str

    def __post_init__(self) -> None:
        p = self.prefix
        self.token, self.body_encoding = f"{p}-Token", f"{p}-Body-Encoding"
        self.call_id, self.cost = f"{p}-Call-Id", f"{p}-Cost-Micro"
        self.replay, self.error, self.served_by = f"{p}-Idempotent-Replay", f"{p}-Error", f"{p}-Served-By"
        # the account surface and treg's newer call semantics
        self.org, self.meta, self.client = f"{p}-Org", f"{p}-Meta", f"{p}-Client"
        self.reserved, self.async_task = f"{p}-Reserved-Micro", f"{p}-Async"
        self.tried, self.outcome = f"{p}-Providers-Tried", f"{p}-Route-Outcome"
        self.route_max_cost, self.route_exclude = f"{p}-Route-Max-Cost", f"{p}-Route-Exclude"
        self.route_prefer, self.route_waterfall = f"{p}-Route-Prefer", f"{p}-Route-Waterfall"
        self.lower_prefix = p.lower() + "-"
        self.lower_prefix_b = self.lower_prefix.encode()
        self.token_b, self.body_encoding_b = self.token.lower().encode(), self.body_encoding.lower().encode()
        self.call_id_b, self.cost_b = self.call_id.lower().encode(), self.cost.lower().encode()


@functools.lru_cache(maxsize=16)
def headers_for(prefix: str) -> Headers:
    """The names under ``prefix``, one object per prefix shared by every model (they never change)."""
    return Headers(prefix)
