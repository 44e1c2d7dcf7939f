"""The account surface's exported state and its import, every field checked (a 400 naming it).

Each team's ``org`` (members are exported apart, with the users), the users, the memberships (their
tokens included: an imported state keeps working with the tokens it was made with), the numbering,
and the pending handshakes and one-time secrets (CLI logins, e-mailed codes, sign-in and connect
states, checkouts), all on the fake's clock.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol

from fakes.kernel.clock import MAX_EPOCH_MS
from fakes.kernel.saferegex import UnsafeRegex, compile_guarded
from fakes.kernel.statecheck import StateReader, check_integer, check_text, refuse

from .. import bodies
from ..teams import Membership, Team
from . import schemas
from .identity import Accounts
from .orgdata import (
    Activity,
    BillingState,
    Bundle,
    CreditBlock,
    DenyRule,
    OrgData,
    Pin,
    Project,
    Referral,
    SecretRow,
    TagBudget,
    ToolRow,
)
from .pending import KINDS
from .people import ROLES, User

_MAX_ID = 2**53
_STRINGS = {"type": "object", "additionalProperties": {"type": "string"}}
#: the text fields of the account records that take one of a few values
CHOICES: dict[str, dict[str, tuple[str, ...]]] = {
    "TagBudget": {"status": ("active", "blocked")},
    "SecretRow": {"health_status": ("unknown", "ok", "invalid")},  # its kind is any text (treg api.py:7073)
    "Activity": {"kind": ("local_run", "server_run", "checkin", "report")},
    "CreditBlock": {"kind": ("promo", "topup", "bonus", "referral")},
    "Referral": {"status": ("signed_up", "qualified", "paid")},
    "Invite": {"role": ("viewer", "member", "admin"), "status": ("pending", "accepted", "revoked")},
    "Connect": {"status": ("pending", "done", "error")},
    "Checkout": {"kind": ("topup", "setup"), "status": ("open", "paid", "cancelled")}}
#: the JSON-valued fields of the account records, as the requests that make them allow
JSON_FIELDS: dict[str, bodies.Schema] = {
    "bindings": {"type": "array", "maxItems": 20, "items": {
        "type": "object", "properties": {**schemas.BINDING_FIELDS, "secret_id": schemas.null(schemas.ID)}}},
    "health_check": schemas.null({"type": "object"}), "examples": schemas.OBJECTS,
    "cli": schemas.CLI_PROFILE, "files": _STRINGS, "extra": _STRINGS,
    "scopes": schemas.strings(500, 100), "tool_access": schemas.null(schemas.strings(200)),
    "project_access": schemas.null({"type": "array", "maxItems": 200, "items": schemas.ID})}
PENDING = tuple(KINDS)


class AccountsHolder(Protocol):
    """The model as the accounts' state sees it: its teams, every member's token and the accounts."""

    teams: dict[str, Team]
    by_token: dict[str, Membership]
    accounts: Accounts


def export(model: AccountsHolder) -> dict[str, Any]:
    acc = model.accounts
    return {"users": [u.to_state() for u in acc.users.values()],
            "memberships": [m.to_state() for team in model.teams.values() for m in team.org.members.values()],
            "seq": dict(acc.seq), **{name: _listed(getattr(acc, name)) for name in PENDING}}


def _listed(mapping: dict[Any, Any]) -> list[list[Any]]:
    return [[key, value if isinstance(value, list) else dataclasses.asdict(value)] for key, value in mapping.items()]


def _check(read: StateReader, name: str, kind: str) -> Any:
    """One field by its annotation: int, str, bool, their optional forms, or JSON for the rest."""
    optional = kind.endswith("| None")
    base = kind.removesuffix(" | None")
    if optional and read.raw(name) is None:
        return None
    if base == "int":
        low, high = int_bounds(name)
        return read.integer(name, minimum=low, maximum=high)
    if base == "str":
        return read.text(name, max_length=100_000)
    if base == "bool":
        return read.boolean(name)
    value = read.json(name)
    schema = JSON_FIELDS.get(name)
    if schema is None:
        refuse(read.where(name), "is not a field the relay keeps")
    found = bodies.problem(value, schema, read.where(name))
    if found is not None:
        refuse(*found)
    if name == "bindings":
        for index, binding in enumerate(value):
            try:
                str(binding.get("format", "{secret}")).format(secret="x")
            except (KeyError, IndexError, ValueError):
                refuse(read.where(f"{name}[{index}].format"), "may hold no placeholder but {secret}")
    if name == "cli" and isinstance(value, dict):
        for index, pattern in enumerate(value.get("deny") or []):
            try:
                compile_guarded(pattern)
            except UnsafeRegex as exc:
                refuse(read.where(f"cli.deny[{index}]"), str(exc))
    return value


def int_bounds(name: str) -> tuple[int, int]:
    """The range of an integer field of a record, by its name: an instant on the fake's clock, an
    id, an amount of micro-USD (at most $1M, the most any single setting or credit may be), an
    HTTP status, an exit code, or a small count."""
    if name == "duration_ms":
        return 0, 10**12
    if name.endswith("_ms"):
        return 0, MAX_EPOCH_MS
    if name.endswith("_id"):
        return 1, _MAX_ID
    if name.endswith("_micro"):
        return 0, 10**12
    if name == "status":
        return 100, 599
    if name == "exit_code":
        return -(2**31), 2**31
    return 0, 10**9  # tries_left, attempts, failures, calls_per_day, last_topup_usd


def read_record(read: StateReader, cls: Any) -> Any:
    """A dataclass row as :func:`dataclasses.asdict` exported it, each field checked by its type."""
    fields = dataclasses.fields(cls)
    read.only([f.name for f in fields])
    choices = CHOICES.get(cls.__name__, {})
    values = {f.name: read.choice(f.name, choices[f.name]) if f.name in choices else _check(read, f.name, str(f.type))
              for f in fields if read.has(f.name)}
    try:
        return cls(**values)
    except TypeError:
        missing = next(f.name for f in fields if f.name not in values)
        refuse(read.where(missing), "is missing")


def read_org(read: StateReader) -> OrgData[Membership]:
    read.only([f.name for f in dataclasses.fields(OrgData) if f.name != "members"])
    org: OrgData[Membership] = OrgData(slug=read.text("slug", min_length=1, max_length=200, pattern=r"[a-z0-9-]+"),
                  created_ms=read.integer("created_ms", minimum=0, maximum=MAX_EPOCH_MS))
    for name in ("demo", "sandbox", "public_demo"):
        setattr(org, name, read.boolean(name))
    org.projects = {p.project_id: p for p in (read_record(r, Project) for r in read.objects("projects"))}
    org.deny = {r.rule_id: r for r in (read_record(x, DenyRule) for x in read.objects("deny"))}
    org.pins = {p.capability: p for p in (read_record(r, Pin) for r in read.objects("pins"))}
    org.budgets = {(b.dim, b.val): b for b in (read_record(r, TagBudget) for r in read.objects("budgets"))}
    for index, row in enumerate(read.array("tag_spend", max_items=200_000)):
        where = read.where(f"tag_spend[{index}]")
        if not isinstance(row, list) or len(row) != 5:
            refuse(where, "must be [dim, value, day, micro-USD, calls]")
        org.tag_spend[(check_text(row[0], where, min_length=1, max_length=32),
                       check_text(row[1], where, min_length=1, max_length=128),
                       check_integer(row[2], where, minimum=0, maximum=MAX_EPOCH_MS // 86_400_000))] = [
            check_integer(row[3], where, minimum=0, maximum=2**62), check_integer(row[4], where, minimum=0,
                                                                                  maximum=2**62)]
    org.secrets = {s.secret_id: s for s in (read_record(r, SecretRow) for r in read.objects("secrets"))}
    org.tools = {t.tool_id: t for t in (read_record(r, ToolRow) for r in read.objects("tools"))}
    org.bundles = {b.bundle_id: b for b in (read_record(r, Bundle) for r in read.objects("bundles"))}
    org.activity = [read_record(r, Activity) for r in read.objects("activity", max_items=10_000)]
    org.blocks = [read_record(r, CreditBlock) for r in read.objects("blocks", max_items=100_000)]
    org.billing = read_record(read.object("billing"), BillingState)
    org.daily_cap_micro = read.integer("daily_cap_micro", minimum=0, maximum=10**12)
    dims = read.raw("budget_dims")
    if dims is not None and (not isinstance(dims, list) or len(dims) > 3
                             or not all(isinstance(d, str) and 0 < len(d) <= 32 for d in dims)):
        refuse(read.where("budget_dims"), "must be null or at most 3 tag keys")
    org.budget_dims = dims
    org.primary_dim = read.text("primary_dim", min_length=1, max_length=32, pattern=r"[a-z0-9_]+")
    if read.raw("referral") is not None:
        org.referral = read_record(read.object("referral"), Referral)
    for tool in org.tools.values():
        for binding in tool.bindings:
            if not isinstance(binding, dict) or (binding.get("secret_id") is not None
                                                 and binding.get("secret_id") not in org.secrets):
                refuse(read.where(f"tools.{tool.tool_id}.bindings"), "names a secret this team does not hold")
    return org


def load(model: AccountsHolder, read: StateReader) -> None:
    """The accounts part of a state, after its teams (each with its ``org``) are in place."""
    acc = model.accounts
    read.only(("users", "memberships", "seq", *PENDING))
    for row in read.objects("users"):
        row.only(User.__slots__)
        user = User(row.integer("user_id", minimum=1, maximum=_MAX_ID), row.text("email", min_length=3,
                                                                                 max_length=320),
                    row.integer("created_ms", minimum=0, maximum=MAX_EPOCH_MS),
                    row.integer("token_version", minimum=0, maximum=2**31), row.boolean("onboarded"),
                    row.boolean("demo"), row.text("referral_code", max_length=64, nullable=True),
                    row.integer("referred_by", minimum=1, maximum=_MAX_ID, nullable=True))
        if user.user_id in acc.users or user.email in acc.by_email:
            refuse(row.where("user_id"), "repeats another user's id or e-mail")
        acc.users[user.user_id] = user
        acc.by_email[user.email] = user
    for row in read.objects("memberships"):
        _membership(model, row)
    for team in model.teams.values():
        if not any(m.token == team.token for m in team.org.members.values()):
            refuse(f"model.teams.{team.team_id}.token", "is no member's token")
        if team.org.slug in acc.by_slug:
            refuse(f"model.teams.{team.team_id}.org.slug", "repeats another team's slug")
        acc.by_slug[team.org.slug] = team
    seq = read.mapping("seq")
    acc.seq = {check_text(k, "model.accounts.seq", max_length=40): check_integer(
        v, f"model.accounts.seq.{k}", minimum=0, maximum=_MAX_ID) for k, v in seq.items()}
    for name in PENDING:
        rows = read.array(name, max_items=100_000)
        target: dict[Any, Any] = getattr(acc, name)
        for index, pair in enumerate(rows):
            where = f"model.accounts.{name}[{index}]"
            if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[0], (str, int)) \
                    or isinstance(pair[0], bool):
                refuse(where, "must be [key, value]")
            target[pair[0]] = _pending(name, pair[1], where)


def _membership(model: AccountsHolder, row: StateReader) -> None:
    acc = model.accounts
    row.only(("user_id", "team_id", "role", "token", "created_ms", "created_by", "daily_call_cap", "tool_access",
              "project_access", "local_run_enabled", "pinned_tags", "promoted_from"))
    user = acc.users.get(row.integer("user_id", minimum=1, maximum=_MAX_ID))
    team = model.teams.get(row.text("team_id", max_length=30))
    if user is None or team is None:
        refuse(row.where("user_id"), "names no user or team of this state")
    token = row.text("token", min_length=8, max_length=500)
    if token in model.by_token or user.user_id in team.org.members:
        refuse(row.where("token"), "repeats another membership")
    member = Membership(user, team, row.choice("role", ROLES), token,
                        row.integer("created_ms", minimum=0, maximum=MAX_EPOCH_MS))
    member.created_by = row.text("created_by", max_length=320)
    member.daily_call_cap = row.integer("daily_call_cap", minimum=-1, maximum=10**9)
    for name in ("tool_access", "project_access"):
        value = row.raw(name)
        kind = str if name == "tool_access" else int
        if value is not None and (not isinstance(value, list) or not all(
                isinstance(v, kind) and not isinstance(v, bool) for v in value)):
            refuse(row.where(name), f"must be null or a list of {kind.__name__}s")
        setattr(member, name, value)
    member.local_run_enabled = row.boolean("local_run_enabled")
    pins = row.raw("pinned_tags")
    if pins is not None and (not isinstance(pins, dict) or not all(isinstance(v, str) for v in pins.values())):
        refuse(row.where("pinned_tags"), "must be null or an object of strings")
    member.pinned_tags = pins
    member.promoted_from = row.text("promoted_from", max_length=400)
    member.changed()
    team.org.members[user.user_id] = member
    model.by_token[token] = member


def _pending(name: str, value: Any, where: str) -> Any:
    kind = KINDS[name]
    if kind is list:
        if not isinstance(value, list) or len(value) > 1000 or not all(
                isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_EPOCH_MS for v in value):
            refuse(where, "must be a list of instants")
        return value
    return read_record(StateReader(value, where), kind)
