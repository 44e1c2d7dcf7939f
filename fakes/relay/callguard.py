"""The team's and the member's rules a call passes before anything is spent (treg
``src/treg/api.py``; statuses and bodies as treg answers them):

- ``X-Treg-Meta: k=v, k=v``: the caller's own tags (``_parse_call_meta`` 10103-10145): at most 5 keys
  of ``[a-z0-9_]{1,32}``, values 1-128 of ``[A-Za-z0-9._:-]`` (no e-mail), 512 bytes; else 422. A
  token pinned to a tag value wins over the header, and naming another value is 403;
- tag budgets (``_enforce_tag_budgets`` 10611-10690): a blocked value is 403 ``tag_blocked``, a value
  past its calls per day 429 ``tag_call_cap_reached``; on the relay's key, past its daily or monthly
  spend 429 ``tag_spend_cap_reached``;
- deny rules (``_enforce_deny`` 4522-4549, ``_deny_match`` 4491-4511): 403 naming the rule;
- the member's daily call cap (``_enforce_daily_cap`` 5387-5399): 429;
- a capability pinned to another provider (``_enforce_capability_pin``): 403 ``capability_pinned``;
- a trial pool's daily allowance per team (package ``application/call/reserve.py``
  ``_enforce_trial_allowance``): 429 ``trial_allowance_reached``;
- the team's own daily ceiling on spend from the relay's keys (``_enforce_platform_daily_cap``
  10533-10554): 429 ``platform_daily_cap_reached``.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from .accounts.orgdata import TAG_DEFAULT
from .errors import Refusal
from .modelview import ModelView

if TYPE_CHECKING:
    from .catalogue import Entry
    from .teams import Membership, Team

DAY_MS = 86_400_000
_META_KEY = re.compile(r"[a-z0-9_]{1,32}")
_META_VALUE = re.compile(r"[A-Za-z0-9._:-]{1,128}")
MAX_TAGS = 5


def day_of(now_ms: int) -> int:
    return now_ms // DAY_MS


def month_start_ms(now_ms: int) -> int:
    moment = datetime.fromtimestamp(now_ms / 1000, tz=UTC)
    return int(moment.replace(day=1, hour=0, minute=0, second=0, microsecond=0).timestamp() * 1000)


def check_tag_pair(key: str, value: str, where: str = "tag") -> tuple[str, str]:
    """treg ``_validate_tag_pair``: the one rule for a tag, wherever it enters (422 otherwise)."""
    key, value = (key or "").strip().lower(), (value or "").strip()
    if not _META_KEY.fullmatch(key):
        raise Refusal(422, {"detail": f"{key!r} is not a valid tag key — 1-32 chars of [a-z0-9_]",
                            "error": "invalid_tag"})
    if not value or len(value) > 128:
        raise Refusal(422, {"detail": f"{where} value for {key!r} must be 1-128 characters", "error": "invalid_tag"})
    if "@" in value:
        raise Refusal(422, {"detail": f"{where} value for {key!r} looks like an email — use an opaque id: these "
                                      "tags are written to an append-only ledger", "error": "invalid_tag"})
    if not _META_VALUE.fullmatch(value):
        raise Refusal(422, {"detail": f"{where} value for {key!r} may only contain letters, digits and . _ - : "
                                      "(these ids are used as storage keys)", "error": "invalid_tag"})
    return key, value


def parse_meta(raw: str | None, member: Membership) -> dict[str, str]:
    pinned = member.pinned_tags or {}
    raw = (raw or "").strip()
    if not raw:
        return dict(pinned)
    if len(raw.encode()) > 512:
        raise Refusal(422, {"detail": "X-Treg-Meta is limited to 512 bytes", "error": "invalid_tag"})
    tags: dict[str, str] = {}
    for segment in raw.split(","):
        key, sep, value = segment.partition("=")
        if not sep or not _META_KEY.fullmatch(key.strip().lower()):
            raise Refusal(422, {"detail": "X-Treg-Meta must be `key=value` pairs; keys are 1-32 chars of "
                                          f"[a-z0-9_] (got {segment.strip()!r})", "error": "invalid_tag"})
        key, value = check_tag_pair(key, value, "X-Treg-Meta")
        if key in tags:
            raise Refusal(422, {"detail": f"X-Treg-Meta names {key!r} twice", "error": "invalid_tag"})
        tags[key] = value
    if len(tags) > MAX_TAGS:
        raise Refusal(422, {"detail": f"X-Treg-Meta is limited to {MAX_TAGS} keys (got {len(tags)})",
                            "error": "invalid_tag"})
    for dim, value in pinned.items():
        if tags.get(dim, value) != value:
            raise Refusal(403, {"detail": f"this token is pinned to {dim}={value!r} and cannot bill {tags[dim]!r}",
                                "error": "tag_pinned"})
        tags[dim] = value
    return tags


def _budget(team: Team, dim: str, value: str) -> Any:
    budgets = team.org.budgets
    return budgets.get((dim, value)) or budgets.get((dim, TAG_DEFAULT))


def check_tag_preflight(team: Team, tags: dict[str, str], now_ms: int) -> None:
    if not tags or not team.org.budgets:
        return
    day = day_of(now_ms)
    for dim in team.org.budget_dims_of():
        value = tags.get(dim)
        row = _budget(team, dim, value) if value else None
        if row is None or value is None:
            continue
        if row.status == "blocked":
            raise Refusal(403, {"detail": f"{dim} {value!r} is blocked", "error": "tag_blocked", "dim": dim,
                                "val": value})
        used = team.org.tag_spend.get((dim, value, day), [0, 0])[1]
        if row.calls_per_day is not None and row.calls_per_day >= 0 and used >= row.calls_per_day:
            raise Refusal(429, {"detail": f"{dim} {value!r} has used its {row.calls_per_day} calls for today",
                                "error": "tag_call_cap_reached", "dim": dim, "val": value, "used_today": used,
                                "calls_per_day": row.calls_per_day})


def check_tag_spend(team: Team, tags: dict[str, str], estimate: int, now_ms: int) -> None:
    if not tags or not team.org.budgets:
        return
    day, month = day_of(now_ms), day_of(month_start_ms(now_ms))
    for dim in team.org.budget_dims_of():
        value = tags.get(dim)
        row = _budget(team, dim, value) if value else None
        if row is None:
            continue
        spend = team.org.tag_spend
        for cap, first_day, period in ((row.daily_cap_micro, day, "day"), (row.monthly_cap_micro, month, "month")):
            if cap is None:
                continue
            spent = sum(amounts[0] for (d, v, when), amounts in spend.items() if d == dim and v == value
                        and first_day <= when <= day)
            if spent + estimate > cap:
                raise Refusal(429, {"detail": f"{dim} {value!r} has reached its spend limit for this {period} "
                                              f"(${spent / 1e6:g} of ${cap / 1e6:g})", "error": "tag_spend_cap_reached",
                                    "dim": dim, "val": value, "spent_micro": spent, "cap_micro": cap,
                                    "period": period, "estimated_cost_micro": estimate})


def record_tags(team: Team, tags: dict[str, str], cost: int, now_ms: int) -> None:
    """A call's tags: counted per value and day, with what it cost (usage by tag reads these)."""
    day = day_of(now_ms)
    for dim, value in tags.items():
        row = team.org.tag_spend.setdefault((dim, value, day), [0, 0])
        row[0] += cost
        row[1] += 1


def check_deny(member: Membership, host: str, path: str, method: str, project_id: int | None) -> None:
    """The first deny rule of the team (or aimed at this member) that matches: 403. It binds owners too."""
    rules = member.team.org.deny
    if not rules:
        return
    host, method, path = host.lower(), method.upper(), path or "/"
    for rule in rules.values():
        if rule.user_id is not None and rule.user_id != member.user.user_id:
            continue
        if rule.project_id is not None and rule.project_id != project_id:
            continue
        if (rule.host and rule.host.lower() != host) or (rule.method and rule.method.upper() != method):
            continue
        if rule.path_prefix:
            prefix = ("/" + rule.path_prefix.lstrip("/")).rstrip("/")
            if not (path == prefix or path.startswith(prefix + "/")):
                continue
        why = f" ({rule.note})" if rule.note else ""
        scope = "this team" if rule.user_id is None else "you"
        in_project = " in this project" if rule.project_id is not None else ""
        raise Refusal(403, {"detail": f"blocked by a policy rule on {scope}{in_project}{why} — {rule.method or 'any'} "
                                      f"{rule.host or 'any host'}{rule.path_prefix or ''}", "error": "policy_denied",
                            "rule_id": rule.rule_id})


def used_today(model: ModelView, member: Membership, now_ms: int) -> int:
    """Calls, local-run grants and server runs of this member in this team since 00:00 UTC."""
    since = day_of(now_ms) * DAY_MS
    calls = model.calls.count_since(member.team.team_id, since, member.email)
    runs = sum(1 for a in member.team.org.activity if a.created_ms >= since and a.email == member.email
               and (a.kind == "server_run" or a.method == "GRANT"))
    return calls + runs


def check_member_cap(model: ModelView, member: Membership, now_ms: int) -> None:
    cap = member.daily_call_cap
    if cap < 0 or member.team.org.sandbox:
        return
    used = used_today(model, member, now_ms)
    if used >= cap:
        raise Refusal(429, {"detail": f"daily usage limit reached ({used}/{cap}) — ask an admin to raise your cap",
                            "error": "daily_cap_reached", "used_today": used, "cap": cap})


def check_pin(model: ModelView, team: Team, entry: Entry) -> None:
    pin = team.org.pins.get(entry.get("capability", ""))
    if pin is None or pin.provider == entry["provider"]:
        return
    mine = sorted(e["id"] for e in model.all_entries() if e["capability"] == pin.capability
                  and e["provider"] == pin.provider)
    use = mine[0] if mine else None
    raise Refusal(403, {"detail": f"this team uses {pin.provider!r} for {pin.capability!r}"
                                  + (f" — call {use} instead" if use else "")
                                  + f". An admin can change it: treg org unpin {pin.capability}",
                        "error": "capability_pinned", "capability": pin.capability,
                        "pinned_provider": pin.provider, "use_endpoint": use})


def check_trial(model: ModelView, team: Team, provider: str, entry: Entry | None, now_ms: int) -> None:
    known = model.provider(provider)
    allowance = (known or {}).get("trial_allowance")
    if not allowance or entry is None or (entry["cost"] or {}).get("type") == "free":
        return
    since = day_of(now_ms) * DAY_MS
    paid = {e["id"] for e in model.all_entries() if e["provider"] == provider and (e["cost"] or {}).get("type")
            != "free"}
    used = model.calls.count_trial(team.team_id, provider, since, paid)
    if used >= allowance:
        raise Refusal(429, {"detail": f"this team has used its free {provider} trial for today ({used}/{allowance} "
                                      "calls). It resets at 00:00 UTC — or connect your own key for unmetered calls",
                            "error": "trial_allowance_reached", "provider": provider,
                            "allowance_per_day": allowance, "used_today": used})


def check_daily_spend(model: ModelView, team: Team, estimate: int, now_ms: int) -> None:
    cap = team.org.daily_cap_micro or model.settings.platform_daily_cap_micro
    if not cap:
        return
    spent = team.ledger.spent_since(day_of(now_ms) * DAY_MS)
    if spent + estimate > cap:
        raise Refusal(429, {"detail": f"this team has reached its daily limit for calls on the relay's keys "
                                      f"(${spent / 1e6:g} of ${cap / 1e6:g} today). It resets at 00:00 UTC.",
                            "error": "platform_daily_cap_reached", "spent_today_micro": spent,
                            "daily_cap_micro": cap, "estimated_cost_micro": estimate})
