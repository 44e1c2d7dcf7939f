"""A team's account data (treg's org, ``src/treg/models.py``): its slug, members, projects, policy
(deny rules, capability pins, tag budgets and the tag spend they are checked against), its
credentials (secrets, tools, skill bundles), activity beyond calls (local and server runs,
check-ins), and billing (credit blocks, the payment card, auto top-up). Plain records; the rules
that change them live beside (orgs, members, policy, keys, skills, billing).

The members are typed by the team that holds the org (:class:`fakes.relay.teams.Membership`, which
names its team): :class:`OrgData` takes their type as a parameter, so these records stay below both.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Generic, TypeVar

#: a member of the org (the team's :class:`~fakes.relay.teams.Membership`)
MemberT = TypeVar("MemberT")

MAX_ACTIVITY = 5_000
#: the tag key that scopes idempotency and reports when a team declares none (treg api.py DEFAULT_PRIMARY_DIM)
DEFAULT_PRIMARY_DIM = "customer"
TAG_DEFAULT = "*"  # a dimension's default budget row (treg ledger.TAG_DEFAULT)


@dataclass(slots=True)
class Project:
    project_id: int
    name: str
    slug: str
    created_by: str
    created_ms: int


@dataclass(slots=True)
class DenyRule:
    rule_id: int
    host: str
    path_prefix: str
    method: str
    user_id: int | None
    project_id: int | None
    note: str
    created_by: str
    created_ms: int


@dataclass(slots=True)
class Pin:
    pin_id: int
    capability: str
    provider: str
    created_by: str
    created_ms: int


@dataclass(slots=True)
class TagBudget:
    dim: str
    val: str
    daily_cap_micro: int | None = None
    monthly_cap_micro: int | None = None
    calls_per_day: int | None = None
    status: str = "active"  # active | blocked
    note: str | None = None
    updated_ms: int = 0


@dataclass(slots=True)
class SecretRow:
    secret_id: int
    name: str
    owner: str
    kind: str  # env | secret_file | cli_auth | oauth | param
    value: str  # never shown; only injected
    created_ms: int
    bundle_id: int | None = None
    provider: str = ""  # the provider a connection is for ("" for an uploaded key)
    granted_scopes: str = ""
    resource_ref: str = ""
    resource_name: str = ""
    health_status: str = "unknown"  # unknown | ok | invalid
    health_detail: str = ""
    health_checked_ms: int | None = None
    expires_ms: int | None = None


@dataclass(slots=True)
class ToolRow:
    tool_id: int
    name: str
    owner: str
    base_url: str
    host: str
    bindings: list[dict[str, Any]]
    created_ms: int
    health_check: dict[str, Any] | None = None
    examples: list[dict[str, Any]] = field(default_factory=list)
    cli: dict[str, Any] | None = None
    bundle_id: int | None = None
    project_id: int | None = None


@dataclass(slots=True)
class Bundle:
    bundle_id: int
    name: str
    owner: str
    recipe: str
    files: dict[str, str]
    created_ms: int


@dataclass(slots=True)
class Activity:
    """What a member did besides a call: a local-run grant (or its refusal), a run report, a server
    run, an agent check-in (treg records these as CallRecord/RunRecord rows of their own kinds)."""

    activity_id: int
    kind: str  # local_run | server_run | checkin | report
    email: str
    tool: str
    method: str  # GRANT | DENY | REPORT | RUN | CHECKIN
    detail: str  # the redacted argv, or a report's verdict
    status: int
    created_ms: int
    client: str = ""
    exit_code: int | None = None
    duration_ms: int | None = None


@dataclass(slots=True)
class CreditBlock:
    """Money that came in: the sign-up grant, a top-up, its bonus, a referral reward (treg CreditBlock)."""

    block_id: int
    kind: str  # promo | topup | bonus | referral
    amount_micro: int
    created_ms: int
    session_id: str = ""  # the checkout that paid for it
    auto: bool = False  # an automatic (off-session) top-up


@dataclass(slots=True)
class Referral:
    """The person whose referral code brought this team, and where their reward stands."""

    referrer_id: int
    status: str  # signed_up | qualified | paid
    created_ms: int
    qualified_ms: int | None = None
    paid_ms: int | None = None


@dataclass(slots=True)
class BillingState:
    customer: bool = False  # a payment customer exists (created by the first checkout)
    card_on_file: bool = False
    autotopup_enabled: bool = False
    consented_ms: int | None = None
    threshold_micro: int = 0  # 0: the configured default
    amount_micro: int = 0
    monthly_cap_micro: int = 0
    disabled_reason: str | None = None
    failures: int = 0
    last_attempt_ms: int | None = None
    last_topup_usd: int = 0  # the next default amount steps up from the last manual top-up


@dataclass(eq=False)
class OrgData(Generic[MemberT]):
    slug: str = ""
    created_ms: int = 0
    demo: bool = False  # seeded by onboarding or a sandbox: labelled and removable
    sandbox: bool = False
    public_demo: bool = False  # its published token may only call and read
    members: dict[int, MemberT] = field(default_factory=dict)  # user id -> membership
    projects: dict[int, Project] = field(default_factory=dict)
    deny: dict[int, DenyRule] = field(default_factory=dict)
    pins: dict[str, Pin] = field(default_factory=dict)  # capability -> pin
    budgets: dict[tuple[str, str], TagBudget] = field(default_factory=dict)
    #: (dim, value, UTC day number) -> [micro-USD charged, calls]
    tag_spend: dict[tuple[str, str, int], list[int]] = field(default_factory=dict)
    secrets: dict[int, SecretRow] = field(default_factory=dict)
    tools: dict[int, ToolRow] = field(default_factory=dict)
    bundles: dict[int, Bundle] = field(default_factory=dict)
    activity: list[Activity] = field(default_factory=list)  # newest last, at most MAX_ACTIVITY
    blocks: list[CreditBlock] = field(default_factory=list)
    billing: BillingState = field(default_factory=BillingState)
    daily_cap_micro: int = 0  # the team's own ceiling on a day's spend on the relay's keys (0: none)
    budget_dims: list[str] | None = None
    primary_dim: str = DEFAULT_PRIMARY_DIM
    referral: Referral | None = None

    @property
    def guarded(self) -> bool:
        """Whether a team rule may refuse, reroute or follow a call (then the full pipeline answers it)."""
        return bool(self.deny or self.pins or self.budgets or self.daily_cap_micro or self.public_demo
                    or self.billing.autotopup_enabled)

    def tool_named(self, name: str) -> ToolRow | None:
        return next((t for t in self.tools.values() if t.name == name), None)

    def project_ref(self, ref: Any) -> int | None:
        """A project of this team by id or slug, else None."""
        wanted = str(ref)
        by_id = int(wanted) if wanted.isascii() and wanted.isdigit() and len(wanted) < 19 else None
        return next((p.project_id for p in self.projects.values() if p.project_id == by_id or p.slug == wanted), None)

    def bundle_named(self, name: str) -> Bundle | None:
        return next((b for b in self.bundles.values() if b.name == name), None)

    def add_activity(self, row: Activity) -> None:
        self.activity.append(row)
        if len(self.activity) > MAX_ACTIVITY:
            del self.activity[: len(self.activity) - MAX_ACTIVITY]

    def budget_dims_of(self) -> list[str]:
        """The tag keys this team may budget on (declared, else the primary one; treg ``_budget_dims_of``)."""
        return list(self.budget_dims) if self.budget_dims else [self.primary_dim or DEFAULT_PRIMARY_DIM]

    def to_state(self) -> dict[str, Any]:
        return {
            "slug": self.slug, "created_ms": self.created_ms, "demo": self.demo, "sandbox": self.sandbox,
            "public_demo": self.public_demo,
            "projects": [asdict(p) for p in self.projects.values()],
            "deny": [asdict(r) for r in self.deny.values()],
            "pins": [asdict(p) for p in self.pins.values()],
            "budgets": [asdict(b) for b in self.budgets.values()],
            "tag_spend": [[dim, val, day, *amounts] for (dim, val, day), amounts in self.tag_spend.items()],
            "secrets": [asdict(s) for s in self.secrets.values()],
            "tools": [asdict(t) for t in self.tools.values()],
            "bundles": [asdict(b) for b in self.bundles.values()],
            "activity": [asdict(a) for a in self.activity],
            "blocks": [asdict(b) for b in self.blocks],
            "billing": asdict(self.billing),
            "daily_cap_micro": self.daily_cap_micro, "budget_dims": self.budget_dims,
            "primary_dim": self.primary_dim,
            "referral": asdict(self.referral) if self.referral is not None else None,
        }
