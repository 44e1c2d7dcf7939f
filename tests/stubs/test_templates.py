"""A stub's answer may use the request and the fake's virtual clock: each template kind, typed values in
JSON bodies, bad templates refused when the stub is added, and the bounds."""

from __future__ import annotations

from typing import Any

import pytest

from examples.notes import NotesFake
from fakes.kernel.templates import MAX_RENDERED

START_MS = 1767603600000  # the manual clock's start, 2026-01-05T09:00:00Z


def _text(notes: NotesFake, template: str, method: str = "GET", path: str = "/t/a/b", **kwargs: Any) -> str:
    notes.clear_stubs()
    notes.stub(None, "/t/{first}/{second}", response={"body": template})
    return notes.client().request(method, path, **kwargs).text


@pytest.mark.parametrize(("template", "expected"), [
    ("{{request.method}}", "GET"),
    ("{{request.path}}", "/t/a/b"),
    ("{{request.url}}", "/t/a/b?page=2&tag=x.y"),
    ("{{request.path.first}}", "a"),
    ("{{request.path.2}}", "b"),
    ("{{ request.query.page }}", "2"),
    ("{{request.query.[tag]}}", "x.y"),
    ("{{request.query.missing}}", ""),
    ("{{request.headers.X-Request-Id}}", "r-17"),
    ("{{request.headers.x-request-id | upper}}", "R-17"),
    ("{{now}}", "2026-01-05T09:00:00Z"),
    ("{{now + 1h}}", "2026-01-05T10:00:00Z"),
    ("{{now - 30m | iso}}", "2026-01-05T08:30:00Z"),
    ("{{now + 1d + 2h}}", "2026-01-06T11:00:00Z"),
    ("{{now | epoch_ms}}", str(START_MS)),
    ("{{now + 1s | epoch_s}}", str(START_MS // 1000 + 1)),
    ("{{now+1500ms|epoch_ms}}", str(START_MS + 1500)),
    ("id={{request.path.first}}, at {{now | epoch_ms}}", f"id=a, at {START_MS}"),
])
def test_each_template_value(notes: NotesFake, template: str, expected: str) -> None:
    assert _text(notes, template, path="/t/a/b?page=2&tag=x.y", headers={"X-Request-Id": "r-17"}) == expected


def test_body_values_of_json_and_form_bodies(notes: NotesFake) -> None:
    payload = {"tag": "final", "items": [{"id": 7}], "n": 3}
    assert _text(notes, "{{request.body.tag}}/{{request.body.items.0.id}}", "POST", json=payload) == "final/7"
    assert _text(notes, "{{request.body.items | json}}", "POST", json=payload) == '[{"id":7}]'
    assert _text(notes, "{{request.body}}", "POST", content=b"plain text") == "plain text"
    assert _text(notes, "{{request.form.name}}", "POST", data={"name": "ada"}) == "ada"
    assert _text(notes, "[{{request.body.tag}}]", "POST", content=b"not json") == "[]"


def test_a_single_placeholder_keeps_its_type_in_a_json_body(notes: NotesFake) -> None:
    notes.stub("POST", "/orders/{id}", response={"status": 201, "json": {
        "id": "{{request.path.id}}", "expires_ms": "{{now + 1h | epoch_ms}}", "expires": "{{now + 1h}}",
        "items": "{{request.body.items}}", "count": "{{request.body.count}}", "missing": "{{request.body.nope}}",
        "label": "order {{request.path.id}}", "nested": [{"tag": "{{request.body.tag}}"}], "{{kept}}": 1}})
    answer = notes.client().post("/orders/9", json={"items": [1, 2], "count": 2, "tag": "final"})
    assert answer.status_code == 201
    assert answer.json() == {"id": "9", "expires_ms": START_MS + 3_600_000, "expires": "2026-01-05T10:00:00Z",
                             "items": [1, 2], "count": 2, "missing": None, "label": "order 9",
                             "nested": [{"tag": "final"}], "{{kept}}": 1}


def test_headers_are_templated_and_cannot_be_split(notes: NotesFake) -> None:
    notes.stub("GET", "/h", response={"headers": {"X-Echo": "{{request.query.v}}", "Location": "/h/{{now | epoch_s}}"}})
    answer = notes.client().get("/h", params={"v": "a\r\nSet-Cookie: x=1"})
    assert answer.headers["x-echo"] == "a??Set-Cookie: x=1"
    assert "set-cookie" not in answer.headers
    assert answer.headers["location"] == f"/h/{START_MS // 1000}"


def test_the_virtual_clock_is_read_per_answer(notes: NotesFake) -> None:
    notes.stub("GET", "/now", response={"json": {"now": "{{now | epoch_ms}}"}})
    client = notes.client()
    assert client.get("/now").json() == {"now": START_MS}
    notes.advance(60)
    assert client.get("/now").json() == {"now": START_MS + 60_000}


def test_templates_off_answers_texts_as_they_are(notes: NotesFake) -> None:
    notes.stub("GET", "/raw", templates=False, response={"body": "{{request.path}} {{ not a template"})
    assert notes.client().get("/raw").text == "{{request.path}} {{ not a template"


def test_a_static_answer_is_rendered_once(notes: NotesFake) -> None:
    rule = notes.stub("GET", "/static", response={"json": {"a": 1}, "headers": {"X-A": "b"}})
    assert rule.answers[0].rendered is not None
    templated = notes.stub("GET", "/varies", response={"json": {"a": "{{now}}"}})
    assert templated.answers[0].rendered is None


@pytest.mark.parametrize(("response", "field"), [
    ({"body": "{{request.nope}}"}, "response.body"),
    ({"body": "{{now | shout}}"}, "response.body"),
    ({"body": "{{now + 1y}}"}, "response.body"),
    ({"body": "{{request.query}}"}, "response.body"),
    ({"body": "{{request.query.page | epoch_ms}}"}, "response.body"),
    ({"body": "unclosed {{request.path"}, "response.body"),
    ({"body": "{{__import__('os')}}"}, "response.body"),
    ({"body": "{{now + 999999999d}}"}, "response.body"),
    ({"headers": {"X-A": "{{request.headers}}"}}, "response.headers.X-A"),
    ({"json": {"a": [{"b": "{{nope}}"}]}}, "response.json.a[0].b"),
])
def test_a_bad_template_is_a_400_naming_the_field_when_added(notes: NotesFake, response: dict[str, Any],
                                                              field: str) -> None:
    answer = notes.client().post("/_fake/stubs", json={"request": {"path": "/x"}, "response": response})
    assert answer.status_code == 400
    assert answer.json()["field"] == field
    assert "template" in answer.json()["message"]


def test_what_one_answer_renders_is_bounded(notes: NotesFake) -> None:
    notes.stub("POST", "/echo", response={"body": "{{request.body}}" * 8})
    body = "x" * 200_000
    answer = notes.client().post("/echo", content=body.encode())
    assert answer.status_code == 200 and len(answer.text) == MAX_RENDERED
