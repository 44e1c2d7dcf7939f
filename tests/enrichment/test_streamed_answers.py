"""Company funding and similar people are streamed, as the real service streams them (the reference's
route table: "/api/v1/company/funding (streaming)", "/api/v1/employee/similar (streaming)"): chunked,
no ``Content-Length``, the credit cost still in the body and in the cost header (which goes out
before the body). The official client reads them, the in-process client too, and the kernel's
journal keeps the streamed body; other routes keep their ``Content-Length``."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import ninjapear
import pytest

from fakes.enrichment import EnrichmentFake

STREAMED = [("/api/v1/company/funding", {"website": "shopify.com"}),
            ("/v1/company/funding", {"website": "shopify.com"}),
            ("/api/v1/employee/similar", {"employer_website": "stripe.com", "role": "CEO"}),
            ("/v1/employee/similar", {"employer_website": "stripe.com", "role": "CEO"})]


@pytest.fixture
def served() -> Iterator[tuple[EnrichmentFake, str, str]]:
    fake = EnrichmentFake(seed=0)
    key = fake.create_account("sub_299")["api_key"]
    with fake.serve() as base_url:
        yield fake, key, base_url


@pytest.mark.parametrize(("path", "params"), STREAMED)
def test_funding_and_similar_people_are_streamed_with_their_cost(served: tuple[EnrichmentFake, str, str], path: str,
                                                                 params: dict[str, str]) -> None:
    fake, key, base_url = served
    header = fake.settings.cost_header
    before = len(fake.journal_entries(path=path))
    with httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {key}"}) as http, \
            http.stream("GET", path, params={**params, "use_cache": "never"}) as response:
        assert response.status_code == 200
        assert "content-length" not in response.headers
        assert response.headers["transfer-encoding"] == "chunked"
        cost = response.headers[header]  # known before the first byte of the body
        body = json.loads(b"".join(response.iter_raw()))
    assert body["credit_cost"] > 0 and float(cost) == body["credit_cost"]
    entry = _journaled(fake, path, before)
    assert json.loads(entry["response"]["body"]) == body  # the journal keeps what was streamed
    assert entry["response"]["body_length"] == len(json.dumps(body, separators=(",", ":"), ensure_ascii=False)
                                                   .encode())


def test_a_funding_lookup_without_data_is_streamed_too(served: tuple[EnrichmentFake, str, str]) -> None:
    fake, key, base_url = served
    with httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {key}"}) as http:
        answer = http.get("/api/v1/company/funding", params={"website": "stripe.com"})  # no rounds in this world
    assert answer.status_code == 200 and "content-length" not in answer.headers
    assert answer.json()["error_code"] == "no_funding_data" and answer.headers[fake.settings.cost_header] == "2"


def test_other_routes_and_refusals_keep_their_length(served: tuple[EnrichmentFake, str, str]) -> None:
    _fake, key, base_url = served
    with httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {key}"}) as http:
        details = http.get("/api/v1/company/details", params={"website": "stripe.com"})
        refused = http.get("/api/v1/company/funding")  # no website: refused before anything streams
        unknown = http.get("/api/v1/employee/similar", params={"employer_website": "stripe.com", "role": "CEO"},
                           headers={"Authorization": "Bearer nope"})
    assert details.headers["content-length"] == str(len(details.content))
    assert refused.status_code == 400 and refused.headers["content-length"] == str(len(refused.content))
    assert unknown.status_code == 401 and "content-length" in unknown.headers


def test_the_official_client_and_the_in_process_client_read_the_stream(served: tuple[EnrichmentFake, str, str]
                                                                       ) -> None:
    fake, key, base_url = served
    api = ninjapear.ApiClient(ninjapear.Configuration(host=base_url, access_token=key))
    funding = ninjapear.CompanyAPIApi(api).get_company_funding(website="shopify.com")
    assert funding.credit_cost and funding.funding_rounds
    with fake.client(headers={"Authorization": f"Bearer {key}"}) as http:
        similar = http.get("/v1/employee/similar", params={"employer_website": "stripe.com", "role": "CEO"})
        again = http.get("/api/v1/company/funding", params={"website": "shopify.com", "use_cache": "never"})
    assert similar.status_code == 200 and similar.json()["similar_people"] is not None
    assert len(again.json()["funding_rounds"]) == len(funding.funding_rounds)
    assert again.headers[fake.settings.cost_header] == str(again.json()["credit_cost"])


def _journaled(fake: EnrichmentFake, path: str, before: int) -> dict[str, Any]:
    """The journal's entry of the last request to ``path``: the server journals a streamed answer
    once its last chunk is sent, which may be a moment after the client has read it."""
    deadline = time.monotonic() + 5
    while len(entries := fake.journal_entries(path=path)) <= before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(entries) > before, f"no journal entry for {path}"
    return entries[-1]
