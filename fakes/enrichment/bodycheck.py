"""Checks a control-plane body (and an imported record) against the flat schemas of the service's
OpenAPI document: strings with length, pattern or enum; integers and numbers with bounds; arrays."""

from __future__ import annotations

import math
import re
from typing import Any

from fakes.kernel.errors import ControlError

from .operations import EMAIL
from .settings import PLANS

Schema = dict[str, Any]
BOOL: Schema = {"type": "boolean"}


WEBSITE_PATTERN = r"^(https?://)?([A-Za-z0-9]([A-Za-z0-9-]{0,30}[A-Za-z0-9])?\.)+[A-Za-z]{2,12}/?$"
NAME_PATTERN = r"^[^|\s][^|]{0,99}$"
TEXT: Schema = {"type": "string", "minLength": 1, "maxLength": 500}
COUNT: Schema = {"type": "integer", "minimum": 0, "maximum": 10_000_000}
#: bodies of the control plane's own operations; the fake checks bodies against these very schemas
COMPANY_IN: Schema = {"type": "object", "additionalProperties": False, "required": ["website"], "properties": {
    "website": {"type": "string", "pattern": WEBSITE_PATTERN}, "name": TEXT, "description": TEXT, "tagline": TEXT,
    "industry": {"type": "integer", "minimum": 10_000_000, "maximum": 99_999_999},
    "company_type": {"type": "string", "enum": ["PUBLIC_COMPANY", "PRIVATELY_HELD", "GOVERNMENT_AGENCY", "NON_PROFIT",
                                                "EDUCATIONAL", "PARTNERSHIP", "SELF_EMPLOYED", "SELF_OWNED"]},
    "founded_year": {"type": "integer", "minimum": 1600, "maximum": 2100}, "employee_count": COUNT,
    "follower_count": COUNT, "following_count": COUNT,
    "specialties": {"type": "array", "maxItems": 20, "items": TEXT},
    "cover_pic_url": TEXT, "facebook_url": TEXT, "twitter_url": TEXT, "instagram_url": TEXT}}
PERSON_IN: Schema = {"type": "object", "additionalProperties": False,
                     "required": ["first_name", "last_name", "employer_website"], "properties": {
    "first_name": {"type": "string", "pattern": NAME_PATTERN}, "last_name": {"type": "string", "pattern": NAME_PATTERN},
    "middle_name": {"type": "string", "pattern": NAME_PATTERN},
    "employer_website": {"type": "string", "pattern": WEBSITE_PATTERN},
    "role": {"type": "string", "minLength": 1, "maxLength": 200},
    "work_email": {"type": "string", "pattern": f"^{EMAIL}$"}, "bio": TEXT,
    "country": {"type": "string", "pattern": "^[A-Z]{2}$"}, "city": TEXT, "state": TEXT, "x_handle": TEXT,
    "x_profile_url": TEXT, "personal_website": TEXT, "follower_count": COUNT, "following_count": COUNT}}
ACCOUNT_IN: Schema = {"type": "object", "additionalProperties": False, "properties": {
    "plan": {"type": "string", "enum": list(PLANS)},
    "credits": {"type": "number", "minimum": 0, "maximum": 100_000_000_000},
    "rate_limited": BOOL, "api_key": {"type": "string", "pattern": "^[A-Za-z0-9_-]{8,64}$"}}}
PURCHASE_IN: Schema = {"type": "object", "additionalProperties": False, "required": ["pack_usd"],
                       "properties": {"pack_usd": {"type": "integer", "minimum": 10, "maximum": 1_000_000}}}


def check_body(fields: dict[str, Any], schema: dict[str, Any], what: str) -> None:
    """Refuse (400) what the operation's own OpenAPI body schema refuses: the same flat schema
    (strings with length/pattern/enum, integers and numbers with bounds, arrays of strings)."""
    properties: dict[str, Any] = schema["properties"]
    problems = [f"unknown field {name!r}" for name in fields if name not in properties]
    problems += [f"{name!r} is required" for name in schema.get("required", ()) if name not in fields]
    for name, value in fields.items():
        spec = properties.get(name)
        if spec is not None and not fits(value, spec):
            problems.append(f"{name!r} does not fit {spec}")
    if problems:
        raise ControlError(400, f"{what}: {'; '.join(problems)}", code="invalid_field")


def fits(value: Any, spec: dict[str, Any]) -> bool:
    kind = spec.get("type")
    if kind == "string":
        return (isinstance(value, str) and spec.get("minLength", 0) <= len(value) <= spec.get("maxLength", 10**9)
                and ("enum" not in spec or value in spec["enum"])
                and ("pattern" not in spec or re.search(spec["pattern"], value) is not None))
    if kind in ("integer", "number"):
        allowed: tuple[type, ...] = (int,) if kind == "integer" else (int, float)
        return (isinstance(value, allowed) and not isinstance(value, bool)
                and spec.get("minimum", -math.inf) <= value <= spec.get("maximum", math.inf))
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "array":
        return (isinstance(value, list) and len(value) <= spec.get("maxItems", 10**9)
                and all(fits(item, spec["items"]) for item in value))
    return True
