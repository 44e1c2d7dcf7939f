"""Upstreams answered in process, never over the network.

Every catalogued provider is answered by :class:`SimulatedUpstream` unless the user registered
their own: a Python callable, an ASGI app (e.g. another fake's ``app``), or a canned response
table. The documented rule of the simulated answers, for tests:

- the entry's example input always hits; a ``domain`` or ``email`` under ``.invalid`` always misses;
  any other input hits with probability ``hit_rate``, drawn from (seed, entry, input);
- a parameter value containing ``fail-<status>`` (``fail-500``, ``fail-401``, ``fail-429``) makes the
  upstream answer that status with its own body; ``fail-timeout`` makes it time out;
- each provider allows ``upstream_rate_limit`` calls per clock minute per credential, then answers
  its own 429 with ``Retry-After`` and ``X-RateLimit-*`` headers (every answer carries them); the
  calls of a team made with ``upstream_rate_limited=False`` are neither counted nor limited;
- a method and path the provider does not catalogue is the provider's own 404.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from fakes.kernel.clock import MAX_EPOCH_MS
from fakes.kernel.http import check_json_value, dumps
from fakes.kernel.statecheck import refuse

from . import billing, data
from .catalogue import Entry, example_params

_FAIL = re.compile(r"fail-(timeout|[1-5][0-9][0-9])")
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_HEADER_VALUE = re.compile(r"[\t\x20-\x7e]*")
_SENDABLE_VALUE = re.compile(r"[\t\x20-\x7e\x80-\xff]*")
_JSON_TYPE = ("content-type", "application/json")
_NO_CALLS = (-1, 0)
#: framing is the relay's own (a canned one would contradict the body it sends)
_FRAMING = ("content-length", "transfer-encoding")


@dataclass
class UpstreamRequest:
    method: str
    host: str
    path: str
    query: str
    params: dict[str, str]
    headers: list[tuple[str, str]]
    body: bytes
    credential: str  # own_tool | secret | relay_key


NOT_PARSED: Any = object()


@dataclass
class UpstreamResponse:
    status: int
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    parsed: Any = NOT_PARSED  # the body as JSON when the upstream already has it (saves a parse)


@dataclass
class SimulatedResponse(UpstreamResponse):
    """A simulated provider's cached answer: its headers hold no framing header (none to drop) and
    whether it is a miss was worked out once, with the answer."""

    miss: bool = False


class UpstreamTimeout(Exception):
    """The upstream did not answer in time (the relay answers 504, never billed)."""


Handler = Callable[[UpstreamRequest], "UpstreamResponse | Awaitable[UpstreamResponse]"]


def json_answer(status: int, body: Any, headers: list[tuple[str, str]] | None = None) -> UpstreamResponse:
    return UpstreamResponse(status, [("content-type", "application/json"), *(headers or [])], dumps(body), body)


#: (status, headers, body, parsed body, miss: None when the caller must work it out)
SimulatedAnswer = tuple[int, list[tuple[str, str]], bytes, Any, "bool | None"]


def _own(status: int, body: Any, headers: list[tuple[str, str]]) -> SimulatedAnswer:
    """A simulated provider's own refusal (its headers already hold the JSON content type)."""
    return status, headers, dumps(body), body, None


class SimulatedUpstream:
    """The plausible, deterministic provider behind every catalogued entry."""

    def __init__(self, seed: int, hit_rate: float, rate_limit: int) -> None:
        self.seed = seed
        self.hit_rate = hit_rate
        self.rate_limit = rate_limit
        self._window: dict[tuple[str, str], tuple[int, int]] = {}  # (provider, credential) -> (minute, calls)
        self._answers: dict[tuple[str, tuple[tuple[str, str], ...]], tuple[int, bytes, Any, bool]] = {}
        self._limit_headers: dict[tuple[int, int], tuple[tuple[str, str], ...]] = {}  # (remaining, reset)

    def answer(self, entry: Entry | None, provider: str, request: UpstreamRequest, now_ms: int, *,
               rate_limited: bool = True) -> UpstreamResponse:
        status, headers, body, parsed, miss = self.respond(entry, provider, request.method, request.path,
                                                           request.params, request.credential, now_ms, rate_limited)
        if miss is None:
            return UpstreamResponse(status, headers, body, parsed)
        return SimulatedResponse(status, headers, body, parsed, miss)

    def respond(self, entry: Entry | None, provider: str, method: str, path: str, params: dict[str, str],
                credential: str, now_ms: int, rate_limited: bool = True) -> SimulatedAnswer:
        """(status, headers, body, parsed body, miss) of the provider's answer; ``miss`` is None for
        the provider's own refusals (worked out by the caller), a bool for a cached entry answer."""
        calls = self.window(provider, credential, now_ms)
        if rate_limited:
            self.count(provider, credential, now_ms, calls)
        limits = self.limit_headers(calls, now_ms)
        if calls > self.rate_limit and rate_limited:
            return _own(429, {"error": "rate_limited", "message": f"{provider}: too many requests"},
                        [*limits, ("retry-after", str(60 - (now_ms // 1000) % 60))])
        for value in params.values():
            failure = _FAIL.search(value) if "fail-" in value else None
            if failure:
                if failure.group(1) == "timeout":
                    raise UpstreamTimeout(f"{provider} did not answer")
                status = int(failure.group(1))
                if status >= 500:  # a bare 5xx: some providers send no JSON at all
                    return (status, [("content-type", "text/plain"), *limits[1:]],
                            f"{provider} upstream error {status}".encode(), NOT_PARSED, None)
                return _own(status, {"error": f"upstream_{status}", "message": f"{provider} refused"}, list(limits))
        if entry is None:
            return _own(404, {"error": "not_found", "message": f"{provider} has no {method} {path}"}, list(limits))
        cached = self.cached_answer(entry, params)
        assert cached is not None  # the failures were answered above
        status, body, parsed, miss = cached
        return status, list(limits), body, parsed, miss

    def windows_state(self) -> list[list[Any]]:
        """Each provider's count of calls per credential in its last clock minute (exported: a restored
        copy answers the 601st call of a minute with the same 429)."""
        return [[provider, credential, minute, calls]
                for (provider, credential), (minute, calls) in self._window.items()]

    def load_window(self, row: Any, where: str) -> None:
        if (not isinstance(row, list) or len(row) != 4 or not all(isinstance(x, str) and x for x in row[:2])
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in row[2:])
                or not 0 <= row[2] <= MAX_EPOCH_MS // 60_000 or not 0 <= row[3] <= 2**31):
            refuse(where, "must be [provider, credential, minute (0 to the last minute of year 9999), calls]")
        self._window[(row[0], row[1])] = (row[2], row[3])

    def window(self, provider: str, credential: str, now_ms: int) -> int:
        """The provider's count of this credential's calls in the clock minute, this call included
        (not yet stored: :meth:`respond` stores it, or :meth:`count` for a call answered from a plan)."""
        seen_minute, calls = self._window.get((provider, credential), _NO_CALLS)
        return calls + 1 if seen_minute == now_ms // 60_000 else 1

    def count(self, provider: str, credential: str, now_ms: int, calls: int) -> None:
        self._window[(provider, credential)] = (now_ms // 60_000, calls)

    def limit_headers(self, calls: int, now_ms: int) -> tuple[tuple[str, str], ...]:
        """Content type and ``X-RateLimit-*`` of an answer that is the ``calls``-th of its minute."""
        reset_s = 60 - (now_ms // 1000) % 60
        limits_key = (max(0, self.rate_limit - calls), reset_s)
        limits = self._limit_headers.get(limits_key)
        if limits is None:  # few distinct values (remaining x second): formatted once each
            limits = (_JSON_TYPE, ("x-ratelimit-limit", str(self.rate_limit)),
                      ("x-ratelimit-remaining", str(limits_key[0])), ("x-ratelimit-reset", str(reset_s)))
            if len(self._limit_headers) >= 4096:
                self._limit_headers.clear()
            self._limit_headers[limits_key] = limits
        return limits

    def cached_answer(self, entry: Entry, params: dict[str, str]) -> tuple[int, bytes, Any, bool] | None:
        """The entry's answer to ``params`` when it is a plain one: (status, body, parsed, miss); None
        when a parameter asks for a failure (``fail-...``)."""
        if any("fail-" in value and _FAIL.search(value) for value in params.values()):
            return None
        cache_key = (entry["id"], tuple(sorted(params.items())) if params else ())
        cached = self._answers.get(cache_key)
        if cached is None:
            cached = self._make_answer(entry, params)
            if sum(len(value) for value in params.values()) <= 1024:  # long inputs: answered every time
                if len(self._answers) >= 10_000:
                    self._answers.clear()
                self._answers[cache_key] = cached
        return cached

    def _make_answer(self, entry: Entry, params: dict[str, str]) -> tuple[int, bytes, Any, bool]:
        """(status, body, parsed body, miss) of an entry's answer to params: a pure function, cached."""
        status, parsed = self._answer_of(entry, params)
        return status, dumps(parsed), parsed, billing.is_miss(status, parsed)

    def _answer_of(self, entry: Entry, params: dict[str, str]) -> tuple[int, Any]:
        hit = entry["kind"] in ("write", "verify") or self.is_hit(entry, params)
        if not hit:
            if entry["kind"] in ("people", "lookalikes", "jobs", "list"):
                return 200, {"results": [], "total": 0}
            return 404, {"error": "not_found", "message": "no match for this input"}
        rng = data.rng_for(self.seed, entry["id"], sorted(params.items()))
        rows = _rows(params, rng.randint(1, 8))
        return (201 if entry["kind"] == "write" else 200), data.answer(entry["kind"], rng, params, rows)

    def is_hit(self, entry: Entry, params: dict[str, str]) -> bool:
        if any(v.endswith(".invalid") for k, v in params.items() if k in ("domain", "email")):
            return False
        example = example_params(entry)
        if all(params.get(name) == value for name, value in example.items()
               if entry["input"]["queryParams"][name]["required"]):
            return True
        return data.unit_draw(self.seed, "hit", entry["id"], sorted(params.items())) < self.hit_rate


def _rows(params: dict[str, str], drawn: int) -> int:
    raw = params.get("limit", "")
    return min(int(raw), 100, drawn + 2) if raw.isascii() and raw.isdigit() and len(raw) <= 9 and int(raw) > 0 \
        else drawn


class CannedUpstream:
    """A table of answers: first row whose method and path match (``*`` matches any)."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows

    def __call__(self, request: UpstreamRequest) -> UpstreamResponse:
        for row in self.rows:
            if row.get("method", "*") in ("*", request.method) and row.get("path", "*") in ("*", request.path):
                body = row.get("body")
                headers = [(str(k).lower(), str(v)) for k, v in dict(row.get("headers") or {}).items()
                           if str(k).lower() not in _FRAMING]
                if int(row.get("status", 200)) in (204, 304):  # no body may follow these
                    return UpstreamResponse(int(row.get("status", 200)), headers, b"")
                if isinstance(body, str):
                    if not any(k == "content-type" for k, _ in headers):
                        headers.append(("content-type", "text/plain; charset=utf-8"))
                    return UpstreamResponse(int(row.get("status", 200)), headers, body.encode())
                if not any(k == "content-type" for k, _ in headers):
                    headers.append(("content-type", "application/json"))
                return UpstreamResponse(int(row.get("status", 200)), headers, dumps(body))
        return json_answer(404, {"error": "not_found", "message": f"no canned answer for {request.method} "
                                                                  f"{request.path}"})


def validate_canned(rows: Any) -> list[dict[str, Any]]:
    if not isinstance(rows, list) or not rows or len(rows) > 1000:
        raise ValueError("responses must be a non-empty list of {method, path, status, headers, body}")
    checked = []
    for row in rows:
        if not isinstance(row, dict) or set(row) - {"method", "path", "status", "headers", "body"}:
            raise ValueError("each response is an object with method, path, status, headers, body")
        status = row.get("status", 200)
        if not isinstance(status, int) or isinstance(status, bool) or not 200 <= status <= 599:
            raise ValueError("status must be an integer from 200 to 599")
        if not isinstance(row.get("method", "*"), str) or not isinstance(row.get("path", "*"), str):
            raise ValueError("method and path must be strings")
        headers = row.get("headers", {})
        if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
            raise ValueError("headers must be an object of strings")
        for name, value in headers.items():  # they go out verbatim: one bad one breaks the response
            if not _TOKEN.fullmatch(name) or not _HEADER_VALUE.fullmatch(value):
                raise ValueError(f"header {name!r}: names are HTTP tokens, values printable ASCII")
        problem = check_json_value(row.get("body"), "body")
        if problem is not None:
            raise ValueError(problem)
        checked.append({**row, "method": str(row.get("method", "*")).upper() if row.get("method") != "*" else "*"})
    return checked


class AsgiUpstream:
    """An ASGI app called in process (another fake's ``app`` or the user's own)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, request: UpstreamRequest) -> UpstreamResponse:
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": request.method,
                 "scheme": "http", "path": request.path, "raw_path": request.path.encode(),
                 "query_string": request.query.encode("latin-1"), "root_path": "",
                 "headers": [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in request.headers],
                 "server": (request.host or "upstream", 80), "client": ("127.0.0.1", 0)}
        sent = False
        status, headers, parts = 502, [], []

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if sent:
                return {"type": "http.disconnect"}
            sent = True
            return {"type": "http.request", "body": request.body, "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            nonlocal status, headers
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in message.get("headers", [])]
            elif message["type"] == "http.response.body":
                parts.append(message.get("body", b""))

        await self.app(scope, receive, send)
        return UpstreamResponse(status, headers, b"".join(parts))


class FakeUpstream:
    """Another fake served by the same ``fakes serve`` process, found by name at each call: in a
    world, that fake's world of the same id (so world ``a``'s relay uses world ``a``'s enrichment in
    every serving mode), called in process through its ``local_app`` (paths below its base URL, so
    its mount prefix and world segment never matter)."""

    def __init__(self, name: str, world_of: Callable[[], str | None]) -> None:
        self.name = name
        self.world_of = world_of

    async def __call__(self, request: UpstreamRequest) -> UpstreamResponse:
        from fakes import registry  # the registry imports the services lazily; this is a call, not an import

        other = registry.live_fake(self.name, self.world_of())
        if other is None:
            raise LookupError(f"no fake {self.name!r} is served by this process any more")
        return await AsgiUpstream(other.local_app)(request)  # paths below its base: no prefix, no world segment


async def call_handler(handler: Handler, request: UpstreamRequest) -> UpstreamResponse:
    result = handler(request)
    if inspect.isawaitable(result):
        result = await result
    return checked_response(result)


def checked_response(result: Any) -> UpstreamResponse:
    """A registered upstream's answer, refused (``TypeError``: the relay's own 502, the hold released,
    nothing charged) unless it is one the relay can send: an :class:`UpstreamResponse` with a status
    from 100 to 599, ``headers`` a list of (name, value) string pairs with HTTP-token names and
    latin-1 values without line breaks, and ``body`` bytes."""
    if not isinstance(result, UpstreamResponse):
        raise TypeError(f"an upstream handler must return an UpstreamResponse, got {type(result).__name__}")
    if not isinstance(result.status, int) or isinstance(result.status, bool) or not 100 <= result.status <= 599:
        raise TypeError(f"an upstream handler answered status {result.status!r} (100-599)")
    if not isinstance(result.body, (bytes, bytearray)):
        raise TypeError(f"an upstream handler's body must be bytes, got {type(result.body).__name__}")
    if not isinstance(result.headers, list):
        raise TypeError(f"an upstream handler's headers must be a list of (name, value) pairs, got "
                        f"{type(result.headers).__name__}")
    for pair in result.headers:
        if (not isinstance(pair, tuple) or len(pair) != 2 or not isinstance(pair[0], str)
                or not isinstance(pair[1], str) or not _TOKEN.fullmatch(pair[0])
                or not _SENDABLE_VALUE.fullmatch(pair[1])):
            raise TypeError(f"an upstream handler's header {pair!r} is not a (token name, latin-1 value) pair")
    if isinstance(result.body, bytearray):
        result.body = bytes(result.body)
    return result
