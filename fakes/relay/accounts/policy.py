"""A team's policy (treg ``src/treg/api.py``): projects (6764-6887: a sub-scope tools and members
can be filed under; deleting one makes its tools team-wide), capability pins (6890-6976: one
provider per job for the whole team; a direct call to another is 403, a routed call only tries
the pinned one), deny rules (6979-7062: host, path prefix and method, for the team, one member or
one project; they bind owners too) and tag budgets (5915-6044: per value of a declared tag key, a
day's and a month's spend, calls per day, or blocked; ``*`` is a dimension's default). The call
pipeline enforces them (fakes/relay/callguard.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from fakes.kernel.errors import ServiceError

from .. import callguard
from ..errors import Refusal
from ..teams import Membership
from .formats import iso
from .identity import require_admin_of, require_in
from .keys import tool_usable
from .ladder import refresh_ladder
from .orgdata import TAG_DEFAULT, DenyRule, Pin, Project, TagBudget
from .people import slugify

if TYPE_CHECKING:
    from .identity import Accounts

MAX_BUDGET_DIMS = 3
PROXY_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")


def _project_view(project: Project, tools: int | None = None) -> dict[str, Any]:
    view: dict[str, Any] = {"id": project.project_id, "name": project.name, "slug": project.slug,
                            "created_by": project.created_by, "created_at": iso(project.created_ms)}
    if tools is not None:
        view["tool_count"] = tools
    return view


def create_project(acc: Accounts, member: Membership, org_id: int, name: str) -> dict[str, Any]:
    require_admin_of(member, org_id)
    name = name.strip()
    slug = slugify(name)
    org = member.team.org
    if any(p.slug == slug for p in org.projects.values()):
        raise ServiceError(409, f"a project {slug!r} already exists in this team", code="conflict")
    project = Project(acc.next("project"), name, slug, member.email, acc.now())
    org.projects[project.project_id] = project
    return _project_view(project, 0)


def projects(member: Membership, org_id: int) -> list[dict[str, Any]]:
    require_in(member, org_id, "use this team's token")
    org = member.team.org
    shown = [p for p in org.projects.values()
             if member.role == "owner" or member.project_access is None or p.project_id in member.project_access]
    return [_project_view(p, sum(1 for t in org.tools.values() if t.project_id == p.project_id)) for p in shown]


def delete_project(acc: Accounts, member: Membership, org_id: int, project_id: int) -> dict[str, Any]:
    require_admin_of(member, org_id)
    org = member.team.org
    if project_id not in org.projects:
        raise ServiceError(404, "unknown project", code="not_found")
    freed = 0
    for tool in org.tools.values():
        if tool.project_id == project_id:
            tool.project_id, freed = None, freed + 1
    for each in org.members.values():
        if each.project_access and project_id in each.project_access:
            each.project_access = [p for p in each.project_access if p != project_id]  # [] stays: team-wide only
            each.changed()
    for rule_id in [k for k, r in org.deny.items() if r.project_id == project_id]:
        del org.deny[rule_id]
    del org.projects[project_id]
    refresh_ladder(acc.model, member.team)
    return {"deleted": project_id, "tools_made_org_wide": freed}


# -- pins ---------------------------------------------------------------------------------------------
def pins(member: Membership, org_id: int) -> list[dict[str, Any]]:
    require_in(member, org_id)
    found = sorted(member.team.org.pins.values(), key=lambda p: p.capability)
    return [{"id": p.pin_id, "capability": p.capability, "provider": p.provider, "created_by": p.created_by,
             "created_at": iso(p.created_ms)} for p in found]


def set_pin(acc: Accounts, member: Membership, org_id: int, capability: str, provider: str) -> dict[str, Any]:
    require_admin_of(member, org_id)
    serving = sorted({e["provider"] for e in acc.model.all_entries() if e["capability"] == capability
                      and not e.get("candidates")})
    if not serving:
        raise ServiceError(404, f"unknown capability {capability!r}", code="not_found")
    if provider not in serving:
        raise ServiceError(404, f"{provider!r} does not serve {capability!r} — these do: {', '.join(serving)}",
                           code="not_found")
    org = member.team.org
    pin = org.pins.get(capability)
    if pin is None:
        org.pins[capability] = Pin(acc.next("pin"), capability, provider, member.email, acc.now())
    else:
        pin.provider, pin.created_by = provider, member.email
    refresh_ladder(acc.model, member.team)
    return {"capability": capability, "provider": provider, "alternatives": [p for p in serving if p != provider]}


def clear_pin(acc: Accounts, member: Membership, org_id: int, capability: str) -> dict[str, Any]:
    require_admin_of(member, org_id)
    if member.team.org.pins.pop(capability, None) is None:
        raise ServiceError(404, f"no pin for {capability!r}", code="not_found")
    refresh_ladder(acc.model, member.team)
    return {"capability": capability, "pinned": False}


# -- deny rules ------------------------------------------------------------------------------------------
def _deny_view(rule: DenyRule) -> dict[str, Any]:
    return {"id": rule.rule_id, "host": rule.host, "path_prefix": rule.path_prefix, "method": rule.method,
            "user_id": rule.user_id, "scope": "org" if rule.user_id is None else "member",
            "project_id": rule.project_id, "verdict": "deny", "note": rule.note, "created_by": rule.created_by,
            "created_at": iso(rule.created_ms)}


def create_rule(acc: Accounts, member: Membership, org_id: int, body: dict[str, Any]) -> dict[str, Any]:
    require_admin_of(member, org_id)
    org = member.team.org
    host = (body.get("host") or "").strip().lower()
    if "://" in host:
        host = urlsplit(host).netloc.lower()
    method = (body.get("method") or "").strip().upper()
    path_prefix = (body.get("path_prefix") or "").strip()
    if not (host or path_prefix or method):
        raise ServiceError(422, "give at least one of host, path_prefix or method", code="validation_error")
    if body.get("user_id") is not None and body["user_id"] not in org.members:
        raise ServiceError(404, "not a member of this org", code="not_found")
    if body.get("project_id") is not None and body["project_id"] not in org.projects:
        raise ServiceError(404, "unknown project", code="not_found")
    rule = DenyRule(acc.next("rule"), host, path_prefix, method, body.get("user_id"), body.get("project_id"),
                    (body.get("note") or "").strip(), member.email, acc.now())
    org.deny[rule.rule_id] = rule
    refresh_ladder(acc.model, member.team)
    return _deny_view(rule)


def rules(member: Membership, org_id: int) -> list[dict[str, Any]]:
    require_admin_of(member, org_id)
    return [_deny_view(r) for r in member.team.org.deny.values()]


def delete_rule(acc: Accounts, member: Membership, org_id: int, rule_id: int) -> dict[str, Any]:
    require_admin_of(member, org_id)
    if member.team.org.deny.pop(rule_id, None) is None:
        raise ServiceError(404, "unknown rule", code="not_found")
    refresh_ladder(acc.model, member.team)
    return {"deleted": rule_id}


def cli_deny(member: Membership, org_id: int) -> list[dict[str, Any]]:
    """Read-only: each tool's local-run deny patterns (they live on the tool's cli profile)."""
    require_admin_of(member, org_id)
    return [{"tool": t.name, "enabled": bool((t.cli or {}).get("enabled")),
             "patterns": [{"pattern": p, "source": "skill"} for p in (t.cli or {}).get("deny") or []]}
            for t in member.team.org.tools.values() if (t.cli or {}).get("deny") and tool_usable(member, t)]


# -- tag budgets -------------------------------------------------------------------------------------------
def _budget_view(row: TagBudget) -> dict[str, Any]:
    return {"dim": row.dim, "val": row.val, "is_default": row.val == TAG_DEFAULT,
            "daily_cap_micro": row.daily_cap_micro, "monthly_cap_micro": row.monthly_cap_micro,
            "calls_per_day": row.calls_per_day, "status": row.status, "note": row.note,
            "updated_at": iso(row.updated_ms)}


def budgets(member: Membership, org_id: int, dim: str | None) -> list[dict[str, Any]]:
    require_admin_of(member, org_id)
    found = [b for b in member.team.org.budgets.values() if not dim or b.dim == dim]
    found.sort(key=lambda b: (b.dim, b.val != TAG_DEFAULT, b.val))
    return [_budget_view(b) for b in found]


def set_budget(acc: Accounts, member: Membership, org_id: int, dim: str, value: str, body: dict[str, Any]
               ) -> dict[str, Any]:
    """An upsert that leaves fields the request does not name alone; setting a budget on a key
    declares it (at most three keys: 422 naming the ones in use)."""
    require_admin_of(member, org_id)
    if value != TAG_DEFAULT:
        try:
            callguard.check_tag_pair(dim, value)
        except Refusal as refusal:
            raise ServiceError(404, str(refusal.body["detail"]), code="not_found") from None
    org = member.team.org
    declared = org.budget_dims_of()
    if dim not in declared:
        if len(declared) >= MAX_BUDGET_DIMS:
            raise ServiceError(409, f"budgets are already set up on {', '.join(declared)} — {MAX_BUDGET_DIMS} is the "
                                    f"limit; remove one first to budget on {dim!r}", code="too_many_budget_dimensions",
                               dim=dim, declared=declared, limit=MAX_BUDGET_DIMS)
        org.budget_dims = [*declared, dim]
    row = org.budgets.get((dim, value))
    if row is None:
        row = org.budgets[(dim, value)] = TagBudget(dim, value)
    for name in ("daily_cap_micro", "monthly_cap_micro", "calls_per_day", "status", "note"):
        if name in body:
            setattr(row, name, body[name] if name != "status" or body[name] is not None else row.status)
    row.updated_ms = acc.now()
    refresh_ladder(acc.model, member.team)
    return _budget_view(row)


def delete_budget(acc: Accounts, member: Membership, org_id: int, dim: str, value: str) -> dict[str, Any]:
    require_admin_of(member, org_id)
    if member.team.org.budgets.pop((dim, value), None) is None:
        raise ServiceError(404, "no budget for that tag", code="not_found")
    refresh_ladder(acc.model, member.team)
    return {"deleted": {"dim": dim, "val": value}}
