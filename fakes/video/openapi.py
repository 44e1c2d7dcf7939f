"""OpenAPI 3.0 document of the fake: the public API, the assets it serves, and its control-plane additions.

Accurate enough to validate every answer against (schemathesis runs with response-schema
conformance): each status the fake can give is listed with its body schema and the rate-limit
headers. The kernel merges the shared control-plane paths into it.
"""

from __future__ import annotations

from typing import Any

from fakes.kernel.openapi import CONTROL_TAG, json_response_spec

from .data import LANGUAGES
from .settings import VideoSettings
from .webhooks import EVENTS

Schema = dict[str, Any]

RATE_HEADERS = {
    "X-RateLimit-Limit": {"description": "requests a minute of this class", "schema": {"type": "integer"}},
    "X-RateLimit-Remaining": {"description": "requests left in the window", "schema": {"type": "integer"}},
    "X-RateLimit-Retry-After": {"description": "seconds until the window resets", "schema": {"type": "integer"}},
}
PROBLEM: Schema = {
    "type": "object",
    "description": "RFC 7807-like problem; type is https://docs.api.video/reference/<slug>",
    "properties": {
        "type": {"type": "string"}, "title": {"type": "string"}, "status": {"type": "integer"},
        "name": {"type": "string"}, "detail": {"type": "string"},
        "problems": {"type": "array", "items": {"type": "object", "properties": {
            "type": {"type": "string"}, "title": {"type": "string"}, "name": {"type": "string"}}}},
    },
    "required": ["type", "title", "status"],
}
CONTROL_ERROR: Schema = {"type": "object", "properties": {"error": {"type": "string"}, "message": {"type": "string"}},
                         "required": ["error", "message"]}
NULLABLE_STRING: Schema = {"type": "string", "nullable": True}
METADATA: Schema = {"type": "object", "properties": {"key": {"type": "string", "minLength": 1, "maxLength": 255},
                                                     "value": {"type": "string", "maxLength": 1000}},
                    "required": ["key", "value"], "additionalProperties": False}
ASSETS: Schema = {"type": "object", "properties": {k: {"type": "string"} for k in
                                                   ("iframe", "player", "hls", "thumbnail", "mp4")},
                  "required": ["iframe", "player", "hls", "thumbnail"]}
VIDEO: Schema = {
    "type": "object",
    "properties": {
        "videoId": {"type": "string", "pattern": "^vi[0-9A-Za-z]{22}$"},
        "createdAt": {"type": "string", "format": "date-time"},
        "title": {"type": "string"},
        "description": {"type": "string"},
        "publishedAt": {"type": "string", "format": "date-time"},
        "updatedAt": {"type": "string", "format": "date-time"},
        "discardedAt": {"type": "string", "format": "date-time", "nullable": True},
        "deletesAt": {"type": "string", "format": "date-time", "nullable": True,
                      "description": "sandbox: 24 hours after createdAt; production: null"},
        "discarded": {"type": "boolean"},
        "language": {"type": "string", "enum": list(LANGUAGES)},
        "languageOrigin": {"type": "string", "enum": ["api", "auto"], "nullable": True},
        "tags": {"type": "array", "items": {"type": "string"}},
        "metadata": {"type": "array", "items": METADATA},
        "source": {"type": "object", "properties": {"uri": {"type": "string"}, "type": {"type": "string"}},
                   "required": ["uri"]},
        "assets": ASSETS,
        "playerId": {"type": "string"},
        "public": {"type": "boolean"},
        "panoramic": {"type": "boolean"},
        "mp4Support": {"type": "boolean"},
        "watermarked": {"type": "boolean", "description": "the sandbox's watermark (fake's own field)"},
        "clip": {"type": "object"},
        "watermark": {"type": "object"},
    },
    "required": ["videoId", "createdAt", "title", "description", "publishedAt", "updatedAt", "discardedAt",
                 "deletesAt", "discarded", "languageOrigin", "tags", "metadata", "source", "assets", "public",
                 "panoramic", "mp4Support", "watermarked"],
}
_COMMON_FIELDS: Schema = {
    "description": {"type": "string", "maxLength": 10000},
    "public": {"type": "boolean"},
    "panoramic": {"type": "boolean"},
    "mp4Support": {"type": "boolean"},
    "playerId": {"type": "string", "pattern": "^pt[0-9A-Za-z]{1,40}$"},
    "tags": {"type": "array", "maxItems": 100, "items": {"type": "string", "maxLength": 255}},
    "metadata": {"type": "array", "maxItems": 100, "items": METADATA},
    "language": {"type": "string", "enum": list(LANGUAGES), "nullable": True},
    "transcript": {"type": "boolean"},
    "transcriptSummary": {"type": "boolean"},
    "transcriptSummaryAttributes": {"type": "array", "minItems": 1,
                                    "items": {"type": "string", "enum": ["abstract", "takeaways"]}},
}

def _strings(*names: str) -> Schema:
    return {"type": "object", "properties": {n: {"type": "string", "maxLength": 100} for n in names},
            "additionalProperties": False}


CREATION: Schema = {
    "type": "object",
    "properties": {"title": {"type": "string", "minLength": 1, "maxLength": 1000}, **_COMMON_FIELDS,
                   "source": {"type": "string", "pattern": "^vi[0-9A-Za-z]{22}$",
                              "description": "videoId of an uploaded video of the project to copy (the fake "
                                             "cannot download URLs)"},
                   "clip": _strings("startTimecode", "endTimecode"),
                   "watermark": _strings("id", "top", "left", "bottom", "right", "width", "height", "opacity")},
    "required": ["title"],
    "additionalProperties": False,
}
UPDATE: Schema = {"type": "object", "properties": {"title": {"type": "string", "minLength": 1, "maxLength": 1000},
                                                   **_COMMON_FIELDS,
                                                   "playerId": {**_COMMON_FIELDS["playerId"], "nullable": True}},
                  "additionalProperties": False}
QUALITY: Schema = {"type": "object", "properties": {
    "type": {"type": "string", "enum": ["hls", "mp4"]},
    "quality": {"type": "string", "enum": ["240p", "360p", "480p", "720p", "1080p", "2160p"]},
    "status": {"type": "string", "enum": ["waiting", "encoding", "encoded", "failed"]}},
    "required": ["type", "quality", "status"]}
STATUS: Schema = {
    "type": "object",
    "properties": {
        "ingest": {"type": "object", "properties": {
            "status": {"type": "string", "enum": ["uploading", "uploaded", "ingesting", "ingested"]},
            "filesize": {"type": "integer", "nullable": True},
            "receivedBytes": {"type": "array", "items": {"type": "object", "properties": {
                "from": {"type": "integer"}, "to": {"type": "integer"}, "total": {"type": "integer"}},
                "required": ["from", "to", "total"]}},
            "receivedParts": {"type": "object", "properties": {
                "parts": {"type": "array", "items": {"type": "integer"}},
                "total": {"type": "integer", "nullable": True}}},
        }, "required": ["status", "filesize", "receivedBytes"]},
        "encoding": {"type": "object", "properties": {
            "playable": {"type": "boolean"},
            "qualities": {"type": "array", "items": QUALITY},
            "metadata": {"type": "object", "properties": {
                "width": {"type": "integer", "nullable": True}, "height": {"type": "integer", "nullable": True},
                "bitrate": {"type": "number", "nullable": True}, "duration": {"type": "integer", "nullable": True},
                "framerate": {"type": "integer", "nullable": True},
                "samplerate": {"type": "integer", "nullable": True},
                "videoCodec": NULLABLE_STRING, "audioCodec": NULLABLE_STRING, "aspectRatio": NULLABLE_STRING}},
        }, "required": ["playable", "qualities", "metadata"]},
    },
    "required": ["encoding"],
}
PAGINATION: Schema = {"type": "object", "properties": {
    "currentPage": {"type": "integer"}, "pageSize": {"type": "integer"}, "pagesTotal": {"type": "integer"},
    "itemsTotal": {"type": "integer"}, "currentPageItems": {"type": "integer"},
    "links": {"type": "array", "items": {"type": "object", "properties": {
        "rel": {"type": "string", "enum": ["self", "first", "previous", "next", "last"]},
        "uri": {"type": "string"}}, "required": ["rel", "uri"]}}},
    "required": ["currentPage", "pageSize", "pagesTotal", "itemsTotal", "currentPageItems", "links"]}


def page(item: Schema) -> Schema:
    return {"type": "object", "properties": {"data": {"type": "array", "items": item}, "pagination": PAGINATION},
            "required": ["data", "pagination"]}


WEBHOOK: Schema = {"type": "object", "properties": {
    "webhookId": {"type": "string"}, "createdAt": {"type": "string", "format": "date-time"},
    "events": {"type": "array", "items": {"type": "string", "enum": list(EVENTS)}},
    "url": {"type": "string"}, "signatureSecret": {"type": "string"}},
    "required": ["webhookId", "createdAt", "events", "url", "signatureSecret"]}
CAPTION: Schema = {"type": "object", "properties": {
    "uri": {"type": "string"}, "src": {"type": "string"}, "srclang": {"type": "string"},
    "languageName": {"type": "string"}, "default": {"type": "boolean"}},
    "required": ["uri", "src", "srclang", "languageName", "default"]}
SUMMARY: Schema = {"type": "object", "properties": {
    "summaryId": {"type": "string"}, "createdAt": {"type": "string", "format": "date-time"},
    "updatedAt": {"type": "string", "format": "date-time"}, "videoId": {"type": "string"},
    "origin": {"type": "string", "enum": ["api", "auto"]},
    "sourceStatus": {"type": "string", "enum": ["missing", "waiting", "failed", "completed", "unprocessable"]}},
    "required": ["summaryId", "createdAt", "updatedAt", "videoId", "origin", "sourceStatus"]}
SUMMARY_SOURCE: Schema = {"type": "object", "properties": {
    "abstract": {"type": "string"}, "takeaways": {"type": "array", "maxItems": 3, "items": {"type": "string"}}}}
TOKEN: Schema = {"type": "object", "properties": {
    "token_type": {"type": "string", "enum": ["Bearer"]}, "expires_in": {"type": "integer"},
    "access_token": {"type": "string"}, "refresh_token": {"type": "string"}},
    "required": ["token_type", "expires_in", "access_token", "refresh_token"]}


def _ok(schema: Schema, description: str = "OK") -> Schema:
    return json_response_spec(schema, description, headers=RATE_HEADERS)


def _error(description: str) -> Schema:
    return json_response_spec(PROBLEM, description, headers=RATE_HEADERS)


def _param(name: str, where: str = "path", schema: Schema | None = None, description: str = "") -> Schema:
    return {"name": name, "in": where, "required": where == "path", "description": description,
            "schema": schema or {"type": "string"}}


def _op(summary: str, responses: dict[str, Any], *, tag: str = "videos", body: Schema | None = None,
        params: list[Schema] | None = None, security: bool = True, content: str = "application/json") -> Schema:
    merged = {**responses, "405": _error("method not allowed"), "429": _error("too many requests")}
    if security:
        merged.setdefault("401", _error("missing, malformed or wrong key or token"))
    op: Schema = {"tags": [tag], "summary": summary, "responses": merged}
    if not security:
        op["security"] = []
    if body is not None:
        op["requestBody"] = {"required": True, "content": {content: {"schema": body}}}
    if params:
        op["parameters"] = params
    return op


def _paging(settings: VideoSettings) -> list[Schema]:
    return [_param("currentPage", "query", {"type": "integer", "minimum": 1, "maximum": 1_000_000_000}),
            _param("pageSize", "query", {"type": "integer", "minimum": settings.min_page_size,
                                         "maximum": settings.max_page_size})]


def _text(media: str, description: str) -> Schema:
    return {"description": description, "content": {media: {"schema": {"type": "string"}}}}


def openapi_document(settings: VideoSettings, title: str) -> dict[str, Any]:
    video_id = _param("videoId", schema={"type": "string"})
    not_found = _error("unknown id (or a sandbox video past its 24 hours)")
    bad = _error("an attribute or parameter is invalid")
    missing_asset = _text("text/plain", "not there (yet)")
    asset_tag = "assets"
    paths: dict[str, Any] = {
        "/auth/api-key": {"post": _op("Exchange an API key for a bearer token (1 h on the fake's clock)", {
            "200": _ok(TOKEN), "400": _error("unknown key")}, tag="auth", security=False, body={
            "type": "object", "properties": {"apiKey": {"type": "string"}}, "required": ["apiKey"],
            "additionalProperties": False})},
        "/auth/refresh": {"post": _op("Exchange a refresh token (single use) for a new pair", {
            "200": _ok(TOKEN), "400": bad, "401": _error("invalid refresh token")}, tag="auth", security=False,
            body={"type": "object", "properties": {"refreshToken": {"type": "string"}}, "required": ["refreshToken"],
                  "additionalProperties": False})},
        "/videos": {
            "post": _op("Create a video object", {"201": _ok(VIDEO, "created"), "400": bad,
                                                  "404": _error("source names no video of the project")},
                        body=CREATION),
            "get": _op("List videos", {"200": _ok(page(VIDEO)), "400": bad}, params=[
                _param("title", "query"), _param("description", "query"), _param("liveStreamId", "query"),
                _param("tags[]", "query", {"type": "array", "items": {"type": "string"}}),
                _param("sortBy", "query", {"type": "string", "enum": ["title", "createdAt", "publishedAt",
                                                                      "updatedAt"]}),
                _param("sortOrder", "query", {"type": "string", "enum": ["asc", "desc"]}),
                *_paging(settings)]),
        },
        "/videos/{videoId}": {
            "parameters": [video_id],
            "get": _op("Retrieve a video object", {"200": _ok(VIDEO), "404": not_found}),
            "patch": _op("Update a video object", {"200": _ok(VIDEO), "400": bad, "404": not_found}, body=UPDATE),
            "delete": _op("Delete a video object", {"204": {"description": "deleted", "headers": RATE_HEADERS},
                                                    "404": not_found}),
        },
        "/videos/{videoId}/source": {"parameters": [video_id], "post": _op(
            "Upload the video's file: multipart part 'file'; optional Content-Range header "
            "'bytes <from>-<to>/<total>' or 'part <n>/<total>' ('part <n>/*' until the last) for chunked uploads",
            {"201": _ok(VIDEO, "received (the whole source or one chunk)"),
             "400": _error("no file, several files, too large, empty, a Content-Range refusal, already uploaded, "
                           "or (sandbox) longer than 30 seconds"), "404": not_found},
            body={"type": "object", "properties": {"file": {"type": "string", "format": "binary"}},
                  "required": ["file"], "additionalProperties": False}, content="multipart/form-data")},
        "/videos/{videoId}/status": {"parameters": [video_id], "get": _op(
            "Ingest and encoding status at this instant", {"200": _ok(STATUS), "404": not_found})},
        "/videos/{videoId}/captions": {"parameters": [video_id], "get": _op(
            "Generated captions", {"200": _ok(page(CAPTION)), "400": bad, "404": not_found},
            params=_paging(settings))},
        "/videos/{videoId}/captions/{language}": {"parameters": [
            video_id, _param("language", schema={"type": "string", "enum": list(LANGUAGES)})], "get": _op(
            "One caption", {"200": _ok(CAPTION), "400": bad, "404": not_found})},
        "/summaries": {"get": _op("Summaries", {"200": _ok(page(SUMMARY)), "400": bad}, tag="summaries", params=[
            _param("videoId", "query"), _param("origin", "query", {"type": "string", "enum": ["api", "auto"]}),
            _param("sourceStatus", "query", {"type": "string", "enum": ["missing", "waiting", "failed", "completed",
                                                                        "unprocessable"]}), *_paging(settings)])},
        "/summaries/{summaryId}/source": {"parameters": [_param("summaryId")], "get": _op(
            "A generated summary: abstract and takeaways", {"200": _ok(SUMMARY_SOURCE), "404": not_found},
            tag="summaries")},
        "/webhooks": {
            "post": _op("Subscribe a URL to events", {"201": _ok(WEBHOOK, "created"), "400": bad}, tag="webhooks",
                        body={"type": "object", "properties": {
                            "events": {"type": "array", "minItems": 1, "items": {"type": "string",
                                                                                 "enum": list(EVENTS)},
                                       "description": "an event named twice is subscribed once"},
                            "url": {"type": "string", "description": "loopback only, unless settings allow more",
                                    "pattern": "^http://(127\\.0\\.0\\.1|localhost)(:[1-9][0-9]{0,3})?/[a-z0-9/_-]{0,40}$"}},
                            "required": ["events", "url"], "additionalProperties": False}),
            "get": _op("List subscriptions", {"200": _ok(page(WEBHOOK)), "400": bad}, tag="webhooks",
                       params=[_param("events", "query", {"type": "string", "enum": list(EVENTS)}),
                               *_paging(settings)]),
        },
        "/webhooks/{webhookId}": {
            "parameters": [_param("webhookId")],
            "get": _op("One subscription", {"200": _ok(WEBHOOK), "404": not_found}, tag="webhooks"),
            "delete": _op("Unsubscribe", {"204": {"description": "deleted", "headers": RATE_HEADERS},
                                          "404": not_found}, tag="webhooks"),
        },
        "/vod/{videoId}": {"parameters": [video_id], "get": {"tags": [asset_tag], "security": [], "summary":
                           "Player page", "responses": {"200": _text("text/html", "player"), "404": missing_asset}}},
        "/vod/{videoId}/hls/manifest.m3u8": {"parameters": [video_id], "get": {
            "tags": [asset_tag], "security": [], "summary": "HLS master playlist (encoded qualities)",
            "responses": {"200": _text("application/vnd.apple.mpegurl", "master"), "404": missing_asset}}},
        "/vod/{videoId}/thumbnail.jpg": {"parameters": [video_id], "get": {
            "tags": [asset_tag], "security": [], "summary": "JPEG thumbnail",
            "responses": {"200": {"description": "JPEG", "content": {"image/jpeg": {"schema": {
                "type": "string", "format": "binary"}}}}, "404": missing_asset}}},
        "/vod/{videoId}/mp4/source.mp4": {"parameters": [video_id], "get": {
            "tags": [asset_tag], "security": [], "summary": "MP4 (mp4Support)",
            "responses": {"200": {"description": "MP4", "content": {"video/mp4": {"schema": {
                "type": "string", "format": "binary"}}}}, "404": missing_asset}}},
    }
    control = {
        "/_fake/projects": {"post": {"tags": [CONTROL_TAG], "security": [],
                                     "summary": "A project with a sandbox and a production key",
                                     "requestBody": {"required": False, "content": {"application/json": {
                                         "schema": {"type": "object", "additionalProperties": False}}}},
                                     "responses": {"201": json_response_spec({"type": "object", "properties": {
                                         "project_id": {"type": "string"}, "sandbox_key": {"type": "string"},
                                         "production_key": {"type": "string"}},
                                         "required": ["project_id", "sandbox_key", "production_key"]}),
                                         "400": json_response_spec(CONTROL_ERROR)}}},
        "/_fake/usage": {"get": {"tags": [CONTROL_TAG], "security": [],
                                 "summary": "Usage figures and dollars per project",
                                 "parameters": [_param("project", "query")],
                                 "responses": {"200": json_response_spec({"type": "object"}),
                                               "400": json_response_spec(CONTROL_ERROR),
                                               "404": json_response_spec(CONTROL_ERROR)}}},
        "/_fake/webhooks/deliveries": {"get": {"tags": [CONTROL_TAG], "security": [], "summary": "The webhook outbox",
                                               "responses": {"200": json_response_spec({"type": "object"})}}},
        "/_fake/views": {"post": {"tags": [CONTROL_TAG], "security": [], "summary": "Record seconds watched of a video",
                                  "requestBody": {"required": True, "content": {"application/json": {"schema": {
                                      "type": "object", "properties": {
                                          "videoId": {"type": "string"},
                                          "seconds": {"type": "number", "minimum": 0, "maximum": 1_000_000_000}},
                                      "required": ["videoId", "seconds"], "additionalProperties": False}}}},
                                  "responses": {"201": json_response_spec({"type": "object"}),
                                                "400": json_response_spec(CONTROL_ERROR),
                                                "404": json_response_spec(CONTROL_ERROR)}}},
    }
    return {
        "openapi": "3.0.3",
        "info": {"title": title, "version": "fake",
                 "description": "An api.video lookalike (environment: " + settings.environment + "). Assets "
                                "(/vod/...) are the embed and CDN hosts, served by the fake without a key."},
        "components": {"securitySchemes": {
            "basicAuth": {"type": "http", "scheme": "basic", "description": "the API key as user name, no password"},
            "bearerAuth": {"type": "http", "scheme": "bearer", "description": "a token from /auth/api-key"},
            # declares which operations mint credentials (their 400 for an unknown key is the reference's)
            "apiKeyExchange": {"type": "oauth2", "description": "POST /auth/api-key {apiKey} (not OAuth: the "
                               "reference's own exchange)", "flows": {"clientCredentials": {
                                   "tokenUrl": "/auth/api-key", "refreshUrl": "/auth/refresh", "scopes": {}}}},
            "refreshExchange": {"type": "oauth2", "description": "POST /auth/refresh {refreshToken}", "flows": {
                "clientCredentials": {"tokenUrl": "/auth/refresh", "scopes": {}}}}}},
        "security": [{"basicAuth": []}, {"bearerAuth": []}],
        "paths": {**paths, **control},
        "tags": [{"name": "videos"}, {"name": "auth"}, {"name": "summaries"}, {"name": "webhooks"},
                 {"name": asset_tag, "description": "what the assets advertise, served by the fake"}],
    }
