"""What every account route shares: the caller's credentials (the token header or a bearer token,
the org header, the session cookie), request bodies read as treg's FastAPI reads them (a missing
or mistyped field is a 422 listing ``{"type", "loc", "msg"}`` per problem; unknown fields are
ignored), ``X-Treg-Body-Encoding`` (base64, gzip, or both, undone before the body is read; treg
``bootstrap_http.py`` ``_BodyDecodeMiddleware``), path and query numbers (422 when not numbers).

Routes are built once per process: the fake (or world) is the scope's ``app``.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import zlib
from typing import TYPE_CHECKING, Any

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from fakes.kernel.errors import ServiceError
from fakes.kernel.http import check_json_value, header_value, json_response, named_header, parse_query
from fakes.kernel.limits import limit_body, route_cap

from .. import bodies
from ..errors import Refusal
from ..modelview import ModelView
from ..served import fake_of
from ..teams import Membership
from .people import User, norm_client

if TYPE_CHECKING:
    from ..model import RelayModel
    from .identity import Accounts

MAX_BODY = 10 * 1024 * 1024


def model_of(request: Request) -> RelayModel:
    return fake_of(request).model


def accounts_of(request: Request) -> Accounts:
    return model_of(request).accounts


def client_of(request: Request) -> str:
    """The calling runtime from the client header (attribution only: treg ``_norm_client``)."""
    return norm_client(named_header(request, model_of(request).h.client))


def credentials(request: Request) -> tuple[str | None, str | None, str | None]:
    """(token, session cookie, org header) as the relay reads them: read from the scope as
    Starlette's ``Headers`` would give them, without building it (every account route asks)."""
    model = model_of(request)
    h = model.h
    token = named_header(request, h.token)
    if not token:
        scheme, _, bearer = (header_value(request, b"authorization") or "").partition(" ")
        token = bearer.strip() if scheme.lower() == "bearer" and bearer.strip() else None
    # Starlette parses the first Cookie header into request.cookies: only when there is one
    cookie = request.cookies.get(session_cookie(model)) if header_value(request, b"cookie") is not None else None
    return token, cookie, named_header(request, h.org) or None


def session_cookie(model: ModelView) -> str:
    return f"{model.settings.relay_name}_session"


def member(request: Request) -> Membership:
    token, cookie, org = credentials(request)
    return model_of(request).accounts.require_member(token, cookie, org, method=request.method)


def identity(request: Request) -> User:
    token, cookie, _ = credentials(request)
    return model_of(request).accounts.require_identity(token, cookie)


def invalid(loc: list[Any], message: str, kind: str = "value_error") -> ServiceError:
    """FastAPI's request-validation 422: ``{"detail": [{"type", "loc", "msg", "input"}]}``."""
    return ServiceError(422, message, code="validation_error",
                        detail=[{"type": kind, "loc": loc, "msg": message, "input": None}])


def refused(status: int, detail: str, code: str = "error", **extra: Any) -> ServiceError:
    return ServiceError(status, detail, code=code, **extra)


def decode_body(raw: bytes, encoding: str) -> bytes:
    """Undo ``X-Treg-Body-Encoding`` left to right (``base64``, ``gzip``, ``base64+gzip``, ``,`` also
    separates); ``ValueError`` when a step fails or is unknown."""
    out = raw
    for step in (s.strip().lower() for s in encoding.replace(",", "+").split("+") if s.strip()):
        if step == "base64":
            try:
                out = base64.b64decode(b"".join(out.split()), validate=True)
            except binascii.Error as exc:
                raise ValueError(str(exc)) from None
        elif step == "gzip":
            try:
                out = gzip.decompress(out)
            except (OSError, EOFError, zlib.error) as exc:
                raise ValueError(str(exc)) from None
            if len(out) > MAX_BODY * 10:
                raise ValueError("the decoded body is too large")
        else:
            raise ValueError(f"unsupported body encoding: {step}")
    return out


async def raw_body(request: Request) -> bytes:
    raw = await request.body()
    encoding = request.headers.get(model_of(request).h.body_encoding)
    if encoding is None:
        return raw
    try:
        return decode_body(raw, encoding)
    except ValueError:
        raise ServiceError(400, f"invalid {model_of(request).h.body_encoding} body", code="invalid_body_encoding") \
            from None


async def read_body(request: Request, schema: bodies.Schema | None, *, optional: bool = False) -> dict[str, Any]:
    """The JSON object body checked against ``schema`` (422 as FastAPI answers it)."""
    raw = await raw_body(request)
    if not raw.strip():
        if optional:
            return {}
        raise invalid(["body"], "Field required", "missing")
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise invalid(["body", 0], f"JSON decode error: {exc}", "json_invalid") from None
    problem = check_json_value(body)
    if problem is not None:  # valid JSON the relay could not keep or send back (a lone surrogate, a huge integer)
        raise ServiceError(403, f"the relay keeps text without lone surrogates and integers within 64 bits: "
                                f"{problem}", code="not_allowed")
    if not isinstance(body, dict):
        raise invalid(["body"], "Input should be a valid dictionary or object to extract fields from",
                      "model_attributes_type")
    if schema is not None:
        found = bodies.problem(body, schema, "")
        if found is not None:
            where, why = found
            loc: list[Any] = ["body", *[int(p) if p.isascii() and p.isdigit() else p
                                        for p in where.replace("[", ".").replace("]", "").split(".") if p]]
            raise invalid(loc, why, "missing" if why == "is required" else "value_error")
    return body


def path_int(request: Request, name: str) -> int:
    raw = request.path_params[name]
    if not raw.isascii() or not raw.lstrip("-").isdigit() or len(raw) > 18:
        raise invalid(["path", name], "Input should be a valid integer, unable to parse string as an integer",
                      "int_parsing")
    return int(raw)


def query_int(request: Request, name: str, default: int | None, low: int = -(2**31), high: int = 2**31
              ) -> int | None:
    """An integer query parameter from ``low`` to ``high`` (the bounds the document declares), else 422."""
    raw = parse_query(request).get(name)  # the kernel's parse, remembered per query string
    if raw is None:
        return default
    if not raw.isascii() or not raw.strip().lstrip("-").isdigit() or len(raw) > 18:
        raise invalid(["query", name], "Input should be a valid integer, unable to parse string as an integer",
                      "int_parsing")
    value = int(raw)
    if not low <= value <= high:
        raise invalid(["query", name], f"Input should be from {low} to {high}", "value_error")
    return value


def query_text(request: Request, name: str, default: str = "") -> str:
    return parse_query(request).get(name, default)


def refusal_error(refusal: Refusal) -> ServiceError:
    """A guard's refusal of the call pipeline (the daily cap's 429, a deny rule's 403 ...) met by an
    account route: the same status and body, in the relay's error shape."""
    body = dict(refusal.body)
    detail = body.pop("detail", "")
    code = body.pop("error", "error")
    return ServiceError(refusal.status, str(detail), code=str(code), headers=dict(refusal.headers), **body)


#: the methods whose body an account route reads before anything else
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


def body_first(routes: list[BaseRoute]) -> list[BaseRoute]:
    """The routes, each taking a body reading it before anything else (as FastAPI does): a body past
    the cap is the kernel's 413 whatever the path or the caller would be refused for. A guard's
    :class:`Refusal` raised on the way is answered as the refusal it is (never a 500)."""
    out: list[BaseRoute] = []
    for route in routes:
        if not isinstance(route, Route):
            out.append(route)
            continue
        reads = bool(set(route.methods or ()) & BODY_METHODS)

        async def guarded(request: Request, endpoint: Any = route.endpoint, reads: bool = reads) -> Response:
            if reads and request.scope["method"] in BODY_METHODS:  # a GET of a GET-and-POST route reads none
                await request.body()  # kept by the request: the handler's own read gets it again
            try:
                response: Response = await endpoint(request)
            except Refusal as refusal:
                raise refusal_error(refusal) from None
            return response

        copy = Route(route.path, guarded, methods=sorted(route.methods or ()), name=route.name)
        cap = route_cap(route)
        out.append(copy if cap is None else limit_body(copy, cap))
    return out


def ok(body: Any, status: int = 200) -> Response:
    return json_response(body, status)
