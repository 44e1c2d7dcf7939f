"""OpenAPI 3.0 document of the fake: the public API, the assets it serves, and its control-plane additions.

Accurate enough to validate every answer against (schemathesis runs with response-schema
conformance): each status the fake can give is listed with its body schema and the rate-limit
headers. The kernel merges the shared control-plane paths into it. Schemas are in
openapi_schemas.py and the pieces every operation is built of in openapi_operations.py; the paths
of captions, chapters, summaries, watermarks, upload tokens, live streams, player themes,
analytics and assets in openapi_paths.py; the control plane's additions in openapi_control.py.
"""

from __future__ import annotations

from typing import Any

from .openapi_control import control_paths
from .openapi_operations import BAD, NOT_FOUND, error, jpeg_upload, no_content, ok, op, paging, param, sorting
from .openapi_paths import asset_paths, live_paths, track_paths
from .openapi_schemas import CREATION, STATUS, TAG, TOKEN, UPDATE, VIDEO, page
from .settings import VideoSettings


def video_paths(settings: VideoSettings) -> dict[str, Any]:
    video_id = param("videoId")
    video_filters = [param("title", "query", {"type": "string", "maxLength": 1000}),
                     param("description", "query", {"type": "string", "maxLength": 1000}),
                     param("liveStreamId", "query", {"type": "string", "maxLength": 1000}),
                     param("tags[]", "query", {"type": "array", "items": {"type": "string"}}),
                     *sorting("title", "createdAt", "publishedAt", "updatedAt"), *paging(settings)]
    return {
        "/auth/api-key": {"post": op("Exchange an API key for a bearer token (1 h on the fake's clock)", {
            "200": ok(TOKEN), "400": error("unknown key")}, tag="auth", security=False, body={
            "type": "object", "properties": {"apiKey": {"type": "string"}}, "required": ["apiKey"],
            "additionalProperties": False})},
        "/auth/refresh": {"post": op("Exchange a refresh token (single use) for a new pair", {
            "200": ok(TOKEN), "400": error("an unknown or spent refresh token")},
            tag="auth", security=False, body={"type": "object", "properties": {"refreshToken": {"type": "string"}},
                                              "required": ["refreshToken"], "additionalProperties": False})},
        "/videos": {
            "post": op("Create a video object", {"201": ok(VIDEO, "created"), "400": BAD, "404": error(
                "source, playerId or watermark.id names nothing of the project")}, body=CREATION),
            "get": op("List videos", {"200": ok(page(VIDEO)), "400": BAD}, params=video_filters),
        },
        "/videos/{videoId}": {
            "parameters": [video_id],
            "get": op("Retrieve a video object", {"200": ok(VIDEO), "404": NOT_FOUND}),
            "patch": op("Update a video object", {"200": ok(VIDEO), "400": BAD, "404": NOT_FOUND, "409": error(
                "transcriptSummary: the video has a summary already")}, body=UPDATE),
            "delete": op("Delete (or, with the project's Video Restore, discard) a video",
                         {"204": no_content("deleted or discarded"), "404": NOT_FOUND}),
        },
        "/videos/{videoId}/source": {"parameters": [video_id], "post": op(
            "Upload the video's file: one multipart file part (named file; another name is taken with a "
            "warning verdict); optional Content-Range header 'bytes <from>-<to>/<total>' or 'part <n>/<total>' "
            "('part <n>/*' until the last) for chunked uploads",
            {"201": ok(VIDEO, "received (the whole source or one chunk)"),
             "400": error("no file, several files, too large, empty, a Content-Range refusal, already uploaded, "
                          "or (sandbox) longer than 30 seconds"), "404": NOT_FOUND},
            body={"type": "object", "properties": {"file": {"type": "string", "format": "binary"}},
                  "required": ["file"], "additionalProperties": False}, content="multipart/form-data")},
        "/videos/{videoId}/status": {"parameters": [video_id], "get": op(
            "Ingest and encoding status at this instant", {"200": ok(STATUS), "404": NOT_FOUND})},
        "/videos/{videoId}/thumbnail": {
            "parameters": [video_id],
            "post": op("Upload a JPEG thumbnail (served at assets.thumbnail)", {
                "200": ok(VIDEO), "400": error("not a .jpg/.jpeg file, or not a JPEG"), "404": NOT_FOUND},
                **jpeg_upload()),
            "patch": op("Pick the thumbnail from a frame at a timecode", {
                "200": ok(VIDEO), "400": error("malformed timecode, or no source yet (out of range: 00:00:00.00 "
                                               "is picked)"),
                "404": NOT_FOUND}, body={"type": "object", "properties": {"timecode": {
                    "type": "string", "description": "hh:mm:ss.ms, hh:mm:ss:frameNumber or a number of seconds",
                    "pattern": "^([0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]{1,3}|:[0-9]{1,4})?"
                               "|[0-9]{1,9}([.][0-9]{1,3})?)$"}},
                    "required": ["timecode"], "additionalProperties": False}),
        },
        "/discarded/videos": {"get": op("List discarded videos (the project's Video Restore feature)", {
            "200": ok(page(VIDEO)), "400": BAD}, params=video_filters)},
        "/discarded/videos/{videoId}": {
            "parameters": [video_id],
            "get": op("Retrieve a discarded video", {"200": ok(VIDEO), "404": NOT_FOUND}),
            "patch": op("Restore a discarded video ({\"discarded\": false})", {
                "200": ok(VIDEO), "400": BAD, "404": NOT_FOUND}, body={"type": "object", "properties": {
                    "discarded": {"type": "boolean", "enum": [False]}}, "additionalProperties": False}),
        },
        "/tags": {"get": op("The project's tags with their video counts", {"200": ok(page(TAG)), "400": BAD}, params=[
            param("value", "query", {"type": "string", "maxLength": 255}), *sorting("value", "videoCount"),
            *paging(settings)])},
    }


def openapi_document(settings: VideoSettings, title: str) -> dict[str, Any]:
    paths = {**video_paths(settings), **track_paths(settings), **live_paths(settings), **asset_paths()}
    return {
        "openapi": "3.0.3",
        "info": {"title": title, "version": "fake",
                 "description": "An api.video lookalike (environment: " + settings.environment + "). Assets "
                                "(/vod/..., /live/..., /assets/...) are the embed and CDN hosts, served by the fake "
                                "without a key."},
        "components": {"securitySchemes": {
            "basicAuth": {"type": "http", "scheme": "basic", "description": "the API key as user name, no password"},
            "bearerAuth": {"type": "http", "scheme": "bearer", "description": "a token from /auth/api-key"},
            # declares which operations mint credentials (their 400 for an unknown key is the reference's)
            "apiKeyExchange": {"type": "oauth2", "description": "POST /auth/api-key {apiKey} (not OAuth: the "
                               "reference's own exchange)", "flows": {"clientCredentials": {
                                   "tokenUrl": "/auth/api-key", "refreshUrl": "/auth/refresh", "scopes": {}}}},
            "refreshExchange": {"type": "oauth2", "description": "POST /auth/refresh {refreshToken}", "flows": {
                "clientCredentials": {"tokenUrl": "/auth/refresh", "scopes": {}}}},
            "uploadToken": {"type": "apiKey", "in": "query", "name": "token",
                            "description": "a delegated upload token (POST /upload only)"}}},
        "security": [{"basicAuth": []}, {"bearerAuth": []}],
        "paths": {**paths, **control_paths()},
        "tags": [{"name": name} for name in ("videos", "auth", "captions", "chapters", "summaries", "watermarks",
                                             "upload tokens", "live streams", "player themes", "analytics",
                                             "webhooks")] + [
            {"name": "assets", "description": "what the assets advertise, served by the fake"}],
    }
