"""Worlds: one running fake serves many isolated tenants, each with its own state and clock.

A *world* is a child fake of the same class, built from the same constructor arguments (seed,
settings, control token, journal size) but with its own clock, model, faults, journal and
verdicts: exactly what a fake started with the same flags at the world's creation would be.
The fake everyone already uses is the *default world*; nothing changes for a client that never
names another one.

A client names a world by its base URL, ``http://host:port[/prefix]/_w/<id>/...`` (works with
every SDK, only the base URL changes), or with the header ``X-Fake-World: <id>``; the path wins
when both are given. A world is created on first use. Its control plane lives under the same
base (``/_w/<id>/_fake/clock`` ...); the default world's ``/_fake/worlds`` lists and deletes
worlds.

Links a service builds from the request's ``root_path``/base URL (paging ``next``, asset URLs)
keep the world's prefix, because the dispatch adds ``/_w/<id>`` to ``root_path``; a world's
``fake.prefix`` ends in ``/_w/<id>`` for links built from the prefix. Fault paths and journal
paths are relative to the world's base.

Idle expiry (off by default) uses *wall* time since the world's last request: the parent's
virtual clock may be manual and never move, and a world's own clock is the tenant's business
(advancing it a year must not expire it). Expired worlds are swept lazily, when a world is
looked up, created or listed; no thread runs.
"""

from __future__ import annotations

import re
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar
from urllib.parse import unquote

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route, Router
from starlette.types import Message, Receive, Scope, Send

from .access import ControlAccess
from .clock import Clock, iso_ms
from .dashboard.auth import DashboardSessions
from .errors import ControlError, ServiceError, control_error_body
from .http import json_response
from .openapi import template_key
from .token import control_allowed, control_unauthorized, is_public_dashboard_path

#: the path segment that opens a world's base URL: ``/_w/<id>``
WORLD_SEGMENT = "/_w"
WORLD_HEADER = b"x-fake-world"
WORLD_ID_PATTERN = "[A-Za-z0-9_-]{1,64}"
_WORLD_ID = re.compile(WORLD_ID_PATTERN + r"\Z")
#: worlds one fake holds unless told otherwise (0 or None: no cap); see docs/worlds.md for memory
DEFAULT_MAX_WORLDS = 1000


class InvalidWorldId(ValueError):
    """A world id that does not match ``[A-Za-z0-9_-]{1,64}``."""


class WorldCapReached(RuntimeError):
    """A new world was asked for while the fake already holds ``max_worlds`` worlds."""


def check_world_id(world_id: Any) -> str:
    if not isinstance(world_id, str) or not _WORLD_ID.match(world_id):
        raise InvalidWorldId(f"invalid world id {world_id!r}: a world id matches {WORLD_ID_PATTERN}")
    return world_id


def world_clock(parent: Clock, start_ms: int | None = None) -> Clock:
    """The clock a fake started now with the parent's clock flags would have.

    A manual clock starts where the parent's started (deterministic: every world of one fake
    begins at the same instant); real and scaled clocks start at the wall time of creation, or
    at ``start_ms`` when the parent was given one."""
    if parent.mode == "manual":
        return Clock("manual", start_ms=int(parent.to_state()["initial_ms"]))
    return Clock(parent.spec, start_ms=start_ms)


class WorldApp(Protocol):
    """What a world's request is handed to: its fake's app, below the world's base."""

    async def handle(self, scope: Scope, receive: Receive, send: Send, path: str) -> None: ...


class WorldFake(Protocol):
    """What worlds use of a fake: its constructor arguments, clock and prefix (a world is the same
    class built again from them), its control token and error shape (for refusals), and of a
    world made that way its app, its state import and the marks that make it a world."""

    init_args: tuple[Any, ...]
    init_kwargs: dict[str, Any]
    clock: Clock
    prefix: str
    control_token: str | None
    access: ControlAccess
    worlds: Worlds[Any] | None
    world_id: str | None
    _owns_clock: bool
    dashboard_sessions: DashboardSessions

    @property
    def app(self) -> WorldApp: ...

    def import_state(self, state: dict[str, Any]) -> None: ...

    def build_world(self, **kwargs: Any) -> Any: ...

    def error_body(self, err: ServiceError) -> dict[str, Any]: ...

    def openapi_document(self) -> dict[str, Any]: ...


#: the fake class whose worlds a registry holds (each world is one of its own class)
FakeT = TypeVar("FakeT", bound=WorldFake)


@dataclass(slots=True, weakref_slot=True)  # one per world: no __dict__ of its own
class World(Generic[FakeT]):
    fake: FakeT
    created_wall: float
    last_used_wall: float
    last_used: float  # monotonic, for idle expiry
    requests: int = 0
    #: False until a request to it is answered below 400 (a refused request creates nothing)
    confirmed: bool = True
    in_flight: int = 0

    def __post_init__(self) -> None:
        # a world's fake lives in reference cycles (its app, its routes) until the collector runs:
        # what its journal keeps goes back as soon as the world is forgotten (issue 33, item 4)
        journal = getattr(self.fake, "journal", None)
        if journal is not None:
            weakref.finalize(self, journal.release)

    def describe(self, world_id: str) -> dict[str, Any]:
        return {
            "id": world_id,
            "created": iso_ms(int(self.created_wall * 1000)),
            "last_used": iso_ms(int(self.last_used_wall * 1000)),
            "requests": self.requests,
            "clock": self.fake.clock.describe(),
        }


class Worlds(Generic[FakeT]):
    """The worlds of one fake (the default world's registry); thread-safe.

    HTTP requests all run on the server's event loop; the lock is for Python callers on other
    threads (a test creating or deleting a world while the server thread answers)."""

    def __init__(
        self,
        parent: FakeT,
        *,
        max_worlds: int | None = DEFAULT_MAX_WORLDS,
        idle_expiry: float | None = None,
        monotonic: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        if max_worlds is not None and (isinstance(max_worlds, bool) or int(max_worlds) < 0):
            raise ValueError(f"max_worlds must be >= 0 (0: no cap), got {max_worlds!r}")
        if idle_expiry is not None and not float(idle_expiry) >= 0:
            raise ValueError(f"world idle expiry must be >= 0 seconds (0: never), got {idle_expiry!r}")
        self.parent = parent
        self.max_worlds = int(max_worlds) if max_worlds else None
        self.idle_expiry = float(idle_expiry) if idle_expiry else None
        self._monotonic = monotonic
        self._wall = wall
        self._worlds: dict[str, World[FakeT]] = {}
        self._lock = threading.RLock()
        self._next_sweep = 0.0
        self._secured_operations: dict[tuple[str, str], bool] | None = None  # read when first needed
        #: the routers every world shares where the service's routes allow (fakes/kernel/worldshare.py)
        self.routers: dict[str, tuple[list[BaseRoute] | None, Router | None]] = {}

    # -- Python API ----------------------------------------------------------------------------
    def get(self, world_id: str, *, create: bool = True, state: dict[str, Any] | None = None) -> FakeT:
        """The world's fake, created from the seed on first use (or from ``state``, an export).

        Raises :class:`InvalidWorldId`, :class:`WorldCapReached`, or KeyError when ``create`` is
        false and the world does not exist. A ``state`` is imported even into an existing world.
        Getting a world counts as using it (idle expiry), except a lookup with ``create=False``
        (a report reading every world must not keep them all alive)."""
        if not create:
            found = self._worlds.get(world_id)
            if found is None:
                raise KeyError(world_id)
            world: World[FakeT] | None = found
        else:
            world = self._enter(world_id, create=create, count=False)
        if world is None:
            raise KeyError(world_id)
        if state is not None:
            world.fake.import_state(state)
        return world.fake

    def delete(self, world_id: str) -> bool:
        """Forget a world (its memory goes with the last reference); True if it existed."""
        with self._lock:
            return self._worlds.pop(world_id, None) is not None

    def clear(self) -> int:
        with self._lock:
            count = len(self._worlds)
            self._worlds.clear()
            return count

    def ids(self) -> list[str]:
        return [world_id for world_id, world in list(self._worlds.items()) if world.confirmed]

    def describe(self) -> list[dict[str, Any]]:
        self.expire_idle()
        return [world.describe(world_id) for world_id, world in list(self._worlds.items()) if world.confirmed]

    def expire_idle(self) -> list[str]:
        """Delete the worlds idle for longer than the expiry; returns their ids."""
        if self.idle_expiry is None:
            return []
        now = self._monotonic()
        with self._lock:
            stale = [wid for wid, world in self._worlds.items() if now - world.last_used >= self.idle_expiry]
            for wid in stale:
                del self._worlds[wid]
            self._next_sweep = now + min(1.0, self.idle_expiry / 4)
        return stale

    def __len__(self) -> int:
        return len(self.ids())

    def __contains__(self, world_id: object) -> bool:
        world = self._worlds.get(world_id) if isinstance(world_id, str) else None
        return world is not None and world.confirmed

    # -- lookup --------------------------------------------------------------------------------
    def _enter(self, world_id: str, *, create: bool = True, count: bool = True,
               provisional: bool = False) -> World[FakeT] | None:
        if self.idle_expiry is not None and self._monotonic() >= self._next_sweep:
            self.expire_idle()
        world = self._worlds.get(world_id)
        if world is None:
            check_world_id(world_id)
            if not create:
                return None
            with self._lock:
                world = self._worlds.get(world_id)
                if world is None:
                    if self.max_worlds is not None and len(self._worlds) >= self.max_worlds:
                        self.expire_idle()  # an idle world past its time frees a slot before any refusal
                    if self.max_worlds is not None and len(self._worlds) >= self.max_worlds:
                        raise WorldCapReached(
                            f"world cap reached: this fake holds at most {self.max_worlds} worlds "
                            f"(--max-worlds / FAKES_MAX_WORLDS); delete one with DELETE /_fake/worlds/<id> "
                            f"or wait for idle ones to expire")
                    now = self._wall()
                    world = World(self._spawn(world_id), now, now, self._monotonic(), confirmed=not provisional)
                    self._worlds[world_id] = world
        world.last_used = self._monotonic()
        world.last_used_wall = self._wall()
        if count:
            world.requests += 1
        if not provisional and not world.confirmed:
            world.confirmed = True  # a Python caller is trusted
        return world

    def _settle(self, world_id: str, world: World[FakeT], status: int) -> None:
        """After a request to a world no successful request has confirmed yet: keep it if this
        one was answered below 400, else forget it with whatever the request did in it."""
        world.in_flight -= 1
        if 0 < status < 400:
            world.confirmed = True
        elif not world.confirmed and world.in_flight == 0:
            with self._lock:
                if self._worlds.get(world_id) is world:
                    del self._worlds[world_id]

    def _spawn(self, world_id: str) -> FakeT:
        parent = self.parent
        # the exact constructor arguments of the parent (see Fake.__new__), new clock and prefix
        kwargs = {"clock": world_clock(parent.clock, parent.init_kwargs.get("start_ms")),
                  "prefix": f"{parent.prefix}{WORLD_SEGMENT}/{world_id}"}
        child: FakeT = parent.build_world(**kwargs)  # its own class, sharing what cannot differ
        child.worlds = None  # no worlds inside a world
        child._owns_clock = True  # its clock is its own: resetting the world rewinds it
        child.world_id = world_id
        child.dashboard_sessions = parent.dashboard_sessions  # one sign-in covers the fake and its worlds
        child.access = parent.access
        return child

    # -- HTTP dispatch (called by FakeApp before anything else) --------------------------------
    async def route(self, scope: Scope, receive: Receive, send: Send, path: str) -> None:
        """Hand a request that names a world (:func:`names_world`) to that world's app.

        ``path`` is the request path below the fake's prefix; ``scope["root_path"]`` already
        ends with that prefix."""
        if path.startswith(WORLD_SEGMENT) and (len(path) == 3 or path[3] == "/"):
            end = path.find("/", 4)
            world_id = path[4:] if end == -1 else path[4:end]
            rest = "/" if end == -1 else path[end:]
            mount = f"{WORLD_SEGMENT}/{world_id}"
            if not _raw_segment_is(scope, mount):
                world_id = _raw_world_segment(scope)  # e.g. a%2Fb: an id holding an encoded slash
                rest = path[4 + len(unquote(world_id)):] or "/"
        else:
            world_id, rest, mount = _header(scope) or "", path, ""
        control = rest == "/_fake" or rest.startswith("/_fake/")
        token = self.parent.control_token
        refused = self.parent.access.refusal(scope, rest) if control else None
        if refused is not None:  # a foreign Host or Origin, a form's body: before any world is made
            await json_response(control_error_body(refused), refused.status)(scope, receive, send)
            return
        if control and not control_allowed(token, scope, rest):
            await control_unauthorized(scope, receive, send)  # before any world is looked up or made
            return
        try:
            world = self._enter(world_id, provisional=True)
        except InvalidWorldId as exc:
            await self._refuse(scope, receive, send, rest, 400, str(exc), "invalid_world")
            return
        except WorldCapReached as exc:
            await self._refuse(scope, receive, send, rest, 429, str(exc), "world_cap_reached")
            return
        assert world is not None
        child = world.fake
        inner = {**scope, "app": child, "root_path": scope.get("root_path", "") + mount}
        if world.confirmed:
            await child.app.handle(inner, receive, send, rest)
            return
        # a new world: it exists only once a request to it that carries the world's credentials
        # is answered below 400 (docs/worlds.md, "When a world is created")
        status = [0]

        async def send_watching(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        world.in_flight += 1
        try:
            await child.app.handle(inner, receive, send_watching, rest)
        finally:
            makes = self._makes_world(inner, rest, control, token) if 0 < status[0] < 400 else False
            self._settle(world_id, world, status[0] if makes else 0)

    def _makes_world(self, scope: Scope, rest: str, control: bool, token: str | None) -> bool:
        """Whether a request answered below 400 carried the world's credentials: a control call
        (with the token, when there is one; not the dashboard's public page shell), or, with a
        token, a call of an operation the service's document secures (answered, so the service
        accepted its credentials). A public document (``/openapi.json``, an open operation) never
        makes a world; without a token any other answered request does, as anyone may make one."""
        if control:
            return not is_public_dashboard_path(rest)
        if rest in PUBLIC_DOCUMENTS:
            return False
        if token is None:
            return True
        return self._secured(scope, rest)

    def _secured(self, scope: Scope, rest: str) -> bool:
        """Whether the operation that answered (its route, or for a mount the path) is one the
        service's OpenAPI document secures (security requirements without an empty one)."""
        if self._secured_operations is None:
            self._secured_operations = secured_operations(self.parent.openapi_document())
        method = scope["method"].lower()
        route = scope.get("route")
        templates = [_template(getattr(route, "path", ""))] if isinstance(route, Route) else []
        templates.append(_template(rest))
        return any(self._secured_operations.get((method, template), False) for template in templates)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, rest: str, status: int, message: str,
                      code: str) -> None:
        err = ServiceError(status, message, code=code)
        control = rest == "/_fake" or rest.startswith("/_fake/")
        body = control_error_body(err) if control else self.parent.error_body(err)
        await json_response(body, status)(scope, receive, send)


#: kernel documents every fake serves to anyone (answered in a new world, they make none)
PUBLIC_DOCUMENTS = frozenset({"/openapi.json"})


def _template(path: str) -> str:
    """A path template with its parameters unnamed (``/vod/{video_id}`` and ``/vod/{videoId}``
    alike), without a trailing slash."""
    return template_key("", path)[1].rstrip("/") or "/"


def secured_operations(document: dict[str, Any]) -> dict[tuple[str, str], bool]:
    """(method, unnamed template) -> whether the document secures the operation: its security (or
    the document's) names requirements, none of them empty (an empty one makes it optional)."""
    default = document.get("security") or []
    found: dict[tuple[str, str], bool] = {}
    for path, item in (document.get("paths") or {}).items():
        if not isinstance(item, dict):
            continue
        for method, operation in item.items():
            if not isinstance(operation, dict):
                continue
            requirements = operation.get("security", default) or []
            found[(method.lower(), _template(path))] = bool(requirements) and all(requirements)
    return found


def names_world(scope: Scope, path: str) -> bool:
    """Whether a request names a world: by path (``/_w/...`` below the fake's base) or header.

    On every request of the default world: a string test and a scan of the header names."""
    if path.startswith(WORLD_SEGMENT) and (len(path) == 3 or path[3] == "/"):
        return True
    for name, _ in scope.get("headers", ()):  # noqa: SIM110 - a loop beats any() on the hot path
        if name == WORLD_HEADER:
            return True
    return False


def _raw_segment_is(scope: Scope, mount: str) -> bool:
    """Whether the undecoded path holds ``/_w/<id>`` as sent (percent-decoding can hide a "/")."""
    raw: bytes | None = scope.get("raw_path")
    if raw is None:
        return True
    token = mount.encode("utf-8", "surrogateescape")
    at = raw.find(token + b"/")
    return at != -1 or raw.endswith(token)


def _raw_world_segment(scope: Scope) -> str:
    raw: bytes = scope["raw_path"]
    at = raw.find(WORLD_SEGMENT.encode() + b"/")
    segment = raw[at + 4:].split(b"/", 1)[0] if at != -1 else raw
    return segment.decode("latin-1")


def _header(scope: Scope) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == WORLD_HEADER:
            text: str = value.decode("latin-1").strip()
            return text
    return None


# -- the default world's control routes: GET /_fake/worlds, DELETE /_fake/worlds[/<id>] ----------
class WorldsHolder(Protocol):
    """What the worlds' control routes use of the fake serving them: its registry (None in a world)."""

    @property
    def worlds(self) -> Worlds[Any] | None: ...


def world_control_routes(fake: WorldsHolder) -> list[BaseRoute]:
    worlds = fake.worlds
    if worlds is None:
        return []
    registry: Worlds[Any] = worlds

    async def listing(request: Request) -> Response:
        if request.method == "DELETE":
            return json_response({"deleted": registry.clear()})
        return json_response({"worlds": registry.describe(), "count": len(registry),
                              "max_worlds": registry.max_worlds, "idle_expiry_seconds": registry.idle_expiry})

    async def one(request: Request) -> Response:
        world_id = request.path_params["world_id"]
        try:
            check_world_id(world_id)
        except InvalidWorldId as exc:
            raise ControlError(400, str(exc), code="invalid_world") from None
        if request.method == "GET":
            world = registry._worlds.get(world_id)
            if world is None or not world.confirmed:
                raise ControlError(404, f"no world {world_id}", code="not_found")
            return json_response(world.describe(world_id))
        if not registry.delete(world_id):
            raise ControlError(404, f"no world {world_id}", code="not_found")
        return json_response({"deleted": world_id})

    return [
        Route("/_fake/worlds", listing, methods=["GET", "DELETE"]),
        Route("/_fake/worlds/{world_id}", one, methods=["GET", "DELETE"]),
    ]


def world_openapi_paths() -> dict[str, Any]:
    """The worlds' control operations for the default world's OpenAPI document."""
    error = {"type": "object", "properties": {"error": {"type": "string"}, "message": {"type": "string"}},
             "required": ["error", "message"]}
    clock = {"type": "object"}
    world = {"type": "object", "required": ["id", "created", "last_used", "requests", "clock"],
             "properties": {"id": {"type": "string", "pattern": f"^{WORLD_ID_PATTERN}$"},
                            "created": {"type": "string", "format": "date-time"},
                            "last_used": {"type": "string", "format": "date-time"},
                            "requests": {"type": "integer", "minimum": 0}, "clock": clock}}

    def js(schema: dict[str, Any], description: str = "OK") -> dict[str, Any]:
        return {"description": description, "content": {"application/json": {"schema": schema}}}

    def op(summary: str, responses: dict[str, Any], **extra: Any) -> dict[str, Any]:
        return {"tags": ["control-plane"], "summary": summary, "responses": responses, **extra}

    param = [{"name": "world_id", "in": "path", "required": True,
              "schema": {"type": "string", "pattern": f"^{WORLD_ID_PATTERN}$"}}]
    return {
        "/_fake/worlds": {
            "get": op("The worlds this fake holds (each under /_w/<id>/ or X-Fake-World: <id>)", {"200": js({
                "type": "object", "required": ["worlds", "count"],
                "properties": {"worlds": {"type": "array", "items": world}, "count": {"type": "integer"},
                               "max_worlds": {"type": "integer", "nullable": True},
                               "idle_expiry_seconds": {"type": "number", "nullable": True}}})}),
            "delete": op("Delete every world (the default world stays)", {"200": js({
                "type": "object", "properties": {"deleted": {"type": "integer"}}})}),
        },
        "/_fake/worlds/{world_id}": {
            "get": op("One world", {"200": js(world), "400": js(error, "invalid world id"),
                                    "404": js(error, "no such world")}, parameters=param),
            "delete": op("Delete one world and free its memory and its slot", {
                "200": js({"type": "object", "properties": {"deleted": {"type": "string"}}}),
                "400": js(error, "invalid world id"), "404": js(error, "no such world")}, parameters=param),
        },
    }
