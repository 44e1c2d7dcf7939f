"""Imported states (issue 23 item 3): every field of a realistic exported state, mutated one at a
time (wrong type, null, out of range), is refused with a 400 naming it, or the fake serves correctly
afterwards, also once the clock has moved on; a restored copy answers exactly as the original."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest

from fakes.enrichment import EnrichmentFake

MUTATIONS: tuple[Any, ...] = (None, "12", -1, 10**20, True, 2.5, [], {})


def realistic_fake() -> tuple[EnrichmentFake, dict[str, str]]:
    """Accounts of three plans (one rate-limited mid-window), a purchase, a custom company and person,
    a feed with polled items, cached answers and a served slug."""
    fake = EnrichmentFake(seed=0)
    payg = fake.create_account("payg", credits=40)["api_key"]
    fake.create_account("trial")
    sub = fake.create_account("sub_49", api_key="chosen-key-1")["api_key"]
    fake.purchase(payg, 10)
    fake.add_company("acme.com", name="Acme", employee_count=12, founded_year=2001)
    fake.add_person(first_name="Ann", last_name="Lee", employer_website="acme.com", role="CTO",
                    work_email="ann@acme.com")
    keys = {"payg": payg, "sub": sub}
    with fake.client(headers={"Authorization": f"Bearer {payg}"}) as client:
        client.get("/v1/company/details", params={"website": "stripe.com"})
        client.get("/v2/employee/profile", params={"employer_website": "acme.com", "first_name": "Ann"})
        client.post("/v1/monitor/feeds", json={"targets": [{"website_url": "stripe.com",
                                                            "settings": {"frequency_days": 2}}]})
    fake.advance(5 * 86_400)
    with fake.client(headers={"Authorization": f"Bearer {sub}"}) as client:
        client.get("/v1/credits")
        client.get("/v1/credits")
    return fake, keys


def leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(value, dict) and value:
        for key, child in value.items():
            yield from leaves(child, (*path, key))
    elif isinstance(value, list) and value:
        for index, child in enumerate(value):
            yield from leaves(child, (*path, index))
    else:
        yield path


def objects(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The path of every object (dict) in the state, the state's own included."""
    if isinstance(value, dict):
        yield path
        for key, child in value.items():
            yield from objects(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from objects(child, (*path, index))


def dotted(path: tuple[Any, ...]) -> str:
    text = "model"
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else f".{step}"
    return text


def exercise(fake: EnrichmentFake, keys: dict[str, str]) -> list[int]:
    """Statuses of a round of calls of every account and feed, before and after 8 days pass."""
    statuses = []
    for _ in range(2):
        for key in [*keys.values(), *fake.model.ledger.accounts]:
            with fake.client(headers={"Authorization": f"Bearer {key}"}) as client:
                for path, params in (("/v1/credits", {}), ("/v1/company/details", {"website": "acme.com"}),
                                     ("/v2/employee/profile", {"employer_website": "acme.com", "first_name": "Ann"}),
                                     ("/v1/monitor/feeds", {})):
                    statuses.append(client.get(path, params=params).status_code)
                for feed in list(fake.model.feeds.feeds.values()):
                    statuses.append(client.get(f"/v1/monitor/feeds/{feed.id}").status_code)
                    statuses.append(client.get(f"/v1/monitor/feeds/{feed.id}/rss.xml",
                                               params={"token": feed.token}).status_code)
        fake.advance(8 * 86_400)
    return statuses


def test_every_field_mutated_is_refused_by_name_or_served_correctly() -> None:
    fake, keys = realistic_fake()
    state = fake.export_state()
    paths = list(leaves(state["model"]))
    assert len(paths) > 80  # the state is realistic: accounts, grants, windows, feeds, items, world, cache
    refused = accepted = 0
    for path in paths:
        for value in MUTATIONS:
            broken = copy.deepcopy(state)
            parent = broken["model"]
            for step in path[:-1]:
                parent = parent[step]
            if parent[path[-1]] == value and type(parent[path[-1]]) is type(value):
                continue
            parent[path[-1]] = value
            twin = EnrichmentFake(seed=0)
            with twin.client() as client:
                answer = client.put("/_fake/state", content=json.dumps(broken))
            assert answer.status_code in (200, 400), (dotted(path), value, answer.text)
            if answer.status_code == 400:
                refused += 1
                field = answer.json()["field"]
                assert dotted(path).startswith(field) or field.startswith(dotted(path[:-1])), \
                    (dotted(path), value, field)
                continue
            accepted += 1
            statuses = exercise(twin, keys)
            assert max(statuses) < 500, (dotted(path), value, statuses)
            assert twin.export_state()["model"] is not None
    assert refused > accepted > 0


def test_every_field_deleted_and_an_unknown_field_added_is_refused_or_served() -> None:
    fake, keys = realistic_fake()
    state = fake.export_state()
    cases = []
    for path in objects(state["model"]):
        node = state["model"]
        for step in path:
            node = node[step]
        cases += [(path, name, "delete") for name in node]
        cases.append((path, "zz-unknown", "add"))
    for path, name, how in cases:
        broken = copy.deepcopy(state)
        node = broken["model"]
        for step in path:
            node = node[step]
        if how == "delete":
            del node[name]
        else:
            node[name] = 1
        twin = EnrichmentFake(seed=0)
        with twin.client() as client:
            answer = client.put("/_fake/state", content=json.dumps(broken))
        assert answer.status_code in (200, 400), (dotted(path), name, how, answer.text)
        if answer.status_code == 400:
            assert answer.json()["field"].startswith(dotted(path)), (dotted(path), name, how, answer.text)
        else:
            assert max(exercise(twin, keys)) < 500, (dotted(path), name, how)


def test_the_reported_mistyped_frequency_is_refused_naming_it() -> None:
    fake, _ = realistic_fake()
    state = fake.export_state()
    state["model"]["feeds"]["feeds"][0]["targets"][0]["settings"]["frequency_days"] = "12"
    twin = EnrichmentFake(seed=0)
    with twin.client() as client:
        answer = client.put("/_fake/state", json=state)
    assert answer.status_code == 400
    assert answer.json()["field"] == "model.feeds.feeds[0].targets[0].settings.frequency_days"
    assert twin.export_state()["model"]["feeds"]["feeds"] == []  # nothing changed


@pytest.mark.parametrize("where, value, field", [
    (("accounts", 0, "api_key"), "has space", "model.accounts[0].api_key"),
    (("feeds", "feeds", 0, "owner"), "nobody-at-all", "model.feeds.feeds[0].owner"),
    (("world", "people", "ps_YWNtZS5jb218QW5ufExlZQ", "first_name"), "Bob",
     "model.world.people.ps_YWNtZS5jb218QW5ufExlZQ"),
    (("feeds", "feeds", 0, "is_suspended"), True, "model.feeds.feeds[0].suspension_reason"),
    (("cache", "nobody-at-all"), {}, "model.cache.nobody-at-all"),
])
def test_references_and_consistency_are_checked(where: tuple[Any, ...], value: Any, field: str) -> None:
    fake, _ = realistic_fake()
    state = fake.export_state()
    parent = state["model"]
    for step in where[:-1]:
        parent = parent[step]
    parent[where[-1]] = value
    with EnrichmentFake(seed=0).client() as client:
        answer = client.put("/_fake/state", json=state)
    assert (answer.status_code, answer.json()["field"]) == (400, field)


def test_a_restored_copy_answers_exactly_as_the_original_rate_limits_included() -> None:
    fake, keys = realistic_fake()
    headers = {"Authorization": f"Bearer {keys['payg']}"}
    with fake.client(headers=headers) as client:  # the free bucket: 2 a minute on pay-as-you-go
        assert client.get("/v1/credits").status_code == 200
    twin = EnrichmentFake(seed=0)
    twin.import_state(fake.export_state())
    assert twin.export_state() == fake.export_state()
    answers = []
    for each in (fake, twin):
        with each.client(headers=headers) as client:
            answers.append([(r.status_code, r.headers.get("x-ratelimit-remaining"), r.content) for r in (
                client.get("/v1/credits"), client.get("/v1/credits"),
                client.get("/v1/company/details", params={"website": "stripe.com"}))])
    assert answers[0] == answers[1]
    assert answers[0][1][0] == 429
