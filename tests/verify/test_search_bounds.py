"""Issue 33, item 1: one search of the journal cannot stop every tenant. Its criteria are bounded
(count, fragment size, text), its work is counted against a budget of steps (a 422 in the control
plane's shape once spent), array fragments are matched through an index (not item against item),
and over HTTP it runs off the event loop: /_fake/health answers meanwhile."""

from __future__ import annotations

import json
import statistics
import threading
import time
from typing import Any

import httpx
import pytest

from examples.notes import NotesFake
from fakes.kernel.budget import STEP_CALL
from fakes.kernel.criteria import MAX_CRITERION_TEXT, MAX_FRAGMENT_VALUES, MAX_MATCHERS
from fakes.kernel.verify import FIND_BUDGET, Budget, BudgetSpent, RequestPattern, find_budget, search

from .conftest import TOKEN

JSON = {**TOKEN, "content-type": "application/json"}
#: a regex with two unbounded repeats runs in n * n on a value of n characters (1,024 at most)
SLOW_REGEX = ".*a.*b"


def health_while(base_url: str, busy: threading.Event, latencies: list[float]) -> None:
    """Ask for health every few milliseconds until ``busy`` clears; the latencies of those asked
    while it was set."""
    with httpx.Client(base_url=base_url, timeout=60) as http:
        while busy.is_set():
            started = time.perf_counter()
            assert http.get("/_fake/health").status_code == 200
            latencies.append(time.perf_counter() - started)
            time.sleep(0.002)


def test_health_answers_within_100_ms_during_the_costliest_find() -> None:
    fake = NotesFake(seed=7, api_token="notes-token")
    long_values = {f"k{index}": "a" * 1024 for index in range(20)}
    costliest = {"query": {name: {"matches": SLOW_REGEX} for name in long_values}}
    with fake.serve() as base_url, httpx.Client(base_url=base_url, headers=TOKEN, timeout=60) as http:
        for _ in range(100):
            http.get("/notes", params=long_values)
        busy, latencies = threading.Event(), []
        busy.set()
        watcher = threading.Thread(target=health_while, args=(base_url, busy, latencies))
        watcher.start()
        answers, durations = [], []
        try:
            # at least three finds, and as many more as it takes for 20 health checks during them (a
            # stall of the machine in a short window would otherwise leave two or three checks)
            for _ in range(30):
                started = time.perf_counter()
                answers.append(http.post("/_fake/journal/find", json=costliest))
                durations.append(time.perf_counter() - started)
                if len(answers) >= 3 and len(latencies) >= 20:
                    break
        finally:
            busy.clear()
            watcher.join()
    for answer in answers:
        assert answer.status_code == 422, answer.text[:300]
        body = answer.json()
        assert body["error"] == "search_too_costly" and body["budget_steps"] == FIND_BUDGET
        assert "narrow it with method, path or status" in body["message"]
    assert max(durations) < 10, durations  # was 20 s and more: every regex on every value
    assert len(latencies) >= 20, latencies
    latencies.sort()
    # the 90th percentile: one scheduler hiccup of a shared CI machine is not the fake's doing
    assert latencies[int(len(latencies) * 0.9)] < 0.1, (statistics.median(latencies), latencies[-5:])


def test_criteria_are_bounded_with_a_400_naming_the_field(notes: NotesFake) -> None:
    client = notes.client()

    def refused(body: dict[str, Any]) -> str:
        answer = client.post("/_fake/journal/find", json=body)
        assert answer.status_code == 400 and answer.json()["error"] == "invalid_pattern", answer.text[:300]
        field: str = answer.json()["field"]
        return field

    assert refused({"query": {f"k{index}": "v" for index in range(5000)}}) == "query"  # 69 KB of criteria
    assert refused({"query": {f"q{index}": "v" for index in range(60)},
                    "headers": {f"h{index}": "v" for index in range(MAX_MATCHERS - 59)}}) in ("query", "headers")
    assert refused({"json": {"items": list(range(MAX_FRAGMENT_VALUES))}}) == "json"
    assert refused({"json": {"text": "x" * (MAX_CRITERION_TEXT + 1)}}) == "json"
    assert refused({"body_contains": "x" * (MAX_CRITERION_TEXT + 1)}) == "body_contains"
    assert refused({"headers": {"x": {"contains": "x" * (MAX_CRITERION_TEXT + 1)}}}) == "headers.x.contains"
    assert client.post("/_fake/journal/find", json={"query": {f"k{i}": "v" for i in range(MAX_MATCHERS)}}).status_code \
        == 200


def test_array_fragments_are_matched_through_an_index_not_item_against_item(notes: NotesFake) -> None:
    """2,000 fragment items against one 8,000-item body took 15 s (each item against each item);
    through the index the steps grow with the sizes, not their product."""
    client = notes.client(headers=JSON)
    notes.journal.body_bytes = 1 << 20
    items = [{"sku": f"s{index}", "qty": index % 7, "tags": [index % 3]} for index in range(8000)]
    client.post("/notes", content=json.dumps({"text": "order", "items": items, "ids": list(range(8000))}))
    wanted = {"items": [{"sku": f"s{index}", "qty": index % 7} for index in range(0, 8000, 4)],
              "ids": list(range(0, 8000, 4))}
    budget = Budget()
    assert search(notes.journal, RequestPattern.build(json=wanted), budget=budget).count == 1
    quadratic = 2000 * 8000 * STEP_CALL
    assert budget.spent < quadratic / 100, budget.spent
    missing = {"items": [{"sku": f"s{index}", "qty": -1} for index in range(2000)]}
    budget = Budget()
    assert search(notes.journal, RequestPattern.build(json=missing), near_misses=0, budget=budget).count == 0
    assert budget.spent < quadratic / 100, budget.spent
    assert notes.count_requests(json={"items": [{"tags": [2], "sku": "s5"}]}) == 1  # nested arrays too
    assert notes.count_requests(json={"items": [{"tags": [1], "sku": "s5"}]}) == 0
    assert notes.count_requests(json={"ids": [1, 7999, 4000.0]}) == 1  # 4000.0 is 4000
    assert notes.count_requests(json={"ids": [True]}) == 0  # true is not 1


def test_a_careless_bulk_assertion_is_answered_within_the_budget(notes: NotesFake) -> None:
    """500 fragment items against 100 entries of 12 KB took 13 s."""
    body = json.dumps({"text": "x", "items": [{"id": index, "n": f"n{index}"} for index in range(560)]})
    with notes.serve() as base_url, httpx.Client(base_url=base_url, headers=JSON, timeout=60) as http:
        for _ in range(100):
            http.post("/notes", content=body)
        started = time.perf_counter()
        answer = http.post("/_fake/journal/find",
                           json={"json": {"items": [{"id": 10**6 + index} for index in range(500)]}})
        took = time.perf_counter() - started
    assert answer.status_code == 200, answer.text[:300]
    found = answer.json()
    assert found["count"] == 0 and found["near_misses"], found["near_misses"][:1]
    assert found["near_misses"][0]["failed"][0]["why"] == "at $.items: no item contains {\"id\":1000000}"
    assert took < 10, took


def test_the_budget_is_deterministic_and_the_python_face_has_none(notes: NotesFake) -> None:
    client = notes.client(headers=TOKEN)
    long_values = {f"k{index}": "a" * 1024 for index in range(20)}
    for _ in range(100):
        client.get("/notes", params=long_values)
    pattern = RequestPattern.build(query={name: {"matches": SLOW_REGEX} for name in long_values})
    spent = []
    for _ in range(2):
        budget = find_budget(notes.journal)
        with pytest.raises(BudgetSpent):
            search(notes.journal, pattern, budget=budget)
        spent.append(budget.spent)
    assert spent[0] == spent[1] > FIND_BUDGET  # the same steps, whatever the machine's speed
    assert notes.count_requests(query={"k0": {"matches": "a+"}}) == 100  # in process: the test's own time


def test_near_misses_come_from_the_newest_entries_the_budget_allows(notes: NotesFake) -> None:
    """Judging every entry on every criterion is the costly part: it gets half of what is left,
    newest first, so a wide pattern still gets an answer with the closest of the newest entries."""
    client = notes.client(headers=TOKEN)
    for index in range(1000):
        client.get("/notes", params={"q": str(index)})
    criteria = {"query": {f"k{index}": "v" for index in range(MAX_MATCHERS)}}
    answer = client.post("/_fake/journal/find", json=criteria)
    assert answer.status_code == 200, answer.text[:300]
    misses = answer.json()["near_misses"]
    assert [miss["entry"]["seq"] for miss in misses] == [1000, 999, 998]
    assert len(misses[0]["failed"]) == MAX_MATCHERS
