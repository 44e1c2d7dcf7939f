"""The dashboard's operations in every fake's OpenAPI document (tag ``control-plane``)."""

from __future__ import annotations

from typing import Any

from ..openapi import CONTROL_TAG, json_response_spec
from .assets import ASSET_TYPES
from .routes import MAX_IMAGE_PATH, MAX_TOKEN

_ERROR = {"type": "object", "properties": {"error": {"type": "string"}, "message": {"type": "string"}},
          "required": ["error", "message"]}
_LOGIN = {"type": "object", "required": ["token"], "additionalProperties": False,
          "properties": {"token": {"type": "string", "minLength": 1, "maxLength": MAX_TOKEN}}}
_CELL_NOTE = ("a cell is a JSON value, or {time, epoch_ms}, {progress: 0..1, text}, or {image: a path below "
              "the fake's base URL, alt}")
_PANEL = {
    "type": "object", "required": ["kind", "title"],
    "description": "kind table: columns, rows (of cells); timeline: now_ms, lanes [{label, group, spans "
                   "[{start_ms, end_ms, label}]}]; facts: facts [[label, cell]]; error: message. " + _CELL_NOTE,
    "properties": {"kind": {"type": "string", "enum": ["table", "timeline", "facts", "error"]},
                   "title": {"type": "string"}, "note": {"type": "string", "nullable": True}},
}
_PANELS = {"type": "object", "required": ["service", "title", "world", "worlds", "panels"], "properties": {
    "service": {"type": "string"}, "title": {"type": "string"},
    "world": {"type": "string", "nullable": True, "description": "the world's id; null in the default world"},
    "worlds": {"type": "boolean", "description": "whether this fake holds worlds (false inside a world)"},
    "gateway": {"type": "string", "nullable": True,
                "description": "the gateway's root (its list of every fake) when the gateway routed this request"},
    "panels": {"type": "array", "items": _PANEL}}}


def _html(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"text/html": {"schema": {"type": "string"}}}}


def _op(summary: str, responses: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"tags": [CONTROL_TAG], "summary": summary, "responses": responses, **extra}


def dashboard_paths() -> dict[str, Any]:
    return {
        "/_fake/ui": {"get": _op(
            "The dashboard: clock, journal, verdicts, faults, worlds and the service's own panels (docs/dashboard.md)",
            {"200": _html("the page"), "303": {"description": "signed in with ?token=: to the page, cookie set"},
             "401": _html("the login form (the fake has a control token and the request neither)")},
            description="With a control token, the page needs the token once: the login form, or ?token=T in "
                        "the URL (answered with an HttpOnly cookie and a redirect that drops it); the page's "
                        "own requests then pass the control plane's check with that cookie.",
            parameters=[{"name": "token", "in": "query", "required": False,
                         "description": "the control token, once", "schema": {"type": "string"}}])},
        "/_fake/ui/login": {"post": _op(
            "Sign the browser in with the control token (sets the dashboard's cookie)",
            {"303": {"description": "signed in: to the page"}, "400": _html("not one token field"),
             "401": _html("not this fake's control token")},
            requestBody={"required": True, "content": {"application/x-www-form-urlencoded": {"schema": _LOGIN},
                                                       "application/json": {"schema": _LOGIN}}})},
        "/_fake/ui/assets/{name}": {"get": _op(
            "The dashboard's script and style sheet (served by the fake itself, nothing from elsewhere)",
            {"200": {"description": "the file", "content": {"text/javascript": {"schema": {"type": "string"}},
                                                            "text/css": {"schema": {"type": "string"}}}},
             "404": json_response_spec(_ERROR, "no such asset")},
            parameters=[{"name": "name", "in": "path", "required": True,
                         "schema": {"type": "string", "enum": sorted(ASSET_TYPES)}}])},
        "/_fake/ui/image": {"get": _op(
            "A picture the service serves (a panel's image cell), fetched from its own route without a "
            "journal entry, a fault or a verdict",
            {"200": {"description": "the picture", "content": {"image/*": {"schema": {"type": "string",
                                                                                     "format": "binary"}}}},
             "400": json_response_spec(_ERROR, "not a path"),
             "404": json_response_spec(_ERROR, "no picture there")},
            parameters=[{"name": "path", "in": "query", "required": True, "description": "below the fake's base URL",
                         "schema": {"type": "string", "maxLength": MAX_IMAGE_PATH, "pattern": "^[^?]*$"}}])},
        "/_fake/ui/panels": {"get": _op(
            "The service's own dashboard panels: titled tables, timelines and facts read from its state",
            {"200": json_response_spec(_PANELS), "401": json_response_spec(_ERROR, "no control token")})},
    }
