"""A browser session calls, as treg's ``require_member`` lets it (api.py:4287-4340): ``/call/`` with
only the ``treg_session`` cookie is 400 "choose an org (send X-Treg-Org)" without the org header,
403 "not a member of this org" for a team not one's own, and runs the call billed to the team the
header names (its slug or id)."""

from __future__ import annotations

import httpx

from fakes.relay import RelayFake

ENRICH = "/call/firmdata.companies.enrich"
DOMAIN = {"domain": "northwind.com"}


def _signed_in(http: httpx.Client, email: str) -> str:
    """Sign in by e-mailed code (the session cookie stays in the client's jar); the identity token."""
    code = http.post("/auth/email/start", json={"email": email}).json()["dev_code"]
    verified = http.post("/auth/email/verify", json={"email": email, "code": code})
    assert "treg_session" in http.cookies
    return str(verified.json()["token"])


def test_a_session_cookie_calls_in_the_team_its_org_header_names() -> None:
    fake = RelayFake(seed=0, header_prefix="X-Treg")
    with fake.client() as http:
        identity = _signed_in(http, "ada@northwind.com")
        mine = http.post("/orgs", json={"name": "Northwind"}, headers={"X-Treg-Token": identity}).json()
        other = fake.create_team(name="Contoso")
        assert "X-Treg-Token" not in http.headers

        unnamed = http.get(ENRICH, params=DOMAIN)
        assert unnamed.status_code == 400, unnamed.text
        assert unnamed.json()["detail"] == "choose an org (send X-Treg-Org)"
        assert unnamed.headers["X-Treg-Error"] == "1" and "X-Treg-Call-Id" in unnamed.headers

        foreign = http.get(ENRICH, params=DOMAIN, headers={"X-Treg-Org": other["team_id"].rpartition("_")[2]})
        assert foreign.status_code == 403 and foreign.json()["detail"] == "not a member of this org"

        called = http.get(ENRICH, params=DOMAIN, headers={"X-Treg-Org": mine["org"]})
        assert called.status_code == 200, called.text
        assert called.json()["domain"] == "northwind.com" and called.headers["X-Treg-Cost-Micro"] == "10000"
        by_id = http.post("/call/treg.companies.enrich", json=DOMAIN, headers={"X-Treg-Org": str(mine["org_id"])})
        assert by_id.status_code == 200 and by_id.headers["X-Treg-Cost-Micro"] == "10000"

        http.cookies.set("treg_session", "not-a-session")
        forged = http.get(ENRICH, params=DOMAIN, headers={"X-Treg-Org": mine["org"]})
        assert forged.status_code == 401 and forged.json()["detail"] == "not authenticated"

    team = fake.model.accounts.by_slug[mine["org"]]
    assert team.balance_micro == 1_000_000 - 20_000  # billed to the named team, twice
    assert fake.team_info(other["team_id"])["balance_micro"] == 1_000_000
    record = fake.model.calls.of_team(team.team_id, 1)[0]
    assert record["user_email"] == "ada@northwind.com"  # attributed to the signed-in member
