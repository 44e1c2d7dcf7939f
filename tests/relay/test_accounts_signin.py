"""Signing in as treg does: the CLI device login with its pairing code, e-mailed codes, GitHub and
Google sign-in (simulated), identity tokens (pinned, revoked), /auth/me and /users."""

from __future__ import annotations

import base64
import json

import httpx
import pytest

from fakes.relay import RelayFake

H = {"X-Treg-Key-Protocol": "1"}


@pytest.fixture
def fake() -> RelayFake:
    return RelayFake(seed=0, header_prefix="X-Treg")


def _claims(token: str) -> dict[str, object]:
    payload = token.split(".", 1)[0]
    return dict(json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))))


def _session(fake: RelayFake, http: httpx.Client, email: str) -> None:
    code = http.post("/auth/email/start", json={"email": email}).json()["dev_code"]
    assert http.post("/auth/email/verify", json={"email": email, "code": code}).status_code == 200


def test_cli_login_is_approved_with_the_pairing_code_and_handed_over_once(fake: RelayFake) -> None:
    with fake.client() as http:
        started = http.post("/auth/cli/start").json()
        login_id, code = started["login_id"], started["code"]
        assert len(code) == 4 and http.get("/auth/cli/poll", params={"login_id": login_id}).json() == {
            "status": "pending"}
        assert http.post("/auth/cli/approve", json={"login_id": login_id, "code": code}).status_code == 401
        _session(fake, http, "ada@northwind.com")  # the browser signs in (a session cookie)
        wrong = http.post("/auth/cli/approve", json={"login_id": login_id, "code": "ZZZZ"})
        assert wrong.status_code == 400 and "doesn't match" in wrong.json()["detail"]
        cross = http.post("/auth/cli/approve", json={"login_id": login_id, "code": code},
                          headers={"origin": "https://evil.example"})
        assert cross.status_code == 403
        approved = http.post("/auth/cli/approve", json={"login_id": login_id, "code": code.lower()})
        assert approved.json() == {"ok": True, "email": "ada@northwind.com", "active_org": None}
        handed = http.get("/auth/cli/poll", params={"login_id": login_id}).json()
        assert handed["email"] == "ada@northwind.com" and _claims(handed["token"])["aud"] == "identity"
        assert http.get("/auth/cli/poll", params={"login_id": login_id}).json() == {"status": "pending"}
        me = http.get("/auth/me", headers={"X-Treg-Token": handed["token"]}).json()
        assert me["email"] == "ada@northwind.com" and "org_id" not in me


def test_eight_wrong_codes_discard_a_login_and_ten_minutes_expire_it(fake: RelayFake) -> None:
    with fake.client() as http:
        _session(fake, http, "ada@northwind.com")
        login_id = http.post("/auth/cli/start").json()["login_id"]
        answers = [http.post("/auth/cli/approve", json={"login_id": login_id, "code": "XXXX"}).json()["detail"]
                   for _ in range(8)]
        assert "too many wrong codes" in answers[-1]
        other = http.post("/auth/cli/start").json()
        fake.advance(601)
        late = http.post("/auth/cli/approve", json={"login_id": other["login_id"], "code": other["code"]})
        assert late.status_code == 400 and "expired" in late.json()["detail"]


def test_the_login_page_and_the_control_plane_approve_as_a_browser_would(fake: RelayFake) -> None:
    with fake.client() as http:
        started = http.post("/auth/cli/start").json()
        page = http.get("/login", params={"cli": started["login_id"]})
        assert page.status_code == 200 and "code matches your terminal" in page.text
        done = http.post("/login", data={"login_id": started["login_id"], "email": "bo@northwind.com",
                                         "code": started["code"]})
        assert done.status_code == 200 and "Signed in" in done.text
        polled = http.get("/auth/cli/poll", params={"login_id": started["login_id"]}).json()
        assert polled["email"] == "bo@northwind.com"
        again = http.post("/auth/cli/start").json()
        listed = http.get("/_fake/logins").json()
        assert [row["code"] for row in listed if row["login_id"] == again["login_id"]] == [again["code"]]
        assert http.post(f"/_fake/logins/{again['login_id']}/approve",
                         json={"email": "cy@northwind.com"}).status_code == 200
        assert http.get("/auth/cli/poll", params={"login_id": again["login_id"]}).json()["email"] == "cy@northwind.com"


def test_email_codes_expire_allow_five_guesses_and_are_throttled(fake: RelayFake) -> None:
    with fake.client() as http:
        first = http.post("/auth/email/start", json={"email": "Ada@Northwind.com"}).json()
        assert first["email"] == "ada@northwind.com" and len(first["dev_code"]) == 6
        assert fake.outbox()[0] == {"to": "ada@northwind.com", "kind": "sign_in_code", "code": first["dev_code"],
                                    "expires_at": "2026-01-05T09:10:00Z"}
        for _ in range(5):
            assert http.post("/auth/email/verify", json={"email": "ada@northwind.com", "code": "000000"}
                             ).status_code == 401
        assert http.post("/auth/email/verify", json={"email": "ada@northwind.com", "code": first["dev_code"]}
                         ).status_code == 401  # the code died with the fifth wrong guess
        for _ in range(4):
            http.post("/auth/email/start", json={"email": "ada@northwind.com"})
        assert http.post("/auth/email/start", json={"email": "ada@northwind.com"}).status_code == 429
        fake.advance(901)
        code = http.post("/auth/email/start", json={"email": "ada@northwind.com"}).json()["dev_code"]
        fake.advance(601)
        assert http.post("/auth/email/verify", json={"email": "ada@northwind.com", "code": code}).status_code == 401
        for address in ("x@demo.treg.local", "agent-a-b@agents.treg.local"):
            assert http.post("/auth/email/start", json={"email": address}).status_code in (400, 403)


def test_github_sign_in_redirects_back_with_the_state_and_continues_a_cli_login(fake: RelayFake) -> None:
    with fake.client(follow_redirects=False) as http:
        login_id = http.post("/auth/cli/start").json()["login_id"]
        consent = http.get("/auth/github", params={"cli": login_id, "login": "gh@northwind.com"})
        assert consent.status_code == 302 and "/auth/github/callback?code=" in consent.headers["location"]
        back = http.get(consent.headers["location"])
        assert back.status_code == 302 and back.headers["location"].endswith(f"/login?cli={login_id}")
        assert http.get("/auth/cli/orgs").json() == {"email": "gh@northwind.com", "orgs": []}
        forged = http.get("/auth/google/callback", params={"code": "x", "state": "y"})
        assert forged.status_code == 403 and "Bad state" in forged.text


def test_identity_tokens_pin_a_team_and_die_when_revoked(fake: RelayFake) -> None:
    with fake.client() as http:
        _session(fake, http, "ada@northwind.com")
        made = http.post("/orgs", json={"name": "Northwind"}).json()
        assert made["role"] == "owner" and made["org"] == "northwind"
        identity = http.get("/auth/cli-token").json()["token"]
        pinned = http.get("/auth/cli-token", headers={"X-Treg-Org": "northwind"}).json()
        assert pinned == {"token": made["token"], "email": "ada@northwind.com", "org": "northwind",
                          "default_key_state": "active"}
        as_identity = {"X-Treg-Token": identity}
        assert http.get("/orgs/1/balance", headers=as_identity).json()["detail"] == "choose an org (send X-Treg-Org)"
        balance = http.get("/orgs/1/balance", headers={**as_identity, "X-Treg-Org": "northwind"})
        assert balance.json()["balance_micro"] == 1_000_000
        called = http.get("/call/firmdata.companies.enrich", params={"domain": "northwind.com"},
                          headers={**as_identity, "X-Treg-Org": "1"})
        assert called.status_code == 200 and called.headers["X-Treg-Cost-Micro"] == "10000"
        assert http.post("/auth/revoke-tokens", headers=as_identity).json()["revoked"] is True
        assert http.get("/auth/me", headers=as_identity).status_code == 401
        assert http.get("/auth/me", headers={"X-Treg-Token": made["token"]}).status_code == 200  # member keys live


def test_users_register_once_and_a_public_token_only_calls_and_reads(fake: RelayFake) -> None:
    with fake.client() as http:
        made = http.post("/users", json={"email": "Owner@Acme.example"}).json()
        assert made["email"] == "owner@acme.example" and made["role"] == "owner"
        assert http.post("/users", json={"email": "owner@acme.example"}).status_code == 409
        owner = {"X-Treg-Token": made["token"]}
        public = http.post(f"/orgs/{made['org_id']}/public-token", headers=owner).json()
        viewer = {"X-Treg-Token": public["token"]}
        assert http.get("/call/firmdata.companies.enrich", params={"domain": "northwind.com"},
                        headers=viewer).status_code == 200
        assert http.post("/secrets", json={"name": "x", "value": "y"}, headers=viewer).status_code == 403
        assert http.get("/auth/me", headers=viewer).status_code == 200
        assert http.post("/orgs", json={"name": "Escape"}, headers=viewer).status_code == 403
        rotated = http.post(f"/orgs/{made['org_id']}/public-token", headers=owner).json()["token"]
        assert http.get("/tools", headers=viewer).status_code == 401 and rotated != public["token"]
        http.delete(f"/orgs/{made['org_id']}/public-token", headers=owner)
        assert http.get("/tools", headers={"X-Treg-Token": rotated}).status_code == 401


def test_a_worlds_cookies_stay_in_that_world() -> None:
    """The sign-in cookies are scoped to where the fake is mounted: one cookie jar (a browser, a
    shared test client) signed in to world b sends nothing of it to world a or to the default world."""
    fake = RelayFake(seed=0)
    with fake.client() as http:
        started = http.get("/_w/b/auth/github")
        assert "Path=/_w/b/" in started.headers["set-cookie"]
        assert "Path=/;" in http.get("/auth/github").headers["set-cookie"]  # the default world: its root
        http.cookies.clear()
        http.get("/_w/b/auth/github")
        http.get("/_w/a/_fake/health")
        http.get("/_w/a/health")
        http.get("/_w/b/health")
    sent_to_a = [entry["request"]["headers"] for entry in fake.world("a").journal_entries()]
    sent_to_b = [entry["request"]["headers"] for entry in fake.world("b").journal_entries()]
    assert sent_to_a and all("cookie" not in headers for headers in sent_to_a)
    assert sent_to_b[-1]["cookie"] == "[redacted]"  # world b gets its own cookie back
