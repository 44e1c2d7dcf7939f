"""Issue 33, item 9 and issue 32, item 9: what the journal shows redacted cannot be read back
through the verification API (prefix after prefix, count-only finds), and a verdict's detail does
not print it either: one redaction rule (fakes/kernel/redaction.py) for journal, verification,
verdicts, dashboard, logs and reports."""

from __future__ import annotations

import string
from typing import Any

import httpx
import pytest
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from examples.notes import NotesFake
from examples.notes.rules import OLD_PARAMETER
from fakes.filings import FilingsFake
from fakes.kernel import requestlog
from fakes.kernel.redaction import MAX_REMEMBERED_TEXT
from fakes.kernel.verdicts import flag, render_verdicts, serve_summary

TOKEN = "notes-token-9f3b2c"
SENT_HEADERS = {"Authorization": f"Bearer {TOKEN}", "Cookie": "session=ck-77aa31; theme=dark",
                "X-API-Key": "xk-5151e0", "X-Auth": "xa-dd0142", "X-Auth-Token": "xat-e0e0a7"}
SENT_QUERY = "api_key=qk-31337&token=to-upload-42&key=kk-9999&page=2"
SENT_BODY = {"text": "hello", "password": "pw-hunter22"}
SECRETS = ["9f3b2c", "ck-77aa31", "xk-5151e0", "xa-dd0142", "xat-e0e0a7", "qk-31337", "to-upload-42", "kk-9999",
           "pw-hunter22"]


@pytest.fixture
def served() -> Any:
    fake = NotesFake(seed=7, api_token=TOKEN)
    with fake.serve() as base_url, httpx.Client(base_url=base_url) as http:
        assert http.post(f"/notes?{SENT_QUERY}", json=SENT_BODY, headers=SENT_HEADERS).status_code == 201
        yield http


def count(http: httpx.Client, criteria: dict[str, Any]) -> int:
    answer = http.post("/_fake/journal/find", json={**criteria, "details": False})
    assert answer.status_code == 200, answer.text
    found: int = answer.json()["count"]
    return found


def test_the_journal_shows_every_credential_redacted(served: httpx.Client) -> None:
    entry = served.get("/_fake/journal").json()["entries"][-1]
    shown = str(entry)
    assert not [secret for secret in SECRETS if secret in shown], entry
    headers = entry["request"]["headers"]
    assert headers["x-auth"] == headers["x-auth-token"] == "[redacted]"  # X-Auth-like names
    assert entry["query"] == "api_key=[redacted]&token=[redacted]&key=[redacted]&page=2"  # token, key-like names


@pytest.mark.parametrize(("where", "name", "value"), [
    ("headers", "authorization", f"Bearer {TOKEN}"),
    ("headers", "cookie", SENT_HEADERS["Cookie"]),
    ("headers", "x-api-key", "xk-5151e0"),
    ("headers", "x-auth", "xa-dd0142"),
    ("query", "api_key", "qk-31337"),
    ("query", "token", "to-upload-42"),
    ("query", "key", "kk-9999"),
])
def test_a_redacted_value_matches_whole_or_not_at_all(served: httpx.Client, where: str, name: str,
                                                      value: str) -> None:
    assert count(served, {where: {name: value}}) == 1  # the whole value, as sent: documented
    assert count(served, {where: {name: {"equals": value}}}) == 1
    assert count(served, {where: {name: {"present": True}}}) == 1
    start = len("Bearer ") + 1 if name == "authorization" else 1  # the scheme is shown: Bearer [redacted]
    for prefix in (value[:start], value[:len(value) // 2], value[:-1]):
        assert count(served, {where: {name: {"matches": f"{prefix}.*"}}}) == 0, prefix
    for part in (value[start:], value[-4:], value[start:start + 4]):
        assert count(served, {where: {name: {"contains": part}}}) == 0, part
    assert count(served, {where: {name: value[:-1]}}) == 0


def test_a_prefix_oracle_learns_nothing(served: httpx.Client) -> None:
    """The attack of the issue: guess the token one character at a time from count-only finds.
    Every guess of every position answers the same, so nothing is learned."""
    answers = set()
    for position, candidate in [(p, c) for p in range(3) for c in string.ascii_lowercase + string.digits + "-"]:
        guess = f"Bearer {TOKEN[:position]}{candidate}"
        answers.add(count(served, {"headers": {"authorization": {"matches": f"{guess}.*"}}}))
        answers.add(count(served, {"headers": {"authorization": {"contains": guess}}}))
    assert answers == {0}
    assert count(served, {"headers": {"authorization": {"matches": r"Bearer \[redacted\]"}}}) == 1  # as shown


def test_body_contains_and_json_do_not_reach_into_redacted_values(served: httpx.Client) -> None:
    assert count(served, {"body_contains": "hello"}) == 1
    for needle in ("pw-hunter22", "hunter", '"password": "pw', "pw-"):
        assert count(served, {"body_contains": needle}) == 0, needle
    assert count(served, {"body_contains": '"password":"[redacted]"'}) == 1  # what is shown
    assert count(served, {"json": {"password": "pw-hunter22"}}) == 1  # whole-value equality
    assert count(served, {"json": {"password": "pw-hunter2"}}) == 0
    missed = served.post("/_fake/journal/find", json={"json": {"password": "pw-hunter2"}}).json()
    assert "pw-hunter22" not in str(missed["near_misses"])


def test_a_journal_keeping_secrets_matches_them_as_sent() -> None:
    fake = NotesFake(seed=7, api_token=TOKEN, journal_keep_secrets=True)
    fake.client().post(f"/notes?{SENT_QUERY}", json=SENT_BODY, headers=SENT_HEADERS)
    assert fake.count_requests(headers={"authorization": {"matches": "Bearer notes-.*"}}) == 1
    assert fake.count_requests(body_contains="hunter", query={"token": {"contains": "upload"}}) == 1


class LeakyNotes(NotesFake):
    """Notes whose rule detail names the credentials of the request it judges (what a careless
    service might write)."""

    def routes(self) -> list[BaseRoute]:
        async def leaky(request: Request) -> Response:
            flag(request, OLD_PARAMETER, f"token {request.headers.get('authorization')} with key "
                                         f"{request.query_params.get('api_key')} and cookie "
                                         f"{request.headers.get('cookie')}; api_key=inline-77 sent")
            return Response("ok")

        return [Route("/leaky", leaky, methods=["GET"]), *super().routes()]


def test_verdict_details_show_no_credential_of_the_request(capsys: pytest.CaptureFixture[str]) -> None:
    fake = LeakyNotes(seed=7)
    requestlog.enable()
    try:
        fake.client().get("/leaky", params={"api_key": "qk-31337", "page": "2"}, headers=SENT_HEADERS)
    finally:
        requestlog.disable()
    verdict, = fake.verdicts()
    texts = [str(verdict), str(fake.journal_entries()[-1]["warnings"]), render_verdicts(fake.verdicts()),
             serve_summary({"notes": fake}), str(fake.client().get("/_fake/verdicts").json()), capsys.readouterr().out]
    for text in texts:
        leaked = [secret for secret in [*SECRETS, "inline-77"] if secret in text]
        assert not leaked, text
    assert verdict["first"]["detail"] == ("token [redacted] with key [redacted] and cookie [redacted]; "
                                          "api_key=[redacted] sent")
    assert verdict["first"]["query"] == "api_key=[redacted]&page=2"


def test_filings_names_no_key_in_its_quota_verdict() -> None:
    """Issue 32, item 9: `key fr_free_4055... (free) called again` printed the key in clear."""
    fake = FilingsFake(scale="small")
    key = fake.create_key("free", quota=1)
    with fake.client(headers={"X-API-Key": key}) as client:
        assert [client.get("/companies/").status_code for _ in range(3)] == [200, 429, 429]
    verdict, = fake.verdicts()
    assert key not in str(verdict) and key[:10] not in render_verdicts([verdict])
    assert verdict["first"]["detail"].startswith("a free key called again after its allowance")
    assert key not in str(fake.journal_entries())


def test_a_repeated_offence_is_redacted_like_the_first_and_other_credentials_too() -> None:
    """The redactor remembers a repeated request's credentials and texts (a client that breaks a rule
    usually does so again): the same request reads the same, another request's own credentials are
    found afresh, and what a caller does with the list it got changes nothing kept."""
    fake = LeakyNotes(seed=7)
    with fake.client() as client:
        for _ in range(3):
            client.get("/leaky", params={"api_key": "qk-31337", "page": "2"}, headers=SENT_HEADERS)
        other = {**SENT_HEADERS, "Authorization": "Bearer other-token-5e5e5e", "X-API-Key": "xk-0a0a0a"}
        client.get("/leaky", params={"api_key": "qk-777777", "page": "2"}, headers=other)
    verdict, = fake.verdicts()
    assert verdict["count"] == 4
    assert verdict["first"]["detail"] == verdict["last"]["detail"] == (
        "token [redacted] with key [redacted] and cookie [redacted]; api_key=[redacted] sent")
    assert verdict["last"]["query"] == "api_key=[redacted]&page=2"
    shown = str(fake.journal_entries()) + str(verdict)
    assert not [secret for secret in ["other-token-5e5e5e", "xk-0a0a0a", "qk-777777", *SECRETS] if secret in shown]
    redactor = fake.verdict_log.redactor
    found = redactor.secrets([(b"authorization", b"Bearer abcdefgh")], "", "")
    assert (((b"authorization", b"Bearer abcdefgh"),), "", "") in redactor._secrets  # remembered
    assert isinstance(found, tuple)  # shared with the memo, so it cannot be changed
    assert redactor.secrets([(b"authorization", b"Bearer abcdefgh")], "", "") == ("Bearer abcdefgh", "abcdefgh")


def test_a_repeated_flagged_request_gets_the_same_shown_verdicts_only_when_all_of_it_is_equal() -> None:
    """The journal's route for a flagged request keeps the last one's redacted verdicts and warnings:
    the very same request gets them again; another credential, or a fake that shows secrets as sent,
    works them out afresh."""
    verdicts = LeakyNotes(seed=7).verdict_log
    headers = [(b"authorization", b"Bearer abc12345"), (b"accept", b"*/*")]
    flagged = [(OLD_PARAMETER, "token Bearer abc12345 sent")]
    shown, warnings = verdicts.shown(flagged, headers, "page=2", b"")
    assert shown == [(OLD_PARAMETER, "token [redacted] sent")]
    assert warnings == (f"{OLD_PARAMETER.id}: token [redacted] sent",)
    again = verdicts.shown(list(flagged), [tuple(pair) for pair in headers], "page=2", b"")
    assert again[0] is shown and again[1] is warnings  # equal, not the same objects: remembered
    assert LeakyNotes(seed=7).verdict_log.shown(flagged, headers, "page=2", b"")[0] is shown  # the service's
    other_headers = [(b"authorization", b"Bearer zzz99999"), (b"accept", b"*/*")]
    other = verdicts.shown([(OLD_PARAMETER, "token Bearer zzz99999 sent")], other_headers, "page=2", b"")
    assert other[1] == warnings and other[0] is not shown
    assert verdicts.shown(flagged, headers, "page=3", b"")[0] is not shown  # another query
    as_sent = NotesFake(seed=7, journal_keep_secrets=True).verdict_log.shown(flagged, headers, "page=2", b"")
    assert as_sent[1] == (f"{OLD_PARAMETER.id}: token Bearer abc12345 sent",)
    # what the journal records of them: counts and the redacted query
    verdicts.record_shown(shown, "GET", "/leaky", "api_key=qk-31337&page=2", 200, 1_000, 7)
    verdicts.record_shown(shown, "GET", "/leaky", "page=2", 200, 2_000, 8)
    verdict, = verdicts.to_list()
    assert verdict["count"] == 2 and verdict["first"]["query"] == "api_key=[redacted]&page=2"
    assert (verdict["first"]["seq"], verdict["last"]["seq"]) == (7, 8)
    assert verdict["last"]["detail"] == "token [redacted] sent"
    # the verdicts of a request with more header bytes than a remembered one may hold: shown, not kept
    assert verdicts.redactor is not None
    big = [*headers, (b"x-padding", b"p" * MAX_REMEMBERED_TEXT)]
    kept = len(verdicts.redactor.verdicts_shown)
    assert verdicts.shown(flagged, big, "page=2", b"")[0] == [(OLD_PARAMETER, "token [redacted] sent")]
    assert len(verdicts.redactor.verdicts_shown) == kept
