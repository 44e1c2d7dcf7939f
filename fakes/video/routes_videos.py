"""Routes of authentication, videos, their status and thumbnails, discarded videos and tags."""

from __future__ import annotations

import re
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from fakes.kernel.http import JSONBytesResponse, dumps, json_response, parse_query, query_text, read_json_object

from .endpoints import Api, choice, flag_all, page_of
from .forms import read_small_file
from .images import JPEG_EXTENSIONS, Image, check_image
from .model import SORT_FIELDS, VideoModel
from .problems import invalid_query
from .projects import Project

_METADATA = re.compile(r"metadata\[(.+)\]")


def video_query(api: Api, request: Request) -> dict[str, Any]:
    params = parse_query(request)
    query = api.paging(request)
    for name in ("title", "description", "liveStreamId"):
        value = query_text(params, name, max_length=1000, refuse=lambda n, _: invalid_query(n, f"{n} is too long"))
        if value is not None:
            query[name] = value
    query["sortBy"] = choice(request, "sortBy", SORT_FIELDS)
    query["sortOrder"] = choice(request, "sortOrder", ("asc", "desc"))
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


def routes(api: Api) -> list[BaseRoute]:
    # -- auth ----------------------------------------------------------------------------------
    async def api_key(request: Request, _: Project) -> Response:
        return json_response(api.model.issue_token(await read_json_object(request)))

    async def refresh(request: Request, _: Project) -> Response:
        return json_response(api.model.refresh_token(await read_json_object(request)))

    # -- videos --------------------------------------------------------------------------------
    async def create_video(request: Request, project: Project) -> Response:
        video = api.model.create_video(project, await read_json_object(request))
        return json_response(api.model.render(video, api.base_of(request)), 201)

    def listed(request: Request, project: Project, discarded: bool) -> Response:
        """A page of the project's videos or discarded videos, kept rendered while no video changes."""
        model: VideoModel = api.model
        base = api.base_of(request)
        raw_query = request.scope["query_string"].decode("latin-1")
        cache_key = "discarded?" + raw_query if discarded else raw_query
        cached = model.cached_list(project, base, cache_key)  # only valid queries were ever cached
        if cached is not None:
            return JSONBytesResponse(cached)
        query = video_query(api, request)
        version = model.version
        found = model.list_videos(project, query, discarded=discarded)
        path = "/discarded/videos" if discarded else "/videos"
        body = dumps(page_of([model.render(v, base) for v in found], query, request, path, base))
        model.cache_list(project, base, cache_key, body, version)
        return JSONBytesResponse(body)

    async def list_videos(request: Request, project: Project) -> Response:
        return listed(request, project, discarded=False)

    async def get_video(request: Request, project: Project) -> Response:
        video = api.model.video(project, request.path_params["video_id"])
        return json_response(api.model.render(video, api.base_of(request)))

    async def patch_video(request: Request, project: Project) -> Response:
        body = await read_json_object(request)
        video = api.model.update_video(project, request.path_params["video_id"], body)
        return json_response(api.model.render(video, api.base_of(request)))

    async def delete_video(request: Request, project: Project) -> Response:
        api.model.delete_video(project, request.path_params["video_id"])
        return Response(status_code=204)

    async def status(request: Request, project: Project) -> Response:
        flagged: list[Any] = []
        try:
            return json_response(api.model.status(project, request.path_params["video_id"], flagged))
        finally:
            flag_all(request, flagged)

    # -- thumbnails ----------------------------------------------------------------------------
    async def upload_thumbnail(request: Request, project: Project) -> Response:
        video_id = request.path_params["video_id"]
        api.model.video(project, video_id)  # 404 before the body is read
        form = await read_small_file(request, api.settings.max_image_bytes)
        image = Image(check_image(form.filename, form.data, JPEG_EXTENSIONS), form.data)
        video = api.model.upload_thumbnail(project, video_id, image)
        return json_response(api.model.render(video, api.base_of(request)))

    async def pick_thumbnail(request: Request, project: Project) -> Response:
        body = await read_json_object(request)
        video = api.model.pick_thumbnail(project, request.path_params["video_id"], body)
        return json_response(api.model.render(video, api.base_of(request)))

    # -- discarded videos ----------------------------------------------------------------------
    async def list_discarded(request: Request, project: Project) -> Response:
        return listed(request, project, discarded=True)

    async def get_discarded(request: Request, project: Project) -> Response:
        video = api.model.discarded_video(project, request.path_params["video_id"])
        return json_response(api.model.render(video, api.base_of(request)))

    async def patch_discarded(request: Request, project: Project) -> Response:
        body = await read_json_object(request)
        video = api.model.update_discarded(project, request.path_params["video_id"], body)
        return json_response(api.model.render(video, api.base_of(request)))

    # -- tags ----------------------------------------------------------------------------------
    async def tags(request: Request, project: Project) -> Response:
        query = api.paging(request)
        value = query_text(parse_query(request), "value", max_length=255,
                           refuse=lambda n, _: invalid_query(n, f"{n} is longer than 255 characters"))
        sort_by = choice(request, "sortBy", ("value", "videoCount")) or "value"
        descending = choice(request, "sortOrder", ("asc", "desc")) == "desc"
        return api.page(api.model.tags(project, value, sort_by, descending), query, request, "/tags")

    return [
        api.route("/auth/api-key", {"POST": api_key}, authenticated=False),
        api.route("/auth/refresh", {"POST": refresh}, authenticated=False),
        api.route("/videos", {"GET": list_videos, "POST": create_video}),
        api.route("/videos/{video_id}", {"GET": get_video, "PATCH": patch_video, "DELETE": delete_video}),
        api.route("/videos/{video_id}/status", {"GET": status}),
        *api.routes("/videos/{video_id}/thumbnail", {"POST": upload_thumbnail, "PATCH": pick_thumbnail},
                  file_bytes=api.settings.max_image_bytes),
        api.route("/discarded/videos", {"GET": list_discarded}),
        api.route("/discarded/videos/{video_id}", {"GET": get_discarded, "PATCH": patch_discarded}),
        api.route("/tags", {"GET": tags}),
    ]
