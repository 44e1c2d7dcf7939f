"""Routes of signing in: ``/auth/*``, ``/users``, and the pages a browser sees (``/login``, the
sign-in callbacks, the invite link). Thin: credentials and bodies in, the model's answers out."""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qs, quote

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from fakes.kernel.errors import ServiceError
from fakes.kernel.http import base_url

from . import invites, logins, schemas
from .http import accounts_of, credentials, identity, model_of, ok, read_body, session_cookie
from .people import User

STATE_COOKIE_SUFFIX = "_oauth_state"
#: treg referrals._CODE_RE (referrals.py:54)
REFERRAL_CODE = re.compile(r"[a-z0-9][a-z0-9-]{2,31}")



def cookie_path(request: Request) -> str:
    """Where the fake is mounted (``/``, a prefix, ``/_w/<id>/``): a world's cookies stay in it."""
    return request.base_url.path or "/"


def page(headline: str, sub: str = "", *, status: int = 200, body: str = "") -> HTMLResponse:
    """A plain page for the browser side of a flow (treg's ``_auth_page``)."""
    mark = "&#x2705;" if status < 400 else "&#x26A0;&#xFE0F;"
    return HTMLResponse(f"<!doctype html><html><head><meta charset=\"utf-8\"><title>relay</title></head><body>"
                        f"<div class=\"card\"><div class=\"mark\">{mark}</div><h1>{html.escape(headline)}</h1>"
                        f"{f'<p>{html.escape(sub)}</p>' if sub else ''}{body}</div></body></html>", status_code=status)


def same_origin(request: Request) -> bool:
    """treg ``_same_origin``: a browser's Origin, when sent, is this server itself."""
    origin = (request.headers.get("origin") or "").rstrip("/")
    if not origin:
        return True
    if origin == "null" and request.headers.get("sec-fetch-site") in ("same-origin", "none"):
        return True
    return origin == f"{request.url.scheme}://{request.headers.get('host', '')}"


def with_session(response: Response, request: Request, user: User) -> Response:
    acc = accounts_of(request)
    response.set_cookie(session_cookie(acc.model), logins.session_for(acc, user), httponly=True, samesite="lax",
                        max_age=14 * 24 * 3600, path=cookie_path(request))
    return response


async def cli_start(request: Request) -> Response:
    return ok(logins.cli_start(accounts_of(request)))


async def cli_poll(request: Request) -> Response:
    return ok(logins.cli_poll(accounts_of(request), request.query_params.get("login_id", "")))


async def cli_orgs(request: Request) -> Response:
    acc = accounts_of(request)
    user = acc.session_user(request.cookies.get(session_cookie(acc.model), ""))
    return ok({"email": None, "orgs": []} if user is None else {"email": user.email,
                                                                "orgs": logins.orgs_brief(acc, user)})


async def cli_approve(request: Request) -> Response:
    if not same_origin(request):
        raise ServiceError(403, "cross-origin approve rejected", code="forbidden")
    body = await read_body(request, schemas.CLI_APPROVE)
    acc = accounts_of(request)
    user = acc.session_user(request.cookies.get(session_cookie(acc.model), ""))
    return ok(logins.cli_approve(acc, user, body["login_id"], body.get("code"), body.get("org")))


async def login_page(request: Request) -> Response:
    """What ``treg login`` opens: a form taking an e-mail and the terminal's pairing code."""
    login_id = request.query_params.get("cli", "")
    if not login_id:
        return RedirectResponse("/app", status_code=302)
    if not re.fullmatch(logins.LOGIN_ID, login_id):
        return page("Login failed", "Bad login link. Run treg login again.", status=400)
    form = (f'<form method="post" action="{html.escape(base_url(request))}/login">'
            f'<input type="hidden" name="login_id" value="{html.escape(login_id)}">'
            '<label>E-mail <input name="email" type="email"></label> '
            '<label>Code from your terminal <input name="code"></label> '
            '<button type="submit">Sign in</button></form>')
    return page("Sign in to the relay", "Check that the code matches your terminal.", body=form)


async def login_submit(request: Request) -> Response:
    """The page's form: the e-mail signs in (as a browser proving it would) and approves the login."""
    form = parse_qs((await request.body()).decode("utf-8", "replace"))
    acc = accounts_of(request)
    login_id, email = form.get("login_id", [""])[0], form.get("email", [""])[0]
    pending = acc.cli_logins.get(login_id)
    if pending is None or not email:
        return page("Login failed", "This login has expired — run treg login again.", status=404)
    try:
        user = acc.login_user(email)
        logins.cli_approve(acc, user, login_id, form.get("code", [""])[0], form.get("org", [None])[0])
    except ServiceError as exc:
        return page("Login failed", exc.message, status=exc.status)
    return with_session(page("Signed in", "You can close this tab and return to the terminal."), request, user)


async def oauth_signin(request: Request) -> Response:
    provider = request.url.path.rstrip("/").rsplit("/", 1)[-1]
    hint = request.query_params.get("login_hint" if provider == "google" else "login") or \
        f"{provider}-user@{provider}.example"
    state, code = logins.signin_start(accounts_of(request), provider, request.query_params.get("cli", ""), hint)
    target = f"{base_url(request)}/auth/{provider}/callback?code={quote(code)}&state={quote(state)}"
    response = RedirectResponse(target, status_code=302)
    response.set_cookie(f"{model_of(request).settings.relay_name}{STATE_COOKIE_SUFFIX}", state, httponly=True,
                        max_age=600, samesite="lax", path=cookie_path(request))
    return response


async def oauth_signin_callback(request: Request) -> Response:
    provider = request.url.path.rstrip("/").rsplit("/", 2)[-2]
    acc = accounts_of(request)
    cookie = request.cookies.get(f"{acc.model.settings.relay_name}{STATE_COOKIE_SUFFIX}", "")
    try:
        user, login_id = logins.signin_callback(acc, provider, request.query_params.get("code", ""),
                                                request.query_params.get("state", ""), cookie)
    except PermissionError as exc:  # treg answers 400; a state that is not ours is forbidden here
        return page("Login failed", str(exc), status=403)
    except ServiceError as exc:
        return page("Login failed", exc.message, status=exc.status)
    response = RedirectResponse(f"{base_url(request)}/login?cli={login_id}" if login_id else f"{base_url(request)}/app",
                                status_code=302)
    return with_session(response, request, user)


async def me(request: Request) -> Response:
    token, cookie, _ = credentials(request)
    return ok(logins.me(accounts_of(request), token, cookie))


async def logout(request: Request) -> Response:
    if not same_origin(request):
        raise ServiceError(403, "cross-origin logout rejected", code="forbidden")
    response = ok({"ok": True})
    response.delete_cookie(session_cookie(model_of(request)), path=cookie_path(request))
    return response


async def email_start(request: Request) -> Response:
    body = await read_body(request, schemas.EMAIL_START)
    client = request.client.host if request.client else "?"
    return ok(logins.email_start(accounts_of(request), body["email"], request.headers.get("x-forwarded-for", client)))


async def email_verify(request: Request) -> Response:
    body = await read_body(request, schemas.EMAIL_VERIFY)
    acc = accounts_of(request)
    user = logins.email_verify(acc, body["email"], body["code"])
    return with_session(ok({"token": logins.identity_for(acc, user), "email": user.email}), request, user)


async def invite_signin(request: Request) -> Response:
    acc = accounts_of(request)
    link = request.query_params.get("t", "").strip()
    if link:
        invite = invites.by_link(acc, link)
        if invite is None:
            return RedirectResponse(f"{base_url(request)}/?invite_expired=1", status_code=303)
        team = acc.model.teams[invite.team_id]
        form = (f'<form method="post" action="{html.escape(base_url(request))}/auth/invite-signin">'
                f'<input type="hidden" name="t" value="{html.escape(link)}">'
                f'<button type="submit">Continue as {html.escape(invite.email)}</button></form>')
        return page(f"Join {team.name}", f"{invite.invited_by or 'A teammate'} invited {invite.email} as "
                                         f"{invite.role}.", body=form)
    found = invites.by_code(acc, request.query_params.get("code", "").strip())
    if found is None:
        return RedirectResponse(f"{base_url(request)}/?invite_expired=1", status_code=303)
    return RedirectResponse(f"{base_url(request)}/?invite={quote(found.email)}", status_code=303)


async def invite_signin_confirm(request: Request) -> Response:
    acc = accounts_of(request)
    form = parse_qs((await request.body()).decode("utf-8", "replace"))
    invite = invites.by_link(acc, form.get("t", [""])[0].strip())
    if invite is None:
        return RedirectResponse(f"{base_url(request)}/?invite_expired=1", status_code=303)
    try:
        user = acc.login_user(invite.email)
    except ServiceError as exc:
        return page("Account suspended", exc.message, status=403)
    invite.email_token = None  # one sign-in per e-mailed link
    landing = f"{invite.landing}?invite_org={acc.model.teams[invite.team_id].number}" if invite.landing else \
        f"/?invite_org={acc.model.teams[invite.team_id].number}"
    return with_session(RedirectResponse(f"{base_url(request)}{landing}", status_code=303), request, user)


async def cli_token(request: Request) -> Response:
    user = identity(request)
    return ok(logins.cli_token(accounts_of(request), user, request.headers.get(model_of(request).h.org)))


async def revoke_tokens(request: Request) -> Response:
    user = identity(request)
    return with_session(ok(logins.revoke_tokens(accounts_of(request), user)), request, user)


async def users(request: Request) -> Response:
    body = await read_body(request, schemas.USER)
    referral = request.cookies.get(f"{model_of(request).settings.relay_name}_ref")
    return ok(logins.register(accounts_of(request), body["email"], referral))


async def landing(request: Request) -> Response:
    """Where the sign-in flows land a browser (treg's landing page and dashboard are a web app;
    the fake answers a plain page naming the signed-in user and their teams)."""
    acc = accounts_of(request)
    user = acc.session_user(request.cookies.get(session_cookie(acc.model), ""))
    if user is None:
        response = page("The relay", "Sign in from the command line: treg login")
        ref = request.query_params.get("ref", "").strip().lower()
        if ref and REFERRAL_CODE.fullmatch(ref) and set(request.query_params) <= {"ref"}:
            # treg _remember_referral (api.py:2835-2849, 3548-3552): parked until the first team
            response.set_cookie(f"{acc.model.settings.relay_name}_ref", ref, max_age=30 * 86_400, httponly=True,
                                samesite="lax", path=cookie_path(request))
        return response
    teams = ", ".join(m.team.org.slug for m in acc.memberships_of(user)) or "no team yet"
    return page(f"Signed in as {user.email}", f"Teams: {teams}")


ROUTES: list[BaseRoute] = [
    Route("/", landing, methods=["GET"]),
    Route("/app", landing, methods=["GET"]),
    Route("/auth/cli/start", cli_start, methods=["POST"]),
    Route("/auth/cli/poll", cli_poll, methods=["GET"]),
    Route("/auth/cli/orgs", cli_orgs, methods=["GET"]),
    Route("/auth/cli/approve", cli_approve, methods=["POST"]),
    Route("/login", login_page, methods=["GET"]),
    Route("/login", login_submit, methods=["POST"]),
    Route("/auth/github", oauth_signin, methods=["GET"]),
    Route("/auth/google", oauth_signin, methods=["GET"]),
    Route("/auth/github/callback", oauth_signin_callback, methods=["GET"]),
    Route("/auth/google/callback", oauth_signin_callback, methods=["GET"]),
    Route("/auth/me", me, methods=["GET"]),
    Route("/auth/logout", logout, methods=["POST"]),
    Route("/auth/email/start", email_start, methods=["POST"]),
    Route("/auth/email/verify", email_verify, methods=["POST"]),
    Route("/auth/invite-signin", invite_signin, methods=["GET"]),
    Route("/auth/invite-signin", invite_signin_confirm, methods=["POST"]),
    Route("/auth/cli-token", cli_token, methods=["GET"]),
    Route("/auth/revoke-tokens", revoke_tokens, methods=["POST"]),
    Route("/users", users, methods=["POST"]),
]
