"""What the account surface keeps between two requests of one flow, on the fake's clock: invites,
CLI logins, e-mailed codes, sign-in and connect states, checkouts (each exported with the state)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Invite:
    """treg models.py ``Invite``: a one-time code for one e-mail (the admin relays ``code``; the
    e-mailed link carries ``email_token``, which may sign the invitee in)."""

    invite_id: int
    team_id: str
    email: str
    role: str
    code: str
    email_token: str | None
    status: str  # pending | accepted | revoked
    invited_by: str
    expires_ms: int
    created_ms: int
    tool_access: list[str] | None = None
    project_access: list[int] | None = None
    local_run_enabled: bool = True
    landing: str | None = None


@dataclass(slots=True)
class CliLogin:
    """A ``treg login`` handshake (treg api.py ``_cli_pending``/``_cli_results``): the pairing code shown
    only in the terminal, the wrong-code attempts left, and the result the CLI polls once."""

    code: str
    tries_left: int
    created_ms: int
    token: str | None = None
    email: str | None = None
    active_org: str | None = None


@dataclass(slots=True)
class Otp:
    code: str
    attempts: int
    expires_ms: int


@dataclass(slots=True)
class Signin:
    """An OAuth sign-in state (GitHub or Google) and the CLI login it completes, if any."""

    provider: str
    login_id: str | None
    created_ms: int


@dataclass(slots=True)
class Connect:
    """treg models.py ``PendingOAuth``: a provider connection waiting for the user's consent."""

    team_id: str
    name: str
    owner: str
    provider: str
    scopes: list[str]
    redirect_uri: str
    created_ms: int
    replaces_secret_id: int | None = None
    status: str = "pending"  # pending | done | error
    secret_id: int | None = None
    detail: str = ""


@dataclass(slots=True)
class Checkout:
    """A simulated hosted checkout: a top-up (paid on the clock, or through the control plane), or
    the card capture that arms auto top-up."""

    session_id: str
    team_id: str
    kind: str  # topup | setup
    amount_micro: int
    created_ms: int
    email: str
    status: str = "open"  # open | paid | cancelled
    bonus_micro: int = 0
    auto: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


#: the kind of each pending map of :class:`~fakes.relay.accounts.identity.Accounts` (lists: instants)
KINDS: dict[str, Any] = {"invites": Invite, "cli_logins": CliLogin, "otps": Otp, "signins": Signin,
                         "connects": Connect, "checkouts": Checkout, "otp_starts": list, "sandbox_hits": list}
