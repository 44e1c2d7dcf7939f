"""Teams as treg's orgs (``src/treg/api.py``: ``create_org`` 4947-4985, ``list_orgs`` 5103-5145,
``org_usage`` 5699-5710, ``org_balance`` 5713-5768, tag keys and usage by tag 5771-5836, settings
5839-5912, ``leave_org`` 6359-6370, ``delete_org`` 6373-6396, the public token 6435-6503,
``my_usage`` 6301-6308).

Deviation: a ``?confirm=`` that does not name the team is 409 here (treg: 422), so a request its
schema accepts is only refused for what the team is, not for its shape.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from fakes.kernel.clock import iso_ms
from fakes.kernel.errors import ServiceError

from .. import asyncjobs, callguard
from ..teams import Membership, Team
from . import billing
from .formats import usd
from .identity import require_admin_of, require_in, require_owner_of
from .ladder import refresh_ladder
from .people import PUBLIC_DEMO_DOMAIN, SANDBOX_DOMAIN, User

if TYPE_CHECKING:
    from .identity import Accounts

DAY_MS = callguard.DAY_MS
_TAG_KEY = re.compile(r"[a-z0-9_]{1,32}")


def create(acc: Accounts, user: User, name: str) -> dict[str, Any]:
    if user.email.endswith("@" + SANDBOX_DOMAIN):
        raise ServiceError(403, "the demo sandbox can't create a real team — sign in with GitHub, Google, or email "
                                "to make one", code="forbidden")
    team = acc.model.create_team(name=name, owner=user)
    return {"org": team.org.slug, "org_id": team.number, "name": team.name, "role": "owner", "token": team.token}


def rows(acc: Accounts, user: User, current: Team | None) -> list[dict[str, Any]]:
    return [{"org_id": m.team.number, "slug": m.team.org.slug, "name": m.team.name, "role": m.role,
             "active": m.team is current, "demo": m.team.org.demo, "tool_count": len(m.team.org.tools)}
            for m in sorted(acc.memberships_of(user), key=lambda m: m.team.number)]


def current_team(acc: Accounts, token: str | None, org_ref: str | None) -> Team | None:
    """The caller's active team: a membership token's own, else the org header or the token's pin."""
    member = acc.model.by_token.get(token) if token else None
    if member is not None:
        return member.team
    ref = org_ref or (str((acc.signer.read(token, acc.now()) or {}).get("org", "")) if token else "")
    return acc.team_by_ref(ref)


def delete(acc: Accounts, member: Membership, org_id: int, confirm: str) -> dict[str, Any]:
    require_owner_of(member, org_id)
    team = member.team
    if confirm != team.org.slug:
        raise ServiceError(409, f"to delete this team, confirm with its slug: ?confirm={team.org.slug}",
                           code="confirm_mismatch")
    remove_team(acc, team)
    return {"deleted_org": org_id}


def remove_team(acc: Accounts, team: Team) -> None:
    """A team and everything in it: members' tokens die, its invites and pending connects go."""
    model = acc.model
    for each in list(team.org.members.values()):
        acc.remove_member(each)
    model.teams.pop(team.team_id, None)
    acc.by_slug.pop(team.org.slug, None)
    for invite_id in [k for k, v in acc.invites.items() if v.team_id == team.team_id]:
        del acc.invites[invite_id]
    for state in [k for k, v in acc.connects.items() if v.team_id == team.team_id]:
        del acc.connects[state]
    for task_id in [k for k, v in model.tasks.items() if v.team_id == team.team_id]:
        del model.tasks[task_id]
    model.idempotency.keys = {k: v for k, v in model.idempotency.keys.items() if k[0] != team.team_id}


def leave(acc: Accounts, member: Membership, org_id: int) -> dict[str, Any]:
    require_in(member, org_id, "use this org's token to leave it")
    if member.role == "owner" and owners(member.team) <= 1:
        raise ServiceError(409, "you are the last owner — transfer ownership or delete the org", code="conflict")
    acc.remove_member(member)
    drop_member_rules(member.team, member.user.user_id)
    return {"left_org": org_id}


def owners(team: Team) -> int:
    return sum(1 for m in team.org.members.values() if m.role == "owner")


def drop_member_rules(team: Team, user_id: int) -> None:
    for rule_id in [k for k, r in team.org.deny.items() if r.user_id == user_id]:
        del team.org.deny[rule_id]


# -- settings -------------------------------------------------------------------------------------------
def settings_view(acc: Accounts, member: Membership, org_id: int) -> dict[str, Any]:
    require_in(member, org_id, "not your org")
    org = member.team.org
    ceiling = acc.model.settings.platform_daily_cap_micro
    return {"daily_cap_micro": org.daily_cap_micro or ceiling, "daily_cap_set_by_team": org.daily_cap_micro or None,
            "platform_ceiling_micro": ceiling, "budget_dims": org.budget_dims_of(), "primary_dim": org.primary_dim}


def set_settings(acc: Accounts, member: Membership, org_id: int, body: dict[str, Any]) -> dict[str, Any]:
    require_admin_of(member, org_id)
    org = member.team.org
    if body.get("daily_cap_micro") is not None:
        ceiling = acc.model.settings.platform_daily_cap_micro
        if ceiling and body["daily_cap_micro"] > ceiling:
            raise ServiceError(403, f"${usd(ceiling):g}/day is the ceiling the relay allows for a team",
                               code="above_platform_ceiling", requested_micro=body["daily_cap_micro"],
                               ceiling_micro=ceiling)
        org.daily_cap_micro = body["daily_cap_micro"]
    if body.get("budget_dims") is not None:
        dims = [d.strip().lower() for d in body["budget_dims"] if d and d.strip()]
        for dim in dims:
            if not _TAG_KEY.fullmatch(dim):
                raise ServiceError(422, f"{dim!r} is not a valid tag key", code="validation_error")
        org.budget_dims = dims or None
    if body.get("primary_dim"):
        org.primary_dim = body["primary_dim"]
    refresh_ladder(acc.model, member.team)
    return settings_view(acc, member, org_id)


def public_token(acc: Accounts, member: Membership, org_id: int, create: bool) -> dict[str, Any]:
    """Mint (or rotate) the team's publishable viewer token, or revoke it (owner only)."""
    require_owner_of(member, org_id)
    team = member.team
    email = f"pub-{team.org.slug}@{PUBLIC_DEMO_DOMAIN}"
    user = acc.user(email, demo=True)
    existing = team.org.members.get(user.user_id)
    if not create:
        if existing is not None:
            acc.remove_member(existing)
        team.org.public_demo = False
        refresh_ladder(acc.model, team)
        return {"public_token_revoked": True, "org": team.org.slug}
    token = acc.rotate_token(existing) if existing is not None else acc.add_member(team, user, "viewer").token
    team.org.public_demo = True
    refresh_ladder(acc.model, team)
    return {"token": token, "org": team.org.slug, "role": "viewer", "email": email,
            "rate_limit": "10 calls per 60s per IP",
            "note": "this token can only call this org's tools and read — safe to publish; POST again to rotate"}


# -- money and usage ------------------------------------------------------------------------------------------
def balance(acc: Accounts, member: Membership, org_id: int, limit: int, offset: int) -> dict[str, Any]:
    """Any member sees the figure and the holds; the credit blocks and the ledger are admin+."""
    require_in(member, org_id)
    team = member.team
    asyncjobs.settle_due(acc.model, team)
    billing.settle_due(acc, team)
    detailed = member.role in ("admin", "owner")
    limit, offset = max(1, min(limit, 200)), max(0, offset)
    rows_ = team.newest_ledger_rows(offset, limit) if detailed else []
    return {"org_id": org_id, "balance_micro": team.balance_micro, "balance_usd": usd(team.balance_micro),
            "promo_grant_micro": acc.model.settings.start_balance_micro,
            "blocks": billing.blocks_view(team) if detailed else [],
            "holds": [{"call_id": call_id, "endpoint_id": endpoint_id, "amount_micro": amount, "created_at": None}
                      for call_id, (amount, endpoint_id) in team.holds.items()],
            "holds_micro": team.holds_micro,
            "entries": {"limit": limit, "offset": offset, "items": [
                {"id": row.get("call_id") or f"{row['kind']}-{row['epoch_ms']}", "kind": row["kind"],
                 "amount_micro": row["amount_micro"], "amount_usd": usd(row["amount_micro"]), "block_id": None,
                 "call_id": row["call_id"], "endpoint_id": row["endpoint_id"], "meta": {},
                 "created_at": row["at"]} for row in rows_]}}


def day_start(now_ms: int, days: int) -> int:
    return (now_ms // DAY_MS - (days - 1)) * DAY_MS


def usage(acc: Accounts, member: Membership, org_id: int, days: int) -> dict[str, Any]:
    """Counts by member (calls, local runs, server runs), by tool, by day, and what it cost."""
    require_admin_of(member, org_id)
    days = max(1, min(days, 365))
    team = member.team
    since = day_start(acc.now(), days)
    kinds = ("call", "local_run", "server_run")
    totals = dict.fromkeys(kinds, 0)
    users: dict[str, dict[str, Any]] = {}
    tools: dict[str, int] = {}
    per_day: dict[str, int] = {}
    by_day: dict[int, int] = {}

    def bump(email: str, kind: str, tool: str, at: int) -> None:
        row = users.setdefault(email, {"user_email": email, **dict.fromkeys(kinds, 0)})
        row[kind] += 1
        totals[kind] += 1
        tools[tool] = tools.get(tool, 0) + 1
        day = iso_ms(at)[:10]
        per_day[day] = per_day.get(day, 0) + 1

    by_user: dict[str, int] = {}
    for day, tally in acc.model.calls.team_days(team.team_id, since):  # counts kept per day (calltally.py)
        for email, count in tally.emails.items():
            by_user[email] = by_user.get(email, 0) + count
        for label, count in tally.labels.items():
            tools[label] = tools.get(label, 0) + count
        by_day[day] = by_day.get(day, 0) + tally.count
    for email, _client, label, at in acc.model.calls.scan_imported(team.team_id, since):
        by_user[email] = by_user.get(email, 0) + 1
        tools[label] = tools.get(label, 0) + 1
        day = at // 86_400_000
        by_day[day] = by_day.get(day, 0) + 1
    for email, count in by_user.items():
        users.setdefault(email, {"user_email": email, **dict.fromkeys(kinds, 0)})["call"] += count
        totals["call"] += count
    for day, count in by_day.items():
        per_day[iso_ms(day * 86_400_000)[:10]] = count
    for row in team.org.activity:
        if row.created_ms >= since and (row.kind == "server_run" or row.method == "GRANT"):
            bump(row.email, "server_run" if row.kind == "server_run" else "local_run", row.tool, row.created_ms)
    spent = team.ledger.spent_since(since)
    return {"days": days, "since": iso_ms(since), "totals": {**totals, "total": sum(totals.values())},
            "by_user": sorted(({**u, "total": sum(u[k] for k in kinds)} for u in users.values()),
                              key=lambda r: -r["total"]),
            "by_tool": sorted(({"name": k, "total": v} for k, v in tools.items()), key=lambda r: -r["total"]),
            "by_day": [{"day": k, "total": v} for k, v in sorted(per_day.items())],
            "spend": {"spend_micro": spent, "spend_usd": usd(spent)}}


def tag_keys(member: Membership, org_id: int) -> dict[str, Any]:
    require_admin_of(member, org_id)
    org = member.team.org
    return {"seen": sorted({dim for dim, _, _ in org.tag_spend}), "budgetable": org.budget_dims_of(),
            "primary": org.primary_dim}


def usage_by_tag(acc: Accounts, member: Membership, org_id: int, key: str | None, days: int) -> dict[str, Any]:
    """What each value of one tag was charged (and how many calls), plus what no value accounts for."""
    require_admin_of(member, org_id)
    days = max(1, min(days, 365))
    team = member.team
    since = day_start(acc.now(), days)
    dim = (key or team.org.primary_dim).strip().lower()
    first_day = since // DAY_MS
    charged: dict[str, int] = {}
    calls: dict[str, int] = {}
    for (d, value, day), (micro, count) in team.org.tag_spend.items():
        if d == dim and day >= first_day:
            charged[value] = charged.get(value, 0) + micro
            calls[value] = calls.get(value, 0) + count
    total = team.ledger.spent_since(since)
    attributed = sum(charged.values())
    return {"key": dim, "days": days, "since": iso_ms(since),
            "rows": [{"value": v, "charged_micro": m, "charged_usd": usd(m), "calls": calls[v]}
                     for v, m in sorted(charged.items(), key=lambda kv: -kv[1])],
            "attributed_micro": attributed, "unattributed_micro": total - attributed, "total_micro": total,
            "total_usd": usd(total)}


def my_usage(acc: Accounts, member: Membership) -> dict[str, Any]:
    return {"org": member.team.org.slug, "used_today": callguard.used_today(acc.model, member, acc.now()),
            "cap": member.daily_call_cap}
