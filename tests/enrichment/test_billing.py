"""Every credit rule of the seed's table and every billing rule, checked on the cost header.

Each test reads the header *and* the account's exact balance, so a header that lies about what
was charged fails too.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

import httpx
import pytest

from fakes.enrichment import EnrichmentFake
from fakes.enrichment.rules import PAID_TWICE_IN_CACHE_WINDOW

from .helpers import COST, balance, cost, find_domain, investors

DAY = 86_400


def charged(fake: EnrichmentFake, client: httpx.Client, headers: dict[str, str], path: str,
            **params: str) -> tuple[httpx.Response, Decimal]:
    before = balance(fake, headers)
    response = client.get(path, params=params, headers=headers)
    spent = before - balance(fake, headers)
    assert cost(response) == spent, f"header says {response.headers[COST]}, balance moved by {spent}"
    return response, spent


@pytest.mark.parametrize(("flags", "expected"), [
    ({}, "3"),
    ({"include_employee_count": "true"}, "5"),
    ({"follower_count": "include"}, "4"),
    ({"addresses": "best-effort-exhaustive"}, "5"),
    ({"include_employee_count": "true", "follower_count": "include"}, "6"),
    ({"include_employee_count": "true", "follower_count": "include", "addresses": "best-effort-exhaustive"}, "6"),
])
def test_company_details_costs_3_and_up_to_6_with_flags(fake: EnrichmentFake, client: httpx.Client,
                                                        account: Callable[..., dict[str, str]],
                                                        flags: dict[str, str], expected: str) -> None:
    response, spent = charged(fake, client, account(), "/v1/company/details", website="stripe.com", **flags)
    assert response.status_code == 200 and spent == Decimal(expected)
    data = response.json()
    assert ("employee_count_range_min" in data) == ("include_employee_count" in flags)
    assert ("follower_count" in data) == ("follower_count" in flags)


def test_the_real_services_cap_of_8_is_a_setting(client: httpx.Client) -> None:
    fake = EnrichmentFake(seed=0, details_max_cost=8)
    key = fake.create_account("sub_49")["api_key"]
    with fake.client(headers={"Authorization": f"Bearer {key}"}) as http:
        response = http.get("/v1/company/details", params={"website": "stripe.com", "include_employee_count": "true",
                                                           "follower_count": "include",
                                                           "addresses": "best-effort-exhaustive"})
    assert response.headers[COST] == "8"


def test_funding_costs_2_plus_1_per_unique_investor(fake: EnrichmentFake, client: httpx.Client,
                                                    account: Callable[..., dict[str, str]]) -> None:
    domain = find_domain(fake, lambda d: len(investors(fake, d)) >= 3)
    response, spent = charged(fake, client, account(), "/v1/company/funding", website=domain)
    unique = {inv["name"] for r in response.json()["funding_rounds"] for inv in r["investors"]}
    assert spent == 2 + len(unique) and response.json()["credit_cost"] == 2 + len(unique)
    empty = find_domain(fake, lambda d: not investors(fake, d))
    assert charged(fake, client, account(), "/v1/company/funding", website=empty)[1] == 2


def test_updates_person_product_employee_count_and_website_costs(fake: EnrichmentFake, client: httpx.Client,
                                                                 account: Callable[..., dict[str, str]]) -> None:
    headers = account()
    assert charged(fake, client, headers, "/v1/company/updates", website="stripe.com")[1] == 2
    assert charged(fake, client, headers, "/v2/employee/profile", employer_website="stripe.com", role="CEO")[1] == 3
    assert charged(fake, client, headers, "/v1/product/listing", website="stripe.com")[1] == 3
    assert charged(fake, client, headers, "/v1/company/employee-count", website="stripe.com")[1] == 2
    assert charged(fake, client, headers, "/v1/company/website", company_name="Stripe")[1] == 1


def test_customer_listing_costs_1_plus_2_per_company_of_the_page(fake: EnrichmentFake, client: httpx.Client,
                                                                 account: Callable[..., dict[str, str]]) -> None:
    domain = find_domain(fake, lambda d: len(fake.model.world.customers(d)) >= 8)
    headers = account()
    response, spent = charged(fake, client, headers, "/v1/customer/listing", website=domain, page_size="5")
    page = response.json()
    returned = len(page["customers"]) + len(page["investors"]) + len(page["partner_platforms"])
    assert returned == 5 and spent == 1 + 2 * 5 and page["next_page"]
    cursor = httpx.URL(page["next_page"]).params["cursor"]
    second, spent = charged(fake, client, headers, "/v1/customer/listing", website=domain, page_size="5",
                            cursor=cursor)
    assert second.status_code == 200 and spent == 1 + 2 * sum(len(second.json()[k]) for k in
                                                              ("customers", "investors", "partner_platforms"))


def test_competitor_listing_costs_2_each_with_a_minimum_of_5(fake: EnrichmentFake, client: httpx.Client,
                                                             account: Callable[..., dict[str, str]]) -> None:
    many = find_domain(fake, lambda d: len(fake.model.world.competitors(d)) >= 4)
    response, spent = charged(fake, client, account(), "/v1/competitor/listing", website=many)
    assert spent == 2 * len(response.json()["competitors"]) and spent >= 8
    assert all(c["competition_reason"] in ("organic_keyword_overlap", "product_overlap")
               for c in response.json()["competitors"])
    few = find_domain(fake, lambda d: len(fake.model.world.competitors(d)) <= 1)
    assert charged(fake, client, account(), "/v1/competitor/listing", website=few)[1] == 5


def test_employee_search_costs_2_plus_1_per_employee(fake: EnrichmentFake, client: httpx.Client,
                                                     account: Callable[..., dict[str, str]]) -> None:
    domain = find_domain(fake, lambda d: len(fake.model.world.employees(d, "engineer")) >= 2)
    response, spent = charged(fake, client, account(), "/v1/employee/search", company_website=domain, role="engineer")
    assert spent == 2 + len(response.json()["employees"]) and len(response.json()["employees"]) >= 2


def test_work_email_costs_2_on_a_hit_and_half_a_credit_on_a_miss(fake: EnrichmentFake, client: httpx.Client,
                                                                 account: Callable[..., dict[str, str]]) -> None:
    headers = account()
    world = fake.model.world
    hit = next(n for n in range(100) if world.work_email("stripe.com", f"Ann{n}", "Lee", 0.8))
    miss = next(n for n in range(100) if not world.work_email("stripe.com", f"Ann{n}", "Lee", 0.8))
    response, spent = charged(fake, client, headers, "/v1/employee/work-email", first_name=f"Ann{hit}",
                              last_name="Lee", domain="stripe.com")
    assert spent == 2 and response.json()["work_email"] == f"ann{hit}.lee@stripe.com"
    response, spent = charged(fake, client, headers, "/v1/employee/work-email", first_name=f"Ann{miss}",
                              last_name="Lee", domain="stripe.com")
    assert spent == Decimal("0.5") and response.headers[COST] == "0.5" and response.json() == {"work_email": None}


def test_logo_disposable_check_and_balance_are_free(fake: EnrichmentFake, client: httpx.Client,
                                                    account: Callable[..., dict[str, str]]) -> None:
    headers = account()
    for path, params in [("/v1/company/logo", {"website": "stripe.com"}),
                         ("/v1/employee/disposable-email-checker", {"email": "x@mailinator.com"}), ("/v1/credits", {})]:
        response, spent = charged(fake, client, headers, path, **params)
        assert response.status_code == 200 and spent == 0 and response.headers[COST] == "0"


def test_failed_requests_are_never_charged_and_still_carry_the_header(fake: EnrichmentFake, client: httpx.Client,
                                                                      account: Callable[..., dict[str, str]]) -> None:
    headers = account()
    for path, params, status in [("/v1/company/details", {}, 400),
                                 ("/v1/company/details", {"website": "x.invalid"}, 404),
                                 ("/v1/customer/listing", {"website": "stripe.com", "page_size": "201"}, 400),
                                 ("/v2/employee/profile", {"work_email": "info@stripe.com"}, 404),
                                 ("/v2/employee/profile", {"work_email": "ann@gmail.com"}, 400),
                                 ("/v1/nothing", {}, 404)]:
        response, spent = charged(fake, client, headers, path, **params)
        assert response.status_code == status and spent == 0 and response.headers[COST] == "0", path
        assert set(response.json()) == {"error"}
    unauthorized = client.get("/v1/company/details", params={"website": "stripe.com"})
    assert unauthorized.status_code == 401 and unauthorized.headers[COST] == "0"
    wrong_method = client.delete("/v1/credits", headers=headers)
    assert wrong_method.status_code == 405 and wrong_method.headers[COST] == "0"


def test_minimum_charge_is_a_tenth_of_a_credit(client: httpx.Client) -> None:
    fake = EnrichmentFake(seed=0, costs={"product_listing": 0})
    key = fake.create_account("sub_49")["api_key"]
    with fake.client(headers={"Authorization": f"Bearer {key}"}) as http:
        response = http.get("/v1/product/listing", params={"website": "stripe.com"})
    assert response.headers[COST] == "0.1"
    assert Decimal(fake.account(key)["balance_text"]) == Decimal(490) - Decimal("0.1")


def test_same_request_inside_the_cache_window_costs_nothing(fake: EnrichmentFake, client: httpx.Client,
                                                            account: Callable[..., dict[str, str]]) -> None:
    headers = account()
    params = {"website": "https://www.Stripe.com/about"}
    assert charged(fake, client, headers, "/v1/company/details", **params)[1] == 3
    again, spent = charged(fake, client, headers, "/v1/company/details", website="stripe.com")
    assert spent == 0 and again.headers["x-service-cache-age-days"] == "0"
    fake.advance(28 * DAY)
    assert charged(fake, client, headers, "/v1/company/details", website="http://stripe.com/")[1] == 0
    fake.advance(DAY)  # 29 days after the paid answer: outside the window
    assert charged(fake, client, headers, "/v1/company/details", website="stripe.com")[1] == 3
    assert charged(fake, client, headers, "/v1/company/details", website="stripe.com", use_cache="if-present")[1] == 0
    assert not fake.verdicts()


def test_use_cache_never_pays_again_and_is_flagged(fake: EnrichmentFake, client: httpx.Client,
                                                   account: Callable[..., dict[str, str]]) -> None:
    headers = account()
    charged(fake, client, headers, "/v1/company/employee-count", website="stripe.com")
    assert charged(fake, client, headers, "/v1/company/employee-count", website="stripe.com", use_cache="never")[1] == 2
    assert [v["id"] for v in fake.verdicts()] == [PAID_TWICE_IN_CACHE_WINDOW.id]
    detail = "employee_count stripe.com was paid for already inside the 29-day window"
    assert fake.verdicts()[0]["last"]["detail"] == detail
    # the detail is kept per operation and key: another operation's key reads as its own
    charged(fake, client, headers, "/v1/company/details", website="stripe.com")
    charged(fake, client, headers, "/v1/company/details", website="stripe.com", use_cache="never")
    charged(fake, client, headers, "/v1/company/employee-count", website="stripe.com", use_cache="never")
    verdict, = fake.verdicts()
    assert verdict["count"] == 3 and verdict["first"]["detail"] == verdict["last"]["detail"] == detail
    assert [entry["warnings"] for entry in fake.journal_entries()][-2:] == [
        [f"{PAID_TWICE_IN_CACHE_WINDOW.id}: company_details stripe.com|False|None|False was paid for already "
         "inside the 29-day window"], [f"{PAID_TWICE_IN_CACHE_WINDOW.id}: {detail}"]]
    # the details kept stay few and short: a long key is worded each time, the table never passes its cap
    from fakes.enrichment import lookup_base

    kept = fake.model.lookups.paid_twice_details
    assert set(kept) == {("employee_count", "employee_count|stripe.com"),
                         ("company_details", "company_details|stripe.com|False|None|False")}
    first, last = "a" * 200, "b" * 200  # the longest names the parameters take: a key past the cap
    for _ in range(2):
        answer = client.get("/v1/employee/work-email", params={"first_name": first, "last_name": last,
                                                               "domain": "stripe.com", "force_refresh": "true"},
                            headers=headers)
        assert answer.status_code == 200
    assert len(f"work_email|stripe.com|{first}|{last}") > lookup_base.MAX_KEPT_DETAIL_KEY
    assert fake.verdicts()[0]["last"]["detail"].startswith(f"work_email stripe.com|{first}|{last} was paid")
    assert len(kept) == 2
    missing = client.get("/v1/company/employee-count", params={"website": "acme.com", "use_cache": "if-present-only"},
                         headers=headers)
    assert missing.status_code == 404 and missing.headers[COST] == "0"


def test_cost_header_name_is_a_setting() -> None:
    fake = EnrichmentFake(seed=0, cost_header="X-NinjaPear-Credit-Cost")
    key = fake.create_account("sub_49")["api_key"]
    with fake.client(headers={"Authorization": f"Bearer {key}"}) as http:
        ok = http.get("/api/v1/company/details", params={"website": "stripe.com"})
        failed = http.get("/api/v1/company/details")
    assert ok.headers["X-NinjaPear-Credit-Cost"] == "3" and failed.headers["X-NinjaPear-Credit-Cost"] == "0"
    assert "x-service-credit-cost" not in ok.headers


def test_out_of_credits_is_403_and_charges_nothing(fake: EnrichmentFake, client: httpx.Client,
                                                   account: Callable[..., dict[str, str]]) -> None:
    headers = account("payg", credits=2)
    response, spent = charged(fake, client, headers, "/v1/company/details", website="stripe.com")
    assert response.status_code == 403 and spent == 0 and "credits" in response.json()["error"]
    assert balance(fake, headers) == 2


def test_404_charging_like_the_real_service_is_a_setting() -> None:
    fake = EnrichmentFake(seed=0, charge_failed_like_real=True)
    key = fake.create_account("sub_49")["api_key"]
    name = next(f"Gone{n}" for n in range(5000) if not fake.model.world.known(f"gone{n}.com"))
    with fake.client(headers={"Authorization": f"Bearer {key}"}) as http:
        lookup = http.get("/v1/company/website", params={"company_name": name})
        details = http.get("/v1/company/details", params={"website": "gone.invalid"})
    assert (lookup.status_code, lookup.headers[COST]) == (404, "1")
    assert (details.status_code, details.headers[COST]) == (404, "3")
    assert Decimal(fake.account(key)["balance_text"]) == 490 - 4


def test_even_an_internal_error_carries_the_cost_header(fake: EnrichmentFake, client: httpx.Client,
                                                        account: Callable[..., dict[str, str]],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    headers = account()

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(fake.model.lookups, "op_product_listing", broken)
    answer = client.get("/v1/product/listing", params={"website": "stripe.com"}, headers=headers)
    assert answer.status_code == 500 and answer.headers[COST] == "0" and "error" in answer.json()


def test_one_grant_pays_to_its_last_tenth_and_then_refuses(fake: EnrichmentFake, client: httpx.Client) -> None:
    """The usual account holds one grant: a charge of exactly what is left empties it (and drops it),
    the next call is refused with 403 and takes nothing."""
    key = fake.create_account("payg", credits=3)["api_key"]  # exactly one company_details
    headers = {"Authorization": f"Bearer {key}"}
    first = client.get("/v1/company/details", params={"website": "stripe.com"}, headers=headers)
    assert first.status_code == 200, first.text
    assert Decimal(fake.account(key)["balance_text"]) == 0
    assert fake.model.ledger.accounts[key].grants == []  # used up: dropped
    refused = client.get("/v1/company/details", params={"website": "shopify.com"}, headers=headers)
    assert refused.status_code == 403 and "Insufficient credits" in refused.text
    assert Decimal(fake.account(key)["balance_text"]) == 0
