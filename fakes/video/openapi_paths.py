"""Paths of the OpenAPI document beyond videos: captions, chapters, summaries, watermarks, webhooks,
upload tokens and delegated uploads (``track_paths``), live streams, player themes and analytics
(``live_paths``), and the assets the fake serves (``asset_paths``)."""

from __future__ import annotations

from typing import Any

from .analytics import DEVICE_TYPES, MEDIA_TYPES
from .geo import CONTINENTS
from .openapi_operations import (
    BAD,
    IMAGE_RULE,
    NOT_FOUND,
    error,
    jpeg_upload,
    no_content,
    ok,
    op,
    paging,
    param,
    sorting,
)
from .openapi_schemas import (
    AGGREGATED,
    CAPTION,
    CHAPTER,
    LANGUAGE_TAG,
    LIVE_CREATION,
    LIVE_STREAM,
    LIVE_UPDATE,
    PLAYER,
    PLAYER_FIELDS,
    SUMMARY,
    SUMMARY_SOURCE,
    UPLOAD_TOKEN,
    VIDEO,
    WATERMARK,
    WEBHOOK,
    WEBVTT_FILE,
    Schema,
    analytics_page,
    image_file,
    page,
)
from .routes_analytics import AGGREGATIONS, BUCKET_METRICS, SERIES_METRICS
from .settings import VideoSettings
from .summaries import STATUSES
from .webhooks import EVENTS

IMAGE_UPLOAD: dict[str, Any] = {"content": "multipart/form-data", "encoding": {"file": {"contentType": "image/png"}},
                                "beyond_schema": IMAGE_RULE.format("JPEG or PNG", ".jpg, *.jpeg or *.png")}


def track_paths(settings: VideoSettings) -> dict[str, Any]:
    video_id, language = param("videoId"), param("language", schema=LANGUAGE_TAG)
    bad_language = error("a language tag the fake does not cover, or a malformed one; a file that is not WebVTT")
    vtt: dict[str, Any] = {"body": WEBVTT_FILE, "content": "multipart/form-data"}
    return {
        "/videos/{videoId}/captions": {"parameters": [video_id], "get": op(
            "Captions: the generated one, then uploaded ones", {"200": ok(page(CAPTION)), "400": BAD,
                                                               "404": NOT_FOUND}, tag="captions",
            params=paging(settings))},
        "/videos/{videoId}/captions/{language}": {
            "parameters": [video_id, language],
            "get": op("One caption", {"200": ok(CAPTION), "400": bad_language, "404": NOT_FOUND}, tag="captions"),
            "post": op("Upload a WebVTT caption", {"200": ok(CAPTION), "400": bad_language, "404": NOT_FOUND},
                       tag="captions", **vtt),
            "patch": op("Make a caption the default (or not)", {"200": ok(CAPTION), "400": bad_language,
                                                               "404": NOT_FOUND}, tag="captions",
                        body={"type": "object", "properties": {"default": {"type": "boolean"}},
                              "additionalProperties": False}),
            "delete": op("Delete an uploaded caption (generated ones stay)", {
                "204": no_content("deleted"), "400": bad_language, "404": NOT_FOUND}, tag="captions"),
        },
        "/videos/{videoId}/chapters": {"parameters": [video_id], "get": op(
            "Chapters", {"200": ok(page(CHAPTER)), "400": BAD, "404": NOT_FOUND}, tag="chapters",
            params=paging(settings))},
        "/videos/{videoId}/chapters/{language}": {
            "parameters": [video_id, language],
            "get": op("One chapter file", {"200": ok(CHAPTER), "400": bad_language, "404": NOT_FOUND}, tag="chapters"),
            "post": op("Upload a WebVTT chapter file", {"200": ok(CHAPTER), "400": bad_language, "404": NOT_FOUND},
                       tag="chapters", **vtt),
            "delete": op("Delete a chapter file", {"204": no_content("deleted"), "400": bad_language,
                                                   "404": NOT_FOUND}, tag="chapters"),
        },
        "/summaries": {
            "get": op("Summaries", {"200": ok(page(SUMMARY)), "400": BAD}, tag="summaries", params=[
                param("videoId", "query"), param("origin", "query", {"type": "string", "enum": ["api", "auto"]}),
                param("sourceStatus", "query", {"type": "string", "enum": list(STATUSES)}),
                *sorting("createdAt", "updatedAt", "videoId"), *paging(settings)]),
            "post": op("Generate a summary of a video (on the clock)", {
                "201": ok(SUMMARY, "created"), "400": BAD, "404": NOT_FOUND,
                "409": error("the video has a summary already")}, tag="summaries", body={
                "type": "object", "properties": {
                    "videoId": {"type": "string"}, "origin": {"type": "string", "enum": ["auto"]},
                    "attributes": {"type": "array", "minItems": 1, "items": {"type": "string",
                                                                             "enum": ["abstract", "takeaways"]}}},
                "required": ["videoId"], "additionalProperties": False}),
        },
        "/summaries/{summaryId}": {"parameters": [param("summaryId")], "delete": op(
            "Delete a summary", {"204": no_content("deleted"), "404": NOT_FOUND}, tag="summaries")},
        "/summaries/{summaryId}/source": {
            "parameters": [param("summaryId")],
            "get": op("A generated summary: abstract and takeaways", {"200": ok(SUMMARY_SOURCE), "404": NOT_FOUND},
                      tag="summaries"),
            "patch": op("Replace the summary's text (its origin becomes api)", {
                "201": ok(SUMMARY_SOURCE), "400": BAD, "404": NOT_FOUND,
                "409": error("the summary is still being generated")}, tag="summaries", body={
                "type": "object", "properties": {
                    "abstract": {"type": "string", "maxLength": 10000},
                    "takeaways": {"type": "array", "maxItems": 3, "items": {"type": "string", "maxLength": 1000}}},
                "additionalProperties": False}),
        },
        "/watermarks": {
            "get": op("Watermarks", {"200": ok(page(WATERMARK)), "400": BAD}, tag="watermarks",
                      params=[*sorting("createdAt"), *paging(settings)]),
            "post": op("Upload a watermark image (JPEG or PNG)", {
                "200": ok(WATERMARK), "400": error("not a .jpg/.jpeg/.png file, or not such an image")},
                tag="watermarks", body=image_file(), **IMAGE_UPLOAD),
        },
        "/watermarks/{watermarkId}": {"parameters": [param("watermarkId")], "delete": op(
            "Delete a watermark", {"204": no_content("deleted"), "404": NOT_FOUND}, tag="watermarks")},
        "/webhooks": {
            "post": op("Subscribe a URL to events", {"201": ok(WEBHOOK, "created"), "400": BAD}, tag="webhooks",
                       body={"type": "object", "properties": {
                           "events": {"type": "array", "minItems": 1, "items": {"type": "string",
                                                                                "enum": list(EVENTS)},
                                      "description": "an event named twice is subscribed once"},
                           "url": {"type": "string", "maxLength": 2048, "pattern": "^https?://",
                                   "description": "an absolute http(s) URL; loopback only unless settings allow"}},
                           "required": ["events", "url"], "additionalProperties": False},
                       beyond_schema="the URL's host must be a loopback address (or one the settings allow), "
                                     "and its port a valid one"),
            "get": op("List subscriptions", {"200": ok(page(WEBHOOK)), "400": BAD}, tag="webhooks",
                      params=[param("events", "query", {"type": "string", "enum": list(EVENTS)}), *paging(settings)]),
        },
        "/webhooks/{webhookId}": {
            "parameters": [param("webhookId")],
            "get": op("One subscription", {"200": ok(WEBHOOK), "404": NOT_FOUND}, tag="webhooks"),
            "delete": op("Unsubscribe", {"204": no_content("deleted"), "404": NOT_FOUND}, tag="webhooks"),
        },
        "/upload-tokens": {
            "get": op("Upload tokens alive now", {"200": ok(page(UPLOAD_TOKEN)), "400": BAD}, tag="upload tokens",
                      params=[*sorting("createdAt", "ttl"), *paging(settings)]),
            "post": op("Create a delegated upload token (ttl seconds on the fake's clock; 0: no expiry)", {
                "200": ok(UPLOAD_TOKEN), "400": BAD}, tag="upload tokens", body={
                "type": "object", "properties": {"ttl": {"type": "integer", "minimum": 0, "maximum": 2147483647}},
                "additionalProperties": False}),
        },
        "/upload-tokens/{uploadToken}": {
            "parameters": [param("uploadToken")],
            "get": op("One upload token", {"200": ok(UPLOAD_TOKEN), "404": NOT_FOUND}, tag="upload tokens"),
            "delete": op("Delete an upload token", {"204": no_content("deleted"), "404": NOT_FOUND},
                         tag="upload tokens"),
        },
        "/upload": {"post": {**op(
            "Upload with a delegated token (no API key): a new video titled after the file, the video of the "
            "videoId part, or the token's chunked upload in progress; Content-Range as for /source",
            {"201": ok(VIDEO), "400": error("as for /videos/{videoId}/source"),
             "401": error("no upload token, or one that is unknown or expired"), "404": NOT_FOUND},
            tag="videos", security=False, params=[param("token", "query", {"type": "string"})],
            body={"type": "object", "properties": {"file": {"type": "string", "format": "binary"},
                                                   "videoId": {"type": "string"}},
                  "required": ["file"], "additionalProperties": False}, content="multipart/form-data"),
            "security": [{"uploadToken": []}]}},
    }


def live_paths(settings: VideoSettings) -> dict[str, Any]:
    live_id, player_id = param("liveStreamId"), param("playerId")
    return {
        "/live-streams": {
            "get": op("Live streams", {"200": ok(page(LIVE_STREAM)), "400": BAD}, tag="live streams", params=[
                param("streamKey", "query", {"type": "string", "maxLength": 1000}),
                param("name", "query", {"type": "string", "maxLength": 1000}),
                *sorting("name", "createdAt", "updatedAt"), *paging(settings)]),
            "post": op("Create a live stream", {"200": ok(LIVE_STREAM), "400": BAD,
                                                "404": error("playerId names no player theme of the project")},
                       tag="live streams", body=LIVE_CREATION),
        },
        "/live-streams/{liveStreamId}": {
            "parameters": [live_id],
            "get": op("One live stream", {"200": ok(LIVE_STREAM), "404": NOT_FOUND}, tag="live streams"),
            "patch": op("Update a live stream", {"200": ok(LIVE_STREAM), "400": BAD, "404": NOT_FOUND},
                        tag="live streams", body=LIVE_UPDATE),
            "delete": op("Delete a live stream", {"204": no_content("deleted"), "404": NOT_FOUND}, tag="live streams"),
        },
        "/live-streams/{liveStreamId}/thumbnail": {
            "parameters": [live_id],
            "post": op("Upload a JPEG thumbnail", {"201": ok(LIVE_STREAM), "400": error("not a JPEG"),
                                                    "404": NOT_FOUND}, tag="live streams", **jpeg_upload()),
            "delete": op("Delete the uploaded thumbnail", {"200": ok(LIVE_STREAM), "404": NOT_FOUND},
                         tag="live streams"),
        },
        "/live-streams/{liveStreamId}/complete": {"parameters": [live_id], "put": op(
            "End the broadcast in progress now", {"202": no_content("accepted"), "404": NOT_FOUND},
            tag="live streams")},
        "/players": {
            "get": op("Player themes", {"200": ok(page(PLAYER)), "400": BAD}, tag="player themes",
                      params=[*sorting("name", "createdAt", "updatedAt"), *paging(settings)]),
            "post": op("Create a player theme", {"201": ok(PLAYER, "created"), "400": BAD}, tag="player themes",
                       body=PLAYER_FIELDS),
        },
        "/players/{playerId}": {
            "parameters": [player_id],
            "get": op("One player theme", {"200": ok(PLAYER), "404": NOT_FOUND}, tag="player themes"),
            "patch": op("Update a player theme", {"200": ok(PLAYER), "400": BAD, "404": NOT_FOUND},
                        tag="player themes", body=PLAYER_FIELDS),
            "delete": op("Delete a player theme (videos and live streams using it are detached)", {
                "204": no_content("deleted"), "404": NOT_FOUND}, tag="player themes"),
        },
        "/players/{playerId}/logo": {
            "parameters": [player_id],
            "post": op("Upload the theme's logo (JPEG or PNG) and its link", {
                "201": ok(PLAYER), "400": error("not a .jpg/.jpeg/.png image"), "404": NOT_FOUND},
                tag="player themes", body=image_file(extra={"link": {"type": "string", "maxLength": 2048}}),
                **IMAGE_UPLOAD),
            "delete": op("Delete the theme's logo", {"204": no_content("deleted"), "404": NOT_FOUND},
                         tag="player themes"),
        },
        **analytics_paths(settings),
    }


def analytics_paths(settings: VideoSettings) -> dict[str, Any]:
    filters: Schema = {"type": "object", "properties": {
        "mediaId": {"type": "array", "items": {"type": "string", "maxLength": 2048}},
        "mediaType": {"type": "string", "enum": list(MEDIA_TYPES)},
        "continent": {"type": "array", "items": {"type": "string", "enum": [*CONTINENTS, "AZ"]}},
        "country": {"type": "array", "items": {"type": "string", "pattern": "^[A-Z]{2}$"}},
        "deviceType": {"type": "array", "items": {"type": "string", "enum": list(DEVICE_TYPES)}},
        "operatingSystem": {"type": "array", "items": {"type": "string", "maxLength": 2048}},
        "browser": {"type": "array", "items": {"type": "string", "maxLength": 2048}},
        "tag": {"type": "string", "maxLength": 2048},
        "referrer": {"type": "array", "items": {"type": "string", "maxLength": 2048}}},
        "additionalProperties": False}
    common = [param("from", "query", {"type": "string", "format": "date-time"},
                    "default: a day before to; at most 30 days ago (an earlier one is taken as 30 days ago)"),
              param("to", "query", {"type": "string", "format": "date-time"}, "excluded; default: now"),
              param("unique", "query", {"type": "boolean"}, "ccv and view only (ignored otherwise)"),
              param("viewDuration", "query", {"type": "string", "enum": ["3s", "5s", "10s", "30s"]},
                    "view only (ignored otherwise)"),
              {**param("filterBy", "query", filters), "style": "deepObject", "explode": True}]
    unknown = error("no such metric, aggregation or breakdown (Unrecognized request URL)")
    sort = sorting  # (metricValue | dimensionValue | emittedAt, asc | desc)
    return {
        "/data/metrics/{metric}/{aggregation}": {"get": op(
            "One figure over a timeframe, from the project's plays", {
                "200": ok(AGGREGATED), "400": BAD, "404": unknown}, tag="analytics", params=[
                param("metric", schema={"type": "string", "enum": list(AGGREGATIONS)}),
                param("aggregation", schema={"type": "string", "enum": sorted({a for v in AGGREGATIONS.values()
                                                                              for a in v})}), *common])},
        "/data/buckets/{metric}/{breakdown}": {"get": op(
            "A metric broken down by a dimension", {
                "200": ok(analytics_page("dimensionValue", "breakdown")), "400": BAD, "404": unknown},
            tag="analytics", params=[
                param("metric", schema={"type": "string", "enum": list(BUCKET_METRICS)}),
                param("breakdown", schema={"type": "string", "enum": ["media-id", "media-type", "continent",
                                                                      "country", "device-type", "operating-system",
                                                                      "browser", "referrer"]}),
                *common, *sort("metricValue", "dimensionValue"), *paging(settings)])},
        "/data/timeseries/{metric}": {"get": op(
            "A metric over time, interval by interval", {
                "200": ok(analytics_page("emittedAt", "interval")), "400": BAD, "404": unknown}, tag="analytics",
            params=[param("metric", schema={"type": "string", "enum": list(SERIES_METRICS)}), *common,
                    param("interval", "query", {"type": "string", "enum": ["hour", "day"]},
                          "also minute, for a timeframe of at most 60 minutes; default hour up to 2 days, else day"),
                    *sort("metricValue", "emittedAt"), *paging(settings)])},
    }


def asset_paths() -> dict[str, Any]:
    missing = _text("text/plain", "not there (yet)")

    def asset(summary: str, media: str, *params: Schema, binary: bool = False, encoded: bool = False) -> Schema:
        body = {"type": "string", "format": "binary"} if binary else {"type": "string"}
        responses: Schema = {"200": {"description": summary, "content": {media: {"schema": body}}}, "404": missing}
        if encoded:  # made by encoding: until then (the source in) an empty 202 (the not_ready_status setting)
            responses["202"] = {"description": "the source is in but this is not encoded yet: an empty body"}
        return {"parameters": list(params), "get": {
            "tags": ["assets"], "security": [], "summary": summary, "responses": responses}}

    video_id, live_id = param("videoId"), param("liveStreamId")
    hls = "application/vnd.apple.mpegurl"
    return {
        "/vod/{videoId}": asset("Player page", "text/html", video_id),
        "/vod/{videoId}/hls/manifest.m3u8": asset("HLS master playlist (encoded qualities)", hls, video_id,
                                                  encoded=True),
        "/vod/{videoId}/thumbnail.jpg": asset("The thumbnail (uploaded, or a JPEG frame once ingested)", "image/jpeg",
                                              video_id, binary=True),
        "/vod/{videoId}/mp4/source.mp4": asset("MP4 (mp4Support)", "video/mp4", video_id, binary=True, encoded=True),
        "/live/{liveStreamId}": asset("Live player page", "text/html", live_id),
        "/live/{liveStreamId}.m3u8": asset("Live HLS playlist while broadcasting", hls, live_id),
        "/live/{liveStreamId}/thumbnail.jpg": asset("Live stream thumbnail", "image/jpeg", live_id, binary=True),
    }


def _text(media: str, description: str) -> Schema:
    return {"description": description, "content": {media: {"schema": {"type": "string"}}}}


__all__ = ["VIDEO", "asset_paths", "live_paths", "track_paths"]
