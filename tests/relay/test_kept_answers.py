"""Answers the relay keeps between requests - the call listing's rows, the provider tables, the
use-case and workflow pages - are the answers it would work out afresh: a kept one never hides a
new call, a new provider or a changed count."""

from __future__ import annotations

from typing import Any

import orjson

from fakes.relay import RelayFake
from fakes.relay.accounts import connections
from fakes.relay.accounts.routes_more import call_row
from fakes.relay.records import RENDERINGS_KEPT, CallRecords


def _call(client: Any, headers: dict[str, str], domain: str = "northwind.com") -> None:
    assert client.get("/call/firmdata.companies.enrich", params={"domain": domain}, headers=headers).status_code < 500


def test_the_call_listing_keeps_rendered_rows_and_shows_every_new_call() -> None:
    fake = RelayFake(seed=0)
    headers = fake.auth_headers()
    client = fake.client()
    for _ in range(5):
        _call(client, headers)
    first = client.get("/calls?limit=3", headers=headers)
    records = fake.model.calls
    team_id = fake.model.team_for_token(headers[fake.model.h.token]).team_id
    fresh = [call_row(r) for r in records.of_team(team_id, 3)]
    assert first.content == orjson.dumps(fresh)  # the bytes orjson makes of the whole list
    assert first.headers["content-type"] == "application/json"
    assert len(records._renderings) == 3  # kept: asked again, the same rows are not rendered again
    assert client.get("/calls?limit=3", headers=headers).content == first.content
    _call(client, headers, "gone.invalid")  # a new call (a miss): the newest row now
    again = client.get("/calls?limit=3", headers=headers).json()
    assert again[0]["id"] == fresh[0]["id"] + 1 and again[1:] == fresh[:2]
    assert again == [call_row(r) for r in records.of_team(team_id, 3)]
    # a page before an id renders the rows not yet kept (call 3) and takes the kept one (call 4)
    older = client.get(f"/calls?limit=2&before_id={again[1]['id']}", headers=headers).json()
    assert [row["id"] for row in older] == [again[2]["id"], again[2]["id"] - 1]
    assert older == [call_row(r) for r in records.of_team(team_id, 2, before_seq=again[1]["id"])]


def test_a_slot_written_again_is_rendered_again_and_the_renderings_stay_bounded() -> None:
    records = CallRecords("call_x", limit=4)
    for seq in range(1, 5):
        records.put(seq, "a.b", "a", "relay_key", "t1", 200, 10, 1_000 * seq)
    render = lambda record: (record["seq"], record["status"], record.get("routed_id"))  # noqa: E731
    assert records.rendered_of_team("t1", 4, render) == [(4, 200, None), (3, 200, None), (2, 200, None),
                                                          (1, 200, None)]
    records.put(5, "a.b", "a", "relay_key", "t1", 502, 10, 6_000)  # the ring: call 5 takes call 1's slot
    records.add(records.call_id(3), "a.b", "a", "relay_key", 200, 10, "t1", 3_000, routed_id="r-3")
    assert records.rendered_of_team("t1", 4, render) == [(5, 502, None), (4, 200, None), (3, 200, "r-3"),
                                                          (2, 200, None)]
    other = lambda record: record["seq"]  # noqa: E731 - another rendering: none of the first is taken
    assert records.rendered_of_team("t1", 2, other) == [5, 4]
    assert records.rendered_of_team("t2", 4, render) == []
    big = CallRecords("call_y")
    for seq in range(1, RENDERINGS_KEPT + 11):
        big.put(seq, "a.b", "a", "relay_key", "t1", 200, 10, seq)
    assert len(big.rendered_of_team("t1", RENDERINGS_KEPT + 10, other)) == RENDERINGS_KEPT + 10
    assert len(big._renderings) <= RENDERINGS_KEPT


def test_the_provider_tables_are_kept_until_the_catalogue_changes() -> None:
    fake = RelayFake(seed=0)
    client = fake.client()
    table = client.get("/providers.json")
    assert table.headers["content-type"] == "application/json"
    assert "Zoo" not in {row["provider"] for row in table.json()["providers"]}
    assert client.get("/providers.json").content == table.content
    fake.add_provider(provider="zoo", host="api.zoo.example")
    rows = client.get("/providers.json").json()["providers"]
    assert {"tokens": ["ZOO"], "base_url": "https://api.zoo.example"}.items() <= next(
        row for row in rows if row["tokens"] == ["ZOO"]).items()
    oauth = client.get("/oauth/providers")
    assert oauth.json() == connections.listing(fake.model.accounts)
    assert client.get("/oauth/providers").content == oauth.content


def test_the_use_case_and_workflow_pages_follow_every_call_and_the_catalogue() -> None:
    fake = RelayFake(seed=0)
    headers = fake.auth_headers()
    client = fake.client()
    for markdown in ("", ".md"):
        before = client.get("/use-cases" + markdown).text
        assert client.get("/use-cases" + markdown).text == before
        assert fake.model._views[("facts", "use-cases", markdown == ".md")][1] == before  # kept with its counts
    _call(client, headers)
    _call(client, headers, "gone.invalid")
    assert "| `firmdata.companies.enrich` | $0.0100 per_success | 50% of 2 |" in client.get("/use-cases.md").text
    assert "50% of 2" in client.get("/use-cases").text
    workflow = client.get("/workflows.md").text
    assert "`firmdata.companies.enrich`" in workflow and "receipt: 2 calls" in workflow
    assert client.get("/workflows.md").text == workflow
    _call(client, headers)
    assert "67% of 3" in client.get("/use-cases.md").text
    assert "receipt: 3 calls" in client.get("/workflows.md").text
    # a new curated entry is a new row, with no calls yet
    fake.add_provider(provider="zoo")
    fake.add_entry(id="zoo.animals.zebrafish", method="GET", path="/v1/zebrafish", summary="zebrafish facts",
                   params={}, cost={"type": "per_call", "value": 10}, curated=True, capability="zoology")
    page = client.get("/use-cases.md").text
    assert "## zoology" in page and "| `zoo.animals.zebrafish` | $0.0000 per_call | - |" in page
