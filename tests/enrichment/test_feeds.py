"""Monitoring feeds: items appear as virtual time passes, RSS, consumption once, suspension and resume."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from xml.etree import ElementTree

import httpx

from fakes.enrichment import EnrichmentFake
from fakes.enrichment.feeds import WEBSITE_EVENTS

from .helpers import COST, balance

DAY = 86_400
FEEDS = "/v1/monitor/feeds"


def create(client: httpx.Client, headers: dict[str, str], *sites: str, frequency: int = 7) -> dict[str, object]:
    response = client.post(FEEDS, headers=headers, json={"name": "Rivals", "targets": [
        {"website_url": site, "settings": {"frequency_days": frequency}} for site in sites]})
    assert response.status_code == 201, response.text
    return dict(response.json())


def test_feed_lifecycle_and_costs(fake: EnrichmentFake, client: httpx.Client,
                                  account: Callable[..., dict[str, str]]) -> None:
    headers = account("sub_49")
    before = balance(fake, headers)
    response = client.post(FEEDS, headers=headers, json={"targets": [{"website_url": "https://www.stripe.com/"}]})
    assert response.status_code == 201 and response.headers[COST] == "3"
    assert balance(fake, headers) == before - 3
    feed = response.json()
    assert feed["is_suspended"] is False and feed["suspension_reason"] is None and "token=" in feed["rss_url"]
    target = client.post(f"{FEEDS}/{feed['id']}/targets", headers=headers, json={"website_url": "acme.com"}).json()
    assert target["settings"]["frequency_days"] == 7
    listed = client.get(FEEDS, headers=headers).json()["feeds"]
    assert [(f["id"], f["target_count"]) for f in listed] == [(feed["id"], 2)]
    patched = client.patch(f"{FEEDS}/{feed['id']}/targets/{target['id']}", headers=headers,
                           json={"settings": {"frequency_days": 30, "monitor_x": False}}).json()
    assert patched["settings"]["frequency_days"] == 30 and patched["settings"]["monitor_x"] is False
    assert client.patch(f"{FEEDS}/{feed['id']}", headers=headers, json={"name": "New"}).json()["name"] == "New"
    assert client.delete(f"{FEEDS}/{feed['id']}/targets/{target['id']}", headers=headers).json() == {
        "message": "Target deleted."}
    assert client.delete(f"{FEEDS}/{feed['id']}", headers=headers).json() == {"message": "Feed deleted."}
    assert client.get(f"{FEEDS}/{feed['id']}", headers=headers).status_code == 404


def test_polls_find_items_as_virtual_time_passes_and_rss_lists_them(fake: EnrichmentFake, client: httpx.Client,
                                                                    account: Callable[..., dict[str, str]]) -> None:
    headers = account("payg", credits=1000)  # 90 days of credits: no monthly grant muddles the sums
    feed = create(client, headers, "stripe.com", "acme.com")
    rss_url = str(feed["rss_url"])
    empty = ElementTree.fromstring(client.get(rss_url).text)
    assert empty.tag == "rss" and empty.findall("channel/item") == []
    polls = 10
    before = balance(fake, headers)
    fake.advance(polls * 7 * DAY)
    rss = client.get(rss_url)
    assert rss.status_code == 200 and rss.headers["content-type"].startswith("text/xml")
    items = ElementTree.fromstring(rss.text).findall("channel/item")
    categories = {item.findtext("category") for item in items}
    assert len(items) >= 2 * polls  # at least one item per poll on average (here: per target and poll)
    assert categories <= {"blog", "x", *WEBSITE_EVENTS} and {"blog", "x"} & categories
    # each poll of each target cost blog 1 + website 1 + X 2
    assert balance(fake, headers) == before - 2 * polls * 4
    assert client.get(rss_url.split("?")[0]).status_code == 401  # a private feed needs its token


def test_consuming_returns_each_new_item_once(fake: EnrichmentFake) -> None:
    key = fake.create_account("sub_49")["api_key"]
    call = fake.model.begin("create_feed", key)
    feed = fake.model.lookups.run(call, {}, base="", real=False, body={"targets": [{"website_url": "stripe.com"}]}).body
    fake.advance(7 * DAY)
    first = fake.model.lookups.consume(fake.model.begin("get_feed", key), feed["id"])["items"]
    assert first and fake.model.lookups.consume(fake.model.begin("get_feed", key), feed["id"])["items"] == []
    fake.advance(7 * DAY)
    second = fake.model.lookups.consume(fake.model.begin("get_feed", key), feed["id"])["items"]
    assert second and {i["guid"] for i in first}.isdisjoint(i["guid"] for i in second)


def test_a_feed_without_credits_is_suspended_and_resumes_after_a_purchase(fake: EnrichmentFake,
                                                                          client: httpx.Client) -> None:
    key = fake.create_account("payg", credits=10)["api_key"]
    headers = {"Authorization": f"Bearer {key}"}
    feed = create(client, headers, "stripe.com", frequency=1)  # 3 credits; each daily poll costs 4
    fake.advance(3 * DAY)
    described = client.get(f"{FEEDS}/{feed['id']}", headers=headers).json()
    assert described["is_suspended"] is True and described["suspension_reason"] == "insufficient_credits"
    assert Decimal(fake.account(key)["balance_text"]) == 3  # one poll paid (7 - 4), the next could not be
    fake.advance(5 * DAY)
    assert Decimal(fake.account(key)["balance_text"]) == 3  # a suspended feed is not polled
    fake.purchase(key, 10)
    resumed = client.get(f"{FEEDS}/{feed['id']}", headers=headers).json()
    assert resumed["is_suspended"] is False and resumed["suspension_reason"] is None
    fake.advance(DAY)
    assert Decimal(fake.account(key)["balance_text"]) == 103 - 4


def test_bad_feed_input_is_a_4xx_and_changes_nothing(fake: EnrichmentFake, client: httpx.Client,
                                                     account: Callable[..., dict[str, str]]) -> None:
    headers = account("sub_49")
    before = balance(fake, headers)
    for payload in [{}, {"targets": []}, {"targets": [{"website_url": "a.com", "settings": {"frequency_days": 31}}]},
                    {"targets": [{"website_url": "a.com", "settings": {"frequency_days": 0}}]},
                    {"targets": [{"website_url": "a.com"}], "bogus": 1}, {"targets": [{"website_url": None}]},
                    {"targets": [{"website_url": "a.com"}, {"website_url": "https://www.a.com"}]}, [1, 2]]:
        response = client.post(FEEDS, headers=headers, json=payload)
        assert response.status_code in (400, 409) and response.headers[COST] == "0", payload
    assert client.post(FEEDS, headers=headers, content=b"{nope").status_code == 400
    assert balance(fake, headers) == before and client.get(FEEDS, headers=headers).json() == {"feeds": []}


def test_page_size_outside_its_range_is_400_not_clamped(client: httpx.Client,
                                                        account: Callable[..., dict[str, str]]) -> None:
    headers = account()
    for size in ("0", "201", "-1", "ten"):
        response = client.get("/v1/customer/listing", params={"website": "stripe.com", "page_size": size},
                              headers=headers)
        assert response.status_code == 400, size
