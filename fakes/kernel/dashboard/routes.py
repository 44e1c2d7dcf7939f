"""The dashboard's control routes: the page, its assets, the login, and the panels' JSON.

The routes are made once per process and shared by every fake and world (each request finds its
fake in ``scope["app"]``), so a world holds nothing for its dashboard. Every URL the page uses is
relative, so it works below a prefix, in a world (``/_w/<id>/_fake/ui``) and through the gateway.
"""

from __future__ import annotations

import json
from typing import Any, Protocol
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message

from ..errors import ControlError
from ..http import bearer_token, dumps, json_response
from . import assets
from .auth import has_session, same_token, sessions_of
from .panels import Panel, error_panel

#: the longest login form body read (a token of up to MAX_TOKEN characters, percent-encoded)
MAX_LOGIN_BODY = 16_384
MAX_TOKEN = 4096
FORM = "application/x-www-form-urlencoded"
MAX_IMAGE_PATH = 2000
MAX_IMAGE_BYTES = 5_000_000


class ServiceRouted(Protocol):
    """What the picture route uses of a fake's app: the service's router alone."""

    @property
    def service_router(self) -> ASGIApp: ...


class ShownFake(Protocol):
    """What the dashboard's routes use of the fake (or world) a request is for: its names, its
    control token, whether it holds worlds, its panels, and its service's router (pictures)."""

    @property
    def name(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def world_id(self) -> str | None: ...

    @property
    def worlds(self) -> object: ...  # only whether there are any (None inside a world)

    @property
    def control_token(self) -> str | None: ...

    @property
    def app(self) -> ServiceRouted: ...

    def dashboard_panels(self) -> list[Panel]: ...


def _fake(request: Request) -> ShownFake:
    fake: ShownFake = request.scope["app"]  # FakeApp (or the world router) puts the answering fake there
    return fake


def signed_in(request: Request, token: str) -> bool:
    offered = bearer_token(request)
    return same_token(offered, token) or has_session(request.scope)


def _html(body: bytes, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(body, status, {**assets.SECURITY_HEADERS, "cache-control": "no-store", **(headers or {})},
                    media_type=assets.HTML)


def _login(message: str = "", status: int = 401, *, from_login: bool = False) -> Response:
    return _html(assets.login_page(message, from_login=from_login), status)


def _enter(request: Request, token: str | None, location: str) -> Response:
    """To the page (``location``, relative), with a new session's cookie when there is a token."""
    headers = {"location": location, "cache-control": "no-store"}
    sessions = sessions_of(request.scope)
    if token is not None and sessions is not None:
        headers["set-cookie"] = sessions.set_cookie_header(sessions.open(), path=_base_path(request),
                                                           secure=request.url.scheme == "https")
    return Response(b"", 303, headers)


def _base_path(request: Request) -> str:
    """The path of the fake's base as the browser sees it (its mount prefix, the gateway's
    ``/<service>``; not a world's ``/_w/<id>``: the fake's worlds share its sessions), with a
    trailing slash: the cookie's ``Path``."""
    scope = request.scope
    raw = scope.get("raw_path") or b""
    path = str(scope["path"]).encode()
    base = raw[:-len(path)].decode("latin-1") if path and raw.endswith(path) else ""
    world = _fake(request).world_id
    if world is not None and base.endswith(f"/_w/{world}"):
        base = base[:-len(f"/_w/{world}")]
    return base.rstrip("/") + "/"


async def page(request: Request) -> Response:
    token = _fake(request).control_token
    offered = request.query_params.get("token")
    if token is not None and not signed_in(request, token):
        if offered is None:
            return _login()
        if not same_token(offered, token):
            return _login("That is not this fake's control token.")
        return _enter(request, token, "ui")  # the cookie set, the token gone from the address bar
    if offered is not None:
        return _enter(request, None, "ui")
    return _html(assets.page())


async def trailing_slash(request: Request) -> Response:
    # the page's URLs are relative to .../_fake/ui; a slash after it would put them one level down
    return Response(b"", 308, {"location": "../ui"})


async def login(request: Request) -> Response:
    """The login form's target (a form field ``token``); a script may send ``{"token": ...}``."""
    offered = _offered_token(request.headers.get("content-type", ""), await request.body())
    if offered is None:
        return _login(f"Enter the control token (1 to {MAX_TOKEN} characters).", 400, from_login=True)
    token = _fake(request).control_token
    if token is not None and not same_token(offered, token):
        return _login("That is not this fake's control token.", from_login=True)
    return _enter(request, token, "../ui")


def _offered_token(content_type: str, body: bytes) -> str | None:
    """The one ``token`` field of a login body, or None for anything else."""
    kind = content_type.split(";", 1)[0].strip().lower()
    if len(body) > MAX_LOGIN_BODY:
        return None
    if kind == FORM:
        fields: dict[str, Any] = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
        values = fields.get("token", [])
        offered = values[0] if len(values) == 1 else None
    elif kind == "application/json":
        try:
            fields = json.loads(body)
        except (ValueError, RecursionError):
            return None
        if not isinstance(fields, dict):  # a list (of objects) has no token, and no set of its items
            return None
        offered = fields.get("token")
    else:
        return None
    if set(fields) != {"token"} or not isinstance(offered, str) or not 1 <= len(offered) <= MAX_TOKEN:
        return None
    return offered


async def asset(request: Request) -> Response:
    name = request.path_params["name"]
    media_type = assets.ASSET_TYPES.get(name)
    if media_type is None:
        raise ControlError(404, f"no dashboard asset {name!r}", code="not_found")
    named = request.query_params.get("v") == assets.version()  # the page names each with its digest
    cache = "public, max-age=31536000, immutable" if named else "no-cache"
    return Response(assets.read(name), headers={"cache-control": cache, "x-content-type-options": "nosniff"},
                    media_type=media_type)


async def image(request: Request) -> Response:
    """A picture the service serves (a panel's image cell), fetched from its own route in process
    so that the dashboard's looking leaves no trace: no journal entry, no fault, no verdict."""
    given = request.query_params.get("path", "")
    path = "/" + given.lstrip("/")
    if len(given) > MAX_IMAGE_PATH or "?" in path:  # the parameter's length, as documented
        raise ControlError(400, "path must be a path below the fake's base URL", code="invalid_parameter",
                           field="path")
    status, media_type, body = await _service_get(_fake(request), request, path)
    if status != 200 or not media_type.startswith("image/"):
        raise ControlError(404, f"the service serves no picture at {path}", code="not_found")
    return Response(body, headers={"cache-control": "no-cache", "x-content-type-options": "nosniff"},
                    media_type=media_type)


async def _service_get(fake: ShownFake, request: Request, path: str) -> tuple[int, str, bytes]:
    """(status, content type, body) of ``GET path`` answered by the service's router alone."""
    scope = {"type": "http", "asgi": request.scope.get("asgi", {"version": "3.0"}), "http_version": "1.1",
             "method": "GET", "scheme": request.url.scheme, "server": request.scope.get("server"),
             "client": request.scope.get("client"), "root_path": "", "path": path,
             "raw_path": path.encode("utf-8", "surrogateescape"), "query_string": b"", "headers": [],
             "app": fake}
    answer: dict[str, Any] = {"status": 0, "type": "", "body": bytearray()}

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            answer["status"] = message["status"]
            for name, value in message.get("headers", ()):
                if name.lower() == b"content-type":
                    answer["type"] = value.decode("latin-1")
        elif message["type"] == "http.response.body" and len(answer["body"]) <= MAX_IMAGE_BYTES:
            answer["body"] += message.get("body", b"")

    try:
        await fake.app.service_router(scope, receive, send)
    except Exception:  # a refusal (ServiceError), a 404 or a failure: no picture either way
        return 0, "", b""
    if len(answer["body"]) > MAX_IMAGE_BYTES:
        return 0, "", b""
    return answer["status"], answer["type"], bytes(answer["body"])


def describe_panels(fake: ShownFake) -> dict[str, Any]:
    """What ``GET /_fake/ui/panels`` answers: the fake, its world, and its service's panels."""
    found: list[Panel]
    try:
        found = list(fake.dashboard_panels())
        dumps(found)  # what JSON cannot carry fails here, not in the response
    except Exception as exc:  # a view must never take the page down (each panel is guarded too)
        found = [error_panel(f"{fake.name} panels", exc)]
    return {"service": fake.name, "title": fake.title or fake.name, "world": fake.world_id,
            "worlds": fake.worlds is not None, "panels": found}


#: scope key the gateway sets on a request it routed by path prefix: the path of its own root,
#: the page that lists every fake on the port (the dashboard links back to it)
GATEWAY_ROOT = "fakes.gateway_root"


async def panels(request: Request) -> Response:
    described = {**describe_panels(_fake(request)), "gateway": request.scope.get(GATEWAY_ROOT)}
    return json_response(described, headers={"cache-control": "no-store"})


#: shared by every fake's control router (see the module's docstring)
DASHBOARD_ROUTES: list[BaseRoute] = [
    Route("/_fake/ui", page, methods=["GET"]),
    Route("/_fake/ui/", trailing_slash, methods=["GET"]),
    Route("/_fake/ui/login", login, methods=["POST"]),
    Route("/_fake/ui/assets/{name}", asset, methods=["GET"]),
    Route("/_fake/ui/panels", panels, methods=["GET"]),
    Route("/_fake/ui/image", image, methods=["GET"]),
]


def gateway_index(dashboards: dict[str, str]) -> Response:
    """The gateway's root for a browser: a link to each service's dashboard."""
    return _html(assets.gateway_page(dashboards))
