"""The relay's header names, all under one prefix (``X-Proxy`` by default, ``X-Treg`` for the real
service's names)."""

from __future__ import annotations

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
        self.lower_prefix = p.lower() + "-"
        self.token_b, self.body_encoding_b = self.token.lower().encode(), self.body_encoding.lower().encode()
