"""What every route module of the API shares: the endpoint wrapper, bases, paging and the
``{data, pagination}`` envelope (routes.py assembles the route list from routes_*.py and assets.py).

The endpoint wrapper gives every API response, errors included, the ``X-RateLimit-*`` headers of
the caller's window for the request's class (uploads, writes, reads), and answers a method a path
does not take with the service's 405 (see routes.py). The routes read the fake serving a request
through :class:`ServedVideo`, a protocol of what they use of it (the package's ``VideoFake``
satisfies it; this module does not import the package that imports it).
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from typing import Any, Protocol
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from fakes.kernel.errors import ServiceError
from fakes.kernel.http import (
    InvalidInteger,
    base_url,
    encoded_headers,
    header_value,
    json_response,
    parse_query,
    query_int,
)
from fakes.kernel.limits import limit_body
from fakes.kernel.verdicts import flag

from .browser import cors_policy
from .delivery import Dispatcher
from .model import VideoModel
from .problems import invalid_query, problem
from .projects import Project
from .settings import VideoSettings

ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
#: what a multipart upload may hold besides its file part (boundaries, part headers, form fields)
UPLOAD_FRAMING_BYTES = 1024 * 1024
Handler = Callable[[Request, Project], Awaitable[Response]]
#: who a request's rate-limit window belongs to when it is not its Authorization header's project
BucketOf = Callable[[Request, VideoModel], tuple[str, bool] | None]


class ServedVideo(Protocol):
    """What the routes use of the fake (or world) serving a request: its model (read per request:
    reset and import replace it), its webhook sender, and the clock's consequences before and after."""

    model: VideoModel
    dispatcher: Dispatcher

    def sync(self) -> None: ...

    def dispatch(self) -> None: ...


def _kind(method: str, upload: bool) -> str:
    if upload:
        return "uploads"
    return "reads" if method in ("GET", "HEAD", "OPTIONS") else "writes"


#: the fake (or world) answering the current request: the routes are built once and shared by a
#: fake and all its worlds (their settings are the same), so each request finds its own fake here
SERVING: ContextVar[ServedVideo] = ContextVar("video_serving_fake")


class Api:
    """What every route module of the API shares: the endpoint wrapper and the helpers. Routes are
    built once per settings (``service_routes``); ``fake`` and ``model`` are the serving ones."""

    def __init__(self, settings: VideoSettings) -> None:
        self.settings = settings
        self.cors = cors_policy(settings)  # browsers of other origins (browser.py); None: not answered

    @property
    def fake(self) -> ServedVideo:
        return SERVING.get()

    @property
    def model(self) -> VideoModel:
        return SERVING.get().model  # read per request: reset and import replace it

    def base_of(self, request: Request) -> str:
        return self.settings.public_base_url.rstrip("/") or request_base(request)

    def endpoint(self, methods: Mapping[str, Handler], *, authenticated: bool = True,
                 upload_methods: tuple[str, ...] = (), bucket_of: BucketOf | None = None
                 ) -> Callable[[Request], Awaitable[Response]]:
        """One endpoint per path: answer a browser's preflight (before anything is counted), sync the
        model, count the rate window, dispatch the method."""
        allow = ", ".join(methods)
        cors = self.cors

        async def endpoint(request: Request) -> Response:
            method = request.scope["method"]  # Request.method, read once
            if cors is not None and method == "OPTIONS" and cors.is_preflight(request.scope):
                return cors.preflight(request.scope, methods)
            fake: ServedVideo = request.scope["app"]  # the fake or world the kernel routed this to
            serving = SERVING.set(fake)
            fake.sync()
            model: VideoModel = fake.model
            header = header_value(request, b"authorization")
            project = model.projects.identify(header, model.clock.now_ms()) if header else None
            other = bucket_of(request, model) if bucket_of is not None and project is None else None
            if project is not None:
                bucket, counted = project.project_id, project.rate_limited
            elif other is not None:
                bucket, counted = other
            else:
                bucket, counted = "address:" + (request.client.host if request.client else "-"), True
            headers, allowed = model.rate(bucket, _kind(method, method in upload_methods), counted)
            try:
                if not allowed:
                    raise model.refuse_rate(headers)
                handler = methods.get(method)
                if handler is None:
                    raise problem(405, "method-not-allowed", "Method Not Allowed.",
                                  detail=f"{method} is not allowed on {request.url.path}; allowed: {allow}",
                                  headers={"Allow": allow})
                if authenticated and project is None:
                    project = model.authenticate(header)  # raises the 401 this header deserves
                response = await handler(request, project)  # type: ignore[arg-type]
            except ServiceError as err:
                err.headers = {**err.headers, **headers}
                if cors is not None:
                    cors.refused(err, request.scope)
                raise
            finally:
                fake.dispatch()
                SERVING.reset(serving)
            # appended raw: cheaper than MutableHeaders on the hot path, same bytes
            response.raw_headers.extend(encoded_headers(headers))
            if cors is not None:
                response.raw_headers.extend(cors.answer_headers(request.scope))
            return response

        return endpoint

    def route(self, path: str, methods: Mapping[str, Handler], *, file_bytes: int | None = None,
              **options: Any) -> BaseRoute:
        """A route of the API (every method: the others are the service's 405). Where its POST takes a
        file (``file_bytes`` at most) that POST has a body cap of its own, the file plus the multipart
        framing; the path's other methods keep the fake's cap of a JSON body (see ``routes``)."""
        return Route(path, self.endpoint(methods, **options), methods=ALL_METHODS)

    def routes(self, path: str, methods: Mapping[str, Handler], *, file_bytes: int,
               **options: Any) -> list[BaseRoute]:
        """The routes of a path whose POST uploads a file: that POST first (its own cap), then the path."""
        endpoint = self.endpoint(methods, **options)
        upload = limit_body(Route(path, endpoint, methods=["POST"]), file_bytes + UPLOAD_FRAMING_BYTES)
        return [upload, Route(path, endpoint, methods=ALL_METHODS)]

    # -- query parameters and pages ------------------------------------------------------------
    def paging(self, request: Request) -> dict[str, Any]:
        params = parse_query(request)
        settings = self.settings
        return {"currentPage": page_number(params, "currentPage", 1, 1, 10**9),
                "pageSize": page_number(params, "pageSize", settings.default_page_size, settings.min_page_size,
                                        settings.max_page_size)}

    def page(self, rows: list[Any], query: dict[str, Any], request: Request, path: str | None = None) -> Response:
        return json_response(page_of(rows, query, request, path or request.scope["path"], self.base_of(request)))


def choice(request: Request, name: str, choices: tuple[str, ...]) -> str | None:
    """A query parameter that must be one of ``choices`` (absent: None)."""
    value = parse_query(request).get(name)
    if value is not None and value not in choices:
        raise invalid_query(name, f"{name} must be one of {', '.join(choices)}")
    return value


def flag_all(request: Request, flagged: list[Any]) -> None:
    for rule, detail in flagged:
        flag(request, rule, detail)


#: ``scheme://host[root_path]`` of a request: the kernel's base URL (worked out once per host)
request_base = base_url


def page_number(params: Any, name: str, default: int, minimum: int, maximum: int) -> int:
    def refuse(name: str, raw: str, reason: InvalidInteger) -> ServiceError:
        return invalid_query(name, f"{name} must be an integer from {minimum} to {maximum}")

    value = query_int(params, name, default, minimum=minimum, maximum=maximum, refuse=refuse)
    assert value is not None
    return value


def page_of(rows: list[Any], query: dict[str, Any], request: Request, path: str, base: str) -> dict[str, Any]:
    """The reference's ``{data, pagination}`` envelope with self/first/previous/next/last links
    (absolute URIs on the fake's base, as the reference's ``format: uri`` says; ``path`` is below the
    fake's mount prefix, which is part of ``base``)."""
    size, current = query["pageSize"], query["currentPage"]
    total = len(rows)
    pages = max(1, math.ceil(total / size))
    shown = rows[(current - 1) * size:current * size]
    kept = [(k, v) for k, v in parse_query(request).multi_items() if k not in ("currentPage", "pageSize")]
    # what urlencode([*kept, ("currentPage", page), ("pageSize", size)]) gives, the kept part encoded once
    start = f"{base}{path}?" + (urlencode(kept) + "&" if kept else "") + "currentPage="
    end = f"&pageSize={size}"

    def link(rel: str, page: int) -> dict[str, str]:
        return {"rel": rel, "uri": f"{start}{page}{end}"}

    links = [link("self", current), link("first", 1)]
    if current > 1:
        links.append(link("previous", min(current - 1, pages)))
    if current < pages:
        links.append(link("next", current + 1))
    links.append(link("last", pages))
    return {"data": shown, "pagination": {"currentPage": current, "pageSize": size, "pagesTotal": pages,
                                          "itemsTotal": total, "currentPageItems": len(shown), "links": links}}
