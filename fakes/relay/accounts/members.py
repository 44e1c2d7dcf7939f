"""Members, their controls and agents (treg ``src/treg/api.py``: ``list_members`` 5669-5696,
``set_member_cap`` 6229-6247, ``set_member_access`` 6273-6298, ``remove_member`` 6311-6328,
``set_member_role`` 6331-6356, agents 6506-6704, ``agent_checkin`` 6620-6634).

An agent is a member whose user lives on ``agents.treg.local``: it acts only by its token, with its
own cap, access lists, pinned tags and audit. Re-creating an agent by name rotates its token and
keeps what the request does not name. Deviation: access lists naming a tool, skill or project the
team does not have are 404 here (treg: 422).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakes.kernel.errors import ServiceError

from .. import callguard
from ..errors import Refusal
from ..teams import Membership, Team
from .formats import iso
from .identity import require_admin_of, require_owner_of
from .orgdata import Activity
from .orgs import drop_member_rules, owners
from .people import AGENT_DOMAIN, ROLE_RANK, is_agent, is_machine, norm_email, slugify

if TYPE_CHECKING:
    from .identity import Accounts


def target(member: Membership, user_id: int) -> Membership:
    found = member.team.org.members.get(user_id)
    if found is None:
        raise ServiceError(404, "not a member of this org", code="not_found")
    return found


def used_today(acc: Accounts, team: Team, seen: set[str] | None = None) -> dict[str, int]:
    """e-mail -> calls, local-run grants and server runs in ``team`` since 00:00 UTC (one pass over
    its records; the e-mail of each record, of any day, is added to ``seen`` when given)."""
    today = callguard.day_of(acc.now()) * callguard.DAY_MS
    used: dict[str, int] = {}
    for a in team.org.activity:
        if a.created_ms >= today and (a.kind == "server_run" or a.method == "GRANT"):
            used[a.email] = used.get(a.email, 0) + 1
    calls = acc.model.calls
    since = 0 if seen is not None else today
    for day, tally in calls.team_days(team.team_id, since):  # counts kept per day (calltally.py)
        if seen is not None:
            seen.update(tally.emails)
        if day * callguard.DAY_MS >= today:
            for email, count in tally.emails.items():
                used[email] = used.get(email, 0) + count
    for email, _client, _label, at in calls.scan_imported(team.team_id, since):
        if seen is not None:
            seen.add(email)
        if at >= today:
            used[email] = used.get(email, 0) + 1
    return used


def agent_name(team: Team, email: str) -> str:
    local = email.split("@", 1)[0]
    prefix = f"agent-{team.org.slug}-"
    return local[len(prefix):] if local.startswith(prefix) else local


def listing(acc: Accounts, member: Membership, org_id: int) -> list[dict[str, Any]]:
    require_admin_of(member, org_id)
    team = member.team
    used = used_today(acc, team)
    return [{"user_id": m.user.user_id, "email": m.email, "role": m.role, "daily_call_cap": m.daily_call_cap,
             "used_today": used.get(m.email, 0), "tool_access": m.tool_access, "project_access": m.project_access,
             "local_run_enabled": m.local_run_enabled, "is_agent": is_agent(m.email),
             "name": agent_name(team, m.email) if is_agent(m.email) else None, "created_by": m.created_by}
            for m in team.org.members.values()]


def set_cap(member: Membership, org_id: int, user_id: int, cap: int) -> dict[str, Any]:
    require_admin_of(member, org_id)
    found = target(member, user_id)
    found.daily_call_cap = cap
    found.changed()
    return {"user_id": user_id, "org_id": org_id, "daily_call_cap": cap}


def access_names(team: Team, names: list[str] | None) -> list[str] | None:
    """An access list checked against the team's tools and skills; all of them collapses to None."""
    if names is None:
        return None
    known = {t.name for t in team.org.tools.values()} | {b.name for b in team.org.bundles.values()}
    unknown = sorted(set(names) - known)
    if unknown:
        raise ServiceError(404, f"unknown tool/skill(s): {', '.join(unknown)}", code="not_found")
    chosen = set(names)
    return None if known and chosen >= known else sorted(chosen)


def project_ids(team: Team, refs: list[Any] | None) -> list[int] | None:
    if refs is None:
        return None
    projects = team.org.projects
    ids: set[int] = set()
    for ref in refs:
        found = team.org.project_ref(ref)
        if found is None:
            raise ServiceError(404, f"unknown project {ref!r} in this team", code="not_found")
        ids.add(found)
    return None if projects and ids >= set(projects) else sorted(ids)


def set_access(member: Membership, org_id: int, user_id: int, body: dict[str, Any]) -> dict[str, Any]:
    require_admin_of(member, org_id)
    found = target(member, user_id)
    if found.role == "owner":
        raise ServiceError(403, "an owner always has full access; it can't be restricted", code="forbidden")
    found.tool_access = access_names(member.team, body.get("tool_access"))
    if "project_access" in body:  # only when sent: the local-run toggle alone must not clear a project scope
        found.project_access = project_ids(member.team, body["project_access"])
    found.local_run_enabled = body.get("local_run_enabled", True)
    found.changed()
    return {"user_id": user_id, "org_id": org_id, "tool_access": found.tool_access,
            "project_access": found.project_access, "local_run_enabled": found.local_run_enabled}


def set_role(member: Membership, org_id: int, user_id: int, role: str) -> dict[str, Any]:
    require_owner_of(member, org_id)
    found = target(member, user_id)
    if role == "owner" and is_machine(found.email):
        raise ServiceError(403, "a machine identity cannot be an owner", code="forbidden")
    if found.role == "owner" and role != "owner" and owners(member.team) <= 1:
        raise ServiceError(409, "cannot demote the last owner — promote another owner first", code="conflict")
    found.role = role
    return {"user_id": user_id, "role": role, "org_id": org_id}


def remove(acc: Accounts, member: Membership, org_id: int, user_id: int) -> dict[str, Any]:
    require_admin_of(member, org_id)
    found = target(member, user_id)
    if found.role == "owner":
        raise ServiceError(403, "owners cannot be removed", code="forbidden")
    acc.remove_member(found)
    drop_member_rules(member.team, user_id)
    return {"removed": user_id}


# -- agents ------------------------------------------------------------------------------------------
def create_agent(acc: Accounts, member: Membership, org_id: int, body: dict[str, Any]) -> dict[str, Any]:
    require_admin_of(member, org_id)
    name = body["name"].strip()
    role = body.get("role", "member")
    if role == "owner":
        raise ServiceError(403, "an agent cannot be an owner", code="forbidden")
    if role == "admin" and member.role != "owner":
        raise ServiceError(403, "only an owner can create an admin agent", code="forbidden")
    team = member.team
    email = f"agent-{team.org.slug}-{slugify(name)}@{AGENT_DOMAIN}"
    user = acc.user(email)
    agent = team.org.members.get(user.user_id)
    new = agent is None
    if agent is None:
        agent = acc.add_member(team, user, role, created_by=member.email)
    else:
        acc.rotate_token(agent)
        agent.role = body.get("role", agent.role)
    if new or "daily_call_cap" in body:
        agent.daily_call_cap = body.get("daily_call_cap", -1)
    if new or "tool_access" in body:
        agent.tool_access = access_names(team, body.get("tool_access"))
    if new or "project_access" in body:
        agent.project_access = project_ids(team, body.get("project_access"))
    if new or "local_run_enabled" in body:
        agent.local_run_enabled = body.get("local_run_enabled", True)
    if new or "promoted_member" in body or "promoted_client" in body:
        who, client = norm_email(body.get("promoted_member") or ""), (body.get("promoted_client") or "").lower()
        agent.promoted_from = f"{who}|{client}" if who and client else ""
    if new or "pinned_tags" in body:
        pins = body.get("pinned_tags") or None
        if pins:
            try:
                pins = dict(callguard.check_tag_pair(k, v) for k, v in pins.items())
            except Refusal as refusal:
                raise ServiceError(403, str(refusal.body["detail"]), code="not_allowed") from None
        agent.pinned_tags = pins
    agent.changed()
    return {"token": agent.token, "name": name, "email": email, "org": team.org.slug, "user_id": user.user_id,
            "role": agent.role, "daily_call_cap": agent.daily_call_cap, "tool_access": agent.tool_access,
            "project_access": agent.project_access, "local_run_enabled": agent.local_run_enabled,
            "pinned_tags": agent.pinned_tags,
            "note": "save this token now — it is shown once; POST the same name again to rotate it"}


def agents(acc: Accounts, member: Membership, org_id: int) -> list[dict[str, Any]]:
    require_admin_of(member, org_id)
    team = member.team
    found = [m for m in team.org.members.values() if is_agent(m.email)]
    if not found:
        return []
    seen = {a.email for a in team.org.activity if a.kind == "checkin"}
    used = used_today(acc, team, seen)  # an agent that ever called is connected
    return [{"user_id": m.user.user_id, "name": agent_name(team, m.email), "email": m.email, "role": m.role,
             "daily_call_cap": m.daily_call_cap, "used_today": used.get(m.email, 0), "tool_access": m.tool_access,
             "project_access": m.project_access, "local_run_enabled": m.local_run_enabled,
             "pinned_tags": m.pinned_tags, "created_at": iso(m.created_ms), "created_by": m.created_by,
             "promoted_from": m.promoted_from, "connected": m.email in seen}
            for m in found]


def observed(acc: Accounts, member: Membership, org_id: int) -> list[dict[str, Any]]:
    """The runtimes seen calling under members' own tokens in 30 days (from ``X-Treg-Client``)."""
    require_admin_of(member, org_id)
    team = member.team
    now = acc.now()
    since, today = now - 30 * callguard.DAY_MS, callguard.day_of(now) * callguard.DAY_MS
    promoted = {tuple(m.promoted_from.split("|", 1)) for m in team.org.members.values() if m.promoted_from}
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    latest: dict[tuple[str, str], int] = {}

    def seen(email: str, client: str, calls: int, at: int, day_start: int) -> None:
        if not client or client == "cli" or (email, client) in promoted or is_machine(email):
            return
        row = rows.get((email, client))
        if row is None:
            row = rows[(email, client)] = {"member": email, "client": client, "calls_30d": 0, "used_today": 0,
                                           "last_seen": None}
        row["calls_30d"] += calls
        row["used_today"] += calls if day_start >= today else 0
        latest[(email, client)] = max(latest.get((email, client), 0), at)

    for day, tally in acc.model.calls.team_days(team.team_id, since):  # counts kept per day (calltally.py)
        for (email, client), (calls, at) in tally.who.items():
            seen(email, client, calls, at, day * callguard.DAY_MS)
    for email, client, _label, at in acc.model.calls.scan_imported(team.team_id, since):
        seen(email, client, 1, at, at)
    for key, at in latest.items():
        rows[key]["last_seen"] = iso(at)
    return sorted(rows.values(), key=lambda r: (r["member"], r["client"]))


def revoke_agent(acc: Accounts, member: Membership, org_id: int, user_id: int) -> dict[str, Any]:
    require_admin_of(member, org_id)
    found = member.team.org.members.get(user_id)
    if found is None or not is_agent(found.email):
        raise ServiceError(404, "unknown agent", code="not_found")
    acc.remove_member(found)
    drop_member_rules(member.team, user_id)
    return {"revoked": True, "email": found.email}


def checkin(acc: Accounts, member: Membership, client: str) -> dict[str, Any]:
    member.team.org.add_activity(Activity(acc.next("activity"), "checkin", member.email, "—", "CHECKIN",
                                          "agent connected", 200, acc.now(), client))
    return {"connected": True, "you": member.email, "org": member.team.org.slug}


ROLES_FOR_INVITE = tuple(r for r in ROLE_RANK if r != "owner")
