"""What the real service does that the seed does not show (issue 27, enrichment): funding without
data as a charged 200 with ``error_code``, the v2 person profile's enrichment-status header with
``enrichment=fast``, coverage that depends on the company, 410 for retired paths and the 503 of a
live lookup that failed for now."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

import httpx
import ninjapear
import pytest
from ninjapear.exceptions import ServiceException

from fakes.enrichment import EnrichmentFake
from fakes.enrichment.generated import BANDS, generated_company, size_band

from .helpers import COST, balance, body, find_domain

STATUS = "x-service-enrichment-status"


# -- funding ---------------------------------------------------------------------------------------
def test_funding_without_data_is_a_charged_200_with_error_code_and_nothing_cached(
        fake: EnrichmentFake, client: httpx.Client, account: Callable[..., dict[str, str]]) -> None:
    headers = account("payg", credits=20)
    empty = find_domain(fake, lambda d: not fake.model.world.funding_rounds(d))
    for website in (empty, f"https://www.{empty}/about", "gone.invalid", "Acme Widgets Ltd"):
        before = balance(fake, headers)
        answer = client.get("/v1/company/funding", params={"website": website}, headers=headers)
        payload = body(answer)
        assert answer.status_code == 200 and payload["error_code"] == "no_funding_data", payload
        assert payload["funding_rounds"] == [] and payload["total_funds_raised_usd"] is None
        assert payload["credit_cost"] == 2 and answer.headers[COST] == "2" and payload["error"]
        assert before - balance(fake, headers) == 2
    assert body(client.get("/v1/company/funding", params={"website": empty}, headers=headers))["website"] == empty
    again = client.get("/v1/company/funding", params={"website": empty}, headers=headers)
    assert again.headers[COST] == "2"  # a failed fresh lookup is not cached: each try is a new one
    only_cached = client.get("/v1/company/funding", params={"website": empty, "use_cache": "if-present-only"},
                             headers=headers)
    assert only_cached.status_code == 404 and only_cached.headers[COST] == "0"


def test_funding_rounds_come_newest_first_and_a_cached_repeat_says_credit_cost_0(
        fake: EnrichmentFake, client: httpx.Client, account: Callable[..., dict[str, str]]) -> None:
    headers = account()
    funded = find_domain(fake, lambda d: len(fake.model.world.funding_rounds(d)) >= 3)
    first = body(client.get("/v1/company/funding", params={"website": funded}, headers=headers))
    dates = [r["date"] for r in first["funding_rounds"]]
    assert dates == sorted(dates, reverse=True) and "error_code" not in first
    assert first["website"] == funded and first["total_funds_raised_usd"] > 0 and first["credit_cost"] > 2
    again = client.get("/v1/company/funding", params={"website": funded}, headers=headers)
    assert body(again)["credit_cost"] == 0 and again.headers[COST] == "0"


def test_the_official_client_reads_the_error_code(fake: EnrichmentFake) -> None:
    key = fake.create_account("sub_299")["api_key"]
    empty = find_domain(fake, lambda d: not fake.model.world.funding_rounds(d))
    with fake.serve() as base_url:
        api = ninjapear.ApiClient(ninjapear.Configuration(host=base_url, access_token=key))
        answer = ninjapear.CompanyAPIApi(api).get_company_funding(website=empty)
    assert answer.error_code == "no_funding_data" and answer.funding_rounds == [] and answer.credit_cost == 2


# -- the enrichment status of the v2 person profile ---------------------------------------------------
def test_fast_enrichment_is_pending_until_the_detailed_profile_is_ready_then_complete_for_free(
        fake: EnrichmentFake, client: httpx.Client, account: Callable[..., dict[str, str]]) -> None:
    headers = account()
    who = {"employer_website": "stripe.com", "role": "CEO"}
    fast = client.get("/v2/employee/profile", params={**who, "enrichment": "fast"}, headers=headers)
    assert (fast.headers[STATUS], fast.headers[COST]) == ("pending", "3")
    assert body(fast)["profile_pic_url"] is None and body(fast)["work_experience"]
    fake.advance(19)
    polled = client.get("/v2/employee/profile", params={**who, "enrichment": "fast"}, headers=headers)
    assert (polled.headers[STATUS], polled.headers[COST]) == ("pending", "0")
    fake.advance(1)  # the detailed enrichment takes 20 s (setting detailed_enrichment_s)
    done = client.get("/v2/employee/profile", params={**who, "enrichment": "fast"}, headers=headers)
    assert (done.headers[STATUS], done.headers[COST]) == ("complete", "0")
    assert body(done)["profile_pic_url"] and body(done)["id"] == body(fast)["id"]


def test_detailed_is_complete_at_once_and_waits_for_a_pending_fast_one(
        fake: EnrichmentFake, client: httpx.Client, account: Callable[..., dict[str, str]]) -> None:
    headers = account()
    detailed = client.get("/v2/employee/profile", params={"employer_website": "stripe.com", "role": "CTO"},
                          headers=headers)
    assert detailed.status_code in (200, 404)
    ceo = {"employer_website": "stripe.com", "role": "CEO"}
    assert client.get("/api/v2/employee/profile", params={**ceo, "enrichment": "fast"},
                      headers=headers).headers[STATUS] == "pending"
    waited = client.get("/api/v2/employee/profile", params=ceo, headers=headers)
    assert (waited.headers[STATUS], waited.headers[COST]) == ("complete", "0")
    assert client.get("/api/v2/employee/profile", params={**ceo, "enrichment": "fast"},
                      headers=headers).headers[STATUS] == "complete"
    v1 = client.get("/api/v1/employee/profile", params=ceo, headers=headers)
    assert v1.status_code == 200 and STATUS not in v1.headers  # the header belongs to the v2 paths


def test_the_deprecated_speed_parameter_is_refused_and_not_charged(
        client: httpx.Client, account: Callable[..., dict[str, str]]) -> None:
    answer = client.get("/v2/employee/profile", params={"employer_website": "stripe.com", "role": "CEO",
                                                        "speed": "fast"}, headers=account())
    assert answer.status_code == 400 and "speed" in answer.json()["error"] and answer.headers[COST] == "0"


def test_pending_detail_survives_export_and_import(fake: EnrichmentFake,
                                                   account: Callable[..., dict[str, str]]) -> None:
    headers = account()
    params = {"employer_website": "stripe.com", "role": "CEO", "enrichment": "fast"}
    with fake.client(headers=headers) as client:
        client.get("/v2/employee/profile", params=params)
    twin = EnrichmentFake(seed=0)
    twin.import_state(fake.export_state())
    with twin.client(headers=headers) as client:
        assert client.get("/v2/employee/profile", params=params).headers[STATUS] == "pending"
        twin.advance(20)
        assert client.get("/v2/employee/profile", params=params).headers[STATUS] == "complete"


# -- coverage --------------------------------------------------------------------------------------
def unknown_share_by_band(fake: EnrichmentFake, count: int = 6000) -> dict[str, float]:
    seen = dict.fromkeys(BANDS, 0)
    unknown = dict.fromkeys(BANDS, 0)
    for n in range(count):
        domain = f"cov{n}.com"
        band = BANDS[size_band(generated_company(fake.seed, "en_US", domain))]
        seen[band] += 1
        unknown[band] += not fake.model.world.known(domain)
    return {band: unknown[band] / seen[band] for band in BANDS if seen[band]}


def test_small_private_companies_are_unknown_more_often_than_large_public_ones() -> None:
    shares = unknown_share_by_band(EnrichmentFake(seed=0, unknown_share=0.1))
    assert shares["micro"] > shares["small"] > shares["medium"] > shares["large"] >= shares["public"]
    assert shares["micro"] > 5 * shares["public"]
    uniform = unknown_share_by_band(EnrichmentFake(seed=0, unknown_share=0.1,
                                                   coverage_weights=dict.fromkeys(BANDS, 1.0)))
    assert max(uniform.values()) - min(uniform.values()) < 0.06


def test_coverage_is_a_function_of_the_seed() -> None:
    def unknown(seed: int) -> list[str]:
        world = EnrichmentFake(seed=seed).model.world
        return [d for d in (f"cov{n}.com" for n in range(3000)) if not world.known(d)]

    assert unknown(0) == unknown(0) and unknown(0) != unknown(1)
    assert 0.01 < len(unknown(0)) / 3000 < 0.03  # unknown_share (2 %) stays the average


# -- 410 and 503 -------------------------------------------------------------------------------------
def test_retired_paths_answer_410_uncharged_before_the_key_is_checked(account: Callable[..., dict[str, str]]) -> None:
    fake = EnrichmentFake(seed=0, retired_paths=["/proxycurl/*", "/api/v1/employee/profile"])
    with fake.client() as client:
        legacy = client.get("/proxycurl/api/v2/linkedin", params={"url": "x"})
        assert (legacy.status_code, legacy.headers[COST]) == (410, "0") and legacy.json()["error"]
        key = fake.create_account("sub_299")["api_key"]
        headers = {"Authorization": f"Bearer {key}"}
        ceo = {"employer_website": "stripe.com", "role": "CEO"}
        assert client.get("/api/v1/employee/profile", params=ceo, headers=headers).status_code == 410
        assert client.get("/api/v2/employee/profile", params=ceo, headers=headers).status_code == 200
        assert fake.account(key)["balance_text"] == "2987"
    with EnrichmentFake(seed=0).client() as client:  # by default only the Proxycurl API is retired
        assert client.get("/proxycurl/api/linkedin/company").status_code == 410


def test_a_live_lookup_that_fails_for_now_is_503_with_retry_after_and_the_retry_is_served() -> None:
    fake = EnrichmentFake(seed=0, transient_failure_share=1.0, transient_retry_after_s=5)
    key = fake.create_account("sub_299")["api_key"]
    with fake.client(headers={"Authorization": f"Bearer {key}"}) as client:
        for path, params in (("/v1/employee/work-email", {"first_name": "Ann", "domain": "stripe.com"}),
                             ("/v2/employee/profile", {"employer_website": "stripe.com", "role": "CEO"}),
                             ("/v1/employee/similar", {"employer_website": "stripe.com", "role": "CEO"}),
                             ("/v1/employee/search", {"company_website": "stripe.com", "role": "engineer"}),
                             ("/v1/product/listing", {"website": "stripe.com"})):
            start = Decimal(fake.account(key)["balance_text"])
            failed = client.get(path, params=params)
            assert (failed.status_code, failed.headers["retry-after"], failed.headers[COST]) == (503, "5", "0")
            fake.advance(2)
            early = client.get(path, params=params)
            assert (early.status_code, early.headers["retry-after"]) == (503, "3"), path
            assert Decimal(fake.account(key)["balance_text"]) == start
            fake.advance(3)
            served = client.get(path, params=params)
            assert served.status_code == 200 and Decimal(served.headers[COST]) > 0, path
            assert client.get(path, params=params).headers[COST] == "0"  # a cached answer is no live lookup
        funding = client.get("/v1/company/funding", params={"website": "stripe.com"})
        assert funding.status_code == 200 and funding.json()["error_code"] == "service_temp_unavailable"
        assert funding.json()["credit_cost"] == 0 and funding.headers[COST] == "0"
        assert client.get("/v1/company/details", params={"website": "stripe.com"}).status_code == 200


def test_transient_failures_are_a_function_of_the_seed_and_the_calls() -> None:
    def statuses(seed: int) -> list[int]:
        fake = EnrichmentFake(seed=seed, transient_failure_share=0.5)
        key = fake.create_account("sub_1899", rate_limited=False)["api_key"]
        with fake.client(headers={"Authorization": f"Bearer {key}"}) as client:
            return [client.get("/v1/employee/work-email", params={"first_name": f"P{n}", "domain": "stripe.com"})
                    .status_code for n in range(40)]

    assert statuses(0) == statuses(0) and statuses(0) != statuses(1)
    assert 5 < statuses(0).count(503) < 35


def test_the_official_client_sees_the_503_as_its_service_exception() -> None:
    fake = EnrichmentFake(seed=0, transient_failure_share=1.0)
    key = fake.create_account("sub_299")["api_key"]
    with fake.serve() as base_url:  # retries=0: urllib3 would otherwise sleep Retry-After in real time
        api = ninjapear.ApiClient(ninjapear.Configuration(host=base_url, access_token=key, retries=0))
        with pytest.raises(ServiceException) as caught:
            ninjapear.EmployeeAPIApi(api).get_work_email(first_name="Ann", domain="stripe.com")
    assert caught.value.status == 503 and caught.value.headers["Retry-After"] == "5"
