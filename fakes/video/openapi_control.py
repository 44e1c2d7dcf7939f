"""The video fake's additions to the control plane in its OpenAPI document (the kernel adds its own)."""

from __future__ import annotations

from typing import Any

from fakes.kernel.openapi import ACCEPTANCE_BEYOND_SCHEMA, CONTROL_TAG, json_response_spec

from .analytics import DEVICE_TYPES
from .geo import COUNTRIES
from .openapi_schemas import Schema

CONTROL_ERROR: Schema = {"type": "object", "properties": {"error": {"type": "string"}, "message": {"type": "string"}},
                         "required": ["error", "message"]}
PLAY: Schema = {"type": "object", "properties": {
    "mediaId": {"type": "string", "description": "a video or live stream of any project (the play is its project's)"},
    "seconds": {"type": "number", "minimum": 0, "maximum": 86400,
                "description": "seconds watched (default: the whole video); 0 is an impression without a play"},
    "viewer": {"type": "string", "minLength": 1, "maxLength": 200},
    "country": {"type": "string", "enum": list(COUNTRIES)},
    "deviceType": {"type": "string", "enum": list(DEVICE_TYPES)},
    "operatingSystem": {"type": "string", "maxLength": 100},
    "browser": {"type": "string", "maxLength": 100},
    "referrer": {"type": "string", "maxLength": 2048},
    "at": {"description": "when the play started: ISO 8601 or epoch ms, not after the fake's now (default: now)"},
    "ended": {"type": "boolean"},
    "impressionTimeMs": {"type": "integer", "minimum": 0, "maximum": 3600000},
    "count": {"type": "integer", "minimum": 1, "maximum": 10000}},
    "required": ["mediaId"], "additionalProperties": False}


def _control(summary: str, responses: dict[str, Any], *, body: Schema | None = None, required: bool = True,
             params: list[Schema] | None = None, beyond_schema: str | None = None) -> Schema:
    operation: Schema = {"tags": [CONTROL_TAG], "security": [], "summary": summary, "responses": {
        code: json_response_spec(schema) for code, schema in responses.items()}}
    if body is not None:
        operation["requestBody"] = {"required": required, "content": {"application/json": {"schema": body}}}
    if params:
        operation["parameters"] = params
    if beyond_schema:
        operation[ACCEPTANCE_BEYOND_SCHEMA] = beyond_schema
    return operation


#: a project's extra custom domains (60 euros a month each: https://api.video/pricing)
CUSTOM_DOMAINS: Schema = {"type": "integer", "minimum": 0, "maximum": 10_000}


def control_paths() -> dict[str, Any]:
    anything: Schema = {"type": "object"}
    return {
        "/_fake/projects": {"post": _control(
            "A project with a sandbox and a production key (keeps_discarded: the Video Restore feature; "
            "custom_domains: its extra custom domains, billed by the month)",
            {"201": {"type": "object", "properties": {
                "project_id": {"type": "string"}, "sandbox_key": {"type": "string"},
                "production_key": {"type": "string"}, "keeps_discarded": {"type": "boolean"},
                "custom_domains": CUSTOM_DOMAINS},
                "required": ["project_id", "sandbox_key", "production_key", "keeps_discarded"]},
             "400": CONTROL_ERROR},
            body={"type": "object", "properties": {"keeps_discarded": {"type": "boolean"},
                                                   "custom_domains": CUSTOM_DOMAINS},
                  "additionalProperties": False}, required=False)},
        "/_fake/projects/{projectId}": {"patch": _control(
            "Turn a project's Video Restore feature (discarded videos) on or off, or set its extra custom "
            "domains", {
                "200": {"type": "object", "properties": {"project_id": {"type": "string"},
                                                         "keeps_discarded": {"type": "boolean"},
                                                         "custom_domains": CUSTOM_DOMAINS},
                        "required": ["project_id"]},
                "400": CONTROL_ERROR, "404": CONTROL_ERROR},
            params=[{"name": "projectId", "in": "path", "required": True, "schema": {"type": "string"}}],
            body={"type": "object", "properties": {"keeps_discarded": {"type": "boolean"},
                                                   "custom_domains": CUSTOM_DOMAINS},
                  "minProperties": 1, "additionalProperties": False})},
        "/_fake/usage": {"get": _control("Usage figures, dollars (and euros: custom domains) per project", {
            "200": anything, "400": CONTROL_ERROR, "404": CONTROL_ERROR},
            params=[{"name": "project", "in": "query", "required": False, "schema": {"type": "string"}}])},
        "/_fake/webhooks/deliveries": {"get": _control("The webhook outbox", {"200": anything})},
        "/_fake/views": {"post": _control("Record seconds watched of a video (usage only)", {
            "201": anything, "400": CONTROL_ERROR, "404": CONTROL_ERROR}, body={
            "type": "object", "properties": {
                "videoId": {"type": "string"}, "seconds": {"type": "number", "minimum": 0, "maximum": 1_000_000_000}},
            "required": ["videoId", "seconds"], "additionalProperties": False})},
        "/_fake/plays": {"post": _control(
            "Record plays for analytics and usage: one play, or {plays: [...]} (all or none)", {
                "201": {"type": "object", "properties": {"recorded": {"type": "integer"},
                                                         "watched_seconds": {"type": "number"}},
                        "required": ["recorded", "watched_seconds"]},
                "400": CONTROL_ERROR, "404": CONTROL_ERROR},
            body={"oneOf": [PLAY, {"type": "object", "properties": {
                "plays": {"type": "array", "minItems": 1, "maxItems": 10000, "items": PLAY}},
                "required": ["plays"], "additionalProperties": False}]},
            beyond_schema="a play's 'at' must not be after the fake's clock, and one request records at most "
                          "10,000 plays (count included): neither can a schema say")},
        "/_fake/live-streams/{liveStreamId}/broadcast": {"post": _control(
            "Broadcast to a live stream for N seconds from now (the fake's stand-in for an RTMP client; the "
            "sandbox cuts a broadcast at 30 s)", {
                "201": {"type": "object", "properties": {
                    "liveStreamId": {"type": "string"}, "start_ms": {"type": "integer"},
                    "end_ms": {"type": "integer"}, "record": {"type": "boolean"}, "height": {"type": "integer"},
                    "ended": {"type": "boolean"}}, "required": ["liveStreamId", "start_ms", "end_ms"]},
                "400": CONTROL_ERROR, "404": CONTROL_ERROR, "409": CONTROL_ERROR},
            params=[{"name": "liveStreamId", "in": "path", "required": True, "schema": {"type": "string"}}],
            body={"type": "object", "properties": {
                "seconds": {"type": "number", "exclusiveMinimum": True, "minimum": 0, "maximum": 86400},
                "record": {"type": "boolean"}, "height": {"type": "integer", "minimum": 144, "maximum": 2160}},
                "required": ["seconds"], "additionalProperties": False})},
    }
