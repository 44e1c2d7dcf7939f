"""People of the account surface: users (one e-mail, one identity) and memberships (a user in a
team, with a role and the token that IS that pairing), as treg models them
(superdesigndev/treg ``src/treg/models.py``: ``User``, ``Membership``; roles ``ROLE_RANK``).

A team (:class:`fakes.relay.teams.Team`) is treg's org: it holds the balance, the keys and the
members; every member's token reaches the same balance and the same keys.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..records import Who

if TYPE_CHECKING:
    from ..teams import Team

#: treg models.py ROLE_RANK: viewer < member < admin < owner
ROLE_RANK = {"viewer": 0, "member": 1, "admin": 2, "owner": 3}
ROLES = tuple(ROLE_RANK)
#: fake teammates seeded by onboarding (treg demo.py DEMO_DOMAIN): roster-only, never a login
DEMO_DOMAIN = "demo.treg.local"
#: sandbox visitors (treg sandbox.py), agents and the published demo token: machines, never a login
SANDBOX_DOMAIN = "sandbox.treg.local"
AGENT_DOMAIN = "agents.treg.local"
PUBLIC_DEMO_DOMAIN = "public-demo.treg.local"
EMAIL = re.compile(r"[^@\s]{1,64}@[^@\s]{1,255}")


def norm_email(email: str) -> str:
    """treg api.py ``_norm_email``: one identity per address, whatever its case."""
    return email.strip().lower()


def slugify(text: str) -> str:
    """treg api.py ``_slugify``."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "org"


def is_agent(email: str) -> bool:
    return norm_email(email).endswith(f"@{AGENT_DOMAIN}")


def is_machine(email: str) -> bool:
    """An identity minted for a machine (treg api.py ``_is_machine_email``): it acts by its token only."""
    return is_agent(email) or norm_email(email).endswith((f"@{PUBLIC_DEMO_DOMAIN}", f"@{SANDBOX_DOMAIN}"))


def norm_client(raw: str | None) -> str:
    """A runtime's name from the client header as a short slug (treg ``_norm_client``: attribution only)."""
    return re.sub(r"[^a-z0-9-]", "", (raw or "").strip().lower().split("/", 1)[0])[:32]


def role_at_least(role: str, minimum: str) -> bool:
    return ROLE_RANK.get(role, -1) >= ROLE_RANK.get(minimum, 99)


@dataclass(slots=True, eq=False)
class User:
    user_id: int
    email: str
    created_ms: int
    token_version: int = 0  # bumped by /auth/revoke-tokens: every identity token minted before dies
    onboarded: bool = False
    demo: bool = False  # a fake teammate or sandbox visitor: cannot log in
    referral_code: str | None = None
    referred_by: int | None = None  # the user whose referral link brought this one

    def to_state(self) -> dict[str, Any]:
        return {"user_id": self.user_id, "email": self.email, "created_ms": self.created_ms,
                "token_version": self.token_version, "onboarded": self.onboarded, "demo": self.demo,
                "referral_code": self.referral_code, "referred_by": self.referred_by}


@dataclass(slots=True, eq=False)
class Membership:
    """A user in a team: role, token and the per-member controls (treg models.py ``Membership``)."""

    user: User
    team: Team
    role: str
    token: str
    created_ms: int
    created_by: str = ""
    daily_call_cap: int = -1  # calls a day (calls, local and server runs); -1 = unlimited
    tool_access: list[str] | None = None  # None = every tool; else the only tool (and skill) names allowed
    project_access: list[int] | None = None  # None = the whole team; else the only project ids
    local_run_enabled: bool = True
    pinned_tags: dict[str, str] | None = None  # an agent pinned to one tag value (X-Treg-Meta cannot override)
    promoted_from: str = ""  # "member-email|runtime" of the observed agent this one replaced
    #: the (e-mail, client, tags, method) its plain GET calls record, shared by all of them
    who: Who = field(init=False)
    #: True when nothing per member can refuse its calls (no cap, no access lists, no pinned tags):
    #: then a repeated call may be answered from its plan (fakes/relay/plans.py)
    plain: bool = field(init=False)

    def __post_init__(self) -> None:
        self.who = (self.user.email, "", None, "GET")
        self.changed()

    def changed(self) -> None:
        self.plain = (self.daily_call_cap < 0 and self.tool_access is None and self.project_access is None
                      and not self.pinned_tags)

    @property
    def email(self) -> str:
        return self.user.email

    def to_state(self) -> dict[str, Any]:
        return {"user_id": self.user.user_id, "team_id": self.team.team_id, "role": self.role, "token": self.token,
                "created_ms": self.created_ms, "created_by": self.created_by, "daily_call_cap": self.daily_call_cap,
                "tool_access": self.tool_access, "project_access": self.project_access,
                "local_run_enabled": self.local_run_enabled, "pinned_tags": self.pinned_tags,
                "promoted_from": self.promoted_from}
