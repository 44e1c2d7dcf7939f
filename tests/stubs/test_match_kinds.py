"""Stubs match with the journal's criteria: each kind, alone, against a request that meets it and one
that does not (the model answers those)."""

from __future__ import annotations

from typing import Any

import pytest

from examples.notes import NotesFake
from fakes.kernel.errors import ControlError


def _answer(notes: NotesFake, method: str, path: str, **kwargs: Any) -> tuple[int, Any]:
    response = notes.client().request(method, path, **kwargs)
    return response.status_code, response.json() if response.content else None


STUBBED = {"status": 299, "json": {"stubbed": True}}


@pytest.mark.parametrize(("request_criteria", "meets", "misses"), [
    ({"method": "POST", "path": "/admin"}, ("POST", "/admin", {}), ("GET", "/admin", {})),
    ({"path": "/admin/users"}, ("GET", "/admin/users", {}), ("GET", "/admin/users/1", {})),
    ({"path": "/admin/*"}, ("GET", "/admin/users/1", {}), ("GET", "/administrator", {})),
    ({"path": "/admin/users/{id}"}, ("GET", "/admin/users/42", {}), ("GET", "/admin/users/42/keys", {})),
    ({"path": "/files/{name}.json"}, ("GET", "/files/a.json", {}), ("GET", "/files/a.txt", {})),
    ({"path": {"matches": "/v[12]/items"}}, ("GET", "/v2/items", {}), ("GET", "/v3/items", {})),
    ({"path": {"equals": "/odd/{x}"}}, ("GET", "/odd/{x}", {}), ("GET", "/odd/1", {})),
    ({"url": "/page?n=2"}, ("GET", "/page?n=2", {}), ("GET", "/page?n=2&x=1", {})),
    ({"url": {"matches": r"/page\?n=[0-9]+"}}, ("GET", "/page?n=17", {}), ("GET", "/page?n=x", {})),
    ({"query": {"page": "2"}}, ("GET", "/items?page=2", {}), ("GET", "/items?page=3", {})),
    ({"query": {"q": {"contains": "cat"}}}, ("GET", "/items?q=bobcats", {}), ("GET", "/items?q=dog", {})),
    ({"query": {"id": {"matches": "[0-9]{3}"}}}, ("GET", "/items?id=123", {}), ("GET", "/items?id=1234", {})),
    ({"query": {"debug": {"present": True}}}, ("GET", "/items?debug=", {}), ("GET", "/items", {})),
    ({"path": "/items", "query": {"debug": {"absent": True}}}, ("GET", "/items", {}), ("GET", "/items?debug=1", {})),
    ({"headers": {"X-Api-Key": "k1"}}, ("GET", "/items", {"headers": {"x-api-key": "k1"}}),
     ("GET", "/items", {"headers": {"x-api-key": "k2"}})),
    ({"json": {"tag": "final"}}, ("POST", "/items", {"json": {"tag": "final", "n": 1}}),
     ("POST", "/items", {"json": {"tag": "draft"}})),
    ({"json": {"items": [{"id": 2}]}}, ("POST", "/items", {"json": {"items": [{"id": 1}, {"id": 2, "x": 0}]}}),
     ("POST", "/items", {"json": {"items": [{"id": 3}]}})),
    ({"json_equals": {"tag": "final"}}, ("POST", "/items", {"json": {"tag": "final"}}),
     ("POST", "/items", {"json": {"tag": "final", "n": 1}})),
    ({"form": {"grant_type": "client_credentials"}},
     ("POST", "/token", {"data": {"grant_type": "client_credentials"}}),
     ("POST", "/token", {"data": {"grant_type": "password"}})),
    ({"body_contains": "needle"}, ("POST", "/items", {"content": b"hay needle hay"}),
     ("POST", "/items", {"content": b"hay hay"})),
])
def test_each_match_kind(notes: NotesFake, request_criteria: dict[str, Any],
                         meets: tuple[str, str, dict[str, Any]], misses: tuple[str, str, dict[str, Any]]) -> None:
    notes.add_stub({"request": request_criteria, "response": STUBBED})
    method, path, kwargs = meets
    assert _answer(notes, method, path, **kwargs) == (299, {"stubbed": True})
    method, path, kwargs = misses
    assert _answer(notes, method, path, **kwargs)[0] != 299


def test_header_names_match_in_any_case_and_method_in_any_case(notes: NotesFake) -> None:
    notes.stub("get", "/h", headers={"x-TENANT": "t1"}, response=STUBBED)
    assert _answer(notes, "GET", "/h", headers={"X-Tenant": "t1"})[0] == 299


def test_priority_then_the_newest_of_one_priority_wins(notes: NotesFake) -> None:
    notes.stub("GET", "/p/*", response={"status": 201})
    notes.stub("GET", "/p/1", response={"status": 202})
    assert _answer(notes, "GET", "/p/1")[0] == 202  # the newest
    notes.stub("GET", "/p/*", response={"status": 203}, priority=1)
    assert _answer(notes, "GET", "/p/1")[0] == 203  # a higher priority (1 is first)
    assert _answer(notes, "GET", "/p/2")[0] == 203


def test_a_literal_and_a_patterned_rule_keep_their_order(notes: NotesFake) -> None:
    notes.stub("GET", "/o/1", response={"status": 210})
    notes.stub(None, "/o/{n}", response={"status": 211})  # any method, newer
    assert _answer(notes, "GET", "/o/1")[0] == 211
    assert _answer(notes, "POST", "/o/1")[0] == 211


@pytest.mark.parametrize(("spec", "field"), [
    ({"request": {"path": {"matches": "(a+)+$"}}}, "request.path"),
    ({"request": {"query": {"q": {"matches": "(a|aa)*c"}}}}, "request.query.q.matches"),
    ({"request": {"path": "/a/{id}/{id}"}}, "request.path"),
    ({"request": {"path": "/a/{x}{y}"}}, "request.path"),
    ({"request": {"path": "/a/*/{id}"}}, "request.path"),
    ({"request": {"status": 200}}, "request.status"),
    ({"request": {"answered_by": "stub"}}, "request.answered_by"),
    ({"request": {"colour": "red"}}, "request.colour"),
    ({"request": {"headers": {"a": {"regex": "x"}}}}, "request.headers.a"),
    ({"response": {"status": 99}}, "response.status"),
    ({"response": {"json": {}, "body": "x"}}, "response.body"),
    ({"response": {"headers": {"X-A": "a\nb"}}}, "response.headers"),
    ({"response": {"colour": 1}}, "response.colour"),
    ({"response": False}, "response"),
    ({"response": None}, "response"),
    ({"responses": []}, "responses"),
    ({"response": {}, "responses": [{}]}, "responses"),
    ({"place": "after"}, "place"),
    ({"priority": 0}, "priority"),
    ({"times": 0}, "times"),
    ({"requires_state": "x"}, "scenario"),
    ({"scenario": ""}, "scenario"),
    ({"colour": "red"}, "colour"),
])
def test_bad_rules_are_refused_naming_the_field(notes: NotesFake, spec: dict[str, Any], field: str) -> None:
    response = notes.client().post("/_fake/stubs", json=spec)
    assert response.status_code == 400, response.text
    body = response.json()
    assert (body["error"], body["field"]) == ("invalid_stub", field), body
    assert notes.stubs() == []
    assert notes.client().post("/_fake/stubs", json={}).json()["id"] == "s1"  # a refused stub used no id


def test_the_python_face_refuses_as_the_http_one(notes: NotesFake) -> None:
    with pytest.raises(ControlError) as refused:
        notes.stub("GET", "/x", query={"q": {"matches": "(a+)+"}})
    assert refused.value.extra["field"] == "request.query.q.matches"
    with pytest.raises(ControlError) as refused:  # text a state could not be written back with
        notes.stub("POST", "/x", json={"k": "\ud800"})
    assert refused.value.extra["field"] == "request.json.k"
