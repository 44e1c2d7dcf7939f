"""The rest of treg's account surface (``src/treg/api.py``): ``/meta`` (411-430), credential health
(``run_health`` 8949-8962 and ``health.run_all``: every secret probed through its tools; here the
probe is simulated: a value containing ``invalid`` fails), ``/runs`` (8040-8071) and server runs
(``/run`` 11690-11746: a tool's CLI run on the relay, simulated: nothing executes), onboarding (5295-5320,
5567-5577; ``demo.py``: a demo team with three fake teammates and a working ``echo`` tool), the
landing page's sandbox (5466-5537; ``sandbox.py``), and the sample skills.
"""

from __future__ import annotations

import functools
import json
from typing import TYPE_CHECKING, Any

from fakes.kernel.errors import ServiceError

from .. import callguard, data
from ..teams import Membership, Team
from .formats import iso
from .identity import require_can_register
from .keys import require_tool_use
from .ladder import refresh_ladder
from .localrun import redact_argv
from .orgdata import Activity, SecretRow, ToolRow
from .orgs import remove_team
from .people import DEMO_DOMAIN, SANDBOX_DOMAIN, User, slugify

if TYPE_CHECKING:
    from .identity import Accounts

TEAMMATES = [("Ada Lovelace", "ada", "admin"), ("Ben Carter", "ben", "member"), ("Cora Diaz", "cora", "viewer")]
ECHO = ("echo", "https://postman-echo.com", "postman-echo.com")
SANDBOX_MAX_TOOLS, SANDBOX_MAX_SECRETS, SANDBOX_TTL_MIN = 5, 5, 60
SANDBOX_PER_CLIENT, SANDBOX_WINDOW_MS = 12, 3600_000
SAMPLE_SKILLS = {
    "posthog-insights": {"label": "PostHog Insights - product analytics", "key": "POSTHOG_KEY",
                         "base_url": "https://app.posthog.com", "prompt": "use posthog-insights to list recent events"},
    "stripe-billing": {"label": "Stripe Billing - charges & invoices", "key": "STRIPE_KEY",
                       "base_url": "https://api.stripe.com", "prompt": "use stripe-billing to list recent charges"},
}


def meta(acc: Accounts, base: str) -> dict[str, Any]:
    return {"public_url": base, "github": True, "google": True, "app_version": "contract-fake",
            "treg_version": "0.27.0", "posthog_key": "", "posthog_host": "", "intercom_app_id": ""}


def health_view(secret: SecretRow) -> dict[str, Any]:
    return {"secret_id": secret.secret_id, "name": secret.name, "owner": secret.owner, "kind": secret.kind,
            "status": secret.health_status, "detail": secret.health_detail, "checked_at": iso(secret.health_checked_ms),
            "provider": secret.provider, "refreshable": secret.kind == "oauth", "expiry_state": "ok",
            "expires_at": iso(secret.expires_ms), "needs_reconnect": False}


def health(member: Membership) -> list[dict[str, Any]]:
    from .keys import visible_secret_ids

    visible = visible_secret_ids(member)
    return [health_view(s) for s in member.team.org.secrets.values() if visible is None or s.secret_id in visible]


def run_health(acc: Accounts, member: Membership, all_orgs: bool) -> dict[str, Any]:
    if all_orgs:
        raise ServiceError(403, "all_orgs requires super-admin", code="forbidden")
    org = member.team.org
    now = acc.now()
    checked = ok = invalid = 0
    used = {b.get("secret_id") for t in org.tools.values() for b in t.bindings}
    for secret in org.secrets.values():
        if secret.kind == "param":
            continue
        bound = secret.secret_id in used
        bad = "invalid" in secret.value.lower()
        status, detail = ("invalid", "the provider refused the key") if bad else (
            ("ok", "probe answered 200") if bound else ("unknown", "no tool uses this secret"))
        secret.health_status, secret.health_detail, secret.health_checked_ms = status, detail, now
        checked += 1
        ok += status == "ok"
        invalid += status == "invalid"
    return {"checked": checked, "ok": ok, "invalid": invalid, "alerts": invalid, "at": iso(now)}


def runs(acc: Accounts, member: Membership, limit: int) -> list[dict[str, Any]]:
    limit = max(1, min(limit, 500))
    rows = [{"id": f"{'s' if a.kind == 'server_run' else 'l'}{a.activity_id}", "user_email": a.email, "tool": a.tool,
             "argv": a.detail.split(), "exit_code": a.exit_code, "duration_ms": a.duration_ms,
             "where": "server" if a.kind == "server_run" else "local", "client": a.client,
             "created_at": iso(a.created_ms)}
            for a in reversed(member.team.org.activity)
            if a.kind == "server_run" or (a.kind == "local_run" and a.method == "GRANT")]
    return rows[:limit]


def server_run(acc: Accounts, member: Membership, body: dict[str, Any], client: str) -> dict[str, Any]:
    """A tool's CLI run on the relay (simulated: the run is recorded and answered, nothing executes)."""
    require_can_register(member)
    org = member.team.org
    if org.sandbox:
        raise ServiceError(403, "CLI run is disabled in the sandbox", code="forbidden")
    tool = org.tool_named(body["tool"])
    if tool is None:
        raise ServiceError(404, f"no tool {body['tool']!r} in this org", code="not_found")
    require_tool_use(member, tool)
    callguard.check_deny(member, tool.host, "", "", tool.project_id)
    callguard.check_member_cap(acc.model, member, acc.now())
    if not tool.cli:
        raise ServiceError(409, f"{tool.name!r} has no cli profile — add a \"cli\" block (bin, inject) to run it",
                           code="conflict")
    args = list(body.get("args", []))
    binary = tool.cli.get("bin", tool.name)
    duration = 40 + len(" ".join(args)) % 200
    number = acc.next("activity")
    org.add_activity(Activity(number, "server_run", member.email, tool.name, "RUN", " ".join(redact_argv(args)), 200,
                              acc.now(), client, exit_code=0, duration_ms=duration))
    return {"tool": tool.name, "exit_code": 0, "stdout": f"(simulated) {binary} {' '.join(redact_argv(args))}\n",
            "stderr": "", "duration_ms": duration, "timed_out": False}


# -- onboarding ----------------------------------------------------------------------------------------------
def _echo_tool(acc: Accounts, team: Team, owner: str) -> None:
    org = team.org
    secret = SecretRow(acc.next("secret"), "echo-key", owner, "env", "sk-demo-onboarding-123", acc.now())
    org.secrets[secret.secret_id] = secret
    name, base, host = ECHO
    tool = ToolRow(acc.next("tool"), name, owner, base, host,
                   [{"secret_id": secret.secret_id, "injector": "env", "location": "header", "name": "Authorization",
                     "format": "Bearer {secret}", "secret_field": "access_token"}], acc.now(),
                   examples=[{"method": "GET", "path": "get", "note": "echo a GET"},
                             {"method": "POST", "path": "post", "note": "echo a POST body"}])
    org.tools[tool.tool_id] = tool
    refresh_ladder(acc.model, team)


def _demo_team(acc: Accounts, user: User) -> Team | None:
    return next((m.team for m in acc.memberships_of(user) if m.role == "owner" and m.team.org.demo
                 and not m.team.org.sandbox), None)


def onboard_demo(acc: Accounts, user: User, team_name: str) -> dict[str, Any]:
    team = _demo_team(acc, user)
    reused = team is not None
    if team is None:
        team = acc.model.create_team(name=team_name.strip() or "Acme Design", owner=user, demo=True)
        for _full, handle, role in TEAMMATES:
            acc.add_member(team, acc.user(f"{handle}@{DEMO_DOMAIN}", demo=True), role)
        _echo_tool(acc, team, user.email)
    user.onboarded = True
    return {"org": team.org.slug, "org_id": team.number, "name": team.name, "reused": reused,
            "teammates": [{"name": n, "email": f"{h}@{DEMO_DOMAIN}", "role": r} for n, h, r in TEAMMATES],
            "tool": ECHO[0]}


def onboard_skip(user: User) -> dict[str, Any]:
    user.onboarded = True
    return {"onboarded": True}


def onboard_reset(acc: Accounts, user: User) -> dict[str, Any]:
    removed = []
    while (team := _demo_team(acc, user)) is not None:
        removed.append(team.org.slug)
        remove_team(acc, team)
    for member in acc.memberships_of(user):
        for other in list(member.team.org.members.values()):
            if other.user.demo:
                acc.remove_member(other)
    return {"removed": removed}


def seed_tool(acc: Accounts, member: Membership) -> dict[str, Any]:
    require_can_register(member)
    if member.team.org.tool_named(ECHO[0]) is not None:
        return {"tool": ECHO[0], "reused": True}
    _echo_tool(acc, member.team, member.email)
    return {"tool": ECHO[0], "reused": False}


# -- the landing page's sandbox ------------------------------------------------------------------------------
def sandbox_mint(acc: Accounts, client: str) -> dict[str, Any]:
    now = acc.now()
    recent = [t for t in acc.sandbox_hits.get(client, []) if t > now - SANDBOX_WINDOW_MS]
    if len(recent) >= SANDBOX_PER_CLIENT:
        acc.sandbox_hits[client] = recent
        raise ServiceError(429, "too many demo sandboxes from here — try again later", code="rate_limited")
    acc.sandbox_hits[client] = [*recent, now]
    for team in [t for t in acc.model.teams.values() if t.org.sandbox
                 and t.org.created_ms < now - SANDBOX_TTL_MIN * 60_000]:
        remove_team(acc, team)  # expired sandboxes are reaped
    rid = data.token_text(acc.model.seed, "sandbox", acc.next("sandbox"))[:8]
    user = acc.user(f"visitor-{rid}@{SANDBOX_DOMAIN}", demo=True)
    team = acc.model.create_team(name=f"Sandbox {rid}", owner=user, sandbox=True, demo=True)
    team.org.members[user.user_id].role = "member"
    _echo_tool(acc, team, user.email)
    return {"token": team.token, "org_slug": team.org.slug, "visitor": f"visitor-{rid}",
            "max_tools": SANDBOX_MAX_TOOLS, "max_secrets": SANDBOX_MAX_SECRETS, "ttl_min": SANDBOX_TTL_MIN,
            "live": False}


def sandbox_live(member: Membership) -> dict[str, Any]:
    if not member.team.org.sandbox:
        raise ServiceError(403, "live-wire info is for the landing-page sandbox only", code="forbidden")
    return {"live": False, "visitor": member.team.org.slug.removeprefix("sandbox-")}


def skill_files(name: str, base: str, token: str | None) -> dict[str, str]:
    skill = SAMPLE_SKILLS[name]
    recipe = (f"---\nname: {name}\ndescription: {skill['label']}\n---\n\nCall through the relay:\n\n"
              f"    curl -H \"X-Treg-Token: {token or '$TREG_TOKEN'}\" {base}/call/{name}/<path>\n")
    contract = {"base_url": skill["base_url"], "secrets": [{"name": skill["key"], "file": f".secrets/{skill['key']}"}],
                "bindings": [{"secret": skill["key"], "location": "header", "name": "Authorization",
                              "format": "Bearer {secret}"}]}
    return {"SKILL.md": recipe, "treg.json": json.dumps(contract, indent=2)}


def sandbox_skill(member: Membership, base: str) -> dict[str, Any]:
    if not member.team.org.sandbox:
        raise ServiceError(403, "skill export is for the landing-page sandbox only", code="forbidden")
    tools = [t.name for t in member.team.org.tools.values()]
    name = slugify(member.team.name)
    recipe = f"---\nname: {name}\n---\n\nTools: {', '.join(tools)}\n"
    return {"name": name, "tools": tools, "files": {"SKILL.md": recipe},
            "install": f"curl -fsSL {base}/install.sh | sh"}


@functools.lru_cache(maxsize=64)  # constant skills below a base URL: read only, shared
def samples(base: str) -> list[dict[str, Any]]:
    return [{"name": name, "label": skill["label"], "key": skill["key"], "prompt": skill["prompt"],
             "files": skill_files(name, base, None)} for name, skill in SAMPLE_SKILLS.items()]
