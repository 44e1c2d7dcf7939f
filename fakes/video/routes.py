"""The public API: parse the request, ask the model, answer the service's own bodies.

Every API response, errors included, carries ``X-RateLimit-Limit``, ``X-RateLimit-Remaining`` and
``X-RateLimit-Retry-After`` of the caller's window for the request's class (uploads, writes,
reads); that is why this module routes every method and every unknown path itself (405 and 404
in the service's shape with the headers) instead of leaving them to the kernel. The caller's
window is its project's when the Authorization header names one, else its address's.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from fakes.kernel.errors import ServiceError
from fakes.kernel.http import (
    InvalidInteger,
    JSONBytesResponse,
    dumps,
    encoded_headers,
    header_value,
    json_response,
    parse_query,
    query_int,
    read_json_object,
)
from fakes.kernel.limits import limit_body
from fakes.kernel.verdicts import flag

from . import data
from .ingest import parse_content_range
from .model import SORT_FIELDS, VideoModel
from .multipart import FileTooLarge, MultipartError, MultipartReader, TooManyFiles, boundary_of
from .problems import invalid_query, problem, upload_error
from .projects import Project
from .videos import Video
from .webhooks import EVENTS

if TYPE_CHECKING:
    from . import VideoFake

ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
_METADATA = re.compile(r"metadata\[(.+)\]")
Handler = Callable[[Request, Project], Awaitable[Response]]
_attempts = itertools.count(1)


def _kind(method: str, upload: bool) -> str:
    if upload:
        return "uploads"
    return "reads" if method in ("GET", "HEAD", "OPTIONS") else "writes"


def service_routes(fake: VideoFake) -> list[BaseRoute]:
    def base_of(request: Request) -> str:
        return fake.settings.public_base_url.rstrip("/") or request_base(request)

    def api(methods: Mapping[str, Handler], *, authenticated: bool = True,
            upload_methods: tuple[str, ...] = ()) -> Callable[[Request], Awaitable[Response]]:
        """One endpoint per path: sync the model, count the rate window, dispatch the method."""
        allow = ", ".join(methods)

        async def endpoint(request: Request) -> Response:
            fake.sync()
            model: VideoModel = fake.model
            header = header_value(request, b"authorization")
            project = model.projects.identify(header, model.clock.now_ms()) if header else None
            bucket = project.project_id if project else "address:" + (request.client.host if request.client else "-")
            headers, allowed = model.rate(bucket, _kind(request.method, request.method in upload_methods),
                                          project is None or project.rate_limited)
            try:
                if not allowed:
                    raise model.refuse_rate(headers)
                handler = methods.get(request.method)
                if handler is None:
                    raise problem(405, "method-not-allowed", "Method Not Allowed.",
                                  detail=f"{request.method} is not allowed on {request.url.path}; allowed: {allow}",
                                  headers={"Allow": allow})
                if authenticated and project is None:
                    project = model.authenticate(header)  # raises the 401 this header deserves
                response = await handler(request, project)  # type: ignore[arg-type]
            except ServiceError as err:
                err.headers = {**err.headers, **headers}
                raise
            finally:
                fake.dispatch()
            # appended raw: cheaper than MutableHeaders on the hot path, same bytes
            response.raw_headers.extend(encoded_headers(headers))
            return response

        return endpoint

    # -- auth ----------------------------------------------------------------------------------
    async def api_key(request: Request, _: Project) -> Response:
        return json_response(fake.model.issue_token(await read_json_object(request)))

    async def refresh(request: Request, _: Project) -> Response:
        return json_response(fake.model.refresh_token(await read_json_object(request)))

    # -- videos --------------------------------------------------------------------------------
    async def create_video(request: Request, project: Project) -> Response:
        video = fake.model.create_video(project, await read_json_object(request))
        return json_response(fake.model.render(video, base_of(request)), 201)

    async def list_videos(request: Request, project: Project) -> Response:
        model: VideoModel = fake.model
        base = base_of(request)
        raw_query = request.scope["query_string"].decode("latin-1")
        cached = model.cached_list(project, base, raw_query)  # only valid queries were ever cached
        if cached is not None:
            return JSONBytesResponse(cached)
        query = video_query(request, fake)
        version = model.version
        found = model.list_videos(project, query)
        body = dumps(page_of([model.render(v, base) for v in found], query, request, "/videos"))
        model.cache_list(project, base, raw_query, body, version)
        return JSONBytesResponse(body)

    async def get_video(request: Request, project: Project) -> Response:
        video = fake.model.video(project, request.path_params["video_id"])
        return json_response(fake.model.render(video, base_of(request)))

    async def patch_video(request: Request, project: Project) -> Response:
        body = await read_json_object(request)
        video = fake.model.update_video(project, request.path_params["video_id"], body)
        return json_response(fake.model.render(video, base_of(request)))

    async def delete_video(request: Request, project: Project) -> Response:
        fake.model.delete_video(project, request.path_params["video_id"])
        return Response(status_code=204)

    async def status(request: Request, project: Project) -> Response:
        flagged: list[Any] = []
        try:
            return json_response(fake.model.status(project, request.path_params["video_id"], flagged))
        finally:
            for rule, detail in flagged:
                flag(request, rule, detail)

    async def upload(request: Request, project: Project) -> Response:
        video = await receive_upload(fake, request, project)
        return json_response(fake.model.render(video, base_of(request)), 201)

    # -- captions and summaries ----------------------------------------------------------------
    async def captions(request: Request, project: Project) -> Response:
        found = fake.model.captions(project, request.path_params["video_id"], base_of(request))
        query = paging_query(request, fake)
        return json_response(page_of(found, query, request, request.url.path))

    async def caption(request: Request, project: Project) -> Response:
        language = request.path_params["language"]
        if language not in data.LANGUAGES:
            raise problem(400, "invalid-attribute", "An attribute is invalid.", name="language",
                          detail=f"language must be one of {', '.join(data.LANGUAGES)}")
        for item in fake.model.captions(project, request.path_params["video_id"], base_of(request)):
            if item["srclang"] == language:
                return json_response(item)
        raise problem(404, "resource-not-found", "The requested resource was not found.", name="language")

    async def summaries(request: Request, project: Project) -> Response:
        query = paging_query(request, fake)
        params = parse_query(request)
        rows = [s for _, s in fake.model.summaries(project)]
        for name, values in (("origin", ("api", "auto")),
                             ("sourceStatus", ("missing", "waiting", "failed", "completed", "unprocessable"))):
            if params.get(name) is not None and params[name] not in values:
                raise invalid_query(name, f"{name} must be one of {', '.join(values)}")
        for name in ("videoId", "origin", "sourceStatus"):
            wanted = params.get(name)
            if wanted is not None:
                rows = [s for s in rows if s[name] == wanted]
        return json_response(page_of(rows, query, request, "/summaries"))

    async def summary_source(request: Request, project: Project) -> Response:
        return json_response(fake.model.summary_source(project, request.path_params["summary_id"]))

    # -- webhooks ------------------------------------------------------------------------------
    async def webhooks(request: Request, project: Project) -> Response:
        model: VideoModel = fake.model
        if request.method == "POST":
            sub = model.subscribe(project, await read_json_object(request))
            fake.dispatcher.ensure_running()
            return json_response(sub.to_json(_atom), 201)
        query = paging_query(request, fake)
        wanted = parse_query(request).get("events")
        if wanted is not None and wanted not in EVENTS:
            raise invalid_query("events", f"events must be one of {', '.join(EVENTS)}")
        rows = [s.to_json(_atom) for s in model.webhooks.of_project(project.project_id)
                if wanted is None or wanted in s.events]
        return json_response(page_of(rows, query, request, "/webhooks"))

    async def webhook(request: Request, project: Project) -> Response:
        webhook_id = request.path_params["webhook_id"]
        if request.method == "DELETE":
            fake.model.unsubscribe(project, webhook_id)
            return Response(status_code=204)
        return json_response(fake.model.subscription(project, webhook_id).to_json(_atom))

    # -- everything else -----------------------------------------------------------------------
    async def unknown(request: Request, _: Project) -> Response:
        raise problem(404, "unrecognized-request-url", "Unrecognized request URL.",
                      detail=f"{request.method} {request.url.path} is not an endpoint of this API")

    async def openapi(request: Request) -> Response:
        return json_response(fake.openapi())

    every = dict.fromkeys(ALL_METHODS, unknown)
    from .assets import asset_routes

    return [
        Route("/auth/api-key", api({"POST": api_key}, authenticated=False), methods=ALL_METHODS),
        Route("/auth/refresh", api({"POST": refresh}, authenticated=False), methods=ALL_METHODS),
        Route("/videos", api({"GET": list_videos, "POST": create_video}), methods=ALL_METHODS),
        Route("/videos/{video_id}", api({"GET": get_video, "PATCH": patch_video, "DELETE": delete_video}),
              methods=ALL_METHODS),
        # the upload streams to disk: its cap is the documented file limit plus the multipart framing
        limit_body(Route("/videos/{video_id}/source", api({"POST": upload}, upload_methods=("POST",)),
                         methods=ALL_METHODS), fake.settings.max_upload_bytes + UPLOAD_FRAMING_BYTES),
        Route("/videos/{video_id}/status", api({"GET": status}), methods=ALL_METHODS),
        Route("/videos/{video_id}/captions", api({"GET": captions}), methods=ALL_METHODS),
        Route("/videos/{video_id}/captions/{language}", api({"GET": caption}), methods=ALL_METHODS),
        Route("/summaries", api({"GET": summaries}), methods=ALL_METHODS),
        Route("/summaries/{summary_id}/source", api({"GET": summary_source}), methods=ALL_METHODS),
        Route("/webhooks", api({"GET": webhooks, "POST": webhooks}), methods=ALL_METHODS),
        Route("/webhooks/{webhook_id}", api({"GET": webhook, "DELETE": webhook}), methods=ALL_METHODS),
        *asset_routes(fake),
        Route("/openapi.json", openapi, methods=["GET"]),
        Route("/{path:path}", api(every, authenticated=False), methods=ALL_METHODS),
    ]


def request_base(request: Request) -> str:
    """``scheme://host[root_path]`` of the request, without building URL objects (hot path)."""
    scope = request.scope
    host = request.headers.get("host")
    if not host:
        server = scope.get("server") or ("127.0.0.1", 80)
        host = f"{server[0]}:{server[1]}"
    return f"{scope.get('scheme', 'http')}://{host}{scope.get('root_path', '')}"


def _atom(epoch_ms: int) -> str:
    from .videos import atom

    return atom(epoch_ms)


# -- the upload body ---------------------------------------------------------------------------------
#: what a multipart upload may hold besides its file part (boundaries, part headers, a preamble)
UPLOAD_FRAMING_BYTES = 1024 * 1024


async def receive_upload(fake: VideoFake, request: Request, project: Project) -> Video:
    """Stream the multipart body's ``file`` part to disk, then let the model judge what arrived."""
    model: VideoModel = fake.model
    video_id = request.path_params["video_id"]
    cr = parse_content_range(request.headers.get("content-range"))
    boundary = boundary_of(request.headers.get("content-type"))
    path, offset = model.upload_target(project, video_id, cr, next(_attempts))
    if boundary is None:
        raise upload_error("uploaded-file-no-file", "There is no uploaded file in the request.",
                           "send multipart/form-data with the video in a part named file")
    handles: list[Any] = []
    keep_partial = cr is not None and cr.kind == "bytes"  # a byte range writes into the shared source file

    def open_file(_filename: str | None) -> Any:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        handle = os.fdopen(descriptor, "r+b")
        if not keep_partial:
            handle.truncate(0)
        handle.seek(offset)
        handles.append(handle)
        return handle

    reader = MultipartReader(boundary, open_file, fake.settings.max_upload_bytes)
    ok = False
    try:
        try:
            async for chunk in request.stream():
                reader.feed(chunk)
            reader.close()
        except TooManyFiles:
            raise upload_error("uploaded-file-multiple-files",
                               "There are more than one uploaded file in the request.") from None
        except FileTooLarge:
            raise upload_error("uploaded-file-too-large", "The uploaded file is too large.",
                               f"a single request holds at most {fake.settings.max_upload_bytes} bytes; "
                               "use Content-Range to send larger files in chunks") from None
        except MultipartError as exc:
            if reader.file_parts == 0:
                raise upload_error("uploaded-file-no-file", "There is no uploaded file in the request.",
                                   str(exc)) from None
            raise upload_error("uploaded-file-invalid-file", "The uploaded file is invalid.", str(exc)) from None
        except ClientDisconnect:
            raise upload_error("uploaded-file-invalid-file", "The uploaded file is invalid.",
                               "the client went away before the body ended") from None
        if reader.file_parts == 0:
            raise upload_error("uploaded-file-no-file", "There is no uploaded file in the request.")
        if reader.other_fields:
            raise problem(400, "invalid-attribute", "An attribute is invalid.", name=reader.other_fields[0][:100],
                          detail="the upload takes one form part, file")
        ok = True
    finally:
        for handle in handles:
            handle.close()
        if not ok and handles and not keep_partial:
            with contextlib.suppress(OSError):
                os.remove(path)
    flagged: list[Any] = []
    try:
        return model.finish_upload(project, video_id, cr, reader.file_bytes, path, flagged)
    finally:
        for rule, detail in flagged:
            flag(request, rule, detail)


# -- query parameters and pages ----------------------------------------------------------------------
def _page_number(params: Any, name: str, default: int, minimum: int, maximum: int) -> int:
    def refuse(name: str, raw: str, reason: InvalidInteger) -> ServiceError:
        return invalid_query(name, f"{name} must be an integer from {minimum} to {maximum}")

    value = query_int(params, name, default, minimum=minimum, maximum=maximum, refuse=refuse)
    assert value is not None
    return value


def paging_query(request: Request, fake: VideoFake) -> dict[str, Any]:
    params = parse_query(request)
    settings = fake.settings
    return {"currentPage": _page_number(params, "currentPage", 1, 1, 10**9),
            "pageSize": _page_number(params, "pageSize", settings.default_page_size, settings.min_page_size,
                                     settings.max_page_size)}


def video_query(request: Request, fake: VideoFake) -> dict[str, Any]:
    params = parse_query(request)
    query = paging_query(request, fake)
    for name in ("title", "description", "liveStreamId"):
        if params.get(name) is not None:
            query[name] = params[name]
    sort_by = params.get("sortBy")
    if sort_by is not None and sort_by not in SORT_FIELDS:
        raise invalid_query("sortBy", f"sortBy must be one of {', '.join(SORT_FIELDS)}")
    sort_order = params.get("sortOrder")
    if sort_order is not None and sort_order not in ("asc", "desc"):
        raise invalid_query("sortOrder", "sortOrder must be asc or desc")
    query["sortBy"], query["sortOrder"] = sort_by, sort_order
    tags = params.getlist("tags[]") + params.getlist("tags")
    if tags:
        query["tags"] = tags
    metadata = {}
    for name, value in params.multi_items():
        match = _METADATA.fullmatch(name)
        if match:
            metadata[match.group(1)] = value
    if metadata:
        query["metadata"] = metadata
    return query


def page_of(rows: list[Any], query: dict[str, Any], request: Request, path: str) -> dict[str, Any]:
    """The reference's ``{data, pagination}`` envelope with self/first/previous/next/last links."""
    size, current = query["pageSize"], query["currentPage"]
    total = len(rows)
    pages = max(1, math.ceil(total / size))
    shown = rows[(current - 1) * size:current * size]
    kept = [(k, v) for k, v in parse_query(request).multi_items() if k not in ("currentPage", "pageSize")]
    prefix = request.scope.get("root_path", "")

    def link(rel: str, page: int) -> dict[str, str]:
        return {"rel": rel, "uri": f"{prefix}{path}?" + urlencode([*kept, ("currentPage", page), ("pageSize", size)])}

    links = [link("self", current), link("first", 1)]
    if current > 1:
        links.append(link("previous", min(current - 1, pages)))
    if current < pages:
        links.append(link("next", current + 1))
    links.append(link("last", pages))
    return {"data": shown, "pagination": {"currentPage": current, "pageSize": size, "pagesTotal": pages,
                                          "itemsTotal": total, "currentPageItems": len(shown), "links": links}}
