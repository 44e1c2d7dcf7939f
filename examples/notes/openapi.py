"""The OpenAPI document of the notes fake: every operation with its success, its errors and its
security, accurate enough for schemathesis to validate every answer against it. The kernel
merges in the shared control plane; this service's own control additions are tagged with it."""

from __future__ import annotations

from typing import Any

from fakes.kernel.openapi import CONTROL_TAG, json_response_spec

from .model import MAX_TAG
from .routes import MAX_LIMIT
from .settings import NotesSettings

Schema = dict[str, Any]

PROBLEM: Schema = {"type": "object", "properties": {"problem": {"type": "string"}, "code": {"type": "string"}},
                   "required": ["problem", "code"]}
CONTROL_ERROR: Schema = {"type": "object", "properties": {"error": {"type": "string"}, "message": {"type": "string"}},
                         "required": ["error", "message"]}


def document(settings: NotesSettings) -> dict[str, Any]:
    text: Schema = {"type": "string", "minLength": 1, "maxLength": settings.max_text, "pattern": r"\S"}
    tag: Schema = {"type": "string", "minLength": 1, "maxLength": MAX_TAG}
    note: Schema = {
        "type": "object",
        "properties": {"id": {"type": "string"}, "text": {"type": "string"}, "tag": {**tag, "nullable": True},
                       "created_ms": {"type": "integer"}, "status": {"type": "string", "enum": ["building", "ready"]}},
        "required": ["id", "text", "tag", "created_ms", "status"],
    }
    new_note: Schema = {"type": "object", "properties": {"text": text, "tag": tag}, "required": ["text"]}
    refused = {"400": json_response_spec(PROBLEM, "invalid input")}
    if settings.api_token:
        refused["401"] = json_response_spec(PROBLEM, "no or wrong bearer token")

    # security per public operation, not document-wide: the merged control plane needs no token
    security: list[dict[str, list[str]]] = [{"bearer": []}] if settings.api_token else []

    def op(summary: str, responses: dict[str, Any], **extra: Any) -> dict[str, Any]:
        return {"summary": summary, "security": security, "responses": {**responses, **refused}, **extra}

    paths = {
        "/notes": {
            "get": op("The first notes, oldest first", {"200": json_response_spec({
                "type": "object", "properties": {"notes": {"type": "array", "items": note}}, "required": ["notes"]})},
                parameters=[{"name": "limit", "in": "query", "schema": {
                    "type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": 10}}]),
            "post": op("Create a note; it is ready build_seconds later", {"201": json_response_spec(note, "created")},
                       requestBody={"required": True, "content": {"application/json": {"schema": new_note}}}),
        },
        "/notes/{note_id}": {
            "get": op("One note", {"200": json_response_spec(note), "404": json_response_spec(PROBLEM, "no such note")},
                      parameters=[{"name": "note_id", "in": "path", "required": True, "schema": {"type": "string"}}]),
        },
        "/_fake/notes": {
            "post": {"tags": [CONTROL_TAG], "summary": "Add a note (generated text when none is given)",
                     "security": [],
                     "requestBody": {"required": True, "content": {"application/json": {"schema": {
                         "type": "object", "properties": {"text": text, "tag": tag}, "additionalProperties": False}}}},
                     "responses": {"201": json_response_spec(note, "created"),
                                   "400": json_response_spec(CONTROL_ERROR, "invalid note")}},
        },
        "/_fake/notes/token": {
            "get": {"tags": [CONTROL_TAG], "summary": "The bearer token public calls need (empty: none)",
                    "security": [],
                    "responses": {"200": json_response_spec({
                        "type": "object", "properties": {"api_token": {"type": "string"}}, "required": ["api_token"],
                        "additionalProperties": False})}},
        },
    }
    doc: dict[str, Any] = {
        "openapi": "3.0.3",
        "info": {"title": "Notes (example service)", "version": "1"},
        "paths": paths,
    }
    if settings.api_token:
        doc["components"] = {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}}
    return doc
