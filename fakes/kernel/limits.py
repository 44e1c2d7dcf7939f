"""Body caps: how many bytes a request body may hold, judged before the body is buffered.

Every request body a fake reads has a cap (docs/hardening.md, "Size and time bounds"):

* a service route: the fake's ``max_body_bytes`` (the class's ``default_max_body_bytes``, 1 MiB
  unless the service says otherwise), or the route's own cap declared with :func:`limit_body`
  (a streaming upload declares its documented limit);
* a control-plane route (``/_fake/...``): ``max_control_body_bytes`` (1 MiB);
* a state import (``PUT /_fake/state``): ``max_state_bytes`` (64 MiB).

Each is a keyword argument of the fake, an environment variable (``FAKES_MAX_BODY_BYTES``,
``FAKES_MAX_CONTROL_BODY_BYTES``, ``FAKES_MAX_STATE_BYTES``) and a ``fakes serve`` flag.

The kernel wraps the ASGI ``receive`` of every request (:func:`limited_receive` below ``/_fake``; the
journal's recorder, fakes/kernel/exchange.py, on the service's routes): when the route
asks for the body for the first time, a declared ``Content-Length`` above the cap is refused at
once (nothing of the body has been read); a body without a length (chunked) is counted as it
arrives and refused as soon as it passes the cap. The refusal (:class:`BodyTooLarge`) is a 413
:class:`ServiceError` that the kernel renders in the service's own error shape (the control plane's below ``/_fake``),
with ``Connection: close`` so that the rest of the body is never read.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.routing import BaseRoute
from starlette.types import Message, Receive, Scope

from .errors import ServiceError

#: the cap of a service route unless the fake or the route says otherwise (JSON APIs)
DEFAULT_MAX_BODY_BYTES = 1024 * 1024
#: the cap of a control-plane body (faults, clock, the services' own /_fake/ additions)
DEFAULT_MAX_CONTROL_BODY_BYTES = 1024 * 1024
#: the cap of a state import (PUT /_fake/state): exported states hold what clients changed
DEFAULT_MAX_STATE_BYTES = 64 * 1024 * 1024
#: the largest cap any setting may name (a body is held in memory or on disk)
MAX_CAP_BYTES = 2**40

ENV_NAMES = {"max_body_bytes": "FAKES_MAX_BODY_BYTES",
             "max_control_body_bytes": "FAKES_MAX_CONTROL_BODY_BYTES",
             "max_state_bytes": "FAKES_MAX_STATE_BYTES"}

_ROUTE_CAP = "fakes_max_body_bytes"
#: a one-element list in each served request's scope (fakes/kernel/protocol.py): 408 once the body
#: timeout cut the request, so that the journal records what the client got
TIMED_OUT_KEY = "fakes.timed_out"


def limit_body(route: BaseRoute, max_bytes: int) -> BaseRoute:
    """Give ``route`` a body cap of its own (instead of the fake's ``max_body_bytes``): the hook
    for routes whose documented limit differs, such as a streaming upload. Returns the route."""
    setattr(route, _ROUTE_CAP, check_cap(max_bytes, "a route's body cap"))
    return route


def route_cap(route: Any) -> int | None:
    """The cap a route declared with :func:`limit_body`, or None."""
    cap: int | None = getattr(route, _ROUTE_CAP, None)
    return cap


def check_cap(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_CAP_BYTES:
        raise ValueError(f"{name} must be a whole number of bytes from 1 to {MAX_CAP_BYTES}, got {value!r}")
    return value


def resolve_cap(value: int | None, setting: str, default: int) -> int:
    """A fake's cap: the keyword argument, else its environment variable, else ``default``."""
    if value is not None:
        return check_cap(value, setting)
    env = ENV_NAMES[setting]
    raw = os.environ.get(env)
    if not raw:
        return default
    from .http import InvalidInteger, ascii_int

    try:
        return check_cap(ascii_int(raw.strip()), env)
    except (InvalidInteger, ValueError):
        raise ValueError(f"{env} must be a whole number of bytes from 1 to {MAX_CAP_BYTES}, not {raw!r}") from None


class BodyTooLarge(ServiceError):
    """The 413 the limited ``receive`` raises; rendered like any refusal, in the service's shape (the
    control plane's below ``/_fake``). A route that rewords the errors of its body parsing must let
    this one through (``except BodyTooLarge: raise`` before ``except ServiceError``)."""

    def __init__(self, cap: int) -> None:
        super().__init__(413, f"the request body is larger than this route's limit of {cap} bytes",
                         code="body_too_large", headers={"Connection": "close"}, max_bytes=cap)
        self.cap = cap


def declared_length(scope: Scope) -> int | None:
    """The request's ``Content-Length`` (None if absent or not a number)."""
    for name, value in scope["headers"]:
        if name == b"content-length":
            text = value.strip()
            return int(text) if text.isdigit() and len(text) <= 20 else None
    return None


class BodyRequired(ServiceError):
    """An operation whose document says its body is required, called without one (a 400)."""

    def __init__(self) -> None:
        super().__init__(400, "this operation needs a JSON body (its OpenAPI document says the body is required)",
                         code="body_required")


def first_read_cap(scope: Scope, default_cap: int) -> int:
    """The cap of a request's body, judged at its first read (the router has matched the route by
    then): the route's own, else ``default_cap``; a declared length past it is refused at once."""
    declared = route_cap(scope.get("route"))
    cap = default_cap if declared is None else declared
    length = declared_length(scope)
    if length is not None and length > cap:
        raise BodyTooLarge(cap)
    return cap


def limited_receive(receive: Receive, scope: Scope, default_cap: int,
                    needs_body: Callable[[Scope], bool] | None = None) -> Callable[[], Awaitable[Message]]:
    """``receive`` refusing a body past the matched route's cap (``default_cap`` unless the
    route declared one): the declared length before the first read, the bytes as they come.
    ``needs_body(scope)`` (asked once the route is matched): an empty body is refused."""
    seen = 0
    cap = -1

    async def receive_within_cap() -> Message:
        nonlocal seen, cap
        first = cap < 0
        if first:  # the first read: the router has matched the route by now
            cap = first_read_cap(scope, default_cap)
        message = await receive()
        body = message.get("body")
        if body:
            seen += len(body)
            if seen > cap:
                raise BodyTooLarge(cap)
        elif first and needs_body is not None and not message.get("more_body") and needs_body(scope):
            raise BodyRequired()
        return message

    return receive_within_cap
