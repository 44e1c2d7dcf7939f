"""The pieces every path of the OpenAPI document is built of: responses with the rate-limit headers,
parameters, paging and sorting, the operation object, and the responses many operations share.

Below openapi.py (the videos' paths and the document) and openapi_paths.py (every other path),
which both build with them.
"""

from __future__ import annotations

from typing import Any

from fakes.kernel.openapi import ACCEPTANCE_BEYOND_SCHEMA, json_response_spec

from .openapi_schemas import PROBLEM, RATE_HEADERS, Schema, image_file
from .settings import VideoSettings


def ok(schema: Schema, description: str = "OK") -> Schema:
    return json_response_spec(schema, description, headers=RATE_HEADERS)


def error(description: str) -> Schema:
    return json_response_spec(PROBLEM, description, headers=RATE_HEADERS)


def no_content(description: str) -> Schema:
    return {"description": description, "headers": RATE_HEADERS}


def param(name: str, where: str = "path", schema: Schema | None = None, description: str = "") -> Schema:
    return {"name": name, "in": where, "required": where == "path", "description": description,
            "schema": schema or {"type": "string"}}


def op(summary: str, responses: dict[str, Any], *, tag: str = "videos", body: Schema | None = None,
       params: list[Schema] | None = None, security: bool = True, content: str = "application/json",
       encoding: dict[str, Any] | None = None, beyond_schema: str | None = None) -> Schema:
    merged = {**responses, "405": error("method not allowed"), "429": error("too many requests")}
    if security:
        merged.setdefault("401", error("missing, malformed or wrong key or token"))
    operation: Schema = {"tags": [tag], "summary": summary, "responses": merged}
    if not security:
        operation["security"] = []
    if body is not None:
        media: Schema = {"schema": body}
        if encoding:
            media["encoding"] = encoding
        operation["requestBody"] = {"required": True, "content": {content: media}}
    if params:
        operation["parameters"] = params
    if beyond_schema:
        operation[ACCEPTANCE_BEYOND_SCHEMA] = beyond_schema
    return operation


def paging(settings: VideoSettings) -> list[Schema]:
    return [param("currentPage", "query", {"type": "integer", "minimum": 1, "maximum": 1_000_000_000}),
            param("pageSize", "query", {"type": "integer", "minimum": settings.min_page_size,
                                        "maximum": settings.max_page_size})]


def sorting(*fields: str) -> list[Schema]:
    return [param("sortBy", "query", {"type": "string", "enum": list(fields)}),
            param("sortOrder", "query", {"type": "string", "enum": ["asc", "desc"]})]


def jpeg_upload() -> dict[str, Any]:
    """A multipart body whose file part is a JPEG named *.jpg (the reference judges the extension)."""
    return {"body": image_file(), "content": "multipart/form-data",
            "encoding": {"file": {"contentType": "image/jpeg"}}, "beyond_schema": IMAGE_RULE.format("JPEG", ".jpg")}


#: why an image upload's acceptance goes beyond its schema (tests/support/schemathesis_harness.py)
IMAGE_RULE = ("the file must be a {} image named *{} (the reference judges the extension, the fake the bytes "
              "too): a schema can say neither of a binary part")


NOT_FOUND = error("unknown id (or a sandbox video past its 24 hours)")
BAD = error("an attribute or parameter is invalid")
