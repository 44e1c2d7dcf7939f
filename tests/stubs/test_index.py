"""The rules' index only narrows: for any set of rules and any request, the rule the index leads to is
the one judging every rule in rank order finds (and with no rule, nothing is built per request)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from examples.notes import NotesFake
from fakes.kernel.live import LiveRequest
from fakes.kernel.stubs import StubRule, StubSet

PATHS = ["/items", "/items/7", "/api/v1/r1/9", "/api/v1/r2/9", "/Admin/x", "/admin/x", "/files/a.json", "/"]
QUERIES = ["", "page=1", "page=2", "page=2&page=3", "key=k1", "page=1&key=k2"]
HEADERS = [{}, {"x-api-key": "k1"}, {"x-api-key": "k2"}]


def _random_request_criteria(rng: random.Random, crowded: bool = False) -> dict[str, Any]:
    request: dict[str, Any] = {}
    if rng.random() < 0.5:
        request["method"] = rng.choice(["GET", "POST"])
    kind = 0 if crowded and rng.random() < 0.7 else rng.randrange(7)
    if kind == 0:
        request["path"] = "/items" if crowded else rng.choice(PATHS)
    elif kind == 1:
        request["path"] = rng.choice(["/items*", "/api/*", "/*", "/files/*.json"])
    elif kind == 2:
        request["path"] = rng.choice(["/api/v1/{r}/{id}", "/items/{id}", "/files/{name}.json"])
    elif kind == 3:
        request["path"] = {"matches": rng.choice(["(?i)/admin/.*", "/api/v1/r[12]/[0-9]+", "/(items)/[0-9]"])}
    elif kind == 4:
        request["path"] = {"matches": "/(?P<word>[a-z]+)/x"}  # a named group: the index falls back
    if rng.random() < (0.9 if crowded else 0.6):
        request["query"] = {rng.choice(["page", "page", "key"]): rng.choice(["1", "2", "3", "k1", "k2"])}
    if rng.random() < 0.3:
        request["headers"] = {"X-Api-Key": rng.choice(["k1", "k2"])}
    return request


def _brute_force(stubs: StubSet, live: LiveRequest) -> StubRule | None:
    for rule in sorted((r for r in stubs.rules if r.place == "before"), key=lambda r: r.rank):
        criteria = rule.criteria
        if criteria.method is not None and criteria.method != live.sent.method:
            continue
        if criteria.path is not None and not criteria.path.matches(live.sent.path):  # (the index checks it)
            continue
        if live.matches(criteria) is not None:
            return rule
    return None


@pytest.mark.parametrize("seed", range(40))
def test_the_index_leads_to_the_rule_every_rule_in_turn_would(seed: int) -> None:
    rng = random.Random(seed)
    stubs = StubSet(max_latency_ms=0)
    crowded = seed % 2 == 1  # most rules on one path: filed by a query value
    for _ in range(rng.choice([3, 12, 40])):
        stubs.add({"request": _random_request_criteria(rng, crowded), "priority": rng.choice([1, 5, 5, 5])})

    async def check() -> None:
        for path in PATHS:
            for query in QUERIES:
                for headers in HEADERS:
                    method = rng.choice(["GET", "POST"])
                    scope = {"method": method, "query_string": query.encode(),
                             "headers": [(k.encode(), v.encode()) for k, v in headers.items()]}
                    live = LiveRequest(scope, path, _no_body, 1024)
                    found = await stubs.pick(live, "before")
                    expected = _brute_force(stubs, LiveRequest(scope, path, _no_body, 1024))
                    assert (found[0] if found else None) is expected, (method, path, query, headers)

    asyncio.run(check())


def test_the_index_files_rules_as_documented() -> None:
    stubs = StubSet(max_latency_ms=0)
    for page in range(20):
        stubs.add({"request": {"method": "GET", "path": "/items", "query": {"page": str(page)}}})
    stubs.add({"request": {"method": "GET", "path": "/items"}})
    for number in range(20):
        stubs.add({"request": {"path": f"/api/v{number}/{{id}}"}})
    group = stubs._before._by_method["GET"]
    keyed = group.literal["/items"]
    assert keyed.key == ("query", "page") and len(keyed.by_value) == 20 and len(keyed.unkeyed) == 1
    assert group.patterned.combined is not None and len(group.patterned.rules) == 20


async def _no_body() -> dict[str, Any]:
    return {"type": "http.request", "body": b"", "more_body": False}


def test_no_live_request_is_built_without_rules(notes: NotesFake, monkeypatch: pytest.MonkeyPatch) -> None:
    from fakes.kernel import app

    built: list[object] = []
    original = app.LiveRequest

    def counting(*args: Any) -> LiveRequest:
        built.append(args)
        return original(*args)

    monkeypatch.setattr(app, "LiveRequest", counting)
    client = notes.client()
    client.get("/notes")
    assert built == []
    rule = notes.stub("GET", "/x", times=1)
    client.get("/x")
    client.get("/x")  # the stub is spent: no rule is armed any more
    assert len(built) == 1 and rule.spent
    notes.add_fault(path="/y", status=500)
    client.get("/notes")
    assert len(built) == 2
