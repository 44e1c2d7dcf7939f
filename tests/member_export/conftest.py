from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from fakes.member_export import MemberExportFake


@pytest.fixture
def fake() -> MemberExportFake:
    return MemberExportFake(seed=7)


@pytest.fixture
def client(fake: MemberExportFake) -> Iterator[httpx.Client]:
    with fake.client() as client:
        yield client
