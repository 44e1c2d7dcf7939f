"""LinkedIn's 3-legged OAuth on the virtual clock: consent, authorization codes, the token endpoint
(authorization codes and programmatic refresh tokens) and token introspection.

The facts and the error codes come from LinkedIn's pages on learn.microsoft.com (LinkedIn shared
authentication): "Authorization Code Flow" (parameters, the 30-minute code, the ``user_cancelled_*``
redirects, the accessToken error table, "a different scope invalidates the previous tokens"),
"Programmatic Refresh Tokens" (a refresh token's lifetime is fixed at authorization) and "Token
Introspection" (fields in epoch seconds, 400 for an unknown client or token, 401 for a wrong
secret, ``active: false`` for another application's token). Where they are silent the choice is
documented in docs/services/member-export.md ("OAuth").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from fakes.kernel.errors import ServiceError

from .applications import Application, new_application
from .auth_codes import AuthorizationCode, AuthorizationCodes, Redemption
from .members import Clock, Member, control_error
from .settings import MemberExportSettings
from .tokens import MAX_TOKEN, RefreshToken, Token, mint, scope_list, scope_set

MAX_STATE = 2_000
MAX_PARAMETER = 2_000
UNKNOWN_CODE = "Unable to retrieve access token: authorization code not found"
CODE_MISMATCH = ("Unable to retrieve access token: appid/redirect uri/code verifier does not match authorization "
                 "code. Or authorization code expired. Or external member binding exists")
BAD_REFRESH = "The provided authorization grant or refresh token is invalid, expired or revoked"
CANCELLED = {"cancel": ("user_cancelled_authorize", "The user cancelled the authorization"),
             "cancel_login": ("user_cancelled_login", "The user cancelled LogIn")}


def oauth_error(status: int, error: str, description: str) -> ServiceError:
    """A refusal of an OAuth endpoint, rendered as ``{"error", "error_description"}``."""
    return ServiceError(status, description, code=error, oauth_error=error)


def missing(name: str) -> ServiceError:
    return oauth_error(400, "invalid_request", f'A required parameter "{name}" is missing')


class AuthorizationPageError(Exception):
    """What the authorization page shows instead of redirecting (the redirect URL cannot be trusted)."""

    def __init__(self, status: int, error: str, description: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(description)
        self.status, self.error, self.description = status, error, description
        self.headers = headers or {}


@dataclass
class AuthorizationRequest:
    application: Application
    redirect_uri: str
    scopes: list[str]
    state: str | None

    def redirect(self, **params: str) -> str:
        """The redirect URL with ``params`` (and the caller's state) appended."""
        query = dict(params)
        if self.state is not None:
            query["state"] = self.state
        joiner = "&" if "?" in self.redirect_uri else "?"
        return f"{self.redirect_uri}{joiner}{urlencode(query)}"

    def fields(self) -> dict[str, str]:
        """The request as the consent form posts it back."""
        fields = {"response_type": "code", "client_id": self.application.client_id,
                  "redirect_uri": self.redirect_uri, "scope": " ".join(self.scopes)}
        if self.state is not None:
            fields["state"] = self.state
        return fields


class OAuthFlows:
    """The OAuth half of :class:`~fakes.member_export.model.MemberExportModel`."""

    clock: Clock
    settings: MemberExportSettings
    seed: int
    epoch: int
    members: dict[str, Member]
    tokens: dict[str, Token]
    counters: dict[str, int]
    applications: dict[str, Application]
    codes: AuthorizationCodes
    refresh_tokens: dict[str, RefreshToken]
    signed_in: str | None

    # provided by the model
    def member(self, member_id: Any) -> Member:
        raise NotImplementedError

    def start_archiving(self, member: Member) -> None:
        raise NotImplementedError

    def is_eligible(self, member: Member) -> bool:
        raise NotImplementedError

    def _next(self, counter: str) -> int:
        number = self.counters[counter]
        self.counters[counter] = number + 1
        return number

    # -- applications and the signed-in member (control plane) ----------------------------------
    def register_application(self, body: dict[str, Any]) -> dict[str, Any]:
        application = new_application(
            body, number=self.counters["applications"], seed=self.seed, now_ms=self.clock.now_ms(),
            default_scope=self.settings.scope, default_refresh_tokens=self.settings.refresh_tokens,
            taken=self.applications)
        self._next("applications")
        self.applications[application.client_id] = application
        return application.describe()

    def application(self, client_id: Any) -> Application:
        found = self.applications.get(client_id) if isinstance(client_id, str) else None
        if found is None:
            raise control_error(404, f"no application with client_id {client_id!r}", "unknown_application")
        return found

    def sign_in(self, member_id: Any) -> dict[str, Any]:
        """The member the authorization page treats as signed in (None: nobody, the page asks)."""
        self.signed_in = None if member_id is None else self.member(member_id).id
        return {"signed_in": self.signed_in}

    # -- GET /oauth/v2/authorization -------------------------------------------------------------
    def authorization_request(self, params: Mapping[str, str]) -> AuthorizationRequest | str:
        """The checked request, or the URL to redirect to when only the scope is wrong; a request
        whose client or redirect URL cannot be trusted raises :class:`AuthorizationPageError`."""
        for name, value in params.items():
            if len(value) > (MAX_STATE if name == "state" else MAX_PARAMETER):
                raise AuthorizationPageError(400, "invalid_request", f"The parameter {name} is too long")
        client_id = params.get("client_id")
        if not client_id:
            raise AuthorizationPageError(400, "invalid_request", 'A required parameter "client_id" is missing')
        application = self.applications.get(client_id)
        if application is None:
            raise AuthorizationPageError(401, "invalid_client_id",
                                         "The client_id does not match any registered application")
        redirect_uri = params.get("redirect_uri")
        if not redirect_uri:
            raise AuthorizationPageError(400, "invalid_request", 'A required parameter "redirect_uri" is missing')
        if not application.allows_redirect(redirect_uri):
            raise AuthorizationPageError(401, "invalid_redirect_uri",
                                         "The redirect_uri does not match the redirect URLs registered for "
                                         "this application")
        if params.get("response_type") != "code":
            raise AuthorizationPageError(400, "unsupported_response_type",
                                         'The response_type must be "code" (only the authorization code flow '
                                         "is supported)")
        request = AuthorizationRequest(application, redirect_uri, [], params.get("state"))
        requested = list(dict.fromkeys(params.get("scope", "").split()))
        if not requested:
            return request.redirect(error="invalid_request",
                                    error_description='A required parameter "scope" is missing')
        for scope in requested:
            if scope not in application.scopes:
                # LinkedIn's description HTML-escapes the quotes; clients match on it as sent
                return request.redirect(error="unauthorized_scope_error",
                                        error_description=f"Scope &quot;{scope}&quot; is not authorized for your "
                                                          "application")
        request.scopes = requested
        return request

    def bypass_consent(self, request: AuthorizationRequest) -> str | None:
        """The redirect with a fresh code when the signed-in member already granted these scopes and
        holds a valid token (LinkedIn skips its consent screen then); None: show the page."""
        if self.signed_in is None:
            return None
        now, wanted = self.clock.now_ms(), set(request.scopes)
        for token in self.tokens.values():
            if (token.member_id == self.signed_in and token.client_id == request.application.client_id
                    and not token.revoked and now < token.expires_ms and wanted <= token.scopes):
                return self.decide(request, self.signed_in, "allow")
        return None

    def decide(self, request: AuthorizationRequest, member_id: Any, decision: str) -> str:
        """The member's answer on the consent page: the redirect URL with a code or LinkedIn's error."""
        if decision in CANCELLED:
            error, description = CANCELLED[decision]
            return request.redirect(error=error, error_description=description)
        if decision != "allow":
            raise AuthorizationPageError(400, "invalid_request", "The decision must be allow, cancel or cancel_login")
        member = self.members.get(member_id) if isinstance(member_id, str) else None
        if member is None:
            raise AuthorizationPageError(400, "invalid_request", "Pick the member who signs in")
        return request.redirect(code=self._issue_code(request, member))

    def _issue_code(self, request: AuthorizationRequest, member: Member) -> str:
        now = self.clock.now_ms()
        value = mint(self.seed, self.epoch, "code", self._next("codes"))
        self.codes.add(value, AuthorizationCode(
            client_id=request.application.client_id, member_id=member.id, redirect_uri=request.redirect_uri,
            scope=",".join(request.scopes), issued_ms=now,
            expires_ms=now + self.settings.authorization_code_lifetime_s * 1000), now)
        return value

    def authorize(self, client_id: Any, member_id: Any, *, scope: Any = None, redirect_uri: Any = None,
                  state: Any = None) -> dict[str, Any]:
        """The control-plane shortcut: the member approves at once; the code and the redirect URL."""
        application = self.application(client_id)
        params = {"response_type": "code", "client_id": application.client_id,
                  "redirect_uri": application.redirect_uris[0] if redirect_uri is None else redirect_uri,
                  "scope": " ".join(application.scopes) if scope is None else scope}
        if state is not None:
            params["state"] = state
        for name, value in params.items():
            if not isinstance(value, str):
                raise control_error(400, f"'{name}' must be a string", "invalid_authorization")
        member = self.member(member_id)
        try:
            request = self.authorization_request(params)
        except AuthorizationPageError as refused:
            raise control_error(400, refused.description, refused.error) from None
        if isinstance(request, str):
            raise control_error(400, f"the authorization page would refuse this request: {request}",
                                "invalid_authorization")
        code = self._issue_code(request, member)
        return {"code": code, "redirect_uri": request.redirect_uri, "location": request.redirect(code=code)}

    # -- POST /oauth/v2/accessToken --------------------------------------------------------------
    def client(self, form: Mapping[str, str]) -> Application:
        """The application the form's credentials authenticate (client_secret_post)."""
        client_id, secret = form.get("client_id"), form.get("client_secret")
        if not client_id:
            raise missing("client_id")
        if not secret:
            raise missing("client_secret")
        application = self.applications.get(client_id)
        if application is None:
            raise oauth_error(400, "invalid_client_id", f'The passed in client_id is invalid "{client_id}"')
        if secret != application.client_secret:
            raise oauth_error(401, "invalid_client", "Client authentication failed")
        return application

    def exchange(self, form: Mapping[str, str]) -> dict[str, Any]:
        grant_type = form.get("grant_type")
        if not grant_type:
            raise missing("grant_type")
        if grant_type not in ("authorization_code", "refresh_token", "client_credentials"):
            raise oauth_error(400, "unsupported_grant_type", f"The grant type {grant_type[:100]} is not supported")
        application = self.client(form)
        if grant_type == "client_credentials":
            raise oauth_error(401, "access_denied", "This application is not allowed to create application tokens")
        if grant_type == "refresh_token":
            return self._refresh(application, form)
        value, redirect_uri = form.get("code"), form.get("redirect_uri")
        if not value:
            raise missing("code")
        if not redirect_uri:
            raise missing("redirect_uri")
        now = self.clock.now_ms()
        redeemed = self.codes.redeem(value, application.client_id, redirect_uri, now)
        if redeemed is Redemption.UNKNOWN:
            raise oauth_error(401, "invalid_request", UNKNOWN_CODE)
        if isinstance(redeemed, Redemption):
            raise oauth_error(400, "invalid_redirect_uri", CODE_MISMATCH)
        member = self.members[redeemed.member_id]
        self._revoke_other_scopes(member.id, application.client_id, redeemed.scope)
        answer = self._access_token(member, application, redeemed.scope, redeemed.issued_ms)
        if application.refresh_tokens:
            refresh = RefreshToken(member.id, application.client_id, redeemed.scope, now,
                                   now + self.settings.refresh_token_lifetime_s * 1000, redeemed.issued_ms)
            refresh_value = mint(self.seed, self.epoch, "refresh", self._next("refresh_tokens"))
            self.refresh_tokens[refresh_value] = refresh
            answer.update(refresh_token=refresh_value, refresh_token_expires_in=self.settings.refresh_token_lifetime_s)
        if self.settings.archive_on_consent and self.is_eligible(member):
            self.start_archiving(member)
        return answer

    def _refresh(self, application: Application, form: Mapping[str, str]) -> dict[str, Any]:
        value = form.get("refresh_token")
        if not value:
            raise missing("refresh_token")
        refresh = self.refresh_tokens.get(value)
        now = self.clock.now_ms()
        if (refresh is None or refresh.revoked or now >= refresh.expires_ms
                or refresh.client_id != application.client_id or not application.refresh_tokens):
            raise oauth_error(400, "invalid_request", BAD_REFRESH)
        answer = self._access_token(self.members[refresh.member_id], application, refresh.scope,
                                    refresh.authorized_ms)
        answer.update(refresh_token=value, refresh_token_expires_in=(refresh.expires_ms - now) // 1000)
        return answer

    def _access_token(self, member: Member, application: Application, scope: str,
                      authorized_ms: int) -> dict[str, Any]:
        now, lifetime = self.clock.now_ms(), self.settings.token_lifetime_s
        value = mint(self.seed, self.epoch, "access", self._next("tokens"))
        self.tokens[value] = Token(member.id, application.urn, now, now + lifetime * 1000, scope,
                                   client_id=application.client_id, authorized_ms=authorized_ms)
        return {"access_token": value, "expires_in": lifetime, "scope": scope}

    def _revoke_other_scopes(self, member_id: str, client_id: str, scope: str) -> None:
        """LinkedIn: requesting other scopes than before invalidates the previous access tokens."""
        wanted = scope_set(scope)
        for token in self.tokens.values():
            if token.member_id == member_id and token.client_id == client_id and token.scopes != wanted:
                token.revoked = True
        for refresh in self.refresh_tokens.values():
            if refresh.member_id == member_id and refresh.client_id == client_id and scope_set(refresh.scope) != wanted:
                refresh.revoked = True

    # -- POST /oauth/v2/introspectToken ----------------------------------------------------------
    def introspect(self, form: Mapping[str, str]) -> dict[str, Any]:
        value = form.get("token")
        if not value:
            raise missing("token")
        application = self.client(form)
        token = self.tokens.get(value) if len(value) <= MAX_TOKEN else None
        if token is None:
            raise oauth_error(400, "invalid_request", "The provided token is invalid")
        if token.client_id != application.client_id:
            return {"active": False}  # valid credentials, another application's token: nothing more
        now = self.clock.now_ms()
        status = "revoked" if token.revoked else "expired" if now >= token.expires_ms else "active"
        return {"active": status == "active", "client_id": application.client_id,
                "authorized_at": (token.authorized_ms if token.authorized_ms is not None else token.issued_ms) // 1000,
                "created_at": token.issued_ms // 1000, "status": status, "expires_at": token.expires_ms // 1000,
                "scope": ",".join(scope_list(token.scope)),
                "auth_type": "3L"}

    # -- revocation (control plane: the member removes the app in their settings) -----------------
    def revoke(self, member_id: Any, client_id: Any = None) -> dict[str, Any]:
        member = self.member(member_id)
        if client_id is not None and (not isinstance(client_id, str) or client_id not in self.applications):
            # the member exists (a 404 here would say it does not): the application is what is missing
            raise control_error(409, f"no application with client_id {client_id!r}", "unknown_application")
        revoked = 0
        items: list[Token | RefreshToken] = [*self.tokens.values(), *self.refresh_tokens.values()]
        for item in items:
            if item.member_id == member.id and (client_id is None or item.client_id == client_id) and not item.revoked:
                item.revoked = True
                revoked += 1
        return {"member_id": member.id, "client_id": client_id, "revoked": revoked}

