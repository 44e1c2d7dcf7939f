"""Small helpers that route handlers of every service share: JSON in, JSON out, query parameters."""

from __future__ import annotations

import json
import re
from typing import Any

import orjson
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import Response

from .errors import ServiceError

_INTEGER = re.compile(r"-?[0-9]+")


def dumps(content: Any) -> bytes:
    """Compact UTF-8 JSON, the bytes ``json.dumps(content, ensure_ascii=False, separators=(",", ":"))``
    gives (tested), about 10x faster on large pages; orjson is a plain dependency."""
    return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS)


class JSONResponse(Response):
    """Compact UTF-8 JSON (orjson); cheaper than Starlette's."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return dumps(content)


def json_response(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return JSONResponse(data, status_code=status, headers=headers)


async def read_json(request: Request, *, error: type[ServiceError] = ServiceError) -> Any:
    """The request body as JSON; ``{}`` when empty; a 400 when it is not JSON."""
    raw = await request.body()
    if not raw:
        return {}
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise error(400, f"request body is not valid JSON: {exc}", code="invalid_json") from exc


async def read_json_object(request: Request, *, error: type[ServiceError] = ServiceError) -> dict[str, Any]:
    body = await read_json(request, error=error)
    if not isinstance(body, dict):
        raise error(400, "request body must be a JSON object", code="invalid_json")
    return body


def parse_query(request: Request) -> QueryParams:
    """``request.query_params``, parsed without ``parse_qsl`` when the query needs no decoding.

    Most queries are plain ``a=1&b=x``; splitting them directly gives the same pairs as
    Starlette's ``parse_qsl(..., keep_blank_values=True)`` at a fraction of the cost (it was a
    fifth of a snapshot request's time). Later ``request.query_params`` reads reuse the result.
    """
    cached: QueryParams | None = getattr(request, "_query_params", None)
    if cached is None:
        raw = request.scope["query_string"].decode("latin-1")
        if "%" in raw or "+" in raw:
            cached = QueryParams(raw)
        else:
            cached = QueryParams([(name, value) for name, _, value in
                                  (part.partition("=") for part in raw.split("&") if part)])
        request._query_params = cached
    return cached


def query_int(
    request: Request,
    name: str,
    default: int | None = None,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    error: type[ServiceError] = ServiceError,
) -> int | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    # int() would also take "1_000", " 5" and "٣"; a query integer is plain ASCII digits
    if not _INTEGER.fullmatch(raw):
        raise error(400, f"query parameter '{name}' must be an integer, got {raw!r}", code="invalid_parameter")
    value = int(raw)
    if minimum is not None and value < minimum:
        raise error(400, f"query parameter '{name}' must be >= {minimum}", code="invalid_parameter")
    if maximum is not None and value > maximum:
        raise error(400, f"query parameter '{name}' must be <= {maximum}", code="invalid_parameter")
    return value


def bearer_token(request: Request) -> str | None:
    """The token of an ``Authorization: Bearer`` header, or None."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()
