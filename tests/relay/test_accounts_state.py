"""The account surface survives an export: users, memberships, invites, pending logins, checkouts,
secrets, tools, skills, projects, rules, budgets, agents, billing, referrals and asynchronous tasks
come back identical, and every scalar of them mutated is refused naming its field or served
without a 5xx (issue 23 items 3 and 11 for the account state)."""

from __future__ import annotations

import copy
from typing import Any

import httpx
import pytest

from fakes.kernel.errors import ControlError
from fakes.relay import RelayFake

DOMAIN = {"domain": "northwind.com"}


def _identity(http: httpx.Client, email: str) -> str:
    code = http.post("/auth/email/start", json={"email": email}).json()["dev_code"]
    token: str = http.post("/auth/email/verify", json={"email": email, "code": code}).json()["token"]
    http.cookies.clear()
    return token


def _rich(fake: RelayFake) -> dict[str, Any]:
    """A team with everything the account surface keeps; returns the owner's headers and ids."""
    with fake.client() as http:
        made = http.post("/orgs", json={"name": "Northwind"},
                         headers={"X-Treg-Token": _identity(http, "ada@northwind.com")}).json()
        owner = {"X-Treg-Token": made["token"]}
        invite = http.post("/orgs/1/invites", json={"email": "bo@northwind.com"}, headers=owner).json()
        http.post("/invites/accept", json={"code": invite["code"], "email": "bo@northwind.com"})
        http.post("/orgs/1/invites", json={"email": "cy@northwind.com"}, headers=owner)
        key = http.post("/secrets", json={"name": "js", "value": "js-key"}, headers=owner).json()["id"]
        http.post("/secrets", json={"name": "firmdata", "value": "fd-key"}, headers=owner)
        http.post("/tools", json={"name": "jobs", "base_url": "https://api.jobsignal.example",
                                  "bindings": [{"secret_id": key, "name": "X-Api-Key"}]}, headers=owner)
        http.post("/orgs/1/projects", json={"name": "Growth"}, headers=owner)
        http.post("/orgs/1/deny", json={"host": "https://api.firmdata.example", "path_prefix": "/v1/x"},
                  headers=owner)
        http.put("/orgs/1/budgets/customer/cust_1", json={"calls_per_day": 5}, headers=owner)
        http.post("/orgs/1/agents", json={"name": "Bot", "daily_call_cap": 5}, headers=owner)
        checkout = http.post("/billing/topup", json={"amount_usd": 10}, headers=owner).json()["session_id"]
        http.post("/billing/autotopup", json={"enabled": True, "consent": True}, headers=owner)
        http.post("/referrals/code", headers=owner)
        login = http.post("/auth/cli/start").json()["login_id"]
        http.get("/call/firmdata.companies.enrich", params=DOMAIN, headers={**owner, "X-Treg-Meta": "customer=cust_1"})
        task = http.post("/call/firmdata.reports.create", params=DOMAIN, headers=owner).json()["task_id"]
        http.get("/call/quotely.stocks.quote.get", params={"symbol": "ACME"}, headers=owner)
        http.post("/skills", json={"name": "research", "recipe": "# R", "files": {"a.md": "x"},
                                   "secrets": [{"local_name": "K", "value": "v"}]}, headers=owner)
    return {"owner": owner, "checkout": checkout, "login": login, "task": task}


def _exercise(http: httpx.Client, made: dict[str, Any]) -> list[httpx.Response]:
    owner = made["owner"]
    return [http.get("/call/firmdata.companies.enrich", params=DOMAIN, headers=owner),
            http.get("/call/https://api.jobsignal.example/v1/jobs", headers=owner),
            http.get("/call/firmdata.reports.get", params={"task_id": made["task"]}, headers=owner),
            http.get("/billing", headers=owner), http.get("/billing/history", headers=owner),
            http.get("/orgs/1", headers=owner), http.get("/orgs/1/members", headers=owner),
            http.get("/orgs/1/invites", headers=owner), http.get("/orgs/1/usage", headers=owner),
            http.get("/orgs/1/balance", headers=owner), http.get("/secrets", headers=owner),
            http.get("/tools", headers=owner), http.get("/bundles", headers=owner),
            http.get("/referrals", headers=owner), http.get("/calls", headers=owner),
            http.get("/auth/cli/poll", params={"login_id": made["login"]}),
            http.get(f"/checkout/{made['checkout']}"), http.get("/_fake/state")]


def test_the_account_state_comes_back_identical_and_answers_alike() -> None:
    fake = RelayFake(seed=0, header_prefix="X-Treg")
    made = _rich(fake)
    state = fake.export_state()
    copy_of = RelayFake(seed=0, header_prefix="X-Treg")
    copy_of.import_state(state)
    assert copy_of.export_state() == state
    with fake.client() as first, copy_of.client() as second:
        fake.advance(3600)
        copy_of.advance(3600)
        for one, other in zip(_exercise(first, made), _exercise(second, made), strict=True):
            assert (one.status_code, one.content) == (other.status_code, other.content), one.url


@pytest.mark.parametrize("part", ["accounts", "teams", "tasks"])
def test_every_scalar_of_the_account_state_mutated_is_refused_or_served(part: str) -> None:
    source = RelayFake(seed=0, header_prefix="X-Treg")
    made = _rich(source)
    state = source.export_state()
    paths: list[tuple[Any, ...]] = []

    def walk(node: Any, path: tuple[Any, ...]) -> None:
        if isinstance(node, dict):
            for key, item in node.items():
                walk(item, (*path, key))
        elif isinstance(node, list) and node:
            pair = len(node) == 2 and not isinstance(node[0], (dict, list))  # [key, record]: both
            for index, item in enumerate(node if pair else node[:1]):  # records share their shape
                walk(item, (*path, index))
        else:
            paths.append(path)

    walk(state["model"][part], (part,))
    assert paths
    fake = RelayFake(seed=0, header_prefix="X-Treg")
    with fake.client() as http:
        for path in paths:
            for wrong in (None, "x", -1, 2**62, True, []):
                mutated = copy.deepcopy(state)
                target = mutated["model"]
                for step in path[:-1]:
                    target = target[step]
                target[path[-1]] = wrong
                try:
                    fake.import_state(mutated)
                except ControlError as refused:  # a 400 naming the field, not the kernel's catch-all
                    assert refused.status == 400 and refused.extra.get("field") != "model", (path, wrong, refused)
                    continue
                fake.advance(90_000)
                for answer in _exercise(http, made):
                    assert answer.status_code < 500, (path, wrong, answer.url, answer.status_code, answer.text[:200])
