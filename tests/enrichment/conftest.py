from __future__ import annotations

import logging
from collections.abc import Callable, Iterator

import httpx
import pytest

from fakes.enrichment import EnrichmentFake

COST = "x-service-credit-cost"


@pytest.fixture
def fake() -> EnrichmentFake:
    return EnrichmentFake(seed=0)


@pytest.fixture
def client(fake: EnrichmentFake) -> Iterator[httpx.Client]:
    logging.getLogger("httpx").setLevel(logging.WARNING)
    with fake.client() as client:
        yield client


@pytest.fixture
def account(fake: EnrichmentFake) -> Callable[..., dict[str, str]]:
    """A new account's bearer headers: ``account("sub_299", credits=50)``."""

    def make(plan: str = "sub_1899", credits: float | None = None, rate_limited: bool = True) -> dict[str, str]:
        key = fake.create_account(plan, credits, rate_limited=rate_limited)["api_key"]
        return {"Authorization": f"Bearer {key}"}

    return make
