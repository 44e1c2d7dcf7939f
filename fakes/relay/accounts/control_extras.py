"""What the control plane shows of the account flows: the pending CLI logins, the mail the relay
would have sent (sign-in codes, invites), and the checkouts (nothing ever leaves the fake)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .formats import iso

if TYPE_CHECKING:
    from .identity import Accounts


def pending_logins(acc: Accounts) -> list[dict[str, Any]]:
    return [{"login_id": login_id, "code": login.code, "created_at": iso(login.created_ms),
             "approved": login.token is not None, "email": login.email}
            for login_id, login in acc.cli_logins.items()]


def outbox(acc: Accounts) -> list[dict[str, Any]]:
    mail: list[dict[str, Any]] = [{"to": email, "kind": "sign_in_code", "code": otp.code,
                                   "expires_at": iso(otp.expires_ms)} for email, otp in acc.otps.items()]
    for invite in acc.invites.values():
        team = acc.model.teams.get(invite.team_id)
        if invite.status != "pending" or team is None:
            continue
        mail.append({"to": invite.email, "kind": "invite", "team": team.org.slug, "role": invite.role,
                     "invited_by": invite.invited_by, "code": invite.code,
                     "link": f"/auth/invite-signin?t={invite.email_token}" if invite.email_token else None,
                     "expires_at": iso(invite.expires_ms)})
    return mail


def checkouts(acc: Accounts) -> list[dict[str, Any]]:
    return [{"session_id": c.session_id, "team_id": c.team_id, "kind": c.kind, "amount_micro": c.amount_micro,
             "bonus_micro": c.bonus_micro, "status": c.status, "created_at": iso(c.created_ms),
             "url": c.extra.get("url")} for c in acc.checkouts.values()]
