"""People of the account surface: users (one e-mail, one identity), their roles and the kinds of
address treg treats apart, as treg models them (superdesigndev/treg ``src/treg/models.py``:
``User``; roles ``ROLE_RANK``).

A user joins a team (:class:`fakes.relay.teams.Team`, treg's org) through a membership
(:class:`fakes.relay.teams.Membership`: a role and the token that IS that pairing); every member's
token reaches the same balance and the same keys.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

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
