"""Signing in (treg ``src/treg/api.py`` 2024-2830, 4225-4272, 4877-4911):

- ``treg login``: ``POST /auth/cli/start`` mints a login id and a 4-character pairing code (shown
  only in the terminal); the browser approves it with the code (``POST /auth/cli/approve`` from a
  signed-in session, 8 wrong codes discard it; here also the page ``/login?cli=<id>`` and the
  control plane); ``GET /auth/cli/poll`` hands the identity token over once. Handshakes older than
  10 minutes are forgotten (treg HANDSHAKE_TTL);
- e-mailed one-time codes (``/auth/email/start``, ``/auth/email/verify``): 6 digits, 10 minutes,
  5 wrong guesses, at most 5 requests per address and 30 per client in 15 minutes (429). No mail
  leaves the fake: the code is in the answer's ``dev_code`` (treg's ``expose_dev_code``), the page and
  the control plane;
- GitHub and Google sign-in, simulated: the provider's consent is a redirect straight back to the
  callback with a code for the address the caller names (``login`` / ``login_hint``);
- a user's identity token (``/auth/cli-token``, pinned to a team with the org header: then the
  member's Default key), ``/auth/revoke-tokens`` (every earlier identity token dies), ``/auth/me``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
from typing import TYPE_CHECKING, Any

from fakes.kernel.errors import ServiceError

from .. import data
from .pending import CliLogin, Otp, Signin
from .people import DEMO_DOMAIN, User, norm_email, role_at_least
from .tokens import SESSION, SESSION_TTL_S

if TYPE_CHECKING:
    from .identity import Accounts

HANDSHAKE_TTL_MS = 600_000
CLI_APPROVE_TRIES = 8
PAIR_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # treg api.py _PAIR_ALPHABET
EMAIL_CODE_TTL_MS = 600_000
OTP_ATTEMPTS = 5
OTP_WINDOW_MS = 900_000
OTP_PER_EMAIL, OTP_PER_CLIENT = 5, 30
LOGIN_ID = r"[A-Za-z0-9_-]{8,128}"


def _prune(acc: Accounts) -> None:
    cutoff = acc.now() - HANDSHAKE_TTL_MS
    for login_id in [k for k, v in acc.cli_logins.items() if v.created_ms < cutoff]:
        del acc.cli_logins[login_id]
    for state in [k for k, v in acc.signins.items() if v.created_ms < cutoff]:
        del acc.signins[state]


def cli_start(acc: Accounts) -> dict[str, Any]:
    _prune(acc)
    number = acc.next("cli-login")
    login_id = acc.signer.opaque("login", number)
    rng = data.rng_for(acc.model.seed, "pairing code", number)
    code = "".join(rng.choice(PAIR_ALPHABET) for _ in range(4))
    acc.cli_logins[login_id] = CliLogin(code, CLI_APPROVE_TRIES, acc.now())
    return {"login_id": login_id, "code": code}


def cli_poll(acc: Accounts, login_id: str) -> dict[str, Any]:
    _prune(acc)
    pending = acc.cli_logins.get(login_id)
    if pending is None or pending.token is None:
        return {"status": "pending"}
    del acc.cli_logins[login_id]  # handed over once
    result: dict[str, Any] = {"token": pending.token, "email": pending.email}  # handed over once
    if pending.active_org:
        result["active_org"] = pending.active_org
    return result


def orgs_brief(acc: Accounts, user: User) -> list[dict[str, Any]]:
    """The user's teams for the sign-in picker, the one a CLI login should pick first."""
    members = sorted(acc.memberships_of(user), key=lambda m: (m.team.name == user.email, -len(m.team.org.tools),
                                                                m.team.name.lower()))
    return [{"slug": m.team.org.slug, "name": m.team.name, "role": m.role, "tool_count": len(m.team.org.tools),
             "personal": m.team.name == user.email} for m in members]


def cli_approve(acc: Accounts, user: User | None, login_id: str, code: str | None, org: str | None
                ) -> dict[str, Any]:
    """Complete a CLI login from a signed-in browser (the pairing code proves it is the same person)."""
    if user is None:
        raise ServiceError(401, "no session", code="unauthorized")
    if not re.fullmatch(LOGIN_ID, login_id or ""):
        raise ServiceError(400, "bad login_id", code="bad_request")
    _prune(acc)
    pending = acc.cli_logins.get(login_id)
    if pending is None or pending.token is not None:
        raise ServiceError(400, "this login has expired — run `treg login` again", code="expired")
    typed = "".join((code or "").split()).replace("-", "").upper()
    if not typed or typed != pending.code:
        if pending.tries_left <= 1:
            del acc.cli_logins[login_id]
            raise ServiceError(400, "too many wrong codes — run `treg login` again", code="bad_code")
        pending.tries_left -= 1
        raise ServiceError(400, "that code doesn't match the one in your terminal", code="bad_code")
    active = None
    if org:
        team = acc.team_by_ref(org)
        if team is None or user.user_id not in team.org.members:
            raise ServiceError(403, "not a member of that team", code="forbidden")
        active = team.org.slug
    pending.token = acc.signer.make(user.user_id, user.token_version, acc.now())
    pending.email, pending.active_org = user.email, active
    return {"ok": True, "email": user.email, "active_org": active}


def approve_for(acc: Accounts, login_id: str, email: str, org: str | None = None) -> dict[str, Any]:
    """The control plane's (and the page's) approval: the browser side of ``treg login``, for ``email``
    (registered if new, as every sign-in door does)."""
    pending = acc.cli_logins.get(login_id)
    if pending is None:
        raise ServiceError(404, f"no pending login {login_id!r}", code="not_found")
    return cli_approve(acc, acc.login_user(email), login_id, pending.code, org)


# -- e-mailed codes -----------------------------------------------------------------------------------
def _throttled(acc: Accounts, key: str, most: int, now: int) -> bool:
    recent = [t for t in acc.otp_starts.get(key, []) if t > now - OTP_WINDOW_MS]
    if len(recent) >= most:
        acc.otp_starts[key] = recent
        return True
    acc.otp_starts[key] = [*recent, now]
    return False


def email_start(acc: Accounts, email: str, client: str) -> dict[str, Any]:
    email = norm_email(email)
    if email.endswith("@" + DEMO_DOMAIN):
        raise ServiceError(400, "that's a demo address — pick a real email", code="bad_request")
    user = acc.by_email.get(email)
    if user is not None and user.demo:
        raise ServiceError(403, "this address cannot be used to sign in", code="forbidden")
    from .people import is_machine

    if is_machine(email):
        raise ServiceError(403, "this address cannot be used to sign in", code="forbidden")
    now = acc.now()
    if _throttled(acc, f"e:{email}", OTP_PER_EMAIL, now) or _throttled(acc, f"i:{client}", OTP_PER_CLIENT, now):
        raise ServiceError(429, "too many code requests — please wait a few minutes", code="rate_limited")
    number = acc.next("otp")
    code = f"{data.rng_for(acc.model.seed, 'otp', number).randrange(1_000_000):06d}"
    acc.otps[email] = Otp(code, OTP_ATTEMPTS, now + EMAIL_CODE_TTL_MS)
    return {"sent": True, "email": email, "dev_code": code}


def email_verify(acc: Accounts, email: str, code: str) -> User:
    email = norm_email(email)
    entry = acc.otps.get(email)
    if entry is None or entry.expires_ms <= acc.now():
        acc.otps.pop(email, None)
        raise ServiceError(401, "invalid code", code="unauthorized")
    if code.strip() != entry.code:
        entry.attempts -= 1
        if entry.attempts <= 0:
            del acc.otps[email]
        raise ServiceError(401, "invalid code", code="unauthorized")
    del acc.otps[email]
    return acc.login_user(email)


# -- GitHub and Google, simulated ----------------------------------------------------------------------
def signin_start(acc: Accounts, provider: str, login_id: str, email: str) -> tuple[str, str]:
    """(state, code) of a simulated consent for ``email`` (the provider's own answer)."""
    _prune(acc)
    number = acc.next("signin")
    state = acc.signer.opaque("signin-state", number)
    acc.signins[state] = Signin(provider, login_id or None, acc.now())
    code = acc.signer.sign({"p": provider, "e": norm_email(email), "s": state})
    return state, code


def signin_callback(acc: Accounts, provider: str, code: str, state: str, cookie_state: str) -> tuple[User, str | None]:
    """The callback's user and the CLI login it continues (a ValueError: the page's reason to refuse)."""
    if not code or not state or state != cookie_state:
        raise PermissionError("Bad state. Please start the login again.")
    claims = _code_claims(acc, code)
    pending = acc.signins.pop(state, None)
    if claims is None or claims.get("s") != state or claims.get("p") != provider or pending is None:
        raise PermissionError(f"No access token from {provider.title()}.")
    return acc.login_user(str(claims["e"])), pending.login_id


def _code_claims(acc: Accounts, code: str) -> dict[str, Any] | None:
    payload, _, signature = code.partition(".")
    try:
        raw = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
        expected = hmac.new(acc.signer.key, raw, hashlib.sha256).digest()
        if not hmac.compare_digest(base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4)), expected):
            return None
        claims = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return None
    return claims if isinstance(claims, dict) and isinstance(claims.get("e"), str) else None


# -- tokens -----------------------------------------------------------------------------------------------
def session_for(acc: Accounts, user: User) -> str:
    return acc.signer.make(user.user_id, user.token_version, acc.now(), audience=SESSION, ttl_s=SESSION_TTL_S)


def identity_for(acc: Accounts, user: User, org: str | None = None) -> str:
    return acc.signer.make(user.user_id, user.token_version, acc.now(), org=org)


def cli_token(acc: Accounts, user: User, org_ref: str | None) -> dict[str, Any]:
    """A bearer for the caller: with the org header naming a team they belong to, that membership's
    Default key (what treg 0.27's CLI pins after a login); else a plain identity token."""
    if org_ref:
        team = acc.team_by_ref(org_ref)
        member = team.org.members.get(user.user_id) if team is not None else None
        if member is not None:
            return {"token": member.token, "email": user.email, "org": member.team.org.slug,
                    "default_key_state": "active"}
    return {"token": identity_for(acc, user), "email": user.email, "org": None}


def revoke_tokens(acc: Accounts, user: User) -> dict[str, Any]:
    user.token_version += 1
    return {"token": identity_for(acc, user), "email": user.email, "revoked": True}


def me(acc: Accounts, token: str | None, cookie: str | None) -> dict[str, Any]:
    member = acc.model.by_token.get(token) if token else None
    user: User | None
    if token:
        user = member.user if member is not None else acc.identity_user(token)
    else:
        user = acc.session_user(cookie or "")
    if user is None:
        raise ServiceError(401, "no session", code="unauthorized")
    out: dict[str, Any] = {"email": user.email, "is_superadmin": False, "onboarded": user.onboarded, "github": True}
    if member is not None:
        out |= {"org_id": member.team.number, "org": member.team.org.slug, "role": member.role}
    return out


def register(acc: Accounts, email: str, referral: str | None) -> dict[str, Any]:
    """``POST /users``: a new user with a team named after the address; 409 when registered."""
    email = norm_email(email)
    from .people import is_machine

    if is_machine(email):
        raise ServiceError(403, "this address cannot be used to sign in", code="forbidden")
    if email in acc.by_email:
        raise ServiceError(409, "email already registered", code="conflict")
    user = acc.user(email)
    team = acc.model.create_team(name=email, owner=user)
    from . import billing

    billing.redeem_referral(acc, user, team, referral)
    return {"id": user.user_id, "email": user.email, "org": team.org.slug, "org_id": team.number, "role": "owner",
            "token": team.token}


def can_act_as_admin(role: str) -> bool:
    return role_at_least(role, "admin")
