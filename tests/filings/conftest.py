from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from fakes.filings import FilingsFake


@pytest.fixture
def fake() -> FilingsFake:
    """A small-catalogue fake on a manual clock at its default start."""
    return FilingsFake(seed=0, scale="small")


@pytest.fixture
def client(fake: FilingsFake) -> Iterator[httpx.Client]:
    """An in-process client with a Standard key."""
    with fake.client(headers={"X-API-Key": fake.create_key("standard")}) as http:
        yield http


@pytest.fixture
def enterprise(fake: FilingsFake) -> Iterator[httpx.Client]:
    with fake.client(headers=fake.auth_headers()) as http:
        yield http
