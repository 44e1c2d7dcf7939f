"""Who is calling: the account part of the relay's model (``model.accounts``).

Users, memberships by token, teams (orgs) by slug, and the two gates every treg route uses
(treg ``src/treg/api.py``): ``require_identity`` (just who: a membership token's user, an identity
token's user or a browser session's user) and ``require_member`` (a user acting in one team: a
membership token has its team baked in; an identity token or session picks it with the org header,
or with the team its token was pinned to). Refusals are treg's: 401 ``invalid token`` / ``not
authenticated``, 400 ``choose an org (send X-Treg-Org)``, 403 ``not a member of this org``,
403 for a machine identity acting as a user and for a public demo token doing more than call and read.
"""

from __future__ import annotations

from typing import Any, Protocol

from fakes.kernel.errors import ServiceError

from ..asyncjobs import JobsModel
from ..billing import IdempotencyStore
from ..teams import Membership, Team
from .orgdata import OrgData
from .pending import Checkout, CliLogin, Connect, Invite, Otp, Signin
from .people import User, is_machine, norm_email, role_at_least, slugify
from .tokens import IDENTITY, SESSION, Signer


class AccountsModel(JobsModel, Protocol):
    """The model as the account surface sees it (``acc.model``): what the rules and the
    asynchronous jobs read, the stored idempotent answers (dropped with a team), and new teams."""

    idempotency: IdempotencyStore

    def create_team(self, balance_micro: int | None = None, name: str | None = None, *,
                    upstream_rate_limited: bool = True, owner: User | None = None, demo: bool = False,
                    sandbox: bool = False) -> Team: ...


class Accounts:
    __slots__ = ("by_email", "by_slug", "checkouts", "cli_logins", "connects", "invites", "model", "otp_starts",
                 "otps", "sandbox_hits", "seq", "signer", "signins", "users")

    def __init__(self, model: AccountsModel) -> None:
        self.model = model
        self.signer = Signer(model.seed, model.settings.relay_name)
        self.users: dict[int, User] = {}
        self.by_email: dict[str, User] = {}
        self.by_slug: dict[str, Team] = {}
        #: per kind of thing the account surface numbers (users, secrets, tools, invites, ...): the last number
        self.seq: dict[str, int] = {}
        # pending handshakes and one-time secrets (fakes/relay/accounts/pending.py), on the fake's clock
        self.invites: dict[int, Invite] = {}
        self.cli_logins: dict[str, CliLogin] = {}  # login id ->
        self.otps: dict[str, Otp] = {}  # e-mail ->
        self.otp_starts: dict[str, list[int]] = {}  # e-mail or client address -> recent code requests
        self.signins: dict[str, Signin] = {}  # oauth sign-in state ->
        self.connects: dict[str, Connect] = {}  # oauth connect state ->
        self.checkouts: dict[str, Checkout] = {}  # checkout session id ->
        self.sandbox_hits: dict[str, list[int]] = {}  # client address -> recent sandbox mints

    # -- numbering -----------------------------------------------------------------------------------
    def next(self, kind: str) -> int:
        number = self.seq.get(kind, 0) + 1
        self.seq[kind] = number
        return number

    def now(self) -> int:
        return self.model.clock.now_ms()

    # -- users ---------------------------------------------------------------------------------------
    def user(self, email: str, *, demo: bool = False) -> User:
        """The user with this e-mail, registered if new (treg ``_find_or_create_user``)."""
        email = norm_email(email)
        found = self.by_email.get(email)
        if found is None:
            number = self.next("user")
            while number in self.users:
                number = self.next("user")
            found = User(number, email, self.now(), demo=demo, onboarded=demo)
            self.users[number] = found
            self.by_email[email] = found
        return found

    def login_user(self, email: str) -> User:
        """A login door's user: machine and demo addresses can never sign in (treg: 403)."""
        if is_machine(email):
            raise ServiceError(403, "this address cannot be used to sign in", code="forbidden")
        user = self.user(email)
        if user.demo:
            raise ServiceError(403, "this address cannot be used to sign in", code="forbidden")
        return user

    def memberships_of(self, user: User) -> list[Membership]:
        return [m for team in self.model.teams.values() if (m := team.org.members.get(user.user_id)) is not None]

    # -- teams ---------------------------------------------------------------------------------------
    def unique_slug(self, base: str) -> str:
        slug, number = base, 2
        while slug in self.by_slug:
            slug, number = f"{base}-{number}", number + 1
        return slug

    def attach_org(self, team: Team, owner: User, *, slug: str | None = None, demo: bool = False,
                   sandbox: bool = False, role: str = "owner") -> Membership:
        """Give a new team its account data and its first member, whose token is the team's token."""
        team.org = OrgData(slug=slug or self.unique_slug(slugify(team.name)), created_ms=self.now(), demo=demo,
                           sandbox=sandbox)
        self.by_slug[team.org.slug] = team
        return self.add_member(team, owner, role, token=team.token)

    def add_member(self, team: Team, user: User, role: str, *, token: str | None = None,
                   created_by: str = "", **controls: Any) -> Membership:
        if token is None:
            token = self.new_member_token()
        member = Membership(user, team, role, token, self.now(), created_by=created_by)
        for name, value in controls.items():
            setattr(member, name, value)
        member.changed()
        team.org.members[user.user_id] = member
        self.model.by_token[token] = member
        return member

    def new_member_token(self) -> str:
        while True:
            token = self.signer.opaque("member", self.next("member-token"))
            if token not in self.model.by_token:
                return token

    def remove_member(self, member: Membership) -> None:
        member.team.org.members.pop(member.user.user_id, None)
        self.model.by_token.pop(member.token, None)

    def rotate_token(self, member: Membership) -> str:
        self.model.by_token.pop(member.token, None)
        member.token = self.new_member_token()
        self.model.by_token[member.token] = member
        return member.token

    def team_by_ref(self, ref: str) -> Team | None:
        """An org header: a slug, else a numeric id (treg ``_resolve_org``: the slug wins)."""
        if not ref:
            return None
        team = self.by_slug.get(ref)
        if team is None and ref.isascii() and ref.isdigit() and len(ref) < 19:
            team = self.model.teams.get(f"team_{int(ref)}")
        return team

    # -- the two gates -----------------------------------------------------------------------------
    def identity_user(self, token: str) -> User | None:
        claims = self.signer.read(token, self.now(), IDENTITY)
        return self._claimed_user(claims)

    def session_user(self, cookie: str) -> User | None:
        claims = self.signer.read(cookie, self.now(), SESSION)
        return self._claimed_user(claims)

    def _claimed_user(self, claims: dict[str, Any] | None) -> User | None:
        if claims is None:
            return None
        user = self.users.get(claims["uid"])
        if user is None or claims.get("tv") != user.token_version:
            return None  # revoked: the token predates the last /auth/revoke-tokens
        return user

    def require_identity(self, token: str | None, cookie: str | None) -> User:
        """treg ``require_identity``: the caller's user, whatever their token; 401/403 otherwise."""
        if token:
            member = self.model.by_token.get(token)
            if member is not None:
                if member.team.org.public_demo and not role_at_least(member.role, "admin"):
                    raise ServiceError(403, "this is a public demo token — it can only call the demo team's tools",
                                       code="forbidden")
                user: User | None = member.user
            else:
                user = self.identity_user(token)
            if user is not None and is_machine(user.email):
                raise ServiceError(403, "this token belongs to a machine identity — it can call this team's "
                                        "tools, but cannot act as a user", code="forbidden")
            if user is None:
                raise ServiceError(401, "invalid token", code="unauthorized")
            return user
        user = self.session_user(cookie or "")
        if user is None:
            raise ServiceError(401, "not authenticated", code="unauthorized")
        return user

    def require_member(self, token: str | None, cookie: str | None, org_ref: str | None, *,
                       method: str = "GET", calling: bool = False) -> Membership:
        """treg ``require_member``: the caller acting in one team."""
        member = self.model.by_token.get(token) if token else None
        if member is None:
            user = self.identity_user(token) if token else self.session_user(cookie or "")
            if user is None:
                raise ServiceError(401, "invalid token" if token else "not authenticated", code="unauthorized")
            ref = org_ref or ""
            if not ref and token:
                ref = str((self.signer.read(token, self.now(), IDENTITY) or {}).get("org", ""))
            team = self.team_by_ref(ref)
            if team is None:
                raise ServiceError(400, "choose an org (send X-Treg-Org)", code="choose_org")
            member = team.org.members.get(user.user_id)
            if member is None:
                raise ServiceError(403, "not a member of this org", code="forbidden")
        if (member.team.org.public_demo and not role_at_least(member.role, "admin") and not calling
                and method not in ("GET", "HEAD", "OPTIONS")):
            raise ServiceError(403, "this is a public demo team — its token can only call tools and read",
                               code="forbidden")
        return member

    def member_for_call(self, token: str | None, org_ref: str | None) -> Membership | None:
        """The caller of a ``/call/``: a membership token, else an identity token in the org it names."""
        if not token:
            return None
        member = self.model.by_token.get(token)
        if member is not None:
            return member
        try:
            return self.require_member(token, None, org_ref, calling=True)
        except ServiceError:
            return None


def require_admin_of(member: Membership, org_id: int) -> None:
    """treg ``_require_admin_of``: this team's token, admin or owner."""
    if member.team.number != org_id or not role_at_least(member.role, "admin"):
        raise ServiceError(403, "admin role in this org is required", code="forbidden")


def require_owner_of(member: Membership, org_id: int) -> None:
    if member.team.number != org_id or member.role != "owner":
        raise ServiceError(403, "owner role in this org is required", code="forbidden")


def require_in(member: Membership, org_id: int, detail: str = "not a member of this org") -> None:
    if member.team.number != org_id:
        raise ServiceError(403, detail, code="forbidden")


def require_can_register(member: Membership) -> None:
    """treg ``_require_can_register``: registering keys, tools and skills needs member or above."""
    if not role_at_least(member.role, "member"):
        raise ServiceError(403, "viewers can call and read, but cannot register", code="forbidden")
