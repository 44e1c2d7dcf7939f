"""Schemas of the OpenAPI document (openapi.py): the service's objects, pages and problems."""

from __future__ import annotations

from typing import Any

from .data import LANGUAGES
from .languages import CAPTION_LANGUAGES
from .live_streams import LIVE_ID_PATTERN
from .players import COLOUR_PATTERN, COLOURS, SWITCHES
from .webhooks import EVENTS

Schema = dict[str, Any]
PLAYER_ID = "^pl[0-9A-Za-z]{22}$"
DATE_TIME: Schema = {"type": "string", "format": "date-time"}

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
        "languageOrigin": {"type": "string", "enum": ["api", "auto", None], "nullable": True},
        "tags": {"type": "array", "items": {"type": "string"}},
        "metadata": {"type": "array", "items": METADATA},
        "source": {"type": "object", "properties": {
            "uri": {"type": "string"}, "type": {"type": "string", "enum": ["upload", "live"]},
            "liveStream": {"type": "object", "properties": {
                "liveStreamId": {"type": "string"},
                "links": {"type": "array", "items": {"type": "object", "properties": {
                    "rel": {"type": "string"}, "uri": {"type": "string"}}}}}}},
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
    "playerId": {"type": "string", "pattern": PLAYER_ID, "description": "a player theme of the project (404 if none)"},
    "tags": {"type": "array", "maxItems": 100, "items": {"type": "string", "maxLength": 255}},
    "metadata": {"type": "array", "maxItems": 100, "items": METADATA},
    "language": {"type": "string", "enum": [*LANGUAGES, None], "nullable": True},
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
                   "watermark": {**_strings("id", "top", "left", "bottom", "right", "width", "height", "opacity"),
                                 "description": "id: a watermark of the project (404 if none)"}},
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
        "uri": {"type": "string", "format": "uri"}}, "required": ["rel", "uri"]}}},
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



CHAPTER: Schema = {"type": "object", "properties": {
    "uri": {"type": "string"}, "src": {"type": "string", "format": "uri"}, "language": {"type": "string"}},
    "required": ["uri", "src", "language"]}
LANGUAGE_TAG: Schema = {"type": "string", "enum": list(CAPTION_LANGUAGES)}
WEBVTT_FILE: Schema = {"type": "object", "properties": {
    "file": {"type": "string", "pattern": "^WEBVTT", "description": "a WebVTT file (UTF-8 text starting WEBVTT)"}},
    "required": ["file"], "additionalProperties": False}


def image_file(*, extra: Schema | None = None) -> Schema:
    return {"type": "object", "properties": {"file": {"type": "string", "format": "binary"}, **(extra or {})},
            "required": ["file"], "additionalProperties": False}


WATERMARK: Schema = {"type": "object", "properties": {
    "watermarkId": {"type": "string", "pattern": "^watermark_[0-9A-Za-z]{22}$"}, "createdAt": DATE_TIME},
    "required": ["watermarkId", "createdAt"]}
UPLOAD_TOKEN: Schema = {"type": "object", "properties": {
    "token": {"type": "string", "pattern": "^to[0-9A-Za-z]{22}$"},
    "ttl": {"type": "integer", "minimum": 0, "maximum": 2147483647}, "createdAt": DATE_TIME,
    "expiresAt": {**DATE_TIME, "nullable": True}}, "required": ["token", "ttl", "createdAt", "expiresAt"]}
TAG: Schema = {"type": "object", "properties": {"value": {"type": "string"}, "videoCount": {"type": "integer"}},
               "required": ["value", "videoCount"]}
PLAYER: Schema = {"type": "object", "properties": {
    "playerId": {"type": "string", "pattern": PLAYER_ID}, "name": {"type": "string"},
    **{name: {"type": "string"} for name in COLOURS}, **{name: {"type": "boolean"} for name in SWITCHES},
    "createdAt": DATE_TIME, "updatedAt": DATE_TIME,
    "assets": {"type": "object", "properties": {"logo": {"type": "string", "format": "uri"},
                                                "link": {"type": "string"}}}},
    "required": ["playerId", "name", *COLOURS, *SWITCHES, "createdAt", "updatedAt", "assets"]}
PLAYER_FIELDS: Schema = {"type": "object", "properties": {
    "name": {"type": "string", "maxLength": 100},
    **{name: {"type": "string", "pattern": COLOUR_PATTERN, "description": "rgba(r, g, b, a), rgb(r, g, b) or #hex"}
       for name in COLOURS},
    **{name: {"type": "boolean"} for name in SWITCHES}}, "additionalProperties": False}
RESTREAM: Schema = {"type": "object", "properties": {
    "name": {"type": "string", "maxLength": 2048, "pattern": "[^ \\t\\r\\n]"},
    "serverUrl": {"type": "string", "maxLength": 2048,
                  "pattern": "^rtmps?://[A-Za-z0-9.-]+(:[0-9]{1,5})?/[A-Za-z0-9._~-][A-Za-z0-9._~/-]*$",
                  "description": "[rtmp|rtmps]://[host]/[app name]"},
    "streamKey": {"type": "string", "maxLength": 2048, "pattern": "[^ \\t\\r\\n]"}},
    "required": ["name", "serverUrl", "streamKey"], "additionalProperties": False}
LIVE_STREAM: Schema = {"type": "object", "properties": {
    "liveStreamId": {"type": "string", "pattern": f"^{LIVE_ID_PATTERN}$"}, "name": {"type": "string"},
    "streamKey": {"type": "string"}, "public": {"type": "boolean"},
    "assets": {"type": "object", "properties": {
        "hls": {"type": "string", "format": "uri"}, "iframe": {"type": "string"},
        "player": {"type": "string", "format": "uri"}, "thumbnail": {"type": "string", "format": "uri"}},
        "required": ["hls", "iframe", "player", "thumbnail"]},
    "playerId": {"type": "string", "pattern": PLAYER_ID}, "broadcasting": {"type": "boolean"},
    "restreams": {"type": "array", "items": {"type": "object", "properties": {
        "name": {"type": "string"}, "serverUrl": {"type": "string"}, "streamKey": {"type": "string"}}}},
    "createdAt": DATE_TIME, "updatedAt": DATE_TIME},
    "required": ["liveStreamId", "name", "streamKey", "public", "assets", "broadcasting", "restreams", "createdAt",
                 "updatedAt"]}
_LIVE_NAME: Schema = {"type": "string", "maxLength": 1000, "pattern": "[^ \\t\\r\\n]"}
LIVE_CREATION: Schema = {"type": "object", "properties": {
    "name": _LIVE_NAME, "public": {"type": "boolean"}, "playerId": {"type": "string", "pattern": PLAYER_ID},
    "restreams": {"type": "array", "maxItems": 5, "items": RESTREAM}}, "required": ["name"],
    "additionalProperties": False}
LIVE_UPDATE: Schema = {"type": "object", "properties": {
    "name": _LIVE_NAME, "public": {"type": "boolean"},
    "playerId": {"type": "string", "pattern": PLAYER_ID, "nullable": True},
    "restreams": {"type": "array", "maxItems": 5, "items": RESTREAM}}, "additionalProperties": False}
TIMEFRAME: Schema = {"type": "object", "properties": {"from": DATE_TIME, "to": DATE_TIME}, "required": ["from", "to"]}
METRIC_VALUE: Schema = {"type": "number"}
AGGREGATED: Schema = {"type": "object", "properties": {
    "context": {"type": "object", "properties": {"metric": {"type": "string"}, "aggregation": {"type": "string"},
                                                 "timeframe": TIMEFRAME},
                "required": ["metric", "aggregation", "timeframe"]},
    "data": METRIC_VALUE}, "required": ["context", "data"]}


def analytics_page(dimension: str, context: str) -> Schema:
    return {"type": "object", "properties": {
        "context": {"type": "object", "properties": {"metric": {"type": "string"}, context: {"type": "string"},
                                                     "timeframe": TIMEFRAME},
                    "required": ["metric", context, "timeframe"]},
        "data": {"type": "array", "items": {"type": "object", "properties": {
            dimension: {"type": "string"}, "metricValue": METRIC_VALUE}, "required": [dimension, "metricValue"]}},
        "pagination": PAGINATION}, "required": ["context", "data", "pagination"]}
