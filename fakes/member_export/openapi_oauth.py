"""OpenAPI of the OAuth endpoints and of the control-plane operations that drive them.

The token endpoint and the introspection endpoint take the application's credentials in the form
(client_secret_post), which OpenAPI cannot express; the two oauth2 schemes below say which
operations check credentials, so a 400 for an unknown client id counts as a refusal of
credentials rather than of a well-formed request (as LinkedIn's pages document it).
"""

from __future__ import annotations

from typing import Any

from fakes.kernel.openapi import CONTROL_TAG, beyond_schema, json_response_spec

from .applications import MAX_NAME, MAX_PRODUCTS, MAX_REDIRECT_URIS, MAX_SCOPES, MAX_URI, PRODUCTS, REDIRECT_URI
from .oauth import MAX_STATE
from .oauth_routes import ACCESS_TOKEN, AUTHORIZATION, FORM, INTROSPECT, MAX_FIELD

Schema = dict[str, Any]
OAUTH_TAG = "oauth"

OAUTH_ERROR: Schema = {
    "type": "object", "properties": {"error": {"type": "string"}, "error_description": {"type": "string"}},
    "required": ["error", "error_description"],
}
HTML = {"text/html": {"schema": {"type": "string"}}}
_TEXT: Schema = {"type": "string", "minLength": 1, "maxLength": MAX_FIELD}
TOKEN_ANSWER: Schema = {
    "type": "object",
    "properties": {"access_token": {"type": "string"}, "expires_in": {"type": "integer"},
                   "scope": {"type": "string", "description": "comma-separated"},
                   "refresh_token": {"type": "string"}, "refresh_token_expires_in": {"type": "integer"}},
    "required": ["access_token", "expires_in", "scope"],
}
INTROSPECTION: Schema = {
    "type": "object",
    "properties": {"active": {"type": "boolean"}, "client_id": {"type": "string"},
                   "authorized_at": {"type": "integer", "description": "epoch seconds"},
                   "created_at": {"type": "integer", "description": "epoch seconds"},
                   "status": {"type": "string", "enum": ["active", "expired", "revoked"]},
                   "expires_at": {"type": "integer", "description": "epoch seconds"},
                   "scope": {"type": "string", "description": "comma-separated"},
                   "auth_type": {"type": "string", "enum": ["3L"]}},
    "required": ["active"],
}
APPLICATION: Schema = {
    "type": "object",
    "properties": {"client_id": {"type": "string"}, "client_secret": {"type": "string"}, "name": {"type": "string"},
                   "redirect_uris": {"type": "array", "items": {"type": "string"}},
                   "scopes": {"type": "array", "items": {"type": "string"}}, "application": {"type": "string"},
                   "refresh_tokens": {"type": "boolean"}, "created_at": {"type": "integer"}},
    "required": ["client_id", "client_secret", "redirect_uris", "scopes", "application"],
}
SECURITY_SCHEMES: Schema = {
    "memberAuthorization": {
        "type": "oauth2", "description": "LinkedIn's 3-legged OAuth (member authorization code flow)",
        "flows": {"authorizationCode": {"authorizationUrl": AUTHORIZATION, "tokenUrl": ACCESS_TOKEN,
                                        "refreshUrl": ACCESS_TOKEN,
                                        "scopes": {"r_dma_portability_self_serve": "the member's own data",
                                                   "r_dma_portability_3rd_party": "the member's data, for an app"}}}},
    "tokenIntrospection": {
        "type": "oauth2", "description": "declares that introspectToken checks the application's credentials "
                                         "(client_id and client_secret in the form; not a token grant)",
        "flows": {"clientCredentials": {"tokenUrl": INTROSPECT, "scopes": {}}}},
}


def _form(properties: Schema, required: list[str]) -> Schema:
    return {"required": True, "content": {FORM: {"schema": {
        "type": "object", "properties": properties, "required": required}}}}


def _oauth_errors(*statuses: int) -> dict[str, Any]:
    return {str(status): json_response_spec(OAUTH_ERROR, "refused") for status in statuses}


def _page(description: str) -> Schema:
    return {"description": description, "content": HTML}


def _redirect(description: str) -> Schema:
    return {"description": description, "headers": {"Location": {"schema": {"type": "string"}}}}


def oauth_paths() -> dict[str, Any]:
    request = {"response_type": {"type": "string", "enum": ["code"]}, "client_id": _TEXT, "redirect_uri": _TEXT,
               "scope": {**_TEXT, "description": "space-separated scopes the application asks for"},
               "state": {"type": "string", "maxLength": 2_000}}
    query = [{"name": name, "in": "query", "required": name != "state", "schema": schema}
             for name, schema in request.items()]
    decision = {**request, "member_id": _TEXT,
                "decision": {"type": "string", "enum": ["allow", "cancel", "cancel_login"]}}
    page_errors = {"400": _page("bad request (error page)"),
                   "401": _page("unknown client_id or redirect_uri not registered (error page, never a redirect)")}
    too_large = {"413": _page("a body past the fake's body cap (1 MiB)")}
    return {
        AUTHORIZATION: {
            "get": {"tags": [OAUTH_TAG], "security": [], "summary": "The member's consent page",
                    "parameters": query,
                    "responses": {"200": _page("the consent page (a form)"),
                                  "302": _redirect("to redirect_uri: a code at once (already authorized), or an "
                                                   "error such as unauthorized_scope_error"), **page_errors}},
            "post": {"tags": [OAUTH_TAG], "security": [], "summary": "The consent form: allow or cancel",
                     "requestBody": _form(decision, ["response_type", "client_id", "redirect_uri", "scope"]),
                     "responses": {"303": _redirect("to redirect_uri with code and state, or with "
                                                    "error=user_cancelled_authorize / user_cancelled_login"),
                                   "200": _page("the consent page again: the form carried no decision"),
                                   **page_errors, **too_large}},
        },
        ACCESS_TOKEN: {"post": {
            "tags": [OAUTH_TAG], "security": [], "summary": "Exchange an authorization code (or a refresh token)",
            "requestBody": _form({"grant_type": {"type": "string", "enum": ["authorization_code", "refresh_token"]},
                                  "code": _TEXT, "redirect_uri": _TEXT, "refresh_token": _TEXT, "client_id": _TEXT,
                                  "client_secret": _TEXT}, ["grant_type", "client_id", "client_secret"]),
            "responses": {"200": json_response_spec(TOKEN_ANSWER, "a new access token"),
                          **_oauth_errors(400, 401, 405, 413)}}},
        INTROSPECT: {"post": {
            "tags": [OAUTH_TAG], "security": [], "summary": "A token's status, lifetime and scopes",
            "requestBody": _form({"token": _TEXT, "client_id": _TEXT, "client_secret": _TEXT},
                                 ["token", "client_id", "client_secret"]),
            "responses": {"200": json_response_spec(INTROSPECTION, "active: false for another application's token"),
                          **_oauth_errors(400, 401, 405, 413)}}},
    }


def _control(summary: str, responses: dict[str, Any], body: Schema | None = None,
             parameters: list[Schema] | None = None) -> Schema:
    op: Schema = {"tags": [CONTROL_TAG], "summary": summary, "responses": responses}
    if body is not None:
        op["requestBody"] = {"required": True, "content": {"application/json": {"schema": body}}}
    if parameters:
        op["parameters"] = parameters
    return op


def oauth_control_paths(control_errors: Any) -> dict[str, Any]:
    """The control-plane operations of applications, signing in, the shortcut and revocation."""
    strings = {"type": "string", "maxLength": MAX_URI}
    url = {"type": "string", "maxLength": MAX_URI, "pattern": f"^{REDIRECT_URI.pattern}$",
           "description": "absolute http(s) URL, ASCII, no # fragment"}
    application_body = {"type": "object", "additionalProperties": False, "required": ["redirect_uris"], "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": MAX_NAME},
        "redirect_uris": {"type": "array", "minItems": 1, "maxItems": MAX_REDIRECT_URIS, "items": url},
        "scopes": {"type": "array", "maxItems": MAX_SCOPES,
                   "items": {"type": "string", "pattern": "^[A-Za-z0-9_.:-]{1,100}$"}},
        "products": {"type": "array", "maxItems": MAX_PRODUCTS, "items": {"type": "string", "enum": list(PRODUCTS)}},
        "client_id": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,100}$"},
        "client_secret": {"type": "string", "pattern": "^[!-~]{1,200}$"},
        "refresh_tokens": {"type": "boolean"}}}
    client_id = {"name": "client_id", "in": "path", "required": True, "schema": {"type": "string"}}
    member_id = {"name": "member_id", "in": "path", "required": True, "schema": {"type": "string"}}
    return {
        "/_fake/applications": {
            "post": _control("Register a developer application (credentials in the answer)",
                             {"201": json_response_spec(APPLICATION, "the application"), **control_errors(400, 409)},
                             application_body),
            "get": _control("Every registered application", {"200": json_response_spec(
                {"type": "object", "properties": {"applications": {"type": "array", "items": APPLICATION}}},
                "the applications"), **control_errors(400)})},
        "/_fake/applications/{client_id}": {"get": _control(
            "One application", {"200": json_response_spec(APPLICATION, "the application"), **control_errors(404)},
            parameters=[client_id])},
        "/_fake/oauth/sign-in": {"post": _control(
            "The member the authorization page takes as signed in (null: the page shows a member picker)",
            {"200": json_response_spec({"type": "object"}, "who is signed in"), **control_errors(400, 404)},
            {"type": "object", "required": ["member_id"], "additionalProperties": False,
             "properties": {"member_id": {"type": "string", "nullable": True}}})},
        "/_fake/oauth/authorize": {"post": {**_control(
            "The member approves an application at once: a code for the token endpoint",
            {"201": json_response_spec({"type": "object", "required": ["code", "redirect_uri", "location"]},
                                       "the code and the redirect"), **control_errors(400, 404)},
            {"type": "object", "required": ["client_id", "member_id"], "additionalProperties": False,
             "properties": {"client_id": {"type": "string"}, "member_id": {"type": "string"},
                            "scope": {**strings, "description": "scopes the application registered (default: all)"},
                            "redirect_uri": {**strings, "description": "one the application registered (default: "
                                                                       "its first)"},
                            "state": {"type": "string", "maxLength": MAX_STATE}}}),
            **beyond_schema("the authorization page's checks: a redirect_uri and scopes the application "
                            "registered (its own record, which no schema here holds)", "redirect_uri", "scope")}},
        "/_fake/members/{member_id}/revoke": {"post": _control(
            "The member removes an application (or all) in their settings: its tokens are revoked",
            {"200": json_response_spec({"type": "object"}, "how many tokens were revoked"),
             **control_errors(400, 404, 409)},
            {"type": "object", "additionalProperties": False, "properties": {"client_id": {"type": "string"}}},
            [member_id])},
    }
