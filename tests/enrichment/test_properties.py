"""Properties: over any sequence of calls the cost headers add up to the balance decrease and the
balance never goes negative; a state machine over accounts, purchases, feeds and the clock."""

from __future__ import annotations

import logging
import os
from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, precondition, rule

from fakes.enrichment import EnrichmentFake
from fakes.enrichment.credits import DAY_MS

from .helpers import COST

logging.getLogger("httpx").setLevel(logging.WARNING)
DERANDOMIZE = not os.environ.get("FAKES_HYPOTHESIS_EXPLORE")
SITES = st.sampled_from(["stripe.com", "https://www.acme.com/", "gone.invalid", "co7.com", "co12.io", "not a site"])
CALLS = st.one_of(
    st.tuples(st.just("/v1/company/details"), st.fixed_dictionaries({"website": SITES}, optional={
        "include_employee_count": st.sampled_from(["true", "false", "maybe"]),
        "follower_count": st.sampled_from(["include", "exclude"]),
        "use_cache": st.sampled_from(["if-recent", "never", "if-present-only", "bad"])})),
    st.tuples(st.just("/v1/company/funding"), st.fixed_dictionaries({"website": SITES})),
    st.tuples(st.just("/v1/company/updates"), st.fixed_dictionaries({"website": SITES})),
    st.tuples(st.just("/v1/customer/listing"), st.fixed_dictionaries({"website": SITES}, optional={
        "page_size": st.sampled_from(["1", "3", "200", "0", "x"])})),
    st.tuples(st.just("/v1/competitor/listing"), st.fixed_dictionaries({"website": SITES})),
    st.tuples(st.just("/v1/employee/work-email"), st.fixed_dictionaries({
        "first_name": st.sampled_from(["Ann", "Bo", "Cy", "Di"]), "domain": SITES},
        optional={"last_name": st.sampled_from(["Lee", "Ng"]), "force_refresh": st.sampled_from(["true", "false"])})),
    st.tuples(st.just("/v1/employee/search"), st.fixed_dictionaries({
        "company_website": SITES, "role": st.sampled_from(["engineer", "sales"])})),
    st.tuples(st.just("/v2/employee/profile"), st.fixed_dictionaries({"employer_website": SITES,
                                                                        "role": st.sampled_from(["CEO", "engineer"])})),
    st.tuples(st.just("/v1/product/listing"), st.fixed_dictionaries({"website": SITES})),
    st.tuples(st.just("/v1/credits"), st.just({})),
    st.tuples(st.just("/wait"), st.integers(min_value=1, max_value=40 * 86_400)),
)


def exact_balance(fake: EnrichmentFake, key: str) -> Decimal:
    return Decimal(fake.account(key)["balance_text"])


@settings(max_examples=40, deadline=None, derandomize=DERANDOMIZE, database=None,
          suppress_health_check=list(HealthCheck))
@given(plan=st.sampled_from(["trial", "payg", "sub_49"]), credits=st.integers(min_value=0, max_value=60),
       calls=st.lists(CALLS, max_size=25))
def test_cost_headers_add_up_to_the_balance_decrease(plan: str, credits: int, calls: list[tuple[str, Any]]) -> None:
    fake = EnrichmentFake(seed=0)
    key = fake.create_account(plan, credits, rate_limited=False)["api_key"]
    with fake.client(headers={"Authorization": f"Bearer {key}"}) as client:
        for path, params in calls:
            if path == "/wait":
                fake.advance(params)  # credits may expire or be granted: that is not a charge
                continue
            before = exact_balance(fake, key)
            response = client.get(path, params=params)
            assert response.status_code < 500, response.text
            after = exact_balance(fake, key)
            assert Decimal(response.headers[COST]) == before - after, (path, params, response.text)
            assert after >= 0
            if response.status_code >= 400:
                assert response.headers[COST] == "0"


class AccountsPurchasesFeeds(RuleBasedStateMachine):
    """Random accounts, purchases, feeds and clock moves; checks the model against a simple ledger."""

    keys = Bundle("keys")
    feeds = Bundle("feeds")

    def __init__(self) -> None:
        super().__init__()
        self.fake = EnrichmentFake(seed=0)
        self.client = self.fake.client()
        self.spent: dict[str, Decimal] = {}

    def teardown(self) -> None:
        self.client.close()

    def headers(self, key: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {key}"}

    @rule(target=keys, plan=st.sampled_from(["trial", "payg", "sub_49", "sub_1899"]),
          credits=st.one_of(st.none(), st.integers(min_value=0, max_value=40)))
    def open_account(self, plan: str, credits: int | None) -> str:
        key = str(self.fake.create_account(plan, credits, rate_limited=False)["api_key"])
        self.spent[key] = Decimal(0)
        return key

    @rule(key=keys, pack=st.sampled_from([10, 20, 100]))
    def buy(self, key: str, pack: int) -> None:
        before = exact_balance(self.fake, key)
        self.fake.purchase(key, pack)
        assert exact_balance(self.fake, key) == before + pack * 10
        assert self.fake.account(key)["plan"] != "trial"

    @rule(target=feeds, key=keys, site=SITES, frequency=st.integers(min_value=1, max_value=30))
    def create_feed(self, key: str, site: str, frequency: int) -> tuple[str, str]:
        response = self.client.post("/v1/monitor/feeds", headers=self.headers(key), json={
            "targets": [{"website_url": site, "settings": {"frequency_days": frequency}}]})
        assert response.status_code in (201, 403), response.text
        return key, response.json().get("id", "feed_missing")

    @rule(feed=feeds)
    def read_feed(self, feed: tuple[str, str]) -> None:
        key, feed_id = feed
        response = self.client.get(f"/v1/monitor/feeds/{feed_id}", headers=self.headers(key))
        assert response.status_code in (200, 403, 404)
        if response.status_code == 200 and response.json()["is_suspended"]:
            assert response.json()["suspension_reason"] in ("insufficient_credits", "manual")

    @rule(feed=feeds)
    def delete_feed(self, feed: tuple[str, str]) -> None:
        key, feed_id = feed
        assert self.client.delete(f"/v1/monitor/feeds/{feed_id}", headers=self.headers(key)).status_code in (
            200, 403, 404)

    @rule(key=keys, site=SITES)
    def look_up(self, key: str, site: str) -> None:
        before = exact_balance(self.fake, key)
        response = self.client.get("/v1/company/details", params={"website": site}, headers=self.headers(key))
        assert response.status_code in (200, 403, 404), response.text
        assert Decimal(response.headers[COST]) == before - exact_balance(self.fake, key)

    @rule(days=st.integers(min_value=0, max_value=45))
    def wait(self, days: int) -> None:
        self.fake.advance(days * DAY_MS / 1000)

    @precondition(lambda self: bool(self.spent))
    @rule()
    def export_and_import_change_nothing(self) -> None:
        state = self.fake.export_state()
        copy = EnrichmentFake(seed=0)
        copy.import_state(state)
        for key in self.spent:
            assert copy.account(key)["balance_text"] == self.fake.account(key)["balance_text"]

    @invariant()
    def balances_are_never_negative_and_in_tenths(self) -> None:
        for key in self.spent:
            text = self.fake.account(key)["balance_text"]
            assert Decimal(text) >= 0 and Decimal(text) == Decimal(text).quantize(Decimal("0.1"))


AccountsPurchasesFeeds.TestCase.settings = settings(
    max_examples=int(os.environ.get("FAKES_STATEFUL_EXAMPLES", "25")), stateful_step_count=20, deadline=None,
    derandomize=DERANDOMIZE, database=None, suppress_health_check=list(HealthCheck))
TestAccountsPurchasesFeeds = AccountsPurchasesFeeds.TestCase


def test_the_state_machine_reaches_suspension() -> None:
    """Not left to chance: a feed on a small balance is suspended, a purchase resumes it."""
    fake = EnrichmentFake(seed=0)
    key = fake.create_account("payg", 3, rate_limited=False)["api_key"]
    with fake.client(headers={"Authorization": f"Bearer {key}"}) as client:
        feed = client.post("/v1/monitor/feeds", json={"targets": [{"website_url": "stripe.com"}]}).json()
        fake.advance(8 * 86_400)
        assert client.get(f"/v1/monitor/feeds/{feed['id']}").json()["suspension_reason"] == "insufficient_credits"
        fake.purchase(key, 10)
        assert client.get(f"/v1/monitor/feeds/{feed['id']}").json()["is_suspended"] is False

