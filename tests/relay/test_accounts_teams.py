"""Teams as treg's orgs: teammates share the balance and the keys, every call is attributed to its
member, and the team's rules (roles, invites, caps, access lists, agents, deny rules, pins, tag
budgets, the spend ceiling) decide calls with treg's statuses."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from fakes.relay import RelayFake

from .accounts_support import CALL, DOMAIN, treg_fake
from .accounts_support import signed_in as _signed_in


@pytest.fixture
def fake() -> RelayFake:
    return treg_fake()


def _team(http: httpx.Client) -> tuple[dict[str, Any], dict[str, str]]:
    owner = _signed_in(http, "ada@northwind.com")
    made = http.post("/orgs", json={"name": "Northwind"}, headers=owner).json()
    return made, {"X-Treg-Token": made["token"]}


def _join(http: httpx.Client, owner: dict[str, str], org_id: int, email: str, role: str = "member"
          ) -> dict[str, Any]:
    invite = http.post(f"/orgs/{org_id}/invites", json={"email": email, "role": role}, headers=owner).json()
    joined = http.post("/invites/accept", json={"code": invite["code"], "email": email}).json()
    return {**joined, "headers": {"X-Treg-Token": joined["token"]}}


def test_teammates_share_the_balance_and_keys_and_calls_are_attributed(fake: RelayFake) -> None:
    with fake.client() as http:
        made, owner = _team(http)
        bo = _join(http, owner, made["org_id"], "bo@northwind.com")
        assert bo["role"] == "member" and bo["org"] == "northwind"
        http.get(CALL, params=DOMAIN, headers=owner)
        http.get(CALL, params=DOMAIN, headers={**bo["headers"], "X-Treg-Client": "claude-code/2.1"})
        assert http.get("/orgs/1/balance", headers=bo["headers"]).json()["balance_micro"] == 980_000
        secret = http.post("/secrets", json={"name": "firmdata", "value": "fd-key"}, headers=owner).json()
        free = http.get(CALL, params=DOMAIN, headers=bo["headers"])
        assert "X-Treg-Cost-Micro" not in free.headers  # the owner's stored key serves the teammate
        calls = http.get("/calls", headers=owner).json()
        assert [c["user_email"] for c in calls] == ["bo@northwind.com", "bo@northwind.com", "ada@northwind.com"]
        assert [c["credential_tier"] for c in calls] == ["credential", "platform", "platform"]
        assert calls[1]["client"] == "claude-code"
        one = http.get(f"/calls/{calls[1]['call_ref']}", headers=bo["headers"]).json()
        assert one["call"]["user_email"] == "bo@northwind.com" and one["charged_micro"] == 10_000
        observed = http.get("/orgs/1/agents/observed", headers=owner).json()
        assert observed == [{"member": "bo@northwind.com", "client": "claude-code", "calls_30d": 1, "used_today": 1,
                             "last_seen": "2026-01-05T09:00:00Z"}]
        assert http.get("/secrets", headers=bo["headers"]).json()[0]["id"] == secret["id"]


def test_invites_expire_are_replaced_and_accepted_once(fake: RelayFake) -> None:
    with fake.client() as http:
        _made, owner = _team(http)
        first = http.post("/orgs/1/invites", json={"email": "bo@northwind.com", "expires_days": 2}, headers=owner)
        second = http.post("/orgs/1/invites", json={"email": "bo@northwind.com"}, headers=owner).json()
        assert len(http.get("/orgs/1/invites", headers=owner).json()) == 1  # the re-invite replaced the first
        assert http.post("/invites/accept", json={"code": first.json()["code"], "email": "bo@northwind.com"}
                         ).status_code == 404
        assert http.post("/invites/accept", json={"code": second["code"], "email": "cy@northwind.com"}
                         ).status_code == 403
        bo = _signed_in(http, "bo@northwind.com")
        mine = http.get("/invites/mine", headers=bo).json()
        assert [(i["org"], i["role"]) for i in mine] == [("northwind", "member")]
        fake.advance(8 * 86_400)
        assert http.post(f"/invites/{mine[0]['id']}/accept", headers=bo).status_code == 410
        again = http.post("/orgs/1/invites", json={"email": "bo@northwind.com", "role": "viewer"}, headers=owner).json()
        joined = http.post(f"/invites/{http.get('/invites/mine', headers=bo).json()[0]['id']}/accept", headers=bo)
        assert joined.json()["role"] == "viewer"
        assert http.post("/invites/accept", json={"code": again["code"], "email": "bo@northwind.com"}
                         ).status_code == 404
        assert http.post("/orgs/1/invites", json={"email": "bo@northwind.com"}, headers=owner).status_code == 409
        viewer = {"X-Treg-Token": joined.json()["token"]}
        assert http.post("/secrets", json={"name": "a", "value": "b"}, headers=viewer).status_code == 403


def test_roles_caps_and_access_lists_decide_calls(fake: RelayFake) -> None:
    with fake.client() as http:
        made, owner = _team(http)
        bo = _join(http, owner, made["org_id"], "bo@northwind.com")
        user_id = http.get("/orgs/1/members", headers=owner).json()[1]["user_id"]
        assert http.patch(f"/orgs/1/members/{user_id}/cap", json={"daily_call_cap": 2}, headers=owner
                          ).json()["daily_call_cap"] == 2
        answers = [http.get(CALL, params=DOMAIN, headers=bo["headers"]).status_code for _ in range(3)]
        assert answers == [200, 200, 429]
        assert http.get("/usage/me", headers=bo["headers"]).json() == {"org": "northwind", "used_today": 2, "cap": 2}
        fake.advance(86_400)
        assert http.get(CALL, params=DOMAIN, headers=bo["headers"]).status_code == 200  # a new UTC day
        tool = http.post("/secrets", json={"name": "k", "value": "v"}, headers=owner).json()
        http.post("/tools", json={"name": "fd", "base_url": "https://api.firmdata.example",
                                  "bindings": [{"secret_id": tool["id"]}]}, headers=owner)
        assert http.patch(f"/orgs/1/members/{user_id}/access", json={"tool_access": []}, headers=owner
                          ).status_code == 200
        refused = http.get("/call/fd/v1/companies/enrich", params=DOMAIN, headers=bo["headers"])
        assert refused.status_code == 403 and "access to the tool" in refused.json()["detail"]
        assert http.patch(f"/orgs/1/members/{user_id}", json={"role": "admin"}, headers=bo["headers"]
                          ).status_code == 403
        assert http.patch("/orgs/1/members/1", json={"role": "member"}, headers=owner).status_code == 409
        assert http.delete(f"/orgs/1/members/{user_id}", headers=owner).json() == {"removed": user_id}
        assert http.get(CALL, params=DOMAIN, headers=bo["headers"]).status_code == 401


def test_agents_have_their_own_token_pins_and_audit(fake: RelayFake) -> None:
    with fake.client() as http:
        _made, owner = _team(http)
        agent = http.post("/orgs/1/agents", json={"name": "Deploy Bot", "daily_call_cap": 5,
                                                  "pinned_tags": {"customer": "cust_a"}}, headers=owner).json()
        assert agent["email"] == "agent-northwind-deploy-bot@agents.treg.local"
        bot = {"X-Treg-Token": agent["token"]}
        assert http.get("/orgs/1/agents", headers=owner).json()[0]["connected"] is False
        assert http.post("/agents/checkin", headers=bot).json()["connected"] is True
        assert http.get("/orgs/1/agents", headers=owner).json()[0]["connected"] is True
        assert http.post("/orgs", json={"name": "Mine"}, headers=bot).status_code == 403
        http.get(CALL, params=DOMAIN, headers=bot)
        wrong = http.get(CALL, params=DOMAIN, headers={**bot, "X-Treg-Meta": "customer=cust_b"})
        assert wrong.status_code == 403 and "pinned" in wrong.json()["detail"]
        spent = http.get("/orgs/1/usage/by-tag", headers=owner).json()
        assert spent["rows"] == [{"value": "cust_a", "charged_micro": 10_000, "charged_usd": 0.01, "calls": 1}]
        rotated = http.post("/orgs/1/agents", json={"name": "Deploy Bot"}, headers=owner).json()
        assert rotated["daily_call_cap"] == 5 and rotated["token"] != agent["token"]  # a rotate keeps the limits
        assert http.get(CALL, params=DOMAIN, headers=bot).status_code == 401
        revoked = http.delete(f"/orgs/1/agents/{rotated['user_id']}", headers=owner)
        assert revoked.json() == {"revoked": True, "email": agent["email"]}


def test_deny_rules_pins_and_projects(fake: RelayFake) -> None:
    with fake.client() as http:
        _made, owner = _team(http)
        rule = http.post("/orgs/1/deny", json={"host": "https://api.firmdata.example", "path_prefix": "/v1/companies",
                                               "note": "no company data"}, headers=owner).json()
        refused = http.get(CALL, params=DOMAIN, headers=owner)
        assert refused.status_code == 403 and "no company data" in refused.json()["detail"]
        http.delete(f"/orgs/1/deny/{rule['id']}", headers=owner)
        assert http.get(CALL, params=DOMAIN, headers=owner).status_code == 200
        pin = http.post("/orgs/1/pins", json={"capability": "people.email.find", "provider": "peoplegraph"},
                        headers=owner).json()
        assert pin["alternatives"] == ["mailscout"]
        find = {"domain": "northwind.com", "first_name": "Ada", "last_name": "Lovelace"}
        pinned = http.get("/call/mailscout.people.email.find", params=find, headers=owner)
        assert pinned.status_code == 403 and pinned.json()["use_endpoint"] == "peoplegraph.people.email.find"
        routed = http.get("/call/treg.people.email.find", params=find, headers=owner)
        assert routed.headers["X-Treg-Served-By"] == "peoplegraph.people.email.find"
        assert http.post("/orgs/1/pins", json={"capability": "people.email.find", "provider": "nobody"},
                         headers=owner).status_code == 404
        project = http.post("/orgs/1/projects", json={"name": "Growth"}, headers=owner).json()
        assert http.post("/orgs/1/projects", json={"name": "growth"}, headers=owner).status_code == 409
        assert http.delete(f"/orgs/1/projects/{project['id']}", headers=owner).json()["deleted"] == project["id"]


def test_tag_budgets_and_the_spend_ceiling_refuse_with_429(fake: RelayFake) -> None:
    with fake.client() as http:
        _made, owner = _team(http)
        tagged = {**owner, "X-Treg-Meta": "customer=cust_1"}
        http.put("/orgs/1/budgets/customer/cust_1", json={"calls_per_day": 1}, headers=owner)
        assert [http.get(CALL, params=DOMAIN, headers=tagged).status_code for _ in range(2)] == [200, 429]
        http.put("/orgs/1/budgets/customer", json={"daily_cap_micro": 15_000}, headers=owner)  # the default
        other = {**owner, "X-Treg-Meta": "customer=cust_2"}
        assert [http.get(CALL, params=DOMAIN, headers=other).status_code for _ in range(2)] == [200, 429]
        http.put("/orgs/1/budgets/customer/cust_3", json={"status": "blocked"}, headers=owner)
        assert http.get(CALL, params=DOMAIN, headers={**owner, "X-Treg-Meta": "customer=cust_3"}).status_code == 403
        bad = http.get(CALL, params=DOMAIN, headers={**owner, "X-Treg-Meta": "customer=ada@x.com"})
        assert bad.status_code == 422
        assert {b["val"] for b in http.get("/orgs/1/budgets", headers=owner).json()} == {"*", "cust_1", "cust_3"}
        http.patch("/orgs/1/settings", json={"daily_cap_micro": 35_000}, headers=owner)  # 20,000 spent today
        answers = [http.get(CALL, params=DOMAIN, headers=owner) for _ in range(2)]
        assert answers[0].status_code == 200 and answers[1].status_code == 429
        assert answers[1].json()["error"] == "platform_daily_cap_reached"
        usage = http.get("/orgs/1/usage", headers=owner).json()
        assert usage["totals"]["call"] == usage["by_user"][0]["call"] == 3
        assert usage["spend"]["spend_micro"] == 30_000


def test_leaving_and_deleting_a_team(fake: RelayFake) -> None:
    with fake.client() as http:
        made, owner = _team(http)
        bo = _join(http, owner, made["org_id"], "bo@northwind.com", "admin")
        assert http.post("/orgs/1/leave", headers=owner).status_code == 409  # the last owner
        assert http.post("/orgs/1/leave", headers=bo["headers"]).json() == {"left_org": 1}
        assert http.delete("/orgs/1", params={"confirm": "wrong"}, headers=owner).status_code == 409
        assert http.delete("/orgs/1", params={"confirm": "northwind"}, headers=owner).json() == {"deleted_org": 1}
        assert http.get(CALL, params=DOMAIN, headers=owner).status_code == 401
