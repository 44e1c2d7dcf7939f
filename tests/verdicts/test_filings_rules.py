"""Each filings client rule fires on a client that breaks it, and only then."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from fakes.filings import FilingsFake


@pytest.fixture
def fake() -> FilingsFake:
    return FilingsFake(scale="small", walk_page_limit=3)


@pytest.fixture
def client(fake: FilingsFake) -> Iterator[httpx.Client]:
    with fake.client(headers={"X-API-Key": fake.create_key("enterprise")}) as client:
        yield client


def broken(fake: FilingsFake) -> dict[str, int]:
    return {v["id"]: v["count"] for v in fake.verdicts()}


def test_walking_every_page_of_an_unfiltered_list(fake: FilingsFake, client: httpx.Client) -> None:
    for page in range(1, 7):
        assert client.get("/filings/", params={"page": page, "page_size": 10}).status_code == 200
    assert broken(fake) == {"filings/walking-every-page": 3}  # pages 4, 5 and 6
    verdict, = fake.verdicts()
    assert verdict["severity"] == "warning" and "page=4" in verdict["first"]["query"]
    assert "page=6" in verdict["last"]["query"]
    for page in range(1, 7):
        client.get("/companies/", params={"page": page, "page_size": 5, "ordering": "name"})
    assert broken(fake) == {"filings/walking-every-page": 6}


def test_filtered_paging_is_not_walking(fake: FilingsFake, client: httpx.Client) -> None:
    for page in range(1, 6):
        client.get("/filings/", params={"page": page, "page_size": 10, "countries": "DE"})
        client.get("/companies/", params={"page": page, "page_size": 5, "sector": "K"})
    assert fake.verdicts() == []


def test_cached_answers_are_flagged_too(fake: FilingsFake, client: httpx.Client) -> None:
    for _ in range(3):  # the same URL in the same second: answered from the response cache
        client.get("/filings/", params={"page": 5, "page_size": 10})
    assert broken(fake) == {"filings/walking-every-page": 3}


def test_unsupported_filter(fake: FilingsFake, client: httpx.Client) -> None:
    assert client.get("/filings/", params={"min_confidence": "0.9", "cursor": "x"}).status_code == 200
    assert broken(fake) == {"filings/unsupported-filter": 2}
    entry = fake.journal_entries()[-1]
    assert entry["warnings"] == [
        "filings/unsupported-filter: query parameter 'cursor' is a real filter this fake does not model; it "
        "was ignored",
        "filings/unsupported-filter: query parameter 'min_confidence' is a real filter this fake does not model; "
        "it was ignored"]


def test_lenient_input(fake: FilingsFake, client: httpx.Client) -> None:
    lenient = {"countries": "", "ordering": "title", "page_size": "1000"}
    assert client.get("/filings/", params=lenient).status_code == 200
    assert broken(fake) == {"filings/lenient-input": 3}
    warnings = fake.journal_entries()[-1]["warnings"]
    assert any("page_size=1000 cut to the maximum 100" in w for w in warnings)


def test_calls_after_the_quota_refusal(fake: FilingsFake) -> None:
    key = fake.create_key("free", quota=2)
    with fake.client(headers={"X-API-Key": key}) as client:
        assert [client.get("/companies/").status_code for _ in range(3)] == [200, 200, 429]
        assert fake.verdicts() == []  # the first refusal is the service's answer, not a client fault
        assert client.get("/filings/").status_code == 429
        assert client.get("/companies/").status_code == 429
        verdict, = fake.verdicts()
        assert verdict["id"] == "filings/calls-after-quota-refusal" and verdict["severity"] == "error"
        assert verdict["count"] == 2 and verdict["first"]["status"] == 429
        retry_after = int(client.get("/companies/").headers["Retry-After"])
        fake.advance(retry_after)  # backed off until the allowance reset: served, no verdict
        assert client.get("/companies/").status_code == 200
    assert broken(fake) == {"filings/calls-after-quota-refusal": 3}


def test_a_client_that_backs_off_breaks_no_rule(fake: FilingsFake) -> None:
    key = fake.create_key("free", quota=1)
    with fake.client(headers={"X-API-Key": key}) as client:
        client.get("/companies/")
        refused = client.get("/companies/")
        assert refused.status_code == 429
        fake.advance(int(refused.headers["Retry-After"]))
        assert client.get("/companies/").status_code == 200
    assert fake.verdicts() == []
