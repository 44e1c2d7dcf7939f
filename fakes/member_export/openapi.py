"""OpenAPI 3.0 document of the fake: the public API plus this service's control-plane additions.

Accurate enough to validate every answer against (schemathesis runs with response-schema
conformance): each status the fake can give is listed with its body schema. The kernel merges
the shared control-plane paths (/_fake/health, /_fake/clock, ...) into it.
"""

from __future__ import annotations

from typing import Any

from fakes.kernel.openapi import json_response_spec

from .action_plan import MAX_CONTACT, MAX_DELAY_S, MAX_ITEM, MAX_TEXT, MAX_URN, METHODS, REACTIONS, RESOURCE_NAMES
from .actions import ACTIONS, DETAILS
from .domains import CATALOGUE, SERVED_DOMAINS
from .members import MAX_DOMAIN_SIZE, MAX_NAME, MAX_SECONDS
from .openapi_oauth import OAUTH_TAG, SECURITY_SCHEMES, oauth_control_paths, oauth_paths
from .profile_actions import MAX_NAME as MAX_PROFILE_TEXT
from .profile_actions import PROFICIENCIES
from .routes import MAX_EPOCH_MS, MAX_START
from .settings import MemberExportSettings

Schema = dict[str, Any]

ERROR: Schema = {
    "type": "object",
    "description": "The service's error shape; code is present where the real service has one.",
    "properties": {
        "status": {"type": "integer"},
        "serviceErrorCode": {"type": "integer"},
        "code": {"type": "string"},
        "message": {"type": "string"},
    },
    "required": ["status", "serviceErrorCode", "message"],
}
CONTROL_ERROR: Schema = {
    "type": "object", "properties": {"error": {"type": "string"}, "message": {"type": "string"}},
    "required": ["error", "message"],
}
LINK: Schema = {
    "type": "object",
    "properties": {"type": {"type": "string"}, "rel": {"type": "string", "enum": ["prev", "next"]},
                   "href": {"type": "string"}},
    "required": ["type", "rel", "href"],
}
FINDER_PAGING: Schema = {
    "type": "object",
    "properties": {"start": {"type": "integer"}, "count": {"type": "integer"},
                   "links": {"type": "array", "items": LINK}},
    "required": ["start", "count", "links"],
}
SNAPSHOT_PAGE: Schema = {
    "type": "object",
    "properties": {
        "paging": {
            "type": "object",
            "properties": {
                "start": {"type": "integer", "minimum": 0},
                "count": {"type": "integer", "description": "records per page"},
                "links": {"type": "array", "items": LINK},
                "total": {"type": "integer", "minimum": 0,
                          "description": "UNRELIABLE, as documented: never use it to end paging"},
            },
            "required": ["start", "count", "links", "total"],
        },
        "elements": {
            "type": "array", "minItems": 1, "maxItems": 1,
            "items": {
                "type": "object",
                "properties": {
                    "snapshotDomain": {"type": "string", "enum": list(SERVED_DOMAINS)},
                    "snapshotData": {
                        "type": "array", "minItems": 1,
                        "items": {"type": "object", "additionalProperties": {"type": "string"},
                                  "description": "one CSV-style row, column names as in the member's export"},
                    },
                },
                "required": ["snapshotDomain", "snapshotData"],
            },
        },
    },
    "required": ["paging", "elements"],
}
EVENT: Schema = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "capturedAt": {"type": "integer"},
        "processedAt": {"type": "integer"},
        "configVersion": {"type": "integer"},
        "owner": {"type": "string"},
        "actor": {"type": "string", "description": "differs from owner for inbound messages"},
        "resourceName": {"type": "string", "enum": list(RESOURCE_NAMES)},
        "resourceId": {"type": "string"},
        "resourceUri": {"type": "string"},
        "method": {"type": "string", "enum": list(METHODS)},
        "methodName": {"type": "string", "description": "only for method ACTION, e.g. verifyAndCreate"},
        "activity": {"type": "object"},
        "processedActivity": {"type": "object"},
        "siblingActivities": {"type": "array", "items": {"type": "object"}},
        "parentSiblingActivities": {"type": "array", "items": {"type": "object"}},
        "activityId": {"type": "string"},
        "activityStatus": {"type": "string", "enum": ["SUCCESS", "FAILURE", "SUCCESSFUL_REPLAY"]},
    },
    "required": ["id", "capturedAt", "processedAt", "configVersion", "owner", "actor", "resourceName", "resourceId",
                 "resourceUri", "method", "activity", "activityId", "activityStatus"],
}
AUTHORIZATION: Schema = {
    "type": "object",
    "properties": {
        "memberComplianceAuthorizationKey": {
            "type": "object",
            "properties": {"developerApplication": {"type": "string"}, "member": {"type": "string"}},
            "required": ["developerApplication", "member"],
        },
        "regulatedAt": {"type": "integer", "description": "epoch ms since which activity is archived"},
        "memberComplianceScopes": {"type": "array", "items": {"type": "string", "enum": ["DMA"]}},
    },
    "required": ["memberComplianceAuthorizationKey", "regulatedAt", "memberComplianceScopes"],
}
def _per_domain(value: Schema, description: str) -> Schema:
    return {"type": "object", "description": description, "additionalProperties": False,
            "properties": {spec.name: value for spec in CATALOGUE}}


SIZES = _per_domain({"type": "integer", "minimum": 0, "maximum": MAX_DOMAIN_SIZE},
                    "records per domain (the default is drawn from the seed)")
BUILD_TIMES = _per_domain({"type": "number", "minimum": 0, "maximum": MAX_SECONDS},
                          "seconds from consent until the domain is built")
TOKEN: Schema = {
    "type": "object",
    "properties": {"access_token": {"type": "string"}, "expires_in": {"type": "integer"},
                   "scope": {"type": "string"}},
    "required": ["access_token", "expires_in", "scope"],
}


EXPIRES_IN: Schema = {"type": "integer", "minimum": 0, "maximum": MAX_SECONDS,
                      "description": "token lifetime in seconds (default: the token_lifetime_s setting)"}
_DETAIL_SCHEMAS: dict[str, Schema] = {
    "contact": {"type": "integer", "minimum": 0, "maximum": MAX_CONTACT,
                "description": "index of the other person, 0 = the newest connection (404 if the member has "
                               "fewer contacts)"},
    "text": {"type": "string", "maxLength": MAX_TEXT},
    "message": {"type": "string", "maxLength": MAX_TEXT, "description": "the invitation note"},
    "post_urn": {"type": "string", "pattern": "^urn:li:", "maxLength": MAX_URN},
    "reaction": {"type": "string", "enum": list(REACTIONS)},
    "delay_s": {"type": "integer", "minimum": 0, "maximum": MAX_DELAY_S,
                "description": "seconds until the event is visible in the changelog"},
    "item": {"type": "string", "minLength": 1, "maxLength": MAX_ITEM,
             "description": "the item an earlier action answered (default: the latest of its kind; 404 if none)"},
    "first_name": {"type": "string", "maxLength": MAX_PROFILE_TEXT},
    "last_name": {"type": "string", "maxLength": MAX_PROFILE_TEXT},
    "headline": {"type": "string", "maxLength": MAX_PROFILE_TEXT},
    "summary": {"type": "string", "maxLength": 2_000},
    "language": {"type": "string", "maxLength": MAX_PROFILE_TEXT},
    "proficiency": {"type": "string", "enum": list(PROFICIENCIES)},
    "skill": {"type": "string", "maxLength": MAX_PROFILE_TEXT},
    "title": {"type": "string", "maxLength": 500},
    "name": {"type": "string", "maxLength": MAX_PROFILE_TEXT},
    "starts_at": {"type": "integer", "minimum": 0, "maximum": 2**53 - 1, "description": "epoch ms"},
    "description": {"type": "string", "maxLength": MAX_TEXT},
}


def _action_variant(action: str) -> Schema:
    properties = {"action": {"type": "string", "enum": [action]}}
    properties.update({name: _DETAIL_SCHEMAS[name] for name in sorted(DETAILS[action])})
    return {"type": "object", "required": ["action"], "additionalProperties": False, "properties": properties}


_json = json_response_spec


def _errors(*statuses: int) -> dict[str, Any]:
    meaning = {
        400: "bad parameter (wrong q, non-integer or negative number, unknown domain, EVENTS, count out of 1..50)",
        401: "missing, unknown (INVALID_ACCESS_TOKEN) or expired (EXPIRED_ACCESS_TOKEN) token",
        403: "ACCESS_DENIED: member outside the EU/EEA and Switzerland, or token without the scope",
        404: "No data found for this memberId: domain not built yet, or start past the last page",
        426: "NONEXISTENT_VERSION: version header absent or not the accepted value",
        429: "TOO_MANY_REQUESTS: a daily limit of the application or the member (settings) is reached",
    }
    return {str(s): _json(ERROR, meaning[s]) for s in statuses}


def _control_errors(*statuses: int) -> dict[str, Any]:
    return {str(s): _json(CONTROL_ERROR, "refused") for s in statuses}


def _query(name: str, schema: Schema, description: str, *, required: bool = False) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": required, "schema": schema, "description": description}


def _member_path_param() -> dict[str, Any]:
    return {"name": "member_id", "in": "path", "required": True, "schema": {"type": "string"}}


def _control_op(summary: str, responses: dict[str, Any], body: Schema | None = None,
                parameters: list[dict[str, Any]] | None = None, *, required: bool = False) -> dict[str, Any]:
    op: dict[str, Any] = {"tags": ["control-plane"], "summary": summary, "responses": responses}
    if body is not None:
        op["requestBody"] = {"required": required, "content": {"application/json": {"schema": body}}}
    if parameters:
        op["parameters"] = parameters
    return op


def openapi_document(settings: MemberExportSettings, title: str) -> dict[str, Any]:
    version = {
        "name": settings.version_header, "in": "header", "required": True,
        "schema": {"type": "string", "enum": [settings.accepted_version]},
        "description": f"{settings.accepted_version} is the only accepted value; absent or any other value "
                       "answers 426 NONEXISTENT_VERSION",
    }
    common_errors = (401, 403, 426, 429)
    snapshot = {
        "summary": "A page of the member's data of one domain (or of all built domains)",
        "description": "Page with start=0,1,2,... until the answer is 404 'No data found'. The envelope's "
                       "total is unreliable by design.",
        "parameters": [
            version,
            _query("q", {"type": "string", "enum": ["criteria"]}, "finder name", required=True),
            _query("domain", {"type": "string", "enum": list(SERVED_DOMAINS)},
                   "case-sensitive domain; absent: all built domains in build order. EVENTS is listed by the "
                   "real service but answers 400 'not supported', so it is not an accepted value here"),
            _query("start", {"type": "integer", "format": "int32", "minimum": 0, "maximum": MAX_START, "default": 0},
                   "page index, 0-based"),
        ],
        "responses": {"200": _json(SNAPSHOT_PAGE, "a page"), **_errors(400, 404, *common_errors)},
    }
    changelog = {
        "summary": "The member's actions since consent, oldest first (kept 28 days)",
        "description": "startTime is inclusive: reuse the latest processedAt as the next startTime and "
                       "de-duplicate on id. A startTime older than 28 days is clamped to 28 days.",
        "parameters": [
            version,
            _query("q", {"type": "string", "enum": ["memberAndApplication"]}, "finder name", required=True),
            _query("startTime", {"type": "integer", "format": "int64", "minimum": 0, "maximum": MAX_EPOCH_MS},
                   "epoch ms, inclusive"),
            _query("count", {"type": "integer", "minimum": 1, "maximum": settings.changelog_max_count,
                             "default": settings.changelog_default_count}, "events per answer"),
        ],
        "responses": {"200": _json({"type": "object", "properties": {
            "elements": {"type": "array", "items": EVENT}, "paging": FINDER_PAGING},
            "required": ["elements", "paging"]}, "events"), **_errors(400, *common_errors)},
    }
    authorizations = {
        "get": {
            "summary": "Whether changelog archiving is on and since when",
            "parameters": [version, _query("q", {"type": "string", "enum": ["memberAndApplication"]},
                                           "finder name", required=True)],
            "responses": {"200": _json({"type": "object", "properties": {
                "elements": {"type": "array", "maxItems": 1, "items": AUTHORIZATION}, "paging": FINDER_PAGING},
                "required": ["elements", "paging"]}, "zero or one record"), **_errors(400, *common_errors)},
        },
        "post": {
            "summary": "Start changelog archiving and the snapshot builds (idempotent)",
            "parameters": [version],
            "requestBody": {"required": False, "description": "an empty JSON object",
                            "content": {"application/json": {"schema": {"type": "object"}}}},
            "responses": {"201": {"description": "archiving is on (no body)"}, **_errors(400, *common_errors)},
        },
    }
    member_body = {
        "type": "object", "additionalProperties": False,
        "properties": {
            "region": {"type": "string", "pattern": "^[A-Za-z][A-Za-z]$", "minLength": 2, "maxLength": 2,
                       "description": f"profile location (default {settings.default_region})"},
            "name": {"type": "string", "minLength": 1, "maxLength": MAX_NAME, "description": "\"First Last\""},
            "sizes": SIZES,
            "build_times": BUILD_TIMES,
        },
    }
    member_created = {"type": "object", "properties": {
        "id": {"type": "string"}, "urn": {"type": "string"}, "name": {"type": "string"},
        "region": {"type": "string"}, "eligible": {"type": "boolean"}, **TOKEN["properties"],
        "sizes": {"type": "object", "additionalProperties": {"type": "integer"}},
        "build_times": {"type": "object", "additionalProperties": {"type": "number"}},
    }, "required": ["id", "urn", "access_token", "expires_in"]}
    action_body = {"oneOf": [_action_variant(action) for action in ACTIONS]}
    action_result = {"type": "object", "properties": {
        "action": {"type": "string"},
        "domain": {"type": "string", "nullable": True, "description": "the snapshot domain touched, if any"},
        "record": {"type": "object", "nullable": True, "additionalProperties": {"type": "string"},
                   "description": "the row added, changed or removed (null: no snapshot change)"},
        "item": {"type": "string", "nullable": True, "description": "what later edits and deletions name"},
        "event": {**EVENT, "nullable": True, "description": "null while the member has not consented"},
        "visible_at": {"type": "integer", "nullable": True},
    }, "required": ["action", "domain", "record", "item", "event", "visible_at"]}
    for operation in (snapshot, changelog, *authorizations.values()):
        operation["security"] = [{"bearer": []}]  # the control plane below needs none
    return {
        "openapi": "3.0.3",
        "info": {"title": title, "version": settings.accepted_version,
                 "description": "Stateful fake of a member data export (portability) API."},
        "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer",
                                                      "description": "member access token (3-legged OAuth)"},
                                           **SECURITY_SCHEMES}},
        "tags": [{"name": OAUTH_TAG, "description": "LinkedIn's OAuth endpoints (www.linkedin.com/oauth/v2)"}],
        "paths": {
            **oauth_paths(),
            "/rest/memberSnapshotData": {"get": snapshot},
            "/rest/memberChangeLogs": {"get": changelog},
            "/rest/memberAuthorizations": authorizations,
            "/_fake/members": {"post": _control_op(
                "Create a member (with an access token; consent is separate)",
                {"201": _json(member_created, "the member and its first token"), **_control_errors(400)},
                member_body)},
            "/_fake/members/{member_id}": {"get": _control_op(
                "A member's sizes, build instants and current record counts",
                {"200": _json({"type": "object"}, "the member"), **_control_errors(404)},
                parameters=[_member_path_param()])},
            "/_fake/members/{member_id}/consent": {"post": _control_op(
                "The member consents (archiving starts if off) and gets a new token",
                {"200": _json({"type": "object", "properties": {
                    "member_id": {"type": "string"}, "regulatedAt": {"type": "integer"}, **TOKEN["properties"]},
                    "required": ["member_id", "regulatedAt", "access_token", "expires_in"]}, "consented"),
                 **_control_errors(400, 404, 409)},
                {"type": "object", "additionalProperties": False, "properties": {"expires_in": EXPIRES_IN}},
                [_member_path_param()])},
            "/_fake/members/{member_id}/actions": {"post": _control_op(
                "The member acts now (message, comment, reaction, post, invitation)",
                {"201": _json(action_result, "the record added and the event it produces"),
                 **_control_errors(400, 404)},
                action_body, [_member_path_param()], required=True)},
            "/_fake/tokens": {"post": _control_op(
                "Issue another access token for a member",
                {"201": _json(TOKEN, "the token"), **_control_errors(400, 404)},
                {"type": "object", "required": ["member_id"], "additionalProperties": False,
                 "properties": {"member_id": {"type": "string"}, "expires_in": EXPIRES_IN,
                                "scope": {"type": "string", "maxLength": 500},
                                "client_id": {"type": "string", "description": "a registered application "
                                              "(default: the member's built-in one)"}}}, required=True)},
            **oauth_control_paths(_control_errors),
        },
    }
