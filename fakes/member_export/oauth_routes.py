"""The OAuth endpoints (``/oauth/v2/...``, the paths LinkedIn serves on www.linkedin.com).

``authorization`` answers in HTML (the consent page, or an error page when the client or the
redirect URL cannot be trusted) and in redirects; ``accessToken`` and ``introspectToken`` take
``application/x-www-form-urlencoded`` bodies and answer JSON, their refusals as
``{"error", "error_description"}``. Every method other than the documented ones gets the same
shapes (405), never the REST API's.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from itertools import islice
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from fakes.kernel.errors import ServiceError
from fakes.kernel.http import json_response
from fakes.kernel.limits import BodyTooLarge

from .consent_page import MAX_LISTED_MEMBERS, consent_page, error_page
from .model import MemberExportModel
from .oauth import AuthorizationPageError, AuthorizationRequest, oauth_error

if TYPE_CHECKING:
    from .served import ServedMemberExport

AUTHORIZATION = "/oauth/v2/authorization"
ACCESS_TOKEN = "/oauth/v2/accessToken"
INTROSPECT = "/oauth/v2/introspectToken"
MAX_FORM_BYTES = 16_384
MAX_FIELD = 4_000
#: the parameters the endpoints read; any other is ignored (as an OAuth server ignores extensions)
KNOWN_FIELDS = frozenset({"response_type", "client_id", "redirect_uri", "scope", "state", "member_id", "decision",
                          "grant_type", "code", "client_secret", "refresh_token", "token"})
FORM = "application/x-www-form-urlencoded"
ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


async def read_form(request: Request) -> dict[str, str]:
    """The urlencoded body as fields: UTF-8, each field once, bounded in size (else 400)."""
    media_type = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if media_type != FORM:
        raise oauth_error(400, "invalid_request", f"The request body must be {FORM}")
    body = bytearray()
    try:  # the kernel refuses a body past the fake's cap (1 MiB) before it is read: its 413, our shape
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_FORM_BYTES:  # a form this large is malformed, not merely large: 400
                raise ServiceError(400, f"The request body is larger than {MAX_FORM_BYTES} bytes",
                                   code="invalid_request", oauth_error="invalid_request",
                                   headers={"Connection": "close"})
    except BodyTooLarge as refused:
        raise ServiceError(413, f"The request body is larger than {refused.cap} bytes", code="invalid_request",
                           oauth_error="invalid_request", headers=refused.headers) from None
    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, errors="strict")
    except (UnicodeDecodeError, ValueError):
        raise oauth_error(400, "invalid_request", "The request body is not a valid UTF-8 form") from None
    return unique_fields(pairs, lambda description: oauth_error(400, "invalid_request", description))


def unique_fields(pairs: Iterable[tuple[str, str]], refuse: Callable[[str], Exception]) -> dict[str, str]:
    """Each known parameter once and of a bounded length (``refuse`` builds the endpoint's own
    refusal); unknown ones are left out."""
    fields: dict[str, str] = {}
    for name, value in pairs:
        if name not in KNOWN_FIELDS:
            continue
        if name in fields:
            raise refuse(f"The parameter {name[:100]} is repeated")
        if len(value) > MAX_FIELD:
            raise refuse(f"The parameter {name[:100]} is longer than {MAX_FIELD} characters")
        fields[name] = value
    return fields


def page_error(status: int, error: str, description: str) -> AuthorizationPageError:
    return AuthorizationPageError(status, error, description)


def _fake(request: Request) -> ServedMemberExport:
    fake: ServedMemberExport = request.scope["app"]  # the fake or world serving the request
    return fake


def oauth_routes() -> list[BaseRoute]:
    """The routes, the same objects for every fake and world of the process: an endpoint finds
    the fake serving it in ``scope["app"]``, so a new world builds none of its own."""
    return list(_oauth_routes())


@functools.cache
def _oauth_routes() -> tuple[BaseRoute, ...]:
    async def authorization(request: Request) -> Response:
        fake = _fake(request)
        model: MemberExportModel = fake.model
        try:
            if request.method == "GET":
                params = unique_fields(request.query_params.multi_items(),
                                       lambda d: page_error(400, "invalid_request", d))
                checked = model.authorization_request(params)
                if isinstance(checked, str):
                    return RedirectResponse(checked, 302)
                bypass = model.bypass_consent(checked)
                if bypass is not None:
                    return RedirectResponse(bypass, 302)
                return HTMLResponse(render_consent(model, checked, request), 200, headers=NO_STORE)
            if request.method != "POST":
                raise page_error(405, "method_not_allowed", f"{request.method} is not supported here; use GET")
            try:
                form = await read_form(request)
            except ServiceError as refused:
                raise AuthorizationPageError(refused.status, "invalid_request", refused.message,
                                             refused.headers) from None
            checked = model.authorization_request(form)
            if isinstance(checked, str):
                return RedirectResponse(checked, 303)
            if "decision" not in form:  # no button pressed: the page again
                return HTMLResponse(render_consent(model, checked, request), 200, headers=NO_STORE)
            return RedirectResponse(model.decide(checked, form.get("member_id"), form["decision"]), 303)
        except AuthorizationPageError as refused:
            headers = {**NO_STORE, **refused.headers, **({"Allow": "GET, POST"} if refused.status == 405 else {})}
            return HTMLResponse(error_page(status=refused.status, error=refused.error,
                                           description=refused.description), refused.status, headers=headers)

    async def access_token(request: Request) -> Response:
        fake = _fake(request)
        require_post(request)
        return json_response(fake.model.exchange(await read_form(request)), 200, NO_STORE)

    async def introspect(request: Request) -> Response:
        fake = _fake(request)
        require_post(request)
        return json_response(fake.model.introspect(await read_form(request)), 200, NO_STORE)

    return (Route(AUTHORIZATION, authorization, methods=ALL_METHODS),
            Route(ACCESS_TOKEN, access_token, methods=ALL_METHODS),
            Route(INTROSPECT, introspect, methods=ALL_METHODS))


def require_post(request: Request) -> None:
    if request.method != "POST":
        raise ServiceError(405, f"{request.method} is not supported; POST a {FORM} body", code="invalid_request",
                           oauth_error="invalid_request", headers={"Allow": "POST"})


def render_consent(model: MemberExportModel, request: AuthorizationRequest, http: Request) -> str:
    signed_in = model.members.get(model.signed_in) if model.signed_in is not None else None
    listed = [] if signed_in is not None else [
        (member.id, member.me.name, member.region) for member in islice(model.members.values(), MAX_LISTED_MEMBERS)]
    return consent_page(
        application=request.application.name, scopes=request.scopes, fields=request.fields(),
        action=http.scope.get("root_path", "") + AUTHORIZATION,
        signed_in=None if signed_in is None else (signed_in.id, signed_in.me.name),
        members=listed, member_count=len(model.members))
