"""Small helpers that route handlers of every service share: JSON in, JSON out, query parameters."""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import orjson
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Scope

from .errors import ServiceError

_INTEGER = re.compile(r"-?[0-9]+")


def dumps(content: Any) -> bytes:
    """Compact UTF-8 JSON, the bytes ``json.dumps(content, ensure_ascii=False, separators=(",", ":"))``
    gives (tested), about 10x faster on large pages; orjson is a plain dependency. orjson writes
    integers up to 64 bits; a larger one (a fault's free-form body may hold it) is written by the
    standard library instead.

    orjson hands back its whole working buffer (at least 4 KiB since 3.12, up to about twice the
    length of a long body; https://github.com/home-assistant/core/pull/181245): a body the
    journal or a render cache keeps would hold all of it, a few KiB per entry of every world.
    The copy holds only the bytes (a fraction of a microsecond on the answer's way out)."""
    try:
        return b"".join((orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS), b""))
    except orjson.JSONEncodeError:
        if check_json_value(content, integers=False) is not None:
            raise
        return json.dumps(content, ensure_ascii=False, separators=(",", ":")).encode()


class JSONResponse(Response):
    """Compact UTF-8 JSON (orjson); cheaper than Starlette's. Its header list is the one Starlette's
    ``init_headers`` would build: without headers of its own (the common answer) its two headers
    built directly, with them (an error's) from :func:`encoded_header_list`."""

    media_type = "application/json"

    def __init__(self, content: Any = None, status_code: int = 200, headers: Mapping[str, str] | None = None,
                 media_type: str | None = None, background: Any = None) -> None:
        if media_type is None and background is None and status_code >= 200 and status_code not in (204, 304) \
                and self.media_type == "application/json":
            self.status_code = status_code
            self.background = None
            self.body = body = dumps(content)
            if headers is None:
                self.raw_headers = [(b"content-length", str(len(body)).encode("latin-1")), _JSON_TYPE]
            else:  # an error's answer with the service's headers: encoded once per shape
                self.raw_headers = encoded_header_list("application/json", len(body), headers)
        else:
            super().__init__(content, status_code, headers, media_type, background)

    def render(self, content: Any) -> bytes:
        return dumps(content)


_JSON_TYPE = (b"content-type", b"application/json")


class JSONBytesResponse(Response):
    """JSON already rendered to bytes (a cached page): its two headers built directly, the same
    bytes Starlette's ``Response(body, media_type="application/json")`` sends without re-scanning."""

    def __init__(self, body: bytes, status: int = 200) -> None:
        self.status_code = status
        self.body = body
        self.background = None
        self.raw_headers = [(b"content-length", str(len(body)).encode()), (b"content-type", b"application/json")]


def json_response(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return JSONResponse(data, status_code=status, headers=headers)


async def read_json(request: Request, *, error: type[ServiceError] = ServiceError) -> Any:
    """The request body as JSON; ``{}`` when empty; the service's 400 when it is not JSON or holds
    a value no response could carry back (see :func:`check_json_value`)."""
    raw = await request.body()
    if not raw:
        return {}
    return parse_json(raw, error=error)


def parse_json(raw: bytes | str, *, error: type[ServiceError] = ServiceError) -> Any:
    """``json.loads`` without ``NaN``/``Infinity`` and with :func:`check_json_value`; the 400 of
    ``error`` (the service's or the control plane's shape) for anything else."""
    try:
        value = json.loads(raw, parse_constant=_refuse_constant)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise error(400, f"request body is not valid JSON: {exc}", code="invalid_json") from None
    # integers of any size pass here (a schema's "integer" has no bound): a service bounds what it stores
    problem = check_json_value(value, integers=False)
    if problem is not None:
        raise error(400, f"request body: {problem}", code="invalid_json")
    return value


#: integers every JSON encoder (orjson included) can write back; beyond them a stored value would
#: make every later read that serialises it fail
JSON_INT_MIN = -(2**63)
JSON_INT_MAX = 2**63 - 1
_MAX_DEPTH = 200


def _refuse_constant(name: str) -> Any:
    return float(name)  # NaN and Infinity are not JSON: check_json_value refuses them by their path


def finite_number(value: Any) -> float | None:
    """A JSON number as a finite float, or None: not a number (booleans are not), not finite, or an
    integer too large for a float (``float(10**400)`` raises OverflowError, and so does
    ``math.isfinite``). Range-check integers against their bounds before converting them."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, int):
        try:
            return float(value)
        except OverflowError:
            return None
    return value if math.isfinite(value) else None


def text_problem(text: str) -> str | None:
    """Why ``text`` cannot be stored and sent back as UTF-8 (a lone UTF-16 surrogate), or None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"a lone UTF-16 surrogate (U+{ord(text[exc.start]):04X}) is not text"
    return None


def check_json_value(value: Any, where: str = "", *, integers: bool = True) -> str | None:
    """The first value in a parsed JSON document that the fake could not write back, or None.

    Lone UTF-16 surrogates (``"\\ud800"`` is valid JSON but not Unicode text), integers beyond
    64 bits (unless ``integers=False``), non-finite numbers, nesting deeper than 200. Every JSON
    body read with :func:`read_json` passes here (integers unchecked: each service bounds the ones it
    keeps), so a service stores only text its responses can carry. Iterative: a deep document
    cannot exhaust the stack. A first pass keeps no paths (a state import checks every value of a
    large document); only a document with a problem is walked again to name where it is."""
    if _fine(value, integers):
        return None
    return _locate(value, where, integers)


def _fine(value: Any, integers: bool) -> bool:
    # a stack of iterators, one per open array or object: its memory is the nesting's, not the
    # document's (a state of 8 million values would have pushed 8 million tuples)
    stack: list[Iterator[Any]] = [iter((value,))]
    dicts = [False]
    while stack:
        in_dict = dicts[-1]
        for child in stack[-1]:
            if in_dict:
                key, child = child
                if type(key) is not str or (not key.isascii() and text_problem(key) is not None):
                    return False
            kind = type(child)
            if kind is str:
                if not child.isascii() and text_problem(child) is not None:
                    return False
            elif kind is dict or kind is list:
                if len(stack) > _MAX_DEPTH:
                    return False
                stack.append(iter(child.items()) if kind is dict else iter(child))
                dicts.append(kind is dict)
                break  # into it; this one goes on where it stopped
            elif kind is int:
                if integers and not JSON_INT_MIN <= child <= JSON_INT_MAX:
                    return False
            elif kind is float:
                if not math.isfinite(child):
                    return False
            elif child is None or kind is bool:
                continue
            else:
                return False  # a subclass or another type: the careful walk judges it
        else:
            stack.pop()
            dicts.pop()
    return True


def _locate(value: Any, where: str, integers: bool) -> str | None:
    """The first problem in document order, with its path (only a document that has one is walked
    so: the paths cost a string per value)."""
    stack: list[tuple[str, Iterator[tuple[Any, Any]], bool]] = [("", iter(((where, value),)), False)]
    while stack:
        parent, children, in_dict = stack[-1]
        for name, item in children:
            if in_dict:
                if not isinstance(name, str):  # only from Python callers; JSON keys are text
                    return f"{parent or 'value'}: the key {name!r} is not a string"
                if not name.isascii() and text_problem(name) is not None:
                    return f"{parent or 'value'}: a key holds {text_problem(name)}"
                path = f"{parent}.{name}" if parent else name
            else:
                path = name if len(stack) == 1 else f"{parent}[{name}]"
            problem = _problem(item, path, integers)
            if problem is not None:
                return problem
            if isinstance(item, (dict, list)):
                if len(stack) > _MAX_DEPTH:
                    return f"{path or 'value'}: nested deeper than {_MAX_DEPTH} levels"
                stack.append((path, iter(item.items()) if isinstance(item, dict) else enumerate(item),
                              isinstance(item, dict)))
                break
        else:
            stack.pop()
    return None


def _problem(item: Any, path: str, integers: bool) -> str | None:
    """What is wrong with a scalar (None: nothing; an array or object is walked by the caller)."""
    if isinstance(item, str):
        if not item.isascii():
            problem = text_problem(item)
            if problem is not None:
                return f"{path or 'value'}: {problem}"
    elif isinstance(item, bool) or item is None or isinstance(item, (dict, list)):
        return None
    elif isinstance(item, int):
        if integers and not JSON_INT_MIN <= item <= JSON_INT_MAX:
            return f"{path or 'value'}: the integer is outside the 64-bit range"
    elif isinstance(item, float):
        if not math.isfinite(item):
            return f"{path or 'value'}: the number is not finite"
    else:
        return f"{path or 'value'}: {type(item).__name__} is not a JSON value"
    return None


async def read_json_object(request: Request, *, error: type[ServiceError] = ServiceError,
                           required: bool = False) -> dict[str, Any]:
    """The body as a JSON object (``{}`` when empty, unless the operation documents its body as
    ``required``: then an empty one is the service's 400)."""
    if required and not (await request.body()).strip():
        raise error(400, "request body is required: a JSON object ({} takes every default)", code="invalid_json")
    body = await read_json(request, error=error)
    if not isinstance(body, dict):
        raise error(400, "request body must be a JSON object", code="invalid_json")
    return body


class ParsedQuery(QueryParams):
    """Starlette's ``QueryParams`` whose ``get`` is the dict's own: the ``Mapping`` mixin's ``get``
    (``try: self[key]`` through ``__getitem__``) costs a microsecond a call, and a request reads
    several parameters. The same values (the last of a repeated name), the same equality."""

    def get(self, key: Any, default: Any = None) -> Any:
        return self._dict.get(key, default)

    def __eq__(self, other: Any) -> bool:  # Starlette's, taking any QueryParams (it takes its own class only)
        if not isinstance(other, QueryParams):
            return False
        return sorted(self._list, key=_first) == sorted(other._list, key=_first)

    __hash__ = None  # type: ignore[assignment]  # as Mapping: unhashable, like QueryParams


def _first(pair: tuple[str, str]) -> str:
    return pair[0]


def parse_query(request: Request) -> QueryParams:
    """``request.query_params``, parsed without ``parse_qsl`` when the query needs no decoding.

    Most queries are plain ``a=1&b=x``; splitting them directly gives the same pairs as
    Starlette's ``parse_qsl(..., keep_blank_values=True)`` at a fraction of the cost (it was a
    fifth of a snapshot request's time). Later ``request.query_params`` reads reuse the result.
    """
    cached: QueryParams | None = getattr(request, "_query_params", None)
    if cached is None:
        raw_bytes: bytes = request.scope["query_string"]
        cached = _QUERIES.get(raw_bytes)
        if cached is None:
            raw = raw_bytes.decode("latin-1")
            if "%" in raw or "+" in raw:
                cached = ParsedQuery(raw)
            else:
                cached = ParsedQuery([(name, value) for name, _, value in
                                      (part.partition("=") for part in raw.split("&") if part)])
            if len(raw_bytes) <= MAX_REMEMBERED_QUERY:
                if len(_QUERIES) >= MAX_REMEMBERED_QUERIES:
                    _QUERIES.clear()
                _QUERIES[raw_bytes] = cached
        request._query_params = cached
    return cached


#: query strings seen lately -> their parameters. Clients repeat their queries, and QueryParams
#: cannot be changed once built, so every request (of every fake) may share one parse.
_QUERIES: dict[bytes, QueryParams] = {}
MAX_REMEMBERED_QUERIES = 4096
#: longer query strings are parsed every time: the table's memory stays small whatever clients send
MAX_REMEMBERED_QUERY = 1024


class InvalidInteger(ValueError):
    """Why a text is not an acceptable integer: ``problem`` is "empty", "format", "minimum" or
    "maximum" (so a service can word each refusal its own way)."""

    def __init__(self, problem: str, bound: int | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.bound = bound


_MAX_DIGITS = 30  # int() of a long digit string is slow (and refused past 4,300 digits)


def ascii_int(raw: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """A decimal integer of ASCII digits with an optional minus sign, within the bounds.

    ``int()`` also takes ``" 5"``, ``"+5"``, ``"1_000"``, ``"٣"`` and ``"²"`` (which then fails
    further on); every integer parser of the kernel and the services goes through here instead.
    Raises :class:`InvalidInteger`."""
    if raw == "":
        raise InvalidInteger("empty")
    if not _INTEGER.fullmatch(raw):
        raise InvalidInteger("format")
    digits = raw.lstrip("-").lstrip("0")
    if len(digits) > _MAX_DIGITS:  # far beyond any bound: judge by the sign, never call int()
        if raw.startswith("-"):
            raise InvalidInteger("minimum", minimum) if minimum is not None else InvalidInteger("format")
        raise InvalidInteger("maximum", maximum) if maximum is not None else InvalidInteger("format")
    value = int(raw)
    if minimum is not None and value < minimum:
        raise InvalidInteger("minimum", minimum)
    if maximum is not None and value > maximum:
        raise InvalidInteger("maximum", maximum)
    return value


#: builds the service's refusal of a query integer: (parameter name, raw value, the reason)
IntegerRefusal = Callable[[str, str, InvalidInteger], ServiceError]


def query_int(
    source: Request | Mapping[str, str],
    name: str,
    default: int | None = None,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    error: type[ServiceError] = ServiceError,
    refuse: IntegerRefusal | None = None,
) -> int | None:
    """The integer query parameter ``name``, ``default`` when absent.

    ``source`` is a request or its parsed query (a mapping). An empty value (``page=``) is
    refused like any other non-integer: a schema saying "integer" does not allow it. The refusal
    is ``refuse(name, raw, reason)`` when given (the service's own wording and body), else a
    400 of ``error``."""
    params = source.query_params if isinstance(source, Request) else source
    raw = params.get(name)
    if raw is None:
        return default
    try:
        return ascii_int(raw, minimum=minimum, maximum=maximum)
    except InvalidInteger as reason:
        if refuse is not None:
            raise refuse(name, raw, reason) from None
        if reason.problem == "minimum":
            message = f"query parameter '{name}' must be >= {minimum}"
        elif reason.problem == "maximum":
            message = f"query parameter '{name}' must be <= {maximum}"
        else:
            message = f"query parameter '{name}' must be an integer, got {raw!r}"
        raise error(400, message, code="invalid_parameter") from None


def query_text(
    source: Request | Mapping[str, str],
    name: str,
    default: str | None = None,
    *,
    max_length: int,
    error: type[ServiceError] = ServiceError,
    refuse: Callable[[str, str], ServiceError] | None = None,
) -> str | None:
    """A text query parameter of at most ``max_length`` characters (so no query can make a
    request's work grow without bound); the refusal is ``refuse(name, raw)`` or a 400."""
    params = source.query_params if isinstance(source, Request) else source
    raw = params.get(name)
    if raw is None:
        return default
    if len(raw) > max_length:
        if refuse is not None:
            raise refuse(name, raw)
        raise error(400, f"query parameter '{name}' is longer than {max_length} characters",
                    code="invalid_parameter")
    return raw


def header_value(request: Request, name: bytes) -> str | None:
    """The first value of the request header ``name`` (lower-case bytes), as ``request.headers.get``
    gives it, without building Starlette's ``Headers`` (a microsecond on every request)."""
    for key, value in request.scope["headers"]:
        if key == name:
            return value.decode("latin-1")  # type: ignore[no-any-return]
    return None


def named_header(request: Request, name: str) -> str | None:
    """``request.headers.get(name)`` for a header whose name is text in any case (a setting, e.g. a
    service's configurable key or version header), read as :func:`header_value` reads it."""
    return header_value(request, scope_header_name(name))


@functools.lru_cache(maxsize=64)
def scope_header_name(name: str) -> bytes:
    """A header name as the ASGI scope holds it (lower case, bytes); the few names settings give."""
    return name.lower().encode("latin-1")


def encoded_headers(headers: Mapping[str, str]) -> list[tuple[bytes, bytes]]:
    """``headers`` as an ASGI header list (names lower-cased); each short (name, value) pair is
    encoded once and remembered (bounded), since answers repeat the same few."""
    pairs = _ENCODED_PAIRS
    raw = []
    for pair in headers.items():
        encoded = pairs.get(pair)
        if encoded is None:
            name, value = pair
            encoded = (name.lower().encode("latin-1"), value.encode("latin-1"))
            if len(name) + len(value) <= 128:
                if len(pairs) >= MAX_REMEMBERED_QUERIES:
                    pairs.clear()
                pairs[pair] = encoded
        raw.append(encoded)
    return raw


_ENCODED_PAIRS: dict[tuple[str, str], tuple[bytes, bytes]] = {}


def encoded_header_list(media_type: str | None, length: int, headers: Mapping[str, str],
                        extra: Mapping[str, str] | None = None) -> list[tuple[bytes, bytes]]:
    """The ASGI header list ``Response(body, media_type=..., headers={**headers, **extra})`` sends
    for a body of ``length`` bytes (a status that has one), in its order (names lower-cased, then
    ``content-length`` and ``content-type`` - with ``; charset=utf-8`` on a text type that names
    none - unless the headers hold them), without Starlette building and checking it per request:
    a list already encoded for the same shape (media type, length, headers) is copied. At most
    MAX_ENCODED_LISTS shapes of at most MAX_ENCODED_LIST_BYTES each are remembered (a count that
    moves on each call is bounded too)."""
    shape = (media_type, length, tuple(headers.items()), tuple(extra.items()) if extra else ())
    raw = _ENCODED_LISTS.get(shape)
    if raw is None:
        merged = {**headers, **extra} if extra else headers
        encoded = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in merged.items()]
        given = {name for name, _ in encoded}
        if b"content-length" not in given:
            encoded.append((b"content-length", str(length).encode("latin-1")))
        if media_type is not None and b"content-type" not in given:
            if media_type.startswith("text/") and "charset=" not in media_type.lower():
                media_type += "; charset=" + Response.charset
            encoded.append((b"content-type", media_type.encode("latin-1")))
        raw = tuple(encoded)
        if sum(len(name) + len(value) for name, value in raw) <= MAX_ENCODED_LIST_BYTES:  # long ones: each time
            if len(_ENCODED_LISTS) >= MAX_ENCODED_LISTS:
                _ENCODED_LISTS.clear()
            _ENCODED_LISTS[shape] = raw
    return list(raw)


MAX_ENCODED_LISTS = 1024
MAX_ENCODED_LIST_BYTES = 2048
_ENCODED_LISTS: dict[tuple[str | None, int, tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]],
                     tuple[tuple[bytes, bytes], ...]] = {}


def base_url(request: Request | Scope) -> str:
    """``str(request.base_url)`` without its last ``/`` (``scheme://host[root path]``) of a request or
    of its ASGI scope: what links in answers start with. The same few (scheme, host, server, root
    path) come on every request, so each is worked out once (Starlette builds and parses a URL)."""
    scope = request.scope if isinstance(request, Request) else request
    host = None
    for name, value in scope["headers"]:
        if name == b"host":
            host = value
            break
    # the server's address counts only where there is no Host (or one Starlette does not take)
    key: tuple[Any, ...] = (host, scope.get("root_path", ""), scope.get("scheme", "http"), scope.get("app_root_path"))
    known = _BASE_URLS.get(key)
    if known is None:
        if host is None:
            key = (*key, scope.get("server"))
            known = _BASE_URLS.get(key)
            if known is not None:
                return known
        url = Request(scope).base_url
        known = str(url).rstrip("/")
        taken = host is None or url.netloc == host.decode("latin-1")
        if taken and (host is None or len(host) <= MAX_REMEMBERED_BEARER):  # a long Host: worked out each time
            if len(_BASE_URLS) >= MAX_REMEMBERED_BASES:
                _BASE_URLS.clear()
            _BASE_URLS[key] = known
    return known


#: (Host, root path, scheme, app root path[, server where no Host]) -> the base URL (a few per process)
_BASE_URLS: dict[tuple[Any, ...], str] = {}
MAX_REMEMBERED_BASES = 1024


def bearer_token(request: Request | Scope) -> str | None:
    """The token of an ``Authorization: Bearer`` header of a request (or of its ASGI scope), or None."""
    raw = b""
    headers = request.scope["headers"] if isinstance(request, Request) else request["headers"]
    for name, value in headers:  # the first one, as request.headers.get would give
        if name == b"authorization":
            raw = value
            break
    known = _BEARERS.get(raw, _UNSEEN)
    if known is not _UNSEEN:
        return known  # type: ignore[return-value]
    scheme, _, token = raw.decode("latin-1").partition(" ")
    found = token.strip() if scheme.lower() == "bearer" and token.strip() else None
    if len(raw) <= MAX_REMEMBERED_BEARER:  # clients send one or a few: each parsed once
        if len(_BEARERS) >= MAX_REMEMBERED_QUERIES:
            _BEARERS.clear()
        _BEARERS[raw] = found
    return found


_UNSEEN = object()
#: Authorization header values seen lately -> their bearer token (None: not a bearer token)
_BEARERS: dict[bytes, str | None] = {}
MAX_REMEMBERED_BEARER = 512
