"""The journal keeps each request's headers and body and the answer's headers and body: bounded per
body (a long one is cut, its length kept) and per journal (the oldest entries' go first), nothing
allocated before the first request, credentials redacted unless a setting keeps them."""

from __future__ import annotations

import json

import httpx
import pytest

from examples.notes import NotesFake
from fakes import create_fake
from fakes.kernel.exchange import ENTRY_COST
from fakes.kernel.journal import Journal

from .conftest import TOKEN


def test_an_entry_keeps_what_was_sent_and_answered(notes: NotesFake) -> None:
    created = notes.client(headers=TOKEN).post("/notes?trace=1", json={"text": "hello", "tag": "x"})
    entry = notes.journal_entries()[-1]
    request, response = entry["request"], entry["response"]
    assert json.loads(request["body"]) == {"text": "hello", "tag": "x"}
    assert request["body_length"] == len(request["body"]) and request["body_truncated"] is False
    assert request["headers"]["content-type"] == "application/json"
    assert request["headers"]["authorization"] == "Bearer [redacted]"
    assert response["body"] == created.text and response["headers"]["content-type"] == "application/json"
    assert response["body_length"] == len(created.content)
    assert entry["status"] == 201 and entry["query"] == "trace=1"


def test_a_long_body_is_cut_to_the_setting_and_its_length_kept() -> None:
    fake = NotesFake(seed=7, max_body_bytes=8 * 1024 * 1024, journal_body_bytes=1024)
    five_mb = b'{"text": "' + b"x" * (5 * 1024 * 1024) + b'"}'
    fake.client().post("/notes", content=five_mb, headers={"content-type": "application/json"})
    request = fake.journal_entries()[-1]["request"]
    assert request["body_length"] == len(five_mb) and request["body_truncated"] is True
    assert request["body"] == five_mb[:1024].decode()
    assert fake.journal.kept_bytes < 4 * 1024  # the 5 MB are not kept


def test_the_journal_keeps_its_byte_budget_dropping_the_oldest_details() -> None:
    fake = NotesFake(seed=7, journal_body_bytes=2000, journal_bytes=20_000)
    client = fake.client()
    for n in range(40):
        client.post("/notes", json={"text": f"{n:04d}" + "y" * 1500})
        assert fake.journal.kept_bytes <= 20_000
    entries = fake.journal_entries()
    assert len(entries) == 40
    dropped = [e["seq"] for e in entries if e.get("details_dropped")]
    kept = [e["seq"] for e in entries if "request" in e]
    assert dropped and kept and max(dropped) < min(kept)  # the oldest lose theirs first
    assert json.loads(entries[-1]["request"]["body"])["text"].startswith("0039")
    assert "request" not in fake.journal_entries(details=False)[-1]


def test_headers_and_bodies_off_keeps_the_rest_of_the_journal() -> None:
    fake = NotesFake(seed=7, journal_bytes=0)
    fake.client().post("/notes", json={"text": "a"})
    entry = fake.journal_entries()[-1]
    assert entry["status"] == 201 and "request" not in entry and "details_dropped" not in entry
    assert fake.journal._exchange == [None]
    assert fake.journal.kept_bytes == ENTRY_COST + len("/notes")  # the entry itself counts (issue 33, item 4)


def test_a_journal_allocates_nothing_until_used_and_a_clear_frees_it(notes: NotesFake) -> None:
    journal = Journal()
    assert journal.kept_bytes == 0 and len(journal._seq) == 0 and journal._exchange == []
    world = notes.world("empty")
    assert len(world.journal._seq) == 0 and world.journal._exchange == []
    notes.client(headers=TOKEN).post("/notes", json={"text": "a"})
    assert notes.journal.kept_bytes > 0
    notes.clear_journal()
    assert notes.journal.kept_bytes == 0 and notes.journal._exchange == [] and len(notes.journal._seq) == 0


def test_head_answers_keep_no_body(notes: NotesFake) -> None:
    notes.client(headers=TOKEN).head("/notes")
    response = notes.journal_entries()[-1]["response"]
    assert response["body"] == "" and response["body_length"] == 0


def test_a_body_answered_before_it_was_read_is_kept_all_the_same(notes: NotesFake) -> None:
    """A 401 or a 404 answers before the route reads the body: what the client sent is read then
    (a WireMock user checks the body of the request that went wrong), not left out."""
    notes.client().post("/notes", json={"text": "no token"})  # 401 before the route reads the body
    notes.client().put("/no-such-route", json={"text": "lost"})  # 404: no route reads it
    refused, unrouted = (entry["request"] for entry in notes.journal_entries()[-2:])
    assert refused["body"] == '{"text":"no token"}' and refused["body_length"] == 19 and "body_unread" not in refused
    assert unrouted["body"] == '{"text":"lost"}' and "body_unread" not in unrouted
    assert notes.count_requests("PUT", "/no-such-route", json={"text": "lost"}, status=404) == 1


def test_a_body_longer_than_the_journal_keeps_is_left_unread_and_says_so() -> None:
    fake = NotesFake(seed=7, journal_body_bytes=64)
    fake.client().put("/no-such-route", content=b"x" * 65, headers={"content-type": "text/plain"})  # 404
    request = fake.journal_entries()[-1]["request"]
    assert request["body_unread"] is True and request["body"] == "" and request["body_length"] == 0


def test_binary_bodies_are_base64() -> None:
    fake = NotesFake(seed=7)
    fake.client().post("/notes", content=b"\xff\xfe\x00", headers={"content-type": "application/octet-stream"})
    request = fake.journal_entries()[-1]["request"]
    assert request["body"] is None and request["body_base64"] == "//4A"


def test_credentials_are_redacted_unless_kept() -> None:
    headers = {"Authorization": "Basic dXNlcjpwYXNz", "X-Proxy-Token": "t0", "Cookie": "s=1", "X-Api-Key": "k"}
    body = {"password": "p", "nested": {"client_secret": "s", "fine": "shown"}}
    redacted = NotesFake(seed=7)
    redacted.client(headers=headers).post("/notes?api_key=k1&page=2", json=body)
    entry = redacted.journal_entries()[-1]
    shown = entry["request"]["headers"]
    assert shown["authorization"] == "Basic [redacted]"
    assert shown["x-proxy-token"] == shown["cookie"] == shown["x-api-key"] == "[redacted]"
    assert json.loads(entry["request"]["body"]) == {"password": "[redacted]",
                                                    "nested": {"client_secret": "[redacted]", "fine": "shown"}}
    assert entry["query"] == "api_key=[redacted]&page=2"
    kept = NotesFake(seed=7, journal_keep_secrets=True)
    kept.client(headers=headers).post("/notes?api_key=k1", json=body)
    entry = kept.journal_entries()[-1]
    assert entry["request"]["headers"]["x-proxy-token"] == "t0" and json.loads(entry["request"]["body"]) == body
    assert entry["query"] == "api_key=k1"


def test_a_service_declares_its_own_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = create_fake("member-export")
    redactor = fake.journal.redactor
    assert redactor is not None
    form = "grant_type=authorization_code&code=AQX&client_id=c&client_secret=s&redirect_uri=u&token=t"
    assert redactor.text(form) == ("grant_type=authorization_code&code=[redacted]&client_id=c"
                                   "&client_secret=[redacted]&redirect_uri=u&token=[redacted]")
    assert redactor.text('{"code": "NOT_FOUND", "access_token": "a"}') == \
        '{"code": "NOT_FOUND", "access_token": "[redacted]"}'  # a JSON code is an error code
    video = create_fake("video")
    assert video.journal.redactor is not None
    assert video.journal.redactor.text('{"refreshToken": "r", "apiKey": "k"}') == \
        '{"refreshToken": "[redacted]", "apiKey": "[redacted]"}'
    monkeypatch.setenv("FAKES_JOURNAL_KEEP_SECRETS", "1")
    assert create_fake("video").journal.redactor is None


def test_the_journal_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKES_JOURNAL_BODY_BYTES", "10")
    monkeypatch.setenv("FAKES_JOURNAL_BYTES", "5000")
    fake = NotesFake(seed=7)
    assert (fake.journal.body_bytes, fake.journal.total_bytes) == (10, 5000)
    assert fake.world("w").journal.body_bytes == 10
    monkeypatch.setenv("FAKES_JOURNAL_BYTES", "lots")
    with pytest.raises(ValueError, match="FAKES_JOURNAL_BYTES"):
        NotesFake(seed=7)


def test_served_over_http_the_journal_keeps_streamed_bodies() -> None:
    fake = NotesFake(seed=7, journal_body_bytes=100)

    def chunks():  # a chunked body without a Content-Length
        yield b'{"text": "'
        yield b"z" * 300
        yield b'"}'

    with fake.serve() as base_url:
        httpx.post(f"{base_url}/notes", content=chunks(), headers={"content-type": "application/json"})
        listing = httpx.get(f"{base_url}/_fake/journal").json()
    request = listing["entries"][-1]["request"]
    assert request["body_length"] == 312 and request["body_truncated"] is True and len(request["body"]) == 100
    assert request["headers"]["transfer-encoding"] == "chunked"


def test_numbers_too_long_for_python_are_refused_or_read_not_500(notes: NotesFake) -> None:
    """Python refuses to convert digit strings past 4,300 digits: such a status filter is a 400,
    and an entry whose request declared such a Content-Length reads as an unread body."""
    from fakes.kernel.exchange import describe

    answer = notes.client().get("/_fake/journal", params={"status": "9" * 5000})
    assert answer.status_code == 400 and answer.json()["field"] == "status"
    kept = (b"content-length\0" + b"9" * 5000, b"", 0, (), b"", 0, 100)
    assert describe(kept, None)["request"]["body_unread"] is True


def test_what_repeats_byte_for_byte_is_kept_once_and_a_change_is_kept_as_sent() -> None:
    fake = NotesFake(seed=7, journal_body_bytes=64)
    client = fake.client(headers={"x-trace": "a"})
    long_text = "n" * 300
    for _ in range(3):
        client.post("/notes", json={"text": long_text})
    client.post("/notes", json={"text": "m" * 300}, headers={"x-trace": "b"})
    records = list(fake.journal.records())[-4:]
    kept = [record.exchange for record in records]
    assert all(isinstance(one, tuple) for one in kept)
    request_headers = [one[0] for one in kept]  # type: ignore[index]
    request_bodies = [one[1] for one in kept]  # type: ignore[index]
    assert request_headers[0] is request_headers[1] is request_headers[2]  # one object for the same headers
    assert request_bodies[0] is request_bodies[1] is request_bodies[2] and len(request_bodies[0]) == 64
    assert b"x-trace\0b" in request_headers[3] and request_bodies[3] == b'{"text":"' + b"m" * 55
    entries = fake.journal_entries()[-4:]
    assert [e["request"]["headers"]["x-trace"] for e in entries] == ["a", "a", "a", "b"]
    assert all(e["request"]["body_truncated"] and e["request"]["body_length"] == 311 for e in entries)
    assert entries[0]["request"]["body"] == '{"text":"' + "n" * 55


def test_a_kept_answer_sent_again_is_cut_once_for_every_journal() -> None:
    """A cached page sent again (the same bytes object) finds its cut by identity, in any journal:
    the cut is the very object made the first time, and another body is still cut by its own bytes."""
    from fakes.kernel import exchange

    page = bytes(range(256)) * 200  # 51,200 bytes, as a cached filings page
    first, second = exchange.Settled(16 * 1024), exchange.Settled(16 * 1024)
    cut = first._cut(page, b"")
    assert cut == page[:16 * 1024]
    assert second._cut(page, b"") is cut and first._cut(page, cut) is cut  # no new cut, no comparison
    other = bytes(reversed(page))
    assert second._cut(other, cut) == other[:16 * 1024]
    assert exchange.Settled(1024)._cut(other, b"") == other[:1024]  # another limit: its own cut
    huge = b"x" * (exchange.MAX_REMEMBERED_BODY + 1)
    assert first._cut(huge, b"") == huge[:16 * 1024]
    assert exchange._LAST_CUT[0] is not huge  # a body past the bound is not held by the process
