"""Answers in turn, scenarios (WireMock's), times/fired/spent: per fake and per world, reset by a reset."""

from __future__ import annotations

from examples.notes import NotesFake


def _statuses(notes: NotesFake, path: str, n: int, method: str = "GET") -> list[int]:
    client = notes.client()
    return [client.request(method, path).status_code for _ in range(n)]


def test_answers_in_turn_then_the_last_repeats(notes: NotesFake) -> None:
    rule = notes.stub("POST", "/jobs", responses=[{"status": 202}, {"status": 202}, {"status": 200}])
    assert _statuses(notes, "/jobs", 5, "POST") == [202, 202, 200, 200, 200]
    assert (rule.fired, rule.served) == (5, 5)


def test_answers_in_turn_can_start_over(notes: NotesFake) -> None:
    notes.stub("GET", "/flaky", responses=[{"status": 503}, {"status": 200}], cycle=True)
    assert _statuses(notes, "/flaky", 5) == [503, 200, 503, 200, 503]


def test_times_then_the_stub_stays_listed_spent(notes: NotesFake) -> None:
    rule = notes.stub("GET", "/notes", response={"status": 500}, times=2)
    assert _statuses(notes, "/notes", 3) == [500, 500, 200]  # then the model again
    [listed] = notes.client().get("/_fake/stubs").json()["stubs"]
    assert (listed["id"], listed["times"], listed["fired"], listed["spent"]) == (rule.id, 0, 2, True)
    assert notes.client().delete(f"/_fake/stubs/{rule.id}").json() == {"deleted": rule.id}
    assert notes.stubs() == []


def test_a_scenario_moves_from_state_to_state(notes: NotesFake) -> None:
    """WireMock's to-do list: empty, then an item is added, then the list holds it."""
    notes.stub("GET", "/todo", scenario="todo", requires_state="Started", response={"json": []})
    notes.stub("POST", "/todo", scenario="todo", requires_state="Started", new_state="added",
               response={"status": 201})
    notes.stub("GET", "/todo", scenario="todo", requires_state="added", response={"json": ["milk"]})
    client = notes.client()
    assert client.get("/todo").json() == []
    assert client.get("/_fake/stubs").json()["scenarios"] == {"todo": "Started"}
    assert client.post("/todo").status_code == 201
    assert client.get("/todo").json() == ["milk"]
    assert client.get("/_fake/stubs").json()["scenarios"] == {"todo": "added"}
    assert client.post("/todo").status_code == 404  # no stub in this state, and the model has no /todo
    assert client.put("/_fake/stubs/scenarios/todo", json={"state": "Started"}).json() == \
        {"scenario": "todo", "state": "Started"}
    assert client.get("/todo").json() == []


def test_a_scenario_state_is_validated(notes: NotesFake) -> None:
    client = notes.client()
    assert client.put("/_fake/stubs/scenarios/todo", json={"state": ""}).status_code == 400
    assert client.put("/_fake/stubs/scenarios/todo", json={"state": "x", "more": 1}).json()["field"] == "state"


def test_sequences_scenarios_and_stubs_are_per_world(notes: NotesFake) -> None:
    notes.stub("GET", "/seq", responses=[{"status": 201}, {"status": 202}])
    world = notes.world("job-1")
    world.stub("GET", "/seq", responses=[{"status": 211}, {"status": 212}])
    client = notes.client()
    assert client.get("/seq").status_code == 201
    assert client.get("/_w/job-1/seq").status_code == 211
    assert client.get("/_w/job-1/seq").status_code == 212
    assert client.get("/seq").status_code == 202
    assert client.get("/_w/job-2/seq").status_code == 404  # a world of its own: no stub
    assert [s["id"] for s in client.get("/_w/job-1/_fake/stubs").json()["stubs"]] == ["s1"]


def test_a_reset_forgets_stubs_and_scenarios(notes: NotesFake) -> None:
    notes.stub("GET", "/x", scenario="s", new_state="moved", response={"status": 201})
    client = notes.client()
    assert client.get("/x").status_code == 201
    assert client.post("/_fake/reset").status_code == 200
    assert client.get("/_fake/stubs").json() == {"stubs": [], "scenarios": {}}
    assert client.get("/x").status_code == 404
    assert notes.stub("GET", "/x").id == "s1"


def test_stubs_over_http(notes: NotesFake) -> None:
    client = notes.client()
    created = client.post("/_fake/stubs", json={"request": {"method": "GET", "path": "/a"},
                                                "response": {"status": 204}, "name": "empty"})
    assert created.status_code == 201
    stub = created.json()
    assert stub["id"] == "s1" and stub["name"] == "empty" and stub["place"] == "before" and stub["fired"] == 0
    assert client.get("/a").status_code == 204
    assert client.get("/_fake/stubs/s1").json()["fired"] == 1
    assert client.get("/_fake/stubs/s9").status_code == 404
    assert client.delete("/_fake/stubs/s9").status_code == 404
    client.post("/_fake/stubs", json={"request": {"path": "/b"}})
    assert [s["id"] for s in client.get("/_fake/stubs").json()["stubs"]] == ["s1", "s2"]
    assert client.delete("/_fake/stubs").json() == {"stubs": []}
    assert notes.stubs() == []


def test_a_stub_answer_is_sandboxed_and_framed_by_the_fake(notes: NotesFake) -> None:
    notes.stub("GET", "/page", response={"body": "<script>alert(1)</script>",
                                         "headers": {"Content-Type": "text/html", "Content-Length": "1"}})
    answer = notes.client().get("/page")
    assert answer.headers["content-security-policy"] == "sandbox; default-src 'none'"
    assert answer.headers["content-type"] == "text/html"
    assert answer.headers["content-length"] == str(len(answer.content))


def test_a_stub_latency_waits_without_a_sleep_of_the_clock(notes: NotesFake) -> None:
    import time

    notes.stub("GET", "/slow", response={"latency_ms": 30, "status": 200})
    started = time.perf_counter()
    assert notes.client().get("/slow").status_code == 200
    assert time.perf_counter() - started >= 0.03
