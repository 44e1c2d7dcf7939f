"""Verification over HTTP: POST /_fake/journal/find, GET /_fake/journal's filters, in worlds too,
documented in every fake's OpenAPI document; and the assertion's report in a pytest run."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from examples.notes import NotesFake
from fakes import registry

from .conftest import TOKEN

pytest_plugins = ["pytester"]


def test_find_counts_and_names_near_misses_over_http(notes: NotesFake) -> None:
    with notes.serve() as base_url, httpx.Client(base_url=base_url) as http:
        http.post("/notes", json={"text": "a", "tag": "t"}, headers=TOKEN)
        http.post("/notes", json={"text": "b"}, headers=TOKEN)
        found = http.post("/_fake/journal/find", json={"method": "POST", "path": "/notes", "json": {"tag": "t"}}).json()
        assert found["count"] == 1 and found["near_misses"] == [] and found["kept"] == found["total"] == 2
        assert found["entries"][0]["request"]["headers"]["authorization"] == "Bearer [redacted]"
        missed = http.post("/_fake/journal/find", json={"json": {"tag": "u"}, "details": False, "limit": 1}).json()
        assert missed["count"] == 0 and missed["entries"] == []
        assert [m["entry"]["seq"] for m in missed["near_misses"]] == [2, 1]  # as close: the newest first
        assert missed["near_misses"][0]["failed"] == [{"criterion": "json", "why": "at $.tag: missing"}]
        assert missed["near_misses"][1]["failed"] == [{"criterion": "json", "why": 'at $.tag: expected "u", got "t"'}]
        assert "request" not in missed["near_misses"][0]["entry"]
        assert http.post("/_fake/journal/find", json={"limit": 1}).json()["entries"][0]["seq"] == 2


@pytest.mark.parametrize(("body", "field"), [
    ({"colour": "red"}, "colour"),
    ({"headers": {"x": {"matches": "["}}}, "headers.x.matches"),
    ({"status": "9xx"}, "status"),
    ({"limit": -1}, "limit"),
    ({"details": "yes"}, "details"),
])
def test_find_refuses_bad_criteria_naming_the_field(notes: NotesFake, body: dict[str, object], field: str) -> None:
    answer = notes.client().post("/_fake/journal/find", json=body)
    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid_pattern" and answer.json()["field"] == field
    assert notes.client().post("/_fake/journal/find", content=b"[1]").status_code == 400


def test_the_journal_listing_filters_by_status_header_and_body(notes: NotesFake) -> None:
    client = notes.client(headers=TOKEN)
    client.post("/notes", json={"text": "needle"}, headers={"X-Trace": "on"})
    client.get("/notes/n404")
    client.get("/notes", params={"old": "1"})

    def seqs(**params: object) -> list[int]:
        answer = client.get("/_fake/journal", params=params)  # type: ignore[arg-type]
        assert answer.status_code == 200, answer.text
        return [e["seq"] for e in answer.json()["entries"]]

    assert seqs(status="4xx") == [2] and seqs(status="201") == [1]
    assert seqs(header="X-Trace: on") == [1] and seqs(header="x-trace") == [1]
    assert seqs(body_contains="needle") == [1] and seqs(path="/notes/*", status="404") == [2]
    assert seqs(status="2xx", warnings="1") == [3] and seqs(status="2xx", limit="1") == [3]
    assert "request" not in client.get("/_fake/journal", params={"status": "2xx", "details": "0"}).json()["entries"][0]
    assert client.get("/_fake/journal", params={"status": "abc"}).status_code == 400
    assert client.get("/_fake/journal", params={"header": ": x"}).json()["field"] == "header"


def test_a_world_has_its_own_journal_to_verify(notes: NotesFake) -> None:
    client = notes.client(headers=TOKEN)
    client.post("/_w/job-1/notes", json={"text": "in the world"})
    assert client.post("/_w/job-1/_fake/journal/find", json={"body_contains": "in the world"}).json()["count"] == 1
    assert client.post("/_fake/journal/find", json={}).json()["count"] == 0
    assert notes.world("job-1").count_requests("POST", "/notes") == 1


@pytest.mark.parametrize("service", registry.service_names())
def test_every_fake_documents_the_journal_operations(service: str) -> None:
    paths = registry.fake_class(service)().openapi()["paths"]
    find = paths["/_fake/journal/find"]["post"]
    access = {"403", "415", "421"}  # every control operation's Origin, body-type and Host refusals
    assert find["tags"] == ["control-plane"] and set(find["responses"]) - access == {"200", "400", "422"}
    assert {"method", "path", "headers", "query", "json", "form", "body_contains", "status"} <= \
        set(find["requestBody"]["content"]["application/json"]["schema"]["properties"])
    listed = {p["name"] for p in paths["/_fake/journal"]["get"]["parameters"]}
    assert {"limit", "method", "path", "status", "header", "body_contains", "details"} <= listed


def test_the_documented_example_fails_as_documented(pytester: pytest.Pytester) -> None:
    """docs/testing.md's example runs as written, and fails with the report the page shows."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "testing.md").read_text()
    section = page[page.index("## Verifying requests"):]
    example = re.search(r"```python\n(.*?)```", section, re.S)
    report = re.search(r"```\n(>.*?)```", section, re.S)
    assert example and report
    pytester.makepyfile(test_example=example.group(1))
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    for line in report.group(1).splitlines():
        assert line.rstrip() in out, line
    assert "fake.py" not in out and "verify.py" not in out  # the report points at the test's line only


def test_the_readme_example_passes(pytester: pytest.Pytester) -> None:
    page = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    example = re.search(r"```python\n(.*?)```", page[page.index("## Verifying requests"):], re.S)
    assert example
    pytester.makepyfile(test_readme=example.group(1))
    pytester.runpytest_inprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
