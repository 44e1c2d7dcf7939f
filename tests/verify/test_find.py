"""find_requests / count_requests / assert_requested: every criterion, and the near misses an
assertion prints when nothing matched."""

from __future__ import annotations

import pytest

from examples.notes import NotesFake
from fakes.kernel.verify import PatternError, RequestPattern, json_mismatch

from .conftest import TOKEN


@pytest.fixture
def busy(notes: NotesFake) -> NotesFake:
    client = notes.client(headers={**TOKEN, "X-Request-Id": "r-1"})
    client.post("/notes", json={"text": "first", "tag": "a", "meta": {"n": 1, "tags": ["x", "y"], "ok": True}})
    client.post("/notes", json={"text": "second", "tag": "b"})
    client.get("/notes", params={"limit": "5", "old": "1"})
    client.get("/notes/n1")
    client.get("/notes/n999")
    client.post("/notes", content="text=a&secret=s3", headers={"content-type": "application/x-www-form-urlencoded"})
    notes.client().get("/notes")  # no token: 401
    return notes


def test_method_path_and_status(busy: NotesFake) -> None:
    assert busy.count_requests("POST", "/notes") == 3
    assert busy.count_requests("post") == 3 and busy.count_requests("*", "/notes/*") == 2
    assert busy.count_requests(path="/notes/n?") == 1 and busy.count_requests(path="/notes/n*") == 2
    assert busy.count_requests(status=404) == 1 and busy.count_requests(status="4xx") == 3
    assert busy.count_requests() == 7
    assert [e["seq"] for e in busy.find_requests("GET", "/notes/*")] == [4, 5]


def test_headers_query_and_form(busy: NotesFake) -> None:
    assert busy.count_requests(headers={"x-request-id": "r-1"}) == 6
    assert busy.count_requests(headers={"Authorization": "Bearer notes-token"}) == 6  # matched as sent
    # a credential is matched whole; contains and matches read it as shown (issue 33, item 9)
    assert busy.count_requests(headers={"authorization": {"matches": "Bearer .+"}}) == 6
    assert busy.count_requests(headers={"authorization": {"matches": "Bearer [a-z-]+"}}) == 0
    assert busy.count_requests(headers={"authorization": {"absent": True}}) == 1
    assert busy.count_requests(headers={"content-type": {"contains": "json"}}) == 2
    assert busy.count_requests(headers={"x-request-id": {"present": True}}, status=201) == 2
    assert busy.count_requests(query={"old": "1", "limit": {"matches": "[0-9]+"}}) == 1
    assert busy.count_requests(query={"old": {"absent": True}}) == 6
    assert busy.count_requests(form={"text": "a", "secret": "s3"}) == 1
    assert busy.count_requests(body_contains="second") == 1


def test_json_fragments(busy: NotesFake) -> None:
    assert busy.count_requests(json={"tag": "a"}) == 1
    assert busy.count_requests(json={"meta": {"tags": ["y"]}}) == 1  # an array containing "y"
    assert busy.count_requests(json={"meta": {"n": 1, "ok": True}}) == 1
    assert busy.count_requests(json={"meta": {"ok": 1}}) == 0  # 1 is not true
    assert busy.count_requests(json={}) == 2  # any JSON object
    assert json_mismatch({"a": [{"b": 2}]}, {"a": [{"b": 1}, {"b": 2, "c": 3}]}, "$") is None
    assert json_mismatch({"a": {"b": 2}}, {"a": {"b": 3}}, "$") == "at $.a.b: expected 2, got 3"
    assert json_mismatch({"a": 1}, {}, "$") == "at $.a: missing"
    assert json_mismatch([5], [1, 2], "$") == "at $: no item contains 5"


def test_assert_requested_returns_the_matches_or_names_the_near_misses(busy: NotesFake) -> None:
    [entry] = busy.assert_requested("POST", "/notes", times=1, json={"tag": "b"})
    assert entry["seq"] == 2
    busy.assert_requested("DELETE", "/notes", times=0)
    with pytest.raises(AssertionError) as failed:
        busy.assert_requested("POST", "/notes", json={"tag": "c"}, headers={"x-request-id": "r-1"})
    report = str(failed.value)
    assert "expected at least one request matching POST /notes, headers x-request-id='r-1', json " in report
    assert "found 0 among the 7 requests the journal keeps" in report
    lines = report.splitlines()
    closest = lines.index("the closest (near misses):")
    # the three POSTs with the header come first: one criterion failed each, newest first
    assert lines[closest + 1].startswith("  #6 POST /notes -> 400 at 2026-01-05T09:00:00Z")
    assert lines[closest + 2] == "      json: the request body is not JSON"
    assert lines[closest + 3].startswith("  #2 POST /notes -> 201")
    assert lines[closest + 4] == '      json: at $.tag: expected "c", got "b"'
    assert lines[closest + 5].startswith("  #1 POST /notes -> 201")
    assert len([line for line in lines if line.startswith("  #")]) == 3


def test_too_many_matches_are_listed(busy: NotesFake) -> None:
    with pytest.raises(AssertionError, match=r"expected exactly 1 request matching POST any path; found 3") as failed:
        busy.assert_requested("POST", times=1)
    assert "  #6 POST /notes -> 400" in str(failed.value)


def test_near_misses_show_secrets_redacted(busy: NotesFake) -> None:
    with pytest.raises(AssertionError) as failed:
        busy.assert_requested(headers={"authorization": "Bearer other"}, form={"secret": "nope"})
    report = str(failed.value)
    assert "notes-token" not in report and "s3" not in report
    assert "headers.authorization: expected 'Bearer other', got 'Bearer [redacted]'" in report
    assert "form.secret: expected 'nope', got [redacted]" in report


def test_dropped_and_missing_details_are_named() -> None:
    fake = NotesFake(seed=7, journal_bytes=0)
    fake.client().post("/notes", json={"text": "a"})
    assert fake.count_requests("POST", "/notes") == 1
    with pytest.raises(AssertionError, match="details: the journal kept no headers and body for it"):
        fake.assert_requested("POST", "/notes", json={"text": "a"})
    cut = NotesFake(seed=7, journal_body_bytes=4)
    cut.client().post("/notes", json={"text": "a"})
    with pytest.raises(AssertionError, match=r"body: only the first 4 of its 12 body bytes were kept"):
        cut.assert_requested(json={"text": "a"})


@pytest.mark.parametrize(("criteria", "field"), [
    ({"headers": {"a": {"matches": "("}}}, "headers.a.matches"),
    ({"headers": {"a": 5}}, "headers.a"),
    ({"query": {"a": {"absent": False}}}, "query.a.absent"),
    ({"status": "6xx"}, "status"),
    ({"status": True}, "status"),
    ({"method": 3}, "method"),
    ({"form": ["a"]}, "form"),
])
def test_bad_criteria_name_their_field(notes: NotesFake, criteria: dict[str, object], field: str) -> None:
    with pytest.raises(PatternError) as refused:
        RequestPattern.build(**criteria)  # type: ignore[arg-type]
    assert refused.value.field == field
    with pytest.raises(PatternError):
        notes.find_requests(**criteria)
    with pytest.raises(PatternError, match="times"):
        notes.assert_requested(times=-1)
