"""Invites (treg ``src/treg/api.py``: ``create_invite`` 5148-5208, ``accept_invite`` 5211-5255,
``my_invites`` 5258-5291, ``accept_my_invite`` 5597-5633, ``list_invites`` 5636-5653,
``revoke_invite`` 5656-5666, the invite sign-in 2701-2807, onboarding's teammate 5580-5594).

An invite is one code for one address: the admin relays ``code`` (it joins, never signs in); the
e-mailed link carries a second secret that may sign the invitee in (``/auth/invite-signin``). No
mail leaves the fake: the control plane lists both. Re-inviting an address replaces its pending
invite; an invite expires after ``expires_days`` (1 to 3,650) on the fake's clock (410).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakes.kernel.errors import ServiceError

from ..teams import Membership
from .formats import iso
from .identity import require_admin_of
from .members import access_names, project_ids
from .pending import Invite
from .people import DEMO_DOMAIN, User, norm_email

if TYPE_CHECKING:
    from .identity import Accounts

DAY_MS = 86_400_000


def create(acc: Accounts, member: Membership, org_id: int, body: dict[str, Any]) -> dict[str, Any]:
    require_admin_of(member, org_id)
    role = body.get("role", "member")
    if role == "admin" and member.role != "owner":
        raise ServiceError(403, "only an owner can invite an admin", code="forbidden")
    team = member.team
    email = norm_email(body["email"])
    existing = acc.by_email.get(email)
    if existing is not None and existing.user_id in team.org.members:
        raise ServiceError(409, "that email is already a member of this org", code="conflict")
    for prior in [i for i in acc.invites.values()
                  if i.team_id == team.team_id and i.email == email and i.status == "pending"]:
        del acc.invites[prior.invite_id]
    days = max(1, min(body.get("expires_days", 7), 3650))
    number = acc.next("invite")
    invite = Invite(number, team.team_id, email, role, acc.signer.opaque("invite", number),
                    acc.signer.opaque("invite-link", number), "pending", member.email,
                    acc.now() + days * DAY_MS, acc.now(),
                    tool_access=access_names(team, body.get("tool_access")),
                    project_access=project_ids(team, body.get("project_access")),
                    local_run_enabled=body.get("local_run_enabled", True), landing=body.get("landing"))
    acc.invites[number] = invite
    return {"code": invite.code, "email": email, "role": role, "org_id": org_id, "expires_at": iso(invite.expires_ms)}


def listing(acc: Accounts, member: Membership, org_id: int) -> list[dict[str, Any]]:
    require_admin_of(member, org_id)
    now = acc.now()
    for dead in [i for i in acc.invites.values() if i.team_id == member.team.team_id and i.expires_ms < now]:
        del acc.invites[dead.invite_id]
    return [{"id": i.invite_id, "email": i.email, "role": i.role, "invited_by": i.invited_by,
             "expires_at": iso(i.expires_ms), "created_at": iso(i.created_ms)}
            for i in acc.invites.values() if i.team_id == member.team.team_id and i.status == "pending"]


def revoke(acc: Accounts, member: Membership, org_id: int, invite_id: int) -> dict[str, Any]:
    require_admin_of(member, org_id)
    invite = acc.invites.get(invite_id)
    if invite is None or invite.team_id != member.team.team_id or invite.status != "pending":
        raise ServiceError(404, "invite not found", code="not_found")
    del acc.invites[invite_id]
    return {"revoked_invite": invite_id}


def _join(acc: Accounts, invite: Invite, user: User) -> dict[str, Any]:
    team = acc.model.teams.get(invite.team_id)
    if team is None:
        raise ServiceError(404, "invalid or already-used invite", code="not_found")
    if user.user_id in team.org.members:
        raise ServiceError(409, "already a member of this org", code="conflict")
    joined = acc.add_member(team, user, invite.role, tool_access=invite.tool_access,
                            project_access=invite.project_access, local_run_enabled=invite.local_run_enabled)
    invite.status = "accepted"
    return {"org": team.org.slug, "org_id": team.number, "name": team.name, "role": invite.role,
            "token": joined.token}


def accept_code(acc: Accounts, code: str, email: str) -> dict[str, Any]:
    """The open door: the one-time code joins (registering the user if new), never signs in."""
    invite = next((i for i in acc.invites.values() if i.code == code), None)
    email = norm_email(email)
    if invite is None or invite.status != "pending":
        raise ServiceError(404, "invalid or already-used invite code", code="not_found")
    if invite.expires_ms < acc.now():
        raise ServiceError(410, "invite code expired", code="gone")
    if invite.email != email:
        raise ServiceError(403, "this invite is for a different email", code="forbidden")
    return _join(acc, invite, acc.user(email))


def mine(acc: Accounts, user: User) -> list[dict[str, Any]]:
    now = acc.now()
    rows = []
    for invite in sorted(acc.invites.values(), key=lambda i: -i.invite_id):
        team = acc.model.teams.get(invite.team_id)
        if invite.email != user.email or invite.status != "pending" or invite.expires_ms < now or team is None:
            continue
        rows.append({"id": invite.invite_id, "org": team.org.slug, "org_id": team.number, "name": team.name,
                     "role": invite.role, "invited_by": invite.invited_by, "landing": invite.landing,
                     "expires_at": iso(invite.expires_ms), "created_at": iso(invite.created_ms)})
    return rows


def accept_mine(acc: Accounts, user: User, invite_id: int) -> dict[str, Any]:
    invite = acc.invites.get(invite_id)
    if invite is None or invite.status != "pending":
        raise ServiceError(404, "invalid or already-used invite", code="not_found")
    if invite.email != user.email:
        raise ServiceError(403, "this invite is for a different email", code="forbidden")
    if invite.expires_ms < acc.now():
        raise ServiceError(410, "invite expired", code="gone")
    return _join(acc, invite, user)


def by_link(acc: Accounts, link_token: str) -> Invite | None:
    """A live invite by its e-mailed link's secret (pending, unexpired, its link unused)."""
    invite = next((i for i in acc.invites.values() if link_token and i.email_token == link_token), None)
    if invite is None or invite.status != "pending" or invite.expires_ms < acc.now():
        return None
    return invite if invite.team_id in acc.model.teams else None


def by_code(acc: Accounts, code: str) -> Invite | None:
    invite = next((i for i in acc.invites.values() if code and i.code == code), None)
    if invite is None or invite.status != "pending" or invite.expires_ms < acc.now():
        return None
    return invite


def accept_teammate(acc: Accounts, member: Membership, email: str) -> dict[str, Any]:
    """Onboarding: a fake teammate (``@demo.treg.local``) the user just invited joins at once."""
    require_admin_of(member, member.team.number)
    email = norm_email(email)
    if not email.endswith("@" + DEMO_DOMAIN):
        raise ServiceError(400, "onboarding auto-accept is for demo teammates only", code="bad_request")
    invite = next((i for i in acc.invites.values() if i.team_id == member.team.team_id and i.email == email
                   and i.status == "pending"), None)
    if invite is None:
        raise ServiceError(404, "no pending invite for that email", code="not_found")
    _join(acc, invite, acc.user(email, demo=True))
    return {"email": email, "role": invite.role}
