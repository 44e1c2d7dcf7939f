"""The creation and update payloads of a video (the reference's ``video-creation-payload`` and
``video-update-payload``): each attribute checked, unknown attributes and nulls refused."""

from __future__ import annotations

from typing import Any

from . import data
from .problems import attribute_required, invalid_attribute
from .videos import (
    CLIP_FIELDS,
    CREATION_FIELDS,
    MAX_ITEMS,
    MAX_TEXT,
    PLAYER_ID,
    SUMMARY_ATTRIBUTES,
    UPDATE_FIELDS,
    WATERMARK_FIELDS,
)


def _string(body: dict[str, Any], name: str, *, limit: int = MAX_TEXT) -> str | None:
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise invalid_attribute(name, f"{name} must be a string")
    if len(value) > limit:
        raise invalid_attribute(name, f"{name} is longer than {limit} characters")
    return value


def _boolean(body: dict[str, Any], name: str) -> bool | None:
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, bool):
        raise invalid_attribute(name, f"{name} must be a boolean")
    return value


def _tags(body: dict[str, Any]) -> list[str] | None:
    value = body.get("tags")
    if value is None:
        return None
    if not isinstance(value, list) or len(value) > MAX_ITEMS or not all(isinstance(t, str) and len(t) <= 255
                                                                       for t in value):
        raise invalid_attribute("tags", "tags must be a list of at most 100 strings")
    return list(value)


def _metadata(body: dict[str, Any]) -> list[dict[str, str]] | None:
    value = body.get("metadata")
    if value is None:
        return None
    if not isinstance(value, list) or len(value) > MAX_ITEMS:
        raise invalid_attribute("metadata", "metadata must be a list of {key, value} objects")
    pairs = []
    for item in value:
        if (not isinstance(item, dict) or set(item) != {"key", "value"} or not isinstance(item["key"], str)
                or not isinstance(item["value"], str) or not 1 <= len(item["key"]) <= 255
                or len(item["value"]) > 1000):
            raise invalid_attribute("metadata", "each metadata item is {key (1-255 characters), value (a string "
                                                "of at most 1000)}")
        pairs.append({"key": item["key"], "value": item["value"]})
    return pairs


def _language(body: dict[str, Any]) -> str | None:
    value = body.get("language")
    if value is None:
        return None
    if value not in data.LANGUAGES:
        raise invalid_attribute("language", f"language must be one of {', '.join(data.LANGUAGES)}")
    return str(value)


def _attributes(body: dict[str, Any]) -> list[str] | None:
    value = body.get("transcriptSummaryAttributes")
    if value is None:
        return None
    if not isinstance(value, list) or not value or not all(v in SUMMARY_ATTRIBUTES for v in value):
        raise invalid_attribute("transcriptSummaryAttributes", "a non-empty list of abstract and takeaways")
    return [a for a in SUMMARY_ATTRIBUTES if a in value]


def _object(body: dict[str, Any], name: str, allowed: frozenset[str]) -> dict[str, Any] | None:
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, dict) or not set(value) <= allowed or \
            not all(isinstance(v, str) and len(v) <= 100 for v in value.values()):
        raise invalid_attribute(name, f"{name} must be an object of strings with keys among "
                                      f"{', '.join(sorted(allowed))}")
    return dict(value)


def refuse_unknown(body: dict[str, Any], allowed: frozenset[str], nullable: frozenset[str] = frozenset()) -> None:
    """Unknown attributes and nulls where the reference has no null are refused, not ignored."""
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise invalid_attribute(unknown[0], f"unknown attribute; this payload takes {', '.join(sorted(allowed))}")
    nulls = sorted(name for name, value in body.items() if value is None and name not in nullable)
    if nulls:
        raise invalid_attribute(nulls[0], f"{nulls[0]} must not be null")


def _player_id(body: dict[str, Any]) -> str | None:
    value = _string(body, "playerId", limit=64)
    if value is not None and not PLAYER_ID.fullmatch(value):
        raise invalid_attribute("playerId", "playerId must be a player theme's id (pl and 22 letters and digits)")
    return value


def creation_fields(body: dict[str, Any]) -> dict[str, Any]:
    """The video's fields from a creation payload (the reference's ``video-creation-payload``)."""
    if "title" not in body or body["title"] is None:
        raise attribute_required("title")
    refuse_unknown(body, CREATION_FIELDS, frozenset({"language"}))
    title = _string(body, "title", limit=1000)
    if not title:
        raise invalid_attribute("title", "title must not be empty")
    fields: dict[str, Any] = {"title": title}
    fields.update(_common(body))
    for name, allowed in (("clip", CLIP_FIELDS), ("watermark", WATERMARK_FIELDS)):
        value = _object(body, name, allowed)
        if value is not None:
            fields[name] = value
    return fields


def update_fields(body: dict[str, Any]) -> dict[str, Any]:
    """Changed fields of a PATCH (``video-update-payload``); ``playerId: null`` detaches the player."""
    refuse_unknown(body, UPDATE_FIELDS, frozenset({"language", "playerId"}))
    fields: dict[str, Any] = {}
    if "title" in body:
        title = _string(body, "title", limit=1000)
        if not title:
            raise invalid_attribute("title", "title must be a non-empty string")
        fields["title"] = title
    fields.update(_common(body))
    if "playerId" in body and body["playerId"] is None:
        fields["player_id"] = None
    if "language" in body and body["language"] is None:
        fields["language"] = None
        fields["language_origin"] = None
    return fields


def _common(body: dict[str, Any]) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    checks: list[tuple[str, str, Any]] = [
        ("description", "description", _string(body, "description")),
        ("public", "public", _boolean(body, "public")),
        ("panoramic", "panoramic", _boolean(body, "panoramic")),
        ("mp4Support", "mp4_support", _boolean(body, "mp4Support")),
        ("playerId", "player_id", _player_id(body)),
        ("tags", "tags", _tags(body)),
        ("metadata", "metadata", _metadata(body)),
        ("language", "language", _language(body)),
        ("transcript", "transcript", _boolean(body, "transcript")),
        ("transcriptSummary", "transcript_summary", _boolean(body, "transcriptSummary")),
        ("transcriptSummaryAttributes", "summary_attributes", _attributes(body)),
    ]
    for _name, attribute, value in checks:
        if value is not None:
            fields[attribute] = value
    if "language" in fields:
        fields["language_origin"] = "api"
    return fields
