"""Shared helpers: balances, and companies of the generated world with a wanted property."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import httpx

from fakes.enrichment import EnrichmentFake

COST = "x-service-credit-cost"


def balance(fake: EnrichmentFake, headers: dict[str, str]) -> Decimal:
    key = headers["Authorization"].split(" ", 1)[1]
    return Decimal(fake.account(key)["balance_text"])


def cost(response: httpx.Response) -> Decimal:
    return Decimal(response.headers[COST])


def find_domain(fake: EnrichmentFake, wanted: Callable[[str], bool], *, prefix: str = "co") -> str:
    """The first known generated company ``<prefix><n>.com`` for which ``wanted(domain)`` holds."""
    for n in range(5000):
        domain = f"{prefix}{n}.com"
        if fake.model.world.known(domain) and wanted(domain):
            return domain
    raise AssertionError("no such company in the first 5000")


def investors(fake: EnrichmentFake, domain: str) -> set[str]:
    return {inv["name"] for r in fake.model.world.funding_rounds(domain) for inv in r["investors"]}


def body(response: httpx.Response) -> Any:
    assert response.status_code < 500, response.text
    return response.json()
