"""Fault rules take the stubs' criteria: a test fails page 2 only, one key only, one body only; a spent
fault stays listed with what it did."""

from __future__ import annotations

from typing import Any

import pytest

from examples.notes import NotesFake


def test_page_two_only(notes: NotesFake) -> None:
    notes.add_fault(method="GET", path="/notes", status=503, request={"query": {"page": "2"}})
    client = notes.client()
    assert [client.get("/notes", params={"page": page}).status_code for page in (1, 2, 3)] == [200, 503, 200]


def test_one_api_key_only(notes: NotesFake) -> None:
    notes.add_fault(path="/notes*", status=401, request={"headers": {"X-Api-Key": "revoked"}})
    client = notes.client()
    assert client.get("/notes", headers={"X-Api-Key": "revoked"}).status_code == 401
    assert client.get("/notes", headers={"X-Api-Key": "fine"}).status_code == 200
    assert client.get("/notes").status_code == 200


def test_one_body_only(notes: NotesFake) -> None:
    client = notes.client()
    client.post("/_fake/faults", json={"method": "POST", "path": "/notes", "status": 422,
                                      "request": {"json": {"tag": "final"}}, "body": {"error": "frozen"}})
    assert client.post("/notes", json={"text": "a", "tag": "final"}).json() == {"error": "frozen"}
    created = client.post("/notes", json={"text": "b", "tag": "draft"})  # read by the rule, handed on
    assert created.status_code == 201 and created.json()["tag"] == "draft"
    assert [note["text"] for note in client.get("/notes").json()["notes"]] == ["b"]


def test_a_template_path_and_form_criteria(notes: NotesFake) -> None:
    notes.add_fault(method="POST", path="/oauth/{step}", status=400, request={"form": {"grant_type": "password"}})
    client = notes.client()
    assert client.post("/oauth/token", data={"grant_type": "password"}).status_code == 400
    assert client.post("/oauth/token", data={"grant_type": "client_credentials"}).status_code == 404


def test_the_first_matching_fault_wins_and_draws_only_when_it_matches() -> None:
    def statuses(with_other_rule: bool) -> list[int]:
        fake = NotesFake(seed=3)
        if with_other_rule:
            fake.add_fault(path="/notes", status=500, probability=0.5, request={"query": {"never": "1"}})
        fake.add_fault(path="/notes", status=503, probability=0.5)
        client = fake.client()
        return [client.get("/notes").status_code for _ in range(40)]

    assert statuses(True) == statuses(False)  # a rule whose criteria fail draws nothing


def test_a_spent_fault_stays_listed_until_removed_or_reset(notes: NotesFake) -> None:
    client = notes.client()
    client.post("/_fake/faults", json={"path": "/notes", "status": 500, "times": 1, "request": {"query": {"a": "1"}}})
    assert client.get("/notes", params={"a": "1"}).status_code == 500
    assert client.get("/notes", params={"a": "1"}).status_code == 200
    [fault] = client.get("/_fake/faults").json()["faults"]
    assert fault == {"id": "f1", "method": "*", "path": "/notes", "request": {"query": {"a": "1"}}, "status": 500,
                     "headers": {}, "body": None, "latency_ms": 0.0, "times": 0, "probability": 1.0, "drop": False,
                     "fired": 1, "spent": True}
    assert notes.export_state()["faults"]["rules"][0]["spent"] is True
    restored = NotesFake(seed=7)
    restored.import_state(notes.export_state())  # a spent rule survives a restore, still spent
    assert restored.list_faults()[0]["times"] == 0
    assert restored.client().get("/notes", params={"a": "1"}).status_code == 200
    client.post("/_fake/reset")
    assert client.get("/_fake/faults").json() == {"faults": []}


@pytest.mark.parametrize(("spec", "field"), [
    ({"status": 500, "request": {"query": {"q": {"matches": "(a+)+"}}}}, "request.query.q.matches"),
    ({"status": 500, "request": {"path": "/x"}}, "request.path"),
    ({"status": 500, "request": {"method": "GET"}}, "request.method"),
    ({"status": 500, "request": {"status": 200}}, "request.status"),
    ({"status": 500, "request": "page=2"}, "request"),
    ({"status": 500, "path": "/a/{x}{y}"}, "path"),
])
def test_bad_fault_criteria_are_refused_naming_the_field(notes: NotesFake, spec: dict[str, Any], field: str) -> None:
    response = notes.client().post("/_fake/faults", json=spec)
    assert response.status_code == 400
    assert (response.json()["error"], response.json()["field"]) == ("invalid_fault", field)
    assert notes.list_faults() == []


def test_a_latency_fault_then_a_stub_answers(notes: NotesFake) -> None:
    notes.add_fault(path="/stubbed", latency_ms=1)
    notes.stub("GET", "/stubbed", response={"status": 299})
    assert notes.client().get("/stubbed").status_code == 299
    assert notes.list_faults()[0]["fired"] == 1


def test_a_fault_comes_before_a_stub(notes: NotesFake) -> None:
    notes.stub("GET", "/both", response={"status": 299})
    notes.add_fault(path="/both", status=503, times=1)
    client = notes.client()
    assert [client.get("/both").status_code for _ in range(2)] == [503, 299]
