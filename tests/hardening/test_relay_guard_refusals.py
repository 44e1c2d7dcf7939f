"""The relay's guards (the member's daily cap, the team's deny rules) refuse a local-run grant and a
server run with their own 429 or 403 in the relay's error shape (treg's ``{"detail": ...}``), never
``500 internal error ... Refusal(...)`` (issue 33, item 10). A refused request changes nothing: no
run is recorded."""

from __future__ import annotations

from typing import Any

import httpx

from fakes.relay import RelayFake
from tests.relay.accounts_support import signed_in, treg_fake

TOOL = {"name": "gh", "base_url": "https://api.github.example",
        "cli": {"bin": "gh", "enabled": True, "inject": [{"via": "env", "name": "GH_TOKEN"}]}}


def _team_with_tool(http: httpx.Client) -> tuple[dict[str, str], dict[str, Any], dict[str, str]]:
    """(owner headers, the member bo joined, bo's headers) of a team with a runnable CLI tool."""
    owner = signed_in(http, "ada@northwind.com")
    made = http.post("/orgs", json={"name": "Northwind"}, headers=owner).json()
    owner = {"X-Treg-Token": made["token"]}
    secret = http.post("/secrets", json={"name": "gh-key", "value": "ghp_secret"}, headers=owner).json()
    assert http.post("/tools", json={**TOOL, "bindings": [{"secret_id": secret["id"]}]},
                     headers=owner).status_code in (200, 201)
    invite = http.post(f"/orgs/{made['org_id']}/invites", json={"email": "bo@northwind.com", "role": "member"},
                       headers=owner).json()
    joined = http.post("/invites/accept", json={"code": invite["code"], "email": "bo@northwind.com"}).json()
    return owner, joined, {"X-Treg-Token": joined["token"]}


def _refusal(answer: httpx.Response, status: int, words: str) -> None:
    assert answer.status_code == status, answer.text
    body = answer.json()
    assert words in body["detail"], body
    assert "Refusal" not in answer.text and "internal" not in answer.text


def test_a_member_at_the_daily_cap_gets_429_on_grant_and_run() -> None:
    fake: RelayFake = treg_fake()
    with fake.client() as http:
        owner, _bo, bo = _team_with_tool(http)
        user_id = http.get("/orgs/1/members", headers=owner).json()[1]["user_id"]
        assert http.patch(f"/orgs/1/members/{user_id}/cap", json={"daily_call_cap": 1},
                          headers=owner).status_code == 200
        assert http.post("/tools/gh/grant", json={"argv": ["pr", "list"]}, headers=bo).status_code == 200
        runs = http.get("/runs", headers=owner).json()
        _refusal(http.post("/tools/gh/grant", json={"argv": ["pr", "list"]}, headers=bo), 429,
                 "daily usage limit reached")
        _refusal(http.post("/run", json={"tool": "gh", "args": ["pr", "list"]}, headers=bo), 429,
                 "daily usage limit reached")
        assert http.get("/runs", headers=owner).json() == runs  # nothing recorded for a refusal


def test_a_deny_rule_gets_403_on_grant_and_run() -> None:
    fake: RelayFake = treg_fake()
    with fake.client() as http:
        owner, _bo, bo = _team_with_tool(http)
        assert http.post("/orgs/1/deny", json={"host": "https://api.github.example"},
                         headers=owner).status_code in (200, 201)
        runs = http.get("/runs", headers=owner).json()
        _refusal(http.post("/run", json={"tool": "gh", "args": ["pr", "list"]}, headers=bo), 403,
                 "blocked by a policy rule")
        _refusal(http.post("/tools/gh/grant", json={"argv": ["pr", "list"]}, headers=bo), 403,
                 "blocked by a policy rule")
        assert http.get("/runs", headers=owner).json() == runs
