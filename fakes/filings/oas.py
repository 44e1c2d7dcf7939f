"""Building blocks of the filings OpenAPI document (:mod:`.openapi`, :mod:`.openapi_extra`)."""

from __future__ import annotations

from typing import Any

from fakes.kernel.http import JSON_INT_MAX
from fakes.kernel.openapi import ACCEPTANCE_BEYOND_SCHEMA, json_response_spec

from .settings import FilingsSettings

Schema = dict[str, Any]
_json = json_response_spec
EMPTY = {"type": "string", "maxLength": 0}
BOOLEAN_WORDS = ["true", "True", "1", "false", "False", "0"]


def s(fmt: str | None = None, *, nullable: bool = False, enum: list[str] | None = None) -> Schema:
    schema: Schema = {"type": "string"}
    if fmt:
        schema["format"] = fmt
    if nullable:
        schema["nullable"] = True
    if enum:  # a nullable enum lists null: OpenAPI 3.0.3 lets the enum restrict nullable
        schema["enum"] = [*enum, None] if nullable else enum
    return schema


def i(*, nullable: bool = False, minimum: int | None = None, maximum: int | None = None) -> Schema:
    schema: Schema = {"type": "integer"}
    if nullable:
        schema["nullable"] = True
    if minimum is not None:
        schema["minimum"] = minimum
    if maximum is not None:
        schema["maximum"] = maximum
    return schema


def b(*, nullable: bool = False) -> Schema:
    return {"type": "boolean", "nullable": True} if nullable else {"type": "boolean"}


def obj(properties: dict[str, Schema], required: list[str] | None = None) -> Schema:
    needed = list(properties) if required is None else required
    return {"type": "object", "properties": properties, **({"required": needed} if needed else {})}


def ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def array(items: Schema, *, min_items: int | None = None, max_items: int | None = None) -> Schema:
    found: Schema = {"type": "array", "items": items}
    if min_items is not None:
        found["minItems"] = min_items
    if max_items is not None:
        found["maxItems"] = max_items
    return found


def nullable(schema: Schema) -> Schema:
    return {**schema, "nullable": True}


def lenient(schema: Schema) -> Schema:
    """A filter's value, or an empty one (ignored, as django-filter does)."""
    return {"anyOf": [schema, EMPTY]}


def query(name: str, schema: Schema, description: str, *, required: bool = False) -> Schema:
    return {"name": name, "in": "query", "required": required, "schema": schema, "description": description}


def path(name: str, description: str, schema: Schema | None = None) -> Schema:
    return {"name": name, "in": "path", "required": True, "schema": schema or i(minimum=1),
            "description": description}


def id_filter(name: str, description: str) -> Schema:
    return query(name, lenient(i(minimum=0, maximum=JSON_INT_MAX)), description)


def word_filter(name: str, description: str) -> Schema:
    return query(name, lenient(s(enum=BOOLEAN_WORDS)), description)


def paging(settings: FilingsSettings) -> list[Schema]:
    return [
        query("page", i(minimum=1), "Page number (1-based); a page past the end is 404 `Invalid page.`"),
        query("page_size", lenient(i(minimum=1)),
              f"Results per page (default {settings.default_page_size}); above {settings.max_page_size} it is "
              f"cut to {settings.max_page_size}, as Django REST framework does."),
    ]


RATE_HEADERS = {
    name: {"schema": s(), "required": False, "description": description} for name, description in [
        ("X-RateLimit-Burst-Limit", "Burst rate, e.g. `50/second` (informational)."),
        ("X-RateLimit-Monthly-Limit", "The key's allowance (calls a year here), or `Unlimited`."),
        ("X-RateLimit-Monthly-Remaining", "Calls left in the allowance, or `Unlimited`."),
        ("X-RateLimit-Monthly-Unit", "`requests`."),
    ]
}
DESCRIBED = {
    400: "A malformed parameter or body.",
    401: "No API key, or an unknown one.",
    402: "An agent key whose sandbox is used up (the owner must confirm or fund the account).",
    403: "The key's tier does not include this resource (or its agent account may not).",
    404: "Unknown id, or a page past the end (`Invalid page.`).",
    409: "The request conflicts with the state.",
    429: "The key's quota is used up (`Retry-After` says until when).",
}


def errors(*statuses: int, schema: Schema | None = None) -> dict[str, Schema]:
    found: dict[str, Schema] = {}
    for status in statuses:
        if status == 429:
            found["429"] = _json(ref("RateLimitError"), DESCRIBED[429], {
                **RATE_HEADERS, "Retry-After": {"schema": s(), "required": True,
                                                "description": "Seconds until the allowance resets."}})
        else:
            found[str(status)] = _json(schema or ref("ErrorDetail"), DESCRIBED[status],
                                       RATE_HEADERS if status not in (401, 402) else None)
    return found


def ok(schema: Schema, description: str, status: int = 200) -> dict[str, Schema]:
    return {str(status): _json(schema, description, RATE_HEADERS)}


#: the statuses a keyed operation can answer besides its own (no key, tier, agent sandbox, quota)
GUARD = (401, 402, 403, 429)


def operation(summary: str, description: str, tag: str, *, params: list[Schema] | None = None,
              responses: dict[str, Schema], body: Schema | None = None, body_required: bool = True,
              beyond_schema: str | None = None, security: bool = True) -> Schema:
    found: Schema = {"tags": [tag], "summary": summary, "description": description, "parameters": params or [],
                     "responses": responses}
    if body is not None:
        found["requestBody"] = {"required": body_required, "content": {"application/json": {"schema": body}}}
    if beyond_schema:
        found[ACCEPTANCE_BEYOND_SCHEMA] = beyond_schema
    if not security:
        found["security"] = []
    return found


def listing(item: str) -> Schema:
    return obj({"count": i(minimum=0), "next": s(nullable=True), "previous": s(nullable=True),
                "results": array(ref(item))}, ["count", "results"])
