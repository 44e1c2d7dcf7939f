"""The control plane's part of every fake's OpenAPI document, merged into the service's own."""

from __future__ import annotations

import copy
from typing import Any

CONTROL_TAG = "control-plane"

_ERROR = {"type": "object", "properties": {"error": {"type": "string"}, "message": {"type": "string"}},
          "required": ["error", "message"]}
_CLOCK = {
    "type": "object",
    "properties": {"now": {"type": "string", "format": "date-time"}, "epoch_ms": {"type": "integer"},
                   "mode": {"type": "string", "enum": ["manual", "real", "scaled"]}, "scale": {"type": "number"}},
    "required": ["now", "epoch_ms", "mode", "scale"],
}
_FAULT_IN: dict[str, Any] = {
    "type": "object",
    "properties": {
        "method": {"type": "string", "description": "HTTP method or * (default)"},
        "path": {"type": "string", "description": "exact path or glob, below the fake's prefix (default *)"},
        "status": {"type": "integer", "minimum": 100, "maximum": 599},
        "headers": {"type": "object", "additionalProperties": {"type": "string"}},
        "body": {"description": "JSON value or text; default: the service's own error body"},
        "latency_ms": {"type": "number", "minimum": 0},
        "times": {"type": "integer", "minimum": 1, "description": "fire for the next N matches (default: always)"},
        "probability": {"type": "number", "minimum": 0, "maximum": 1, "description": "drawn from the seeded RNG"},
        "drop": {"type": "boolean", "description": "cut the connection instead of answering"},
    },
    "additionalProperties": False,
}
_RULE: dict[str, Any] = {
    "type": "object",
    "properties": {"id": {"type": "string"}, "severity": {"type": "string", "enum": ["error", "warning"]},
                   "explanation": {"type": "string"}, "source": {"type": "string"}},
    "required": ["id", "severity", "explanation", "source"],
}
_OFFENCE = {"type": "object", "properties": {
    "method": {"type": "string"}, "path": {"type": "string"}, "query": {"type": "string"},
    "status": {"type": "integer"}, "epoch_ms": {"type": "integer"}, "time": {"type": "string"},
    "seq": {"type": "integer", "description": "the request's journal seq"}, "detail": {"type": "string"}}}
_VERDICTS = {"type": "object", "properties": {
    "verdicts": {"type": "array", "items": {**_RULE, "properties": {
        **_RULE["properties"], "count": {"type": "integer"}, "first": _OFFENCE, "last": _OFFENCE}}},
    "offences": {"type": "integer", "description": "offences over every rule"},
    "rules": {"type": "array", "items": _RULE, "description": "every rule this service declares"},
    "silenced": {"type": "array", "items": {"type": "string"}}},
    "required": ["verdicts", "offences", "rules", "silenced"]}
_FAULT = {"type": "object", "properties": {**_FAULT_IN["properties"], "id": {"type": "string"},
                                           "fired": {"type": "integer"}}}


def json_response_spec(schema: dict[str, Any], description: str = "OK",
                       headers: dict[str, Any] | None = None) -> dict[str, Any]:
    """An OpenAPI response object with a JSON body (what every service document repeats)."""
    response: dict[str, Any] = {"description": description, "content": {"application/json": {"schema": schema}}}
    if headers:
        response["headers"] = headers
    return response


_json = json_response_spec


def _op(summary: str, responses: dict[str, Any], body: dict[str, Any] | None = None) -> dict[str, Any]:
    op: dict[str, Any] = {"tags": [CONTROL_TAG], "summary": summary, "responses": responses}
    if body is not None:
        op["requestBody"] = {"required": True, "content": {"application/json": {"schema": body}}}
    return op


def control_paths() -> dict[str, Any]:
    obj = {"type": "object"}
    return {
        "/_fake/health": {"get": _op("Liveness: the service name and ok", {"200": _json({
            "type": "object", "properties": {"service": {"type": "string"}, "status": {"const": "ok"}},
            "required": ["service", "status"]})})},
        "/_fake/reset": {"post": _op("Back to the initial seeded state, clock included", {"200": _json(obj)})},
        "/_fake/clock": {
            "get": _op("The virtual clock", {"200": _json(_CLOCK)}),
            "post": _op("Move the clock forward", {"200": _json(_CLOCK), "400": _json(_ERROR, "bad body"),
                                                   "409": _json(_ERROR, "would move backwards")},
                        {"type": "object", "properties": {"advance_seconds": {"type": "number", "minimum": 0},
                                                          "set_epoch_ms": {"type": "integer"}}}),
        },
        "/_fake/journal": {
            "get": _op("Requests received, oldest first (bounded ring)", {"200": _json({
                "type": "object", "properties": {"entries": {"type": "array", "items": obj},
                                                 "size": {"type": "integer"}, "total": {"type": "integer"}}})}),
            "delete": _op("Clear the journal", {"200": _json(obj)}),
        },
        "/_fake/faults": {
            "get": _op("Active fault rules", {"200": _json({"type": "object", "properties": {
                "faults": {"type": "array", "items": _FAULT}}})}),
            "post": _op("Register a fault rule", {"201": _json(_FAULT), "400": _json(_ERROR)}, _FAULT_IN),
            "delete": _op("Remove every fault rule", {"200": _json(obj)}),
        },
        "/_fake/faults/{fault_id}": {"delete": {
            **_op("Remove one fault rule", {"200": _json(obj), "404": _json(_ERROR)}),
            "parameters": [{"name": "fault_id", "in": "path", "required": True, "schema": {"type": "string"}}]}},
        "/_fake/state": {
            "get": _op("Export the whole state as JSON", {"200": _json(obj)}),
            "put": _op("Import a state exported by GET", {"200": _json(obj), "400": _json(_ERROR)}, obj),
        },
        "/_fake/verdicts": {
            "get": {**_op("Client rules broken so far, counted outside the journal ring (docs/verdicts.md)", {
                "200": _json(_VERDICTS), "400": _json(_ERROR, "unknown severity")}),
                "parameters": [{"name": "severity", "in": "query", "required": False,
                                "schema": {"type": "string", "enum": ["error", "warning"]}}]},
            "delete": _op("Forget every verdict", {"200": _json(obj)}),
        },
    }


def merge_control_plane(document: dict[str, Any], *, prefix: str = "") -> dict[str, Any]:
    """The service's document plus the shared control-plane paths (a copy; the input is kept)."""
    merged = copy.deepcopy(document)
    merged.setdefault("openapi", "3.0.3")
    paths = merged.setdefault("paths", {})
    for path, item in control_paths().items():
        paths.setdefault(path, item)
    tags = merged.setdefault("tags", [])
    if not any(t.get("name") == CONTROL_TAG for t in tags):
        tags.append({"name": CONTROL_TAG, "description": "The fake's own control plane (not part of the real API)"})
    if prefix:
        merged["servers"] = [{"url": prefix}]
    return merged
