"""Issue 33, item 8: the dashboard's cookie is a session of the fake, not ``sha256(constant + token)``.

It was static (the same for every sign-in and every fake with that token), never expired, and,
since cookies ignore ports, every server on the host received it and could drive the fake with it.
Now a sign-in opens a random session the fake keeps with an expiry (a bounded number of them); the
cookie is named per fake, scoped to the fake's base path, and a cookie from another fake on the
same host, or an expired or evicted one, opens nothing."""

from __future__ import annotations

import hashlib

import httpx

from fakes.kernel.dashboard.auth import MAX_SESSIONS, SESSION_SECONDS, DashboardSessions
from fakes.member_export import MemberExportFake

TOKEN = "ci-secret-token"
UI = {"X-Fakes-UI": "1"}


def _sign_in(client: httpx.Client, path: str = "/_fake/ui") -> tuple[str, dict[str, str]]:
    """(the Set-Cookie header, the cookie to send back) of a sign-in with the token in the URL."""
    answer = client.get(path, params={"token": TOKEN})
    client.cookies.clear()  # each test sends the cookie it means to
    assert answer.status_code == 303, answer.text
    header = answer.headers["set-cookie"]
    return header, {"cookie": header.split(";", 1)[0]}


def _attributes(header: str) -> dict[str, str]:
    parts = [p.strip() for p in header.split(";")][1:]
    return {k.lower(): v for k, _, v in (p.partition("=") for p in parts)}


def test_each_sign_in_is_a_random_session_that_expires() -> None:
    fake = MemberExportFake(control_token=TOKEN)
    client = fake.client()
    first, cookie = _sign_in(client)
    second, _ = _sign_in(client)
    value = cookie["cookie"].split("=", 1)[1]
    assert value != second.split(";", 1)[0].split("=", 1)[1]  # not a function of the token
    assert value != hashlib.sha256(b"contract-fakes dashboard\0" + TOKEN.encode()).hexdigest()
    assert len(value) >= 40
    attributes = _attributes(first)
    assert attributes["max-age"] == str(SESSION_SECONDS) and attributes["path"] == "/"
    assert "httponly" in attributes and attributes["samesite"] == "Strict"
    assert client.get("/_fake/journal", headers=cookie).status_code == 200


def test_an_expired_or_evicted_session_opens_nothing() -> None:
    now = [1_000_000.0]
    fake = MemberExportFake(control_token=TOKEN)
    fake.dashboard_sessions = DashboardSessions(seconds=60, wall=lambda: now[0])
    client = fake.client()
    _, cookie = _sign_in(client)
    assert client.get("/_fake/journal", headers=cookie).status_code == 200
    now[0] += 61
    assert client.get("/_fake/journal", headers=cookie).status_code == 401
    assert client.get("/_fake/ui", headers=cookie).status_code == 401  # the login form again
    _, oldest = _sign_in(client)
    later = [_sign_in(client)[1] for _ in range(MAX_SESSIONS)]
    assert len(fake.dashboard_sessions) == MAX_SESSIONS
    assert client.get("/_fake/journal", headers=oldest).status_code == 401  # the oldest went first
    assert all(client.get("/_fake/journal", headers=c).status_code == 200 for c in later[-3:])


def test_a_cookie_of_another_fake_on_the_same_host_opens_nothing() -> None:
    """Two fakes on one host with one token (fakes serve gives all its fakes the same token):
    cookies ignore ports, so each receives the other's cookie; it is not a session of its own."""
    relay_side = MemberExportFake(control_token=TOKEN)
    this = MemberExportFake(control_token=TOKEN)
    header, foreign = _sign_in(relay_side.client())
    _, own = _sign_in(this.client())
    assert header.split("=", 1)[0] != own["cookie"].split("=", 1)[0]  # a name of each fake's own
    client = this.client()
    assert client.get("/_fake/journal", headers=foreign).status_code == 401
    assert client.post("/_fake/reset", headers={**foreign, **UI}).status_code == 401
    both = {"cookie": f"{foreign['cookie']}; {own['cookie']}"}
    assert client.get("/_fake/journal", headers=both).status_code == 200


def test_the_cookie_is_scoped_to_the_fake_and_covers_its_worlds() -> None:
    fake = MemberExportFake(control_token=TOKEN, prefix="/mx")
    client = fake.client(base_url="http://testserver")
    header, cookie = _sign_in(client, "/mx/_w/job-1/_fake/ui")  # signed in from a world's dashboard
    assert _attributes(header)["path"] == "/mx/"
    assert client.get("/mx/_w/job-1/_fake/ui/panels", headers=cookie).status_code == 200
    assert client.get("/mx/_fake/journal", headers=cookie).status_code == 200  # the fake's own too
    header, _ = _sign_in(client, "/mx/_fake/ui")
    assert _attributes(header)["path"] == "/mx/"
