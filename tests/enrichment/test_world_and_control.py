"""The generated world, the control plane, the machine-readable reference and the state."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from fakes.enrichment import EnrichmentFake
from fakes.enrichment.data import logo_png, normalize_website
from fakes.enrichment.operations import OPERATIONS
from fakes.kernel.errors import ControlError

from .helpers import COST


@pytest.mark.parametrize("spelling", ["https://www.Stripe.com", "stripe.com", "http://stripe.com/",
                                      "www.stripe.com/pricing", "HTTPS://STRIPE.COM:443/a?b=c", " stripe.com. "])
def test_every_spelling_of_a_website_is_one_company(spelling: str) -> None:
    assert normalize_website(spelling) == "stripe.com"


@pytest.mark.parametrize("junk", ["", "stripe", "not a site", "1.2.3.4", "a@b.com", "-x.com", "x..com"])
def test_what_is_no_website_is_none(junk: str) -> None:
    assert normalize_website(junk) is None


def test_the_world_is_a_function_of_the_seed(account: Callable[..., dict[str, str]]) -> None:
    answers = []
    for _ in range(2):
        fake = EnrichmentFake(seed=3)
        key = fake.create_account("sub_49")["api_key"]
        with fake.client(headers={"Authorization": f"Bearer {key}"}) as client:
            answers.append([client.get(path, params={"website": "acme.com"}).content for path in (
                "/v1/company/details", "/v1/company/funding", "/v1/competitor/listing", "/v1/product/listing")])
    assert answers[0] == answers[1]
    other = EnrichmentFake(seed=4).model.world.company("acme.com")
    assert other != EnrichmentFake(seed=3).model.world.company("acme.com")


def test_unknown_websites_are_invalid_ones_and_a_seeded_share(fake: EnrichmentFake) -> None:
    world = fake.model.world
    assert not world.known("anything.invalid")
    share = sum(not world.known(f"site{n}.com") for n in range(5000)) / 5000
    assert 0.01 <= share <= 0.03
    assert EnrichmentFake(seed=0, unknown_share=0.5).model.world.known("site1.com") in (True, False)


def test_no_record_points_to_a_professional_network(fake: EnrichmentFake, client: httpx.Client,
                                                    account: Callable[..., dict[str, str]]) -> None:
    headers = account()
    texts = [client.get(path, params=params, headers=headers).text for path, params in [
        ("/v1/company/details", {"website": "stripe.com"}),
        ("/v2/employee/profile", {"employer_website": "stripe.com", "role": "CEO"}),
        ("/v1/employee/search", {"company_website": "stripe.com", "role": "engineer"})]]
    assert not any("linkedin" in text.lower() for text in texts)


def test_public_companies_have_a_listing_and_private_ones_null(fake: EnrichmentFake) -> None:
    world = fake.model.world
    records = [world.company(f"co{n}.com") for n in range(300)]
    listed = [r for r in records if r and r["company_type"] == "PUBLIC_COMPANY"]
    assert listed and all(r["public_listing"]["stock_symbol"] for r in listed)
    assert all(r["public_listing"] is None for r in records if r and r["company_type"] != "PUBLIC_COMPANY")


def test_updates_keep_appearing_as_virtual_time_passes(fake: EnrichmentFake) -> None:
    now = fake.clock.now_ms()
    before = fake.model.world.updates("stripe.com", now, limit=200)
    later = fake.model.world.updates("stripe.com", now + 30 * 86_400_000, limit=200)
    recent = {i["url"] for i in before if i["_ms"] > now - 90 * 86_400_000}
    assert recent and recent <= {i["url"] for i in later}
    assert any(i["_ms"] > now for i in later)
    assert {i["source"] for i in later} <= {"blog", "x", "youtube"}


def test_the_logo_is_a_real_128_pixel_png() -> None:
    png = logo_png(0, "stripe.com")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height, depth, colour = struct.unpack(">IIBB", png[16:26])
    assert (width, height, depth, colour) == (128, 128, 8, 2)
    length = struct.unpack(">I", png[33:37])[0]
    assert png[37:41] == b"IDAT" and len(zlib.decompress(png[41:41 + length])) == 128 * (1 + 128 * 3)


def test_control_plane_accounts_purchases_companies_and_people(fake: EnrichmentFake, client: httpx.Client) -> None:
    created = client.post("/_fake/accounts", json={"plan": "payg", "credits": 12.5})
    assert created.status_code == 201 and created.json()["balance"] == 12.5
    key = created.json()["api_key"]
    bought = client.post(f"/_fake/accounts/{key}/purchases", json={"pack_usd": 10})
    assert bought.status_code == 201 and bought.json()["account"]["balance"] == 112.5
    info = client.get(f"/_fake/accounts/{key}").json()
    assert info["plan"] == "payg" and info["purchases"][0]["pack_usd"] == 10
    company = client.post("/_fake/companies", json={"website": "https://www.mine.invalid", "name": "Mine",
                                                    "employee_count": 7})
    assert company.status_code == 201
    person = client.post("/_fake/people", json={"first_name": "Ada", "last_name": "Byron",
                                                "employer_website": "mine.invalid", "role": "CTO",
                                                "work_email": "ada@mine.invalid"})
    assert person.status_code == 201
    headers = {"Authorization": f"Bearer {key}"}
    assert client.get("/v1/company/employee-count", params={"website": "mine.invalid"},
                      headers=headers).json() == {"employee_count": 7}
    assert client.get("/v1/employee/work-email", params={"first_name": "Ada", "domain": "mine.invalid"},
                      headers=headers).json() == {"work_email": "ada@mine.invalid"}
    profile = client.get("/v2/employee/profile", params={"employer_website": "mine.invalid", "first_name": "Ada"},
                         headers=headers).json()
    assert profile["full_name"] == "Ada Byron" and profile["work_experience"][0]["role"] == "CTO"
    assert client.post("/_fake/accounts", json={"credits": 0.05}).json()["balance"] == 0.1  # rounded to tenths
    for path, payload in [("/_fake/accounts", {"plan": "gold"}), ("/_fake/accounts", {"credits": -1}),
                          ("/_fake/accounts", {"plan": None}), (f"/_fake/accounts/{key}/purchases", {"pack_usd": 5}),
                          (f"/_fake/accounts/{key}/purchases", {}), ("/_fake/companies", {"website": "nope"}),
                          ("/_fake/companies", {"website": "a.com", "color": "red"}),
                          ("/_fake/people", {"first_name": "A|", "last_name": "B", "employer_website": "a.com"})]:
        refused = client.post(path, json=payload)
        assert refused.status_code == 400 and set(refused.json()) >= {"error", "message"}, (path, payload)
    assert client.post("/_fake/people", json={"first_name": "A", "last_name": "B",
                                              "employer_website": "x.invalid"}).status_code == 404
    assert client.post("/_fake/accounts", json={"api_key": key}).status_code == 409
    assert client.get("/_fake/accounts/unknown-key").status_code == 404
    assert client.post("/_fake/accounts/unknown-key/purchases", json={"pack_usd": 10}).status_code == 404


def test_demo_credentials_give_a_trial_and_a_subscription_key(fake: EnrichmentFake) -> None:
    demo = fake.demo_credentials()
    assert fake.account(demo["trial_api_key"])["plan"] == "trial"
    assert fake.account(demo["subscription_api_key"])["plan"].startswith("sub_")


def test_llms_txt_and_openapi_come_from_the_route_table(client: httpx.Client) -> None:
    short = client.get("/llms.txt")
    full = client.get("/llms-full.txt").text
    document = client.get("/openapi.json").json()
    assert short.status_code == 200 and short.headers[COST] == "0"
    for op in OPERATIONS:
        assert op.seed_path in short.text and op.seed_path in full
        assert op.method.lower() in document["paths"][op.seed_path]
        for param in op.params:
            assert f"`{param.name}`" in full
        if op.tool:
            assert op.tool in full
    assert document["openapi"].startswith("3.0")
    assert client.get("/openapi.json").headers[COST] == "0"  # every response of the service has the header


def test_state_export_and_import_give_the_same_answers(fake: EnrichmentFake, client: httpx.Client) -> None:
    key = fake.create_account("payg", credits=50)["api_key"]
    headers = {"Authorization": f"Bearer {key}"}
    client.get("/v1/company/details", params={"website": "stripe.com"}, headers=headers)
    client.post("/v1/monitor/feeds", json={"targets": [{"website_url": "stripe.com"}]}, headers=headers)
    fake.add_company("https://www.mine.invalid", name="Mine")
    state = fake.export_state()
    copy = EnrichmentFake(seed=0)
    copy.import_state(state)
    fake.advance(8 * 86_400)
    copy.advance(8 * 86_400)
    with copy.client(headers=headers) as other:
        for path, params in [("/v1/credits", {}), ("/v1/company/details", {"website": "stripe.com"}),
                             ("/v1/monitor/feeds", {}), ("/v1/company/details", {"website": "mine.invalid"})]:
            mine = client.get(path, params=params, headers=headers)
            theirs = other.get(path, params=params, headers=headers)
            assert (mine.status_code, mine.content, mine.headers[COST]) == (
                theirs.status_code, theirs.content, theirs.headers[COST]), path
    broken = dict(state, model={**state["model"], "accounts": [{"plan": "gold"}]})
    with pytest.raises(ControlError):
        copy.import_state(broken)


def test_latency_moves_a_manual_clock_only_when_asked() -> None:
    fake = EnrichmentFake(seed=0, latency_s={"company_funding": 400}, latency_in_manual_clock="advance")
    key = fake.create_account("sub_49")["api_key"]
    start = fake.clock.now_ms()
    with fake.client(headers={"Authorization": f"Bearer {key}"}) as client:
        client.get("/v1/company/funding", params={"website": "stripe.com"})
    assert fake.clock.now_ms() - start == 300_000  # capped by the documented 300 s read timeout
    quiet = EnrichmentFake(seed=0, latency_s={"company_funding": 400})
    key = quiet.create_account("sub_49")["api_key"]
    with quiet.client(headers={"Authorization": f"Bearer {key}"}) as client:
        client.get("/v1/company/funding", params={"website": "stripe.com"})
    assert quiet.clock.now_ms() == start


def test_settings_know_every_operation_and_refuse_unknown_ones() -> None:
    from fakes.enrichment.settings import OPERATION_NAMES
    from fakes.kernel.settings import SettingsError

    assert {op.name for op in OPERATIONS} == OPERATION_NAMES
    for bad in ({"latency_s": {"nope": 1}}, {"costs": {"product_listing": 0.05}}, {"free_per_minute": {"trial": 2}},
                {"trial_credits": float("nan")}, {"latency_in_manual_clock": "later"}):
        with pytest.raises(SettingsError):
            EnrichmentFake(**bad)


def test_each_world_has_its_own_accounts_and_links(client: httpx.Client) -> None:
    key = client.post("/_w/t1/_fake/accounts", json={"plan": "sub_49"}).json()["api_key"]
    headers = {"Authorization": f"Bearer {key}"}
    inside = client.get("/_w/t1/v1/company/details", params={"website": "stripe.com"}, headers=headers)
    assert inside.status_code == 200 and "/_w/t1/v1/company/logo" in inside.json()["logo_url"]
    assert client.get("/v1/credits", headers=headers).status_code == 401


def test_generated_keys_skip_a_key_a_test_chose_and_a_taken_chosen_key_is_409(client: Any) -> None:
    """Issue 23 item 7: the key the next generation would make, chosen first by a test, is skipped."""
    probe = EnrichmentFake(seed=0)
    upcoming = [probe.create_account("payg")["api_key"] for _ in range(2)]
    chosen = client.post("/_fake/accounts", json={"plan": "payg", "api_key": upcoming[0]})
    assert chosen.status_code == 201 and chosen.json()["api_key"] == upcoming[0]
    generated = client.post("/_fake/accounts", json={"plan": "payg"})
    assert generated.status_code == 201 and generated.json()["api_key"] == upcoming[1]
    taken = client.post("/_fake/accounts", json={"plan": "trial", "api_key": upcoming[1]})
    assert taken.status_code == 409 and taken.json()["error"] == "conflict"


def test_keys_feeds_and_rss_tokens_made_after_a_reset_never_repeat_earlier_ones() -> None:
    fake = EnrichmentFake(seed=0)
    key = fake.create_account("sub_299")["api_key"]
    with fake.client(headers={"Authorization": f"Bearer {key}"}) as client:
        feed = client.post("/v1/monitor/feeds", json={"targets": [{"website_url": "stripe.com"}]}).json()
    fake.reset()
    again = fake.create_account("sub_299")["api_key"]
    assert again != key
    with fake.client(headers={"Authorization": f"Bearer {again}"}) as client:
        assert client.get("/v1/credits", headers={"Authorization": f"Bearer {key}"}).status_code == 401
        second = client.post("/v1/monitor/feeds", json={"targets": [{"website_url": "stripe.com"}]}).json()
        assert second["id"] != feed["id"] and second["rss_url"] != feed["rss_url"]
        assert client.get(feed["rss_url"]).status_code == 404  # the old feed's RSS address shows nothing new


def test_what_is_kept_from_the_world_goes_when_a_company_or_person_is_added(fake: EnrichmentFake,
                                                                             client: httpx.Client) -> None:
    """Employees, funding rounds, listings and profiles are kept per world until it changes: a person
    or company added through the control plane shows in the very next answer."""
    headers = dict(fake.auth_headers())
    search = {"company_website": "stripe.com", "role": "Chief Wizard", "use_cache": "never"}
    before = client.get("/v1/employee/search", params=search, headers=headers)
    assert before.status_code == 200, before.text
    assert client.get("/v1/employee/search", params=search, headers=headers).json() == before.json()
    world = fake.model.world
    assert ("employees", "stripe.com", "Chief Wizard") in world._derived  # kept after the first search
    (rendered,) = [key for key in world._derived if key[0] == "employee-search"]  # and the answer's entries
    assert rendered[1:4] == ("stripe.com", "Chief Wizard", "")
    added = client.post("/_fake/people", json={"first_name": "Ada", "last_name": "Byron",
                                               "employer_website": "stripe.com", "role": "Chief Wizard"})
    assert added.status_code == 201, added.text
    names = [(e["first_name"], e["last_name"]) for e in
             client.get("/v1/employee/search", params=search, headers=headers).json()["employees"]]
    assert ("Ada", "Byron") in names and len(names) == len(before.json()["employees"]) + 1
    # forgotten, then kept anew
    assert sorted(world._derived) == sorted([("employees", "stripe.com", "Chief Wizard"), rendered])
    funding = {"website": "shopify.com", "use_cache": "never"}
    first = client.get("/v1/company/funding", params=funding, headers=headers).json()["funding_rounds"]
    assert first, "shopify.com has funding rounds at this seed"
    founded = client.post("/_fake/companies", json={"website": "shopify.com", "founded_year": 1950})
    assert founded.status_code == 201, founded.text
    after = client.get("/v1/company/funding", params=funding, headers=headers).json()["funding_rounds"]
    # the rounds follow the founding year: generated again from the changed record, not the kept ones
    assert min(r["date"] for r in after if r["round_type"] != "IPO") < "1960" < min(r["date"] for r in first)


def test_kept_rendered_answers_are_the_answers_rendered_afresh(fake: EnrichmentFake, client: httpx.Client) -> None:
    """Funding, listings, similar people and employee search keep their rendered answers per world
    (and per charge): a kept answer is byte for byte the one rendered with nothing kept."""
    headers = dict(fake.auth_headers())
    calls = [("/v1/company/funding", {"website": "shopify.com", "use_cache": "never"}),
             ("/v1/customer/listing", {"website": "stripe.com", "use_cache": "never"}),
             ("/v1/competitor/listing", {"website": "stripe.com", "use_cache": "never"}),
             ("/v1/employee/similar", {"employer_website": "stripe.com", "role": "CEO", "use_cache": "never"}),
             ("/v1/employee/search", {"company_website": "stripe.com", "role": "engineer", "use_cache": "never"})]
    world = fake.model.world
    first = []
    for path, params in calls:
        answer = client.get(path, params=params, headers=headers)
        assert answer.status_code == 200, answer.text
        first.append(answer.content)
    kinds = {key[0] for key in world._derived}
    assert {"funding-answer", "customer-page", "competitor-answer", "similar-answer", "employee-search"} <= kinds
    kept = [client.get(path, params=params, headers=headers).content for path, params in calls]
    world._derived.clear()  # nothing kept: each answer rendered again
    fresh = [client.get(path, params=params, headers=headers).content for path, params in calls]
    assert kept == fresh == first
