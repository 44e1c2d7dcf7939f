"""Plans over virtual time (trial expiry, pack expiry and extension, subscription grants) and
the per-account rate limits with their 429 headers."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

import httpx
import pytest

from fakes.enrichment import EnrichmentFake
from fakes.enrichment.credits import Ledger, render, tenths
from fakes.enrichment.rules import IGNORED_RATE_LIMIT_HEADERS, RETRY_BEFORE_RETRY_AFTER
from fakes.enrichment.settings import EnrichmentSettings
from fakes.kernel.clock import Clock

from .helpers import COST

DAY = 86_400


def credits_of(client: httpx.Client, key: str) -> httpx.Response:
    return client.get("/v1/credits", headers={"Authorization": f"Bearer {key}"})


def test_tenths_are_exact_and_render_as_decimals() -> None:
    assert [tenths(v) for v in (0, 0.5, "2.3", 10, Decimal("0.1"))] == [0, 5, 23, 100, 1]
    assert [render(v) for v in (0, 5, 23, 100, 1, -7)] == ["0", "0.5", "2.3", "10", "0.1", "-0.7"]
    with pytest.raises(ValueError):
        tenths("0.05")
    total = sum(tenths("0.1") for _ in range(10))  # ten tenths: 1 exactly, never 0.9999999
    assert render(total) == "1"


def test_trial_gives_10_credits_and_stops_at_exactly_3_days(fake: EnrichmentFake, client: httpx.Client) -> None:
    key = fake.create_account("trial")["api_key"]
    assert credits_of(client, key).json()["credit_balance"] == 10
    fake.advance(3 * DAY - 0.001)
    assert credits_of(client, key).status_code == 200
    fake.advance(0.001)
    expired = credits_of(client, key)
    assert expired.status_code == 403 and "trial" in expired.json()["error"]
    assert expired.headers[COST] == "0"
    assert fake.account(key)["trial_expired"] is True


def test_small_pack_expires_after_30_days_and_a_purchase_extends_it(fake: EnrichmentFake,
                                                                     client: httpx.Client) -> None:
    key = fake.create_account("payg")["api_key"]
    fake.purchase(key, 10)
    assert credits_of(client, key).json()["credit_balance"] == 100
    fake.advance(29 * DAY)
    assert credits_of(client, key).json()["credit_balance"] == 100
    fake.purchase(key, 10)  # day 29: both packs now expire on day 59
    fake.advance(2 * DAY)   # day 31: the first pack would have expired without the extension
    assert credits_of(client, key).json()["credit_balance"] == 200
    fake.advance(28 * DAY - 1)
    assert credits_of(client, key).json()["credit_balance"] == 200
    fake.advance(1)         # day 59: everything expires together
    assert credits_of(client, key).json()["credit_balance"] == 0


def test_larger_packs_last_90_days_and_the_new_pack_sets_every_expiry(fake: EnrichmentFake,
                                                                       client: httpx.Client) -> None:
    key = fake.create_account("payg")["api_key"]
    fake.purchase(key, 50)
    fake.advance(10 * DAY)
    fake.purchase(key, 10)  # expires on day 40: a purchase never shortens the large pack's day 90
    assert [e["credits"] for e in fake.account(key)["expiries"]] == [100, 500]
    fake.advance(60 * DAY)  # day 70: the small pack is gone; a new one moves the large pack to day 100
    fake.purchase(key, 10)
    assert [e["credits"] for e in fake.account(key)["expiries"]] == [600]
    fake.advance(29 * DAY)
    assert credits_of(client, key).json()["credit_balance"] == 600
    fake.advance(DAY)
    assert credits_of(client, key).json()["credit_balance"] == 0


def test_subscription_grants_monthly_and_unused_credits_lapse(fake: EnrichmentFake, client: httpx.Client) -> None:
    key = fake.create_account("sub_49")["api_key"]
    headers = {"Authorization": f"Bearer {key}"}
    assert client.get("/v1/company/details", params={"website": "stripe.com"}, headers=headers).headers[COST] == "3"
    assert credits_of(client, key).json()["credit_balance"] == 487
    fake.advance(30 * DAY)
    assert credits_of(client, key).json()["credit_balance"] == 490


def test_fractional_balances_are_exact_on_both_paths(fake: EnrichmentFake, client: httpx.Client) -> None:
    key = fake.create_account("payg", credits=10)["api_key"]
    world = fake.model.world
    miss = next(n for n in range(100) if not world.work_email("stripe.com", f"Bo{n}", "Ng", 0.8))
    headers = {"Authorization": f"Bearer {key}"}
    client.get("/v1/employee/work-email", params={"first_name": f"Bo{miss}", "last_name": "Ng", "domain": "stripe.com"},
               headers=headers)
    seed_answer = client.get("/v1/credits", headers=headers).json()
    real_answer = client.get("/api/v1/meta/credit-balance", headers=headers).json()
    assert seed_answer == {"credit_balance": 9.5, "credit_balance_exact": "9.5"}
    assert real_answer == {"credit_balance": 9, "credit_balance_exact": "9.5"}  # the official client wants an int


@pytest.mark.parametrize(("plan", "free_limit"), [("trial", 2), ("payg", 2), ("sub_49", 20), ("sub_299", 50),
                                                  ("sub_899", 100), ("sub_1899", 300)])
def test_each_plans_free_endpoint_limit_and_the_429_headers(fake: EnrichmentFake, client: httpx.Client,
                                                            plan: str, free_limit: int) -> None:
    key = fake.create_account(plan, credits=100)["api_key"]
    fake.advance(30)  # half a minute into the window: Retry-After is 30 s
    for n in range(free_limit):
        ok = credits_of(client, key)
        assert ok.status_code == 200 and ok.headers["x-ratelimit-remaining"] == str(free_limit - n - 1)
        assert ok.headers["x-ratelimit-limit"] == str(free_limit)
    refused = credits_of(client, key)
    reset = int(refused.headers["x-ratelimit-reset"])
    now_s = fake.clock.now_ms() / 1000
    assert refused.status_code == 429 and refused.headers[COST] == "0" and "error" in refused.json()
    assert refused.headers["x-ratelimit-remaining"] == "0" and refused.headers["retry-after"] == "30"
    assert reset == now_s + 30
    fake.advance(int(refused.headers["retry-after"]))  # a client that waits Retry-After is served
    assert credits_of(client, key).status_code == 200


def test_paid_endpoints_allow_50_a_minute_on_every_plan(fake: EnrichmentFake, client: httpx.Client,
                                                        account: Callable[..., dict[str, str]]) -> None:
    for plan in ("trial", "sub_1899"):
        headers = account(plan, credits=1000)
        statuses = [client.get("/v1/company/details", params={"website": "stripe.com"}, headers=headers).status_code
                    for _ in range(51)]
        assert statuses == [200] * 50 + [429]
        # the free bucket is separate
        assert client.get("/v1/credits", headers=headers).status_code == 200
        fake.advance(60)


def test_monitor_management_counts_as_paid_traffic(fake: EnrichmentFake, client: httpx.Client,
                                                   account: Callable[..., dict[str, str]]) -> None:
    headers = account("trial")
    statuses = [client.get("/v1/monitor/feeds", headers=headers).status_code for _ in range(51)]
    assert statuses == [200] * 50 + [429]


def test_reading_the_headers_is_enforced_by_two_client_rules(fake: EnrichmentFake, client: httpx.Client) -> None:
    key = fake.create_account("payg", credits=10)["api_key"]
    credits_of(client, key)
    last = credits_of(client, key)
    assert last.headers["x-ratelimit-remaining"] == "0"
    assert not fake.verdicts()
    assert credits_of(client, key).status_code == 429  # the headers said 0 left: ignored them
    assert [v["id"] for v in fake.verdicts()] == [IGNORED_RATE_LIMIT_HEADERS.id]
    fake.advance(1)
    assert credits_of(client, key).status_code == 429  # retried before Retry-After
    ids = {v["id"]: v["count"] for v in fake.verdicts()}
    assert ids == {IGNORED_RATE_LIMIT_HEADERS.id: 1, RETRY_BEFORE_RETRY_AFTER.id: 1}
    fake.advance(60)
    assert credits_of(client, key).status_code == 200
    assert {v["id"]: v["count"] for v in fake.verdicts()} == ids


def test_a_client_that_waits_for_reset_breaks_no_rule(fake: EnrichmentFake, client: httpx.Client) -> None:
    key = fake.create_account("trial")["api_key"]
    for _ in range(6):
        answer = credits_of(client, key)
        assert answer.status_code == 200
        if answer.headers["x-ratelimit-remaining"] == "0":
            fake.set_time_ms(int(answer.headers["x-ratelimit-reset"]) * 1000)
    assert not fake.verdicts()


def test_ledger_never_charges_more_than_the_balance() -> None:
    ledger = Ledger(EnrichmentSettings())
    clock = Clock()
    account = ledger.open("k" * 10, "payg", clock.now_ms(), 1)
    assert not ledger.charge(account, 11, clock.now_ms())
    assert ledger.balance(account, clock.now_ms()) == 10
    assert ledger.charge(account, 10, clock.now_ms()) and ledger.balance(account, clock.now_ms()) == 0
