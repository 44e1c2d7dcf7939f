"""The benchmark's team, key and money operations (the stage is in :mod:`fakes.relay.benchstage`,
the rest in :mod:`fakes.relay.bench`): one timed request each, what it consumes made by its
untimed ``prepare``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from fakes.kernel.benchops import BenchOperation

from ..benchstage import Stage
from .connections import consent_code

Prepare = Callable[[], Mapping[str, str]]


def operations(stage: Stage) -> list[BenchOperation]:
    return [*team_operations(stage), *member_operations(stage), *policy_operations(stage),
            *key_operations(stage), *skill_operations(stage), *connection_operations(stage),
            *money_operations(stage), *onboarding_operations(stage)]


def made(stage: Stage, path: str, body: Callable[[], Any], field: str, name: str) -> Prepare:
    """A prepare POSTing ``body()`` to ``path`` for the busy team, naming the answer's ``field`` ``{name}``."""
    def prepare() -> Mapping[str, str]:
        return {name: str(stage.churn(path, body())[field])}
    return prepare


def named(target: dict[str, Any], stage: Stage, **stems: str) -> Prepare:
    """A prepare giving ``target`` new names (``stem-N``) for each field."""
    def prepare() -> Mapping[str, str]:
        for field, stem in stems.items():
            target[field] = stage.next(stem)
        return {}
    return prepare


def busy(stage: Stage, name: str, method: str, path: str, **kwargs: Any) -> BenchOperation:
    """An operation of the busy team: ``{org}`` in ``path`` is its number (the template names ``{org_id}``);
    ``headers``, when given, are sent instead of the team's token (a dict its ``prepare`` fills in)."""
    template = kwargs.pop("template", None) or path.replace("{org}", "{org_id}").partition("?")[0]
    return BenchOperation(name, method, path.replace("{org}", str(stage.busy_org)), template=template,
                          headers=kwargs.pop("headers", stage.busy), auth=False, **kwargs)


def team_operations(stage: Stage) -> list[BenchOperation]:
    org, owner = stage.org, stage.owner
    new_org: dict[str, Any] = {}
    doomed: dict[str, str] = {}
    leaving: dict[str, str] = {}

    def team_to_delete() -> Mapping[str, str]:
        created = stage.post("/orgs", {"name": stage.next("Doomed")}, headers=owner)
        doomed[stage.h.token] = created["token"]
        return {"org_id": str(created["org_id"]), "slug": created["org"]}

    def teammate_leaving() -> Mapping[str, str]:
        leaving[stage.h.token] = stage.join("leaver")["token"]
        return {}

    return [
        BenchOperation("create_org", "POST", "/orgs", json=new_org, headers=owner, auth=False,
                       prepare=named(new_org, stage, name="Bench team")),
        BenchOperation("list_orgs", "GET", "/orgs", headers=owner, auth=False),
        BenchOperation("delete_org", "DELETE", "/orgs/{org_id}?confirm={slug}", template="/orgs/{org_id}",
                       headers=doomed, auth=False, prepare=team_to_delete),
        busy(stage, "leave_org", "POST", "/orgs/{org}/leave", headers=leaving, prepare=teammate_leaving),
        BenchOperation("org_settings", "GET", f"/orgs/{org}/settings", template="/orgs/{org_id}/settings"),
        busy(stage, "org_settings_update", "PATCH", "/orgs/{org}/settings",
             json={"budget_dims": ["customer"], "primary_dim": "customer"}),
        busy(stage, "public_token", "POST", "/orgs/{org}/public-token"),
        busy(stage, "public_token_revoke", "DELETE", "/orgs/{org}/public-token"),
        BenchOperation("org_balance", "GET", f"/orgs/{org}/balance?limit=20", template="/orgs/{org_id}/balance"),
        BenchOperation("org_usage", "GET", f"/orgs/{org}/usage?days=30", template="/orgs/{org_id}/usage"),
        BenchOperation("org_usage_by_tag", "GET", f"/orgs/{org}/usage/by-tag?key=customer",
                       template="/orgs/{org_id}/usage/by-tag"),
        BenchOperation("org_tag_keys", "GET", f"/orgs/{org}/tag-keys", template="/orgs/{org_id}/tag-keys"),
        BenchOperation("my_usage", "GET", "/usage/me"),
    ]


def member_operations(stage: Stage) -> list[BenchOperation]:
    org, mate = stage.org, stage.mate_id
    accept: dict[str, Any] = {}
    invitee: dict[str, str] = {}
    invite: dict[str, Any] = {}
    agent: dict[str, Any] = {}
    agent_token = {stage.h.token: stage.post(f"/orgs/{org}/agents", {"name": "Bench bot"})["token"]}
    teammate: dict[str, Any] = {}
    members = f"/orgs/{org}/members/{mate}"

    def acceptable() -> Mapping[str, str]:
        email = f"{stage.next('accept')}@bench.example"
        accept.update(code=stage.invite(email)["code"], email=email)
        return {}

    def mine() -> Mapping[str, str]:
        email = f"{stage.next('mine')}@bench.example"
        found = stage.invite(email)
        invitee[stage.h.token] = stage.sign_in(email)[0]
        return {"invite_id": str(found["id"])}

    def demo_invite() -> Mapping[str, str]:
        teammate["email"] = f"{stage.next('demo')}@demo.treg.local"
        stage.invite(teammate["email"])
        return {}

    return [
        BenchOperation("list_members", "GET", f"/orgs/{org}/members", template="/orgs/{org_id}/members"),
        BenchOperation("member_cap", "PATCH", f"{members}/cap", template="/orgs/{org_id}/members/{user_id}/cap",
                       json={"daily_call_cap": 500}),
        BenchOperation("member_access", "PATCH", f"{members}/access",
                       template="/orgs/{org_id}/members/{user_id}/access", json={"local_run_enabled": True}),
        BenchOperation("member_role", "PATCH", members, template="/orgs/{org_id}/members/{user_id}",
                       json={"role": "member"}),
        busy(stage, "member_remove", "DELETE", "/orgs/{org}/members/{user_id}",
             prepare=lambda: {"user_id": str(stage.join("removed")["user_id"])}),
        busy(stage, "create_invite", "POST", "/orgs/{org}/invites", json=invite,
             prepare=lambda: invite.update(email=f"{stage.next('invite')}@bench.example") or {}),
        BenchOperation("list_invites", "GET", f"/orgs/{org}/invites", template="/orgs/{org_id}/invites"),
        busy(stage, "revoke_invite", "DELETE", "/orgs/{org}/invites/{invite_id}",
             prepare=lambda: {"invite_id": str(stage.invite(f"{stage.next('revoked')}@bench.example")["id"])}),
        BenchOperation("accept_invite", "POST", "/invites/accept", json=accept, auth=False, prepare=acceptable),
        BenchOperation("my_invites", "GET", "/invites/mine", headers=stage.owner, auth=False),
        BenchOperation("accept_my_invite", "POST", "/invites/{invite_id}/accept", headers=invitee, auth=False,
                       prepare=mine),
        busy(stage, "accept_teammate", "POST", "/onboard/accept-teammate", json=teammate, prepare=demo_invite),
        busy(stage, "create_agent", "POST", "/orgs/{org}/agents", json=agent,
             prepare=named(agent, stage, name="Bench agent")),
        BenchOperation("list_agents", "GET", f"/orgs/{org}/agents", template="/orgs/{org_id}/agents"),
        BenchOperation("observed_agents", "GET", f"/orgs/{org}/agents/observed",
                       template="/orgs/{org_id}/agents/observed"),
        busy(stage, "revoke_agent", "DELETE", "/orgs/{org}/agents/{user_id}",
             prepare=made(stage, "/orgs/{org}/agents", lambda: {"name": stage.next("Gone")}, "user_id", "user_id")),
        BenchOperation("agent_checkin", "POST", "/agents/checkin", headers=agent_token, auth=False),
    ]


def policy_operations(stage: Stage) -> list[BenchOperation]:
    org = stage.org
    project: dict[str, Any] = {}
    budget = "/orgs/{org}/budgets/customer"

    def pinned() -> Mapping[str, str]:
        stage.churn("/orgs/{org}/pins", {"capability": "email.verify", "provider": "mailscout"})
        return {}

    def budgeted() -> Mapping[str, str]:
        value = stage.next("cust")
        stage.request("PUT", f"/orgs/{stage.busy_org}/budgets/customer/{value}", {"calls_per_day": 100},
                      headers=stage.busy)
        return {"val": value}

    return [
        busy(stage, "create_project", "POST", "/orgs/{org}/projects", json=project,
             prepare=named(project, stage, name="Project")),
        BenchOperation("list_projects", "GET", f"/orgs/{org}/projects", template="/orgs/{org_id}/projects"),
        busy(stage, "delete_project", "DELETE", "/orgs/{org}/projects/{project_id}",
             prepare=made(stage, "/orgs/{org}/projects", lambda: {"name": stage.next("Gone")}, "id", "project_id")),
        BenchOperation("list_pins", "GET", f"/orgs/{org}/pins", template="/orgs/{org_id}/pins"),
        busy(stage, "pin", "POST", "/orgs/{org}/pins",
             json={"capability": "people.email.find", "provider": "mailscout"}),
        busy(stage, "unpin", "DELETE", "/orgs/{org}/pins?capability=email.verify", prepare=pinned),
        busy(stage, "create_deny", "POST", "/orgs/{org}/deny",
             json={"host": "https://api.bench-denied.example", "note": "bench"}),
        BenchOperation("list_deny", "GET", f"/orgs/{org}/deny", template="/orgs/{org_id}/deny"),
        busy(stage, "delete_deny", "DELETE", "/orgs/{org}/deny/{rule_id}",
             prepare=made(stage, "/orgs/{org}/deny", lambda: {"host": f"https://{stage.next('x')}.example"}, "id",
                          "rule_id")),
        BenchOperation("cli_deny", "GET", f"/orgs/{org}/policy/cli-deny", template="/orgs/{org_id}/policy/cli-deny"),
        BenchOperation("list_budgets", "GET", f"/orgs/{org}/budgets", template="/orgs/{org_id}/budgets"),
        busy(stage, "set_default_budget", "PUT", budget, template="/orgs/{org_id}/budgets/{dim}",
             json={"calls_per_day": 1_000_000}),
        busy(stage, "set_budget", "PUT", f"{budget}/cust_a", template="/orgs/{org_id}/budgets/{dim}/{val}",
             json={"calls_per_day": 1_000_000}),
        busy(stage, "delete_budget", "DELETE", f"{budget}/{{val}}", template="/orgs/{org_id}/budgets/{dim}/{val}",
             prepare=budgeted),
    ]


def key_operations(stage: Stage) -> list[BenchOperation]:
    secret: dict[str, Any] = {"value": "bench-value"}
    tool: dict[str, Any] = {"base_url": "https://api.bench-tools.example"}
    tool_name = stage.tool["name"]
    report: dict[str, Any] = {"exit_code": 0, "verdict": "ok"}

    def granted() -> Mapping[str, str]:
        report["audit_id"] = stage.post(f"/tools/{tool_name}/grant", {"argv": ["status"]})["audit_id"]
        return {}

    return [
        busy(stage, "create_secret", "POST", "/secrets", json=secret, prepare=named(secret, stage, name="key")),
        BenchOperation("list_secrets", "GET", "/secrets"),
        BenchOperation("update_secret", "PATCH", f"/secrets/{stage.secret_id}", template="/secrets/{secret_id}",
                       json={"value": "echo-key"}),
        busy(stage, "delete_secret", "DELETE", "/secrets/{secret_id}",
             prepare=made(stage, "/secrets", lambda: {"name": stage.next("gone"), "value": "v"}, "id", "secret_id")),
        busy(stage, "create_tool", "POST", "/tools", json=tool, prepare=named(tool, stage, name="tool")),
        BenchOperation("list_tools", "GET", "/tools"),
        BenchOperation("tool_by_name", "GET", f"/tools/by-name/{tool_name}", template="/tools/by-name/{name}"),
        BenchOperation("update_tool", "PATCH", f"/tools/{stage.tool['id']}", template="/tools/{tool_id}",
                       json={"examples": [{"method": "GET", "path": "things/7"}]}),
        busy(stage, "delete_tool", "DELETE", "/tools/{tool_id}",
             prepare=made(stage, "/tools", lambda: {"name": stage.next("gone"), "base_url": "https://api.gone.example"},
                          "id", "tool_id")),
        BenchOperation("grant", "POST", f"/tools/{tool_name}/grant", template="/tools/{name}/grant",
                       json={"argv": ["status"]}),
        BenchOperation("run_report", "POST", f"/tools/{tool_name}/run-report", template="/tools/{name}/run-report",
                       json=report, prepare=granted),
        BenchOperation("server_run", "POST", "/run", json={"tool": tool_name, "args": ["status"]}),
        BenchOperation("health_run", "POST", "/health/run"),
    ]


def skill_operations(stage: Stage) -> list[BenchOperation]:
    skill: dict[str, Any] = {"recipe": "# Research\n\nCall the tools.", "files": {"notes.md": "notes"}}
    files = [{"path": "research/SKILL.md", "content": "---\nname: research\n---\nUse FIRMDATA_API_KEY.\n"},
             {"path": ".env", "content": "FIRMDATA_API_KEY=fd-bench\n"}]
    kept = bundle_id(stage.post("/skills", {"name": "bench-skill", "recipe": "# Kept"}))

    def doomed() -> Mapping[str, str]:
        return {"bundle_id": str(bundle_id(stage.churn("/skills", {"name": stage.next("gone-skill")})))}

    return [
        busy(stage, "register_skill", "POST", "/skills", json=skill, prepare=named(skill, stage, name="skill")),
        BenchOperation("analyze_skills", "POST", "/skills/analyze", json={"files": files}),
        busy(stage, "import_skills", "POST", "/skills/import", json={"files": files, "select": []}),
        BenchOperation("list_bundles", "GET", "/bundles"),
        BenchOperation("bundle_by_name", "GET", "/bundles/by-name/bench-skill", template="/bundles/by-name/{name}"),
        BenchOperation("get_bundle", "GET", f"/bundles/{kept}", template="/bundles/{bundle_id}"),
        BenchOperation("update_bundle", "PATCH", f"/bundles/{kept}", template="/bundles/{bundle_id}",
                       json={"recipe": "# Kept, edited"}),
        busy(stage, "delete_bundle", "DELETE", "/bundles/{bundle_id}", prepare=doomed),
    ]


def bundle_id(answer: Any) -> Any:
    return answer.get("bundle_id", answer.get("id"))


def connection_operations(stage: Stage) -> list[BenchOperation]:
    stage.post("/connections/token", {"provider": "firmdata", "token": "fd-connected"})
    for provider in ("peoplegraph", "jobsignal"):
        stage.fake.consent(stage.post("/oauth/start", {"provider": provider, "capability": "read"})["state"])
    listed = {c.get("service", c.get("provider")): c["id"] for c in stage.request("GET", "/connections").json()}
    state = stage.post("/oauth/start", {"provider": "peoplegraph", "capability": "read"})["state"]

    def callback() -> Mapping[str, str]:
        started = stage.churn("/oauth/start", {"provider": "peoplegraph", "capability": "read"})["state"]
        return {"state": started, "code": consent_code(stage.fake.model.accounts, started)}

    def doomed() -> Mapping[str, str]:
        answer = stage.churn("/connections/token", {"provider": "quotely", "token": stage.next("q")})
        return {"secret_id": str(answer.get("secret_id", answer.get("id")))}

    return [
        busy(stage, "oauth_start", "POST", "/oauth/start", json={"provider": "peoplegraph", "capability": "read"}),
        BenchOperation("oauth_callback", "GET", "/oauth/callback?state={state}&code={code}",
                       template="/oauth/callback", prepare=callback, auth=False),
        BenchOperation("oauth_status", "GET", f"/oauth/status/{state}", template="/oauth/status/{state}"),
        BenchOperation("list_connections", "GET", "/connections"),
        BenchOperation("connection_resources", "GET", f"/connections/{listed['peoplegraph']}/resources",
                       template="/connections/{secret_id}/resources"),
        BenchOperation("connection_resource", "POST", f"/connections/{listed['peoplegraph']}/resource",
                       template="/connections/{secret_id}/resource",
                       json={"resource_ref": "workspaces/100001", "resource_name": "Bench"}),
        busy(stage, "connection_token", "POST", "/connections/token", json={"provider": "mailscout", "token": "ms"}),
        BenchOperation("extra_credential", "POST", f"/connections/{listed['jobsignal']}/extra-credential",
                       template="/connections/{secret_id}/extra-credential", json={"value": "dev-token"}),
        busy(stage, "revoke_connection", "DELETE", "/connections/{secret_id}", prepare=doomed),
    ]


def money_operations(stage: Stage) -> list[BenchOperation]:
    stage.fake.pay_checkout(stage.post("/billing/topup", {"amount_usd": 10})["session_id"])  # the portal opens

    def checkout() -> Mapping[str, str]:
        return {"session_id": stage.churn("/billing/topup", {"amount_usd": 10})["session_id"]}

    return [
        BenchOperation("billing", "GET", "/billing"),
        busy(stage, "topup", "POST", "/billing/topup", json={"amount_usd": 25}),
        BenchOperation("autotopup", "POST", "/billing/autotopup",
                       json={"enabled": False, "threshold_usd": 5, "amount_usd": 20}),
        BenchOperation("billing_history", "GET", "/billing/history?limit=24"),
        BenchOperation("billing_portal", "POST", "/billing/portal"),
        BenchOperation("checkout_page", "GET", "/checkout/{session_id}", auth=False, prepare=checkout),
        BenchOperation("checkout_pay", "POST", "/checkout/{session_id}", auth=False, prepare=checkout),
        BenchOperation("referrals", "GET", "/referrals"),
        BenchOperation("referral_code", "POST", "/referrals/code"),
    ]


def onboarding_operations(stage: Stage) -> list[BenchOperation]:
    owner = stage.owner
    where: dict[str, str] = {}
    visitor = {stage.h.token: stage.post("/demo/sandbox", headers=stage.address())["token"]}

    def address() -> Mapping[str, str]:
        where.update(stage.address())
        return {}

    return [
        BenchOperation("onboard_demo", "POST", "/onboard/demo", json={"team_name": "Acme Design"}, headers=owner,
                       auth=False),
        BenchOperation("onboard_skip", "POST", "/onboard/skip", headers=owner, auth=False),
        BenchOperation("onboard_reset", "POST", "/onboard/reset", headers=owner, auth=False),
        BenchOperation("seed_tool", "POST", "/onboard/seed-tool"),
        BenchOperation("sandbox", "POST", "/demo/sandbox", headers=where, auth=False, prepare=address),
        BenchOperation("sandbox_live", "GET", "/demo/sandbox/live", headers=visitor, auth=False),
        BenchOperation("sandbox_skill", "GET", "/demo/sandbox/skill", headers=visitor, auth=False),
    ]
