"""A team's own keys as treg keeps them: secrets and tools make the ladder's first two rungs, a
tool can be called by name or by URL (409 when two tie), skills register at once, provider
connections come from a (simulated) consent or a pasted key, local runs are granted and audited."""

from __future__ import annotations

import json

import httpx
import pytest

from fakes.relay import RelayFake, UpstreamRequest, UpstreamResponse

CALL = "/call/firmdata.companies.enrich"
DOMAIN = {"domain": "northwind.com"}


@pytest.fixture
def fake() -> RelayFake:
    return RelayFake(seed=0, header_prefix="X-Treg")


@pytest.fixture
def owner(fake: RelayFake) -> dict[str, str]:
    return {"X-Treg-Token": fake.create_team()["token"]}


def _secret(http: httpx.Client, owner: dict[str, str], name: str, value: str) -> int:
    answer = http.post("/secrets", json={"name": name, "value": value}, headers=owner)
    assert answer.status_code == 200, answer.text
    return int(answer.json()["id"])


def test_a_tool_on_a_providers_host_is_rung_one_and_a_named_secret_rung_two(fake: RelayFake,
                                                                           owner: dict[str, str]) -> None:
    seen: list[UpstreamRequest] = []

    def upstream(request: UpstreamRequest) -> UpstreamResponse:
        seen.append(request)
        return UpstreamResponse(200, [("content-type", "application/json")], b'{"name": "Northwind"}')

    fake.register_upstream("firmdata", upstream)
    with fake.client() as http:
        assert http.get(CALL, params=DOMAIN, headers=owner).headers["X-Treg-Cost-Micro"] == "10000"
        stored = _secret(http, owner, "firmdata", "stored-key")  # named after the provider: rung 2
        answer = http.get(CALL, params=DOMAIN, headers=owner)
        assert "X-Treg-Cost-Micro" not in answer.headers and dict(seen[-1].headers)["authorization"] == \
            "Bearer stored-key"
        key = _secret(http, owner, "fd-own", "own-key")
        tool = http.post("/tools", json={"name": "firmdata-own", "base_url": "https://api.firmdata.example",
                                         "bindings": [{"secret_id": key, "name": "X-Api-Key", "format": "{secret}"}]},
                         headers=owner).json()
        http.get(CALL, params=DOMAIN, headers=owner)
        assert dict(seen[-1].headers)["x-api-key"] == "own-key" and seen[-1].credential == "own_tool"
        assert http.delete(f"/secrets/{key}", headers=owner).status_code == 409  # a tool binds it
        assert http.delete(f"/tools/{tool['id']}", headers=owner).json() == {"deleted": tool["id"]}
        assert http.delete(f"/secrets/{stored}", headers=owner).json() == {"deleted": stored}
        assert http.get(CALL, params=DOMAIN, headers=owner).headers["X-Treg-Cost-Micro"] == "10000"


def test_named_calls_url_calls_and_the_409_of_two_equal_tools(fake: RelayFake, owner: dict[str, str]) -> None:
    seen: list[UpstreamRequest] = []

    def upstream(request: UpstreamRequest) -> UpstreamResponse:
        seen.append(request)
        return UpstreamResponse(200, [("content-type", "application/json")], b'{"ok": true}')

    fake.register_upstream("jobsignal", upstream)
    with fake.client() as http:
        key = _secret(http, owner, "js", "js-key")
        for name in ("jobs-a", "jobs-b"):
            http.post("/tools", json={"name": name, "base_url": "https://api.jobsignal.example/v1",
                                      "bindings": [{"secret_id": key}]}, headers=owner)
        named = http.request("PATCH", "/call/jobs-a/alerts/7", params={"x": "1"}, content=b'{"on": true}',
                             headers=owner)
        assert named.status_code == 200 and (seen[-1].method, seen[-1].path, seen[-1].body) == (
            "PATCH", "/v1/alerts/7", b'{"on": true}')
        tied = http.delete("/call/https://api.jobsignal.example/v1/alerts/7", headers=owner)
        assert tied.status_code == 409 and tied.json()["tools"] == ["jobs-a", "jobs-b"]
        http.post("/tools", json={"name": "jobs-deep", "base_url": "https://api.jobsignal.example/v1/alerts",
                                  "bindings": [{"secret_id": key}]}, headers=owner)
        longest = http.put("/call/https://api.jobsignal.example/v1/alerts/7", content=b"x", headers=owner)
        assert longest.status_code == 200 and seen[-1].method == "PUT"  # the longest base URL wins


def test_skills_register_their_secrets_and_tools_at_once(fake: RelayFake, owner: dict[str, str]) -> None:
    skill = {"name": "crm", "recipe": "# CRM\n", "files": {"notes.md": "hi", "../escape": "x", ".secrets/k": "no"},
             "secrets": [{"local_name": "CRM_KEY", "value": "crm-secret"}],
             "tools": [{"name": "crm", "base_url": "https://api.crm.example",
                        "bindings": [{"secret": "CRM_KEY", "format": "Bearer {secret}"}]}]}
    with fake.client() as http:
        made = http.post("/skills", json=skill, headers=owner).json()
        assert made["files"] == {"notes.md": "hi"} and made["tools"][0]["bindings"][0]["secret_id"] == \
            made["secrets"][0]["id"]
        assert http.post("/skills", json=skill, headers=owner).status_code == 409  # the tool name is taken
        assert http.get("/bundles/by-name/crm", headers=owner).json()["id"] == made["id"]
        echoed = http.get("/call/crm/contacts", params={"q": "ada"}, headers=owner).json()
        assert echoed == {"args": {"q": "ada"}, "method": "GET", "path": "/contacts", "tool": "crm",
                          "authenticated": True}  # a host no provider owns: the echo upstream
        folder = [{"path": "notes/SKILL.md", "content": "# Notes"},
                  {"path": "api/SKILL.md", "content": "# API"},
                  {"path": "api/treg.json", "content": '{"base_url": "https://api.notes.example", "secrets": '
                                                       '[{"name": "NOTES_KEY", "env": "NOTES_KEY"}], '
                                                       '"bindings": [{"secret": "NOTES_KEY"}]}'}]
        analyzed = http.post("/skills/analyze", json={"files": folder}, headers=owner).json()["skills"]
        assert {(s["name"], s["kind"], s["ready"]) for s in analyzed} == {("api", "contract", False),
                                                                          ("notes", "recipe_only", True)}
        imported = http.post("/skills/import", json={"files": folder, "env_values": {"NOTES_KEY": "n"}},
                             headers=owner).json()
        assert sorted(r["name"] for r in imported["results"] if r["ok"]) == ["api", "notes"]
        assert http.delete(f"/bundles/{made['id']}", headers=owner).json() == {"deleted": made["id"]}
        assert http.get("/tools/by-name/crm", headers=owner).status_code == 404


def test_a_consented_connection_provisions_the_providers_tool(fake: RelayFake, owner: dict[str, str]) -> None:
    with fake.client(follow_redirects=False) as http:
        started = http.post("/oauth/start", json={"provider": "peoplegraph"}, headers=owner).json()
        assert http.get(f"/oauth/status/{started['state']}", headers=owner).json()["status"] == "pending"
        page = http.get(started["consent_url"])  # visiting it is the user's consent
        assert page.status_code == 200 and "Connected" in page.text
        status = http.get(f"/oauth/status/{started['state']}", headers=owner).json()
        assert status["status"] == "done"
        connection = http.get("/connections", headers=owner).json()[0]
        assert connection["provider"] == "peoplegraph" and connection["capabilities"] == ["read"]
        assert connection["missing_capabilities"] == ["write"]
        resources = http.get(f"/connections/{status['secret_id']}/resources", headers=owner).json()
        chosen = resources["resources"][0]
        assert http.post(f"/connections/{status['secret_id']}/resource",
                         json={"resource_ref": chosen["id"], "resource_name": chosen["label"]}, headers=owner
                         ).json()["resource_ref"] == chosen["id"]
        free = http.get("/call/peoplegraph.people.enrich", params={"email": "ada.lovelace@northwind.com"},
                        headers=owner)
        assert "X-Treg-Cost-Micro" not in free.headers  # the connection's tool serves it
        denied = http.post("/oauth/start", json={"provider": "jobsignal"}, headers=owner).json()
        fake.consent(denied["state"], grant=False)
        assert http.get(f"/oauth/status/{denied['state']}", headers=owner).json()["status"] == "error"
        assert http.post("/oauth/start", json={"provider": "mailscout"}, headers=owner).status_code == 409
        removed = http.delete(f"/connections/{status['secret_id']}", headers=owner).json()
        assert removed["removed_tools"] == ["peoplegraph"]


def test_a_pasted_key_is_checked_and_connects(fake: RelayFake, owner: dict[str, str]) -> None:
    with fake.client() as http:
        assert http.post("/connections/token", json={"provider": "mailscout", "token": "invalid-key"},
                         headers=owner).status_code == 422
        made = http.post("/connections/token", json={"provider": "mailscout", "token": " ms-key "},
                         headers=owner).json()
        assert made["health"] == "ok" and made["provider"] == "mailscout"
        assert http.get("/tools/by-name/mailscout", headers=owner).json()["host"] == "api.mailscout.example"
        verify = http.get("/call/mailscout.email.verify", params={"email": "a@b.com"}, headers=owner)
        assert "X-Treg-Cost-Micro" not in verify.headers
        health = http.post("/health/run", headers=owner).json()
        assert health["ok"] == 1 and http.get("/health", headers=owner).json()[0]["status"] == "ok"


def test_a_local_run_is_granted_audited_and_reported(fake: RelayFake, owner: dict[str, str]) -> None:
    with fake.client() as http:
        key = _secret(http, owner, "gh-key", "ghp_secret")
        http.post("/tools", json={"name": "gh", "base_url": "https://api.github.example", "bindings": [
            {"secret_id": key}], "cli": {"bin": "gh", "enabled": True, "deny": ["repo delete"],
                                         "inject": [{"via": "env", "name": "GH_TOKEN"}]}}, headers=owner)
        granted = http.post("/tools/gh/grant", json={"argv": ["pr", "list", "--token", "abc"]}, headers=owner).json()
        assert granted["inject"] == [{"via": "env", "name": "GH_TOKEN", "value": "ghp_secret"}]
        assert http.post("/tools/gh/grant", json={"argv": ["repo", "delete", "x"]}, headers=owner
                         ).status_code == 403
        runs = http.get("/runs", headers=owner).json()
        assert runs[0]["argv"] == ["pr", "list", "--token", "***"] and runs[0]["where"] == "local"
        reported = http.post("/tools/gh/run-report", json={"audit_id": granted["audit_id"], "exit_code": 1,
                                                             "verdict": "credential_invalid"}, headers=owner).json()
        assert reported == {"ok": True, "marked_invalid": ["gh-key"]}
        server = http.post("/run", json={"tool": "gh", "args": ["pr", "list"]}, headers=owner).json()
        assert server["exit_code"] == 0 and "(simulated) gh pr list" in server["stdout"]



def test_a_deny_pattern_that_could_hold_the_server_is_refused_on_upload_and_on_import(
        fake: RelayFake, owner: dict[str, str]) -> None:
    """A skill's cli.deny patterns run on members' argv: one that backtracks without bound (or is no
    regex at all) is refused when the tool is made, and an imported state holding one is a 400
    naming the field, never a later 500 or a frozen server on the next local run."""
    with fake.client() as http:
        for bad in ("(a|aa)*c", "(a+)+$", "("):
            refused = http.post("/tools", json={"name": "gh", "base_url": "https://api.github.example",
                                                "cli": {"bin": "gh", "enabled": True, "deny": [bad]}}, headers=owner)
            assert refused.status_code == 403 and "cli.deny pattern" in refused.text, refused.text
        made = http.post("/tools", json={"name": "gh", "base_url": "https://api.github.example",
                                         "cli": {"bin": "gh", "enabled": True, "deny": ["repo delete"]}}, headers=owner)
        assert made.status_code < 300, made.text
    state = fake.export_state()
    text = json.dumps(state)
    assert '"repo delete"' in text
    poisoned = json.loads(text.replace('"repo delete"', '"(a|aa)*c"'))
    with fake.client() as http:
        answer = http.put("/_fake/state", json=poisoned)
        assert answer.status_code == 400 and "cli.deny[0]" in answer.text and "exponential" in answer.text
    assert json.dumps(fake.export_state()) == text  # the refused import changed nothing
