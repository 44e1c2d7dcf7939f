"""Issue 33, item 12 (part): a fault with ``"headers": {"Content-Type": "text/csv"}`` sent two
content types (the fake's default was added by a case-sensitive ``setdefault``)."""

from __future__ import annotations

import httpx
import pytest

from examples.notes import NotesFake


@pytest.mark.parametrize("name", ["Content-Type", "content-type", "CONTENT-TYPE"])
@pytest.mark.parametrize("body", ["a,b\n1,2\n", {"rows": 1}, None])
def test_a_faults_content_type_is_the_only_one(name: str, body: object) -> None:
    fake = NotesFake()
    fake.add_fault(path="/notes", status=503, headers={name: "text/csv", "X-Extra": "1"}, body=body)
    with fake.serve() as base_url:
        answer = httpx.get(base_url + "/notes")
    assert answer.status_code == 503
    assert answer.headers.get_list("content-type") == ["text/csv"], answer.headers.raw
    assert answer.headers["x-extra"] == "1"


def test_without_one_the_fake_names_the_body_s_type() -> None:
    fake = NotesFake()
    fake.add_fault(path="/notes", status=500, body="down")
    fake.add_fault(path="/notes/*", status=500)
    client = fake.client()
    assert client.get("/notes").headers.get_list("content-type") == ["text/plain; charset=utf-8"]
    assert client.get("/notes/n1").headers.get_list("content-type") == ["application/json"]
