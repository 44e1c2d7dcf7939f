"""Routes of uploads: a video's source, delegated uploads with a token, and upload tokens.

The body is parsed as it arrives: the file part (the one named ``file``, or a part under another
name that carries a filename) goes straight to a file of the request's own in the fake's temporary
directory, and only an accepted request's bytes are placed (uploads.py). Memory stays bounded by a
network chunk.
"""

from __future__ import annotations

import itertools
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from fakes.kernel.http import header_value, json_response, parse_query, read_json_object

from .endpoints import Api, choice, flag_all
from .forms import read_file_to, remove_file
from .ingest import parse_content_range, storage_room
from .model import VideoModel
from .projects import Project
from .videos import atom

_attempts = itertools.count(1)
TOKEN_FIELDS = frozenset({"videoId"})


def routes(api: Api) -> list[BaseRoute]:
    settings = api.settings

    async def upload(request: Request, project: Project) -> Response:
        model: VideoModel = api.model
        video_id = request.path_params["video_id"]
        cr = parse_content_range(header_value(request, b"content-range"))
        model.check_upload(project, video_id, cr)
        path = model.storage.incoming_path(video_id, next(_attempts))
        flagged: list[Any] = []
        try:
            with storage_room():  # a full temporary directory: the 507 problem, nothing accepted
                form = await read_file_to(request, path, settings.max_upload_bytes)
                video = model.finish_upload(project, video_id, cr, form.size, path, flagged)
        finally:
            remove_file(path)  # placed already if accepted
            flag_all(request, flagged)
        return json_response(model.render(video, api.base_of(request)), 201)

    def token_bucket(request: Request, model: VideoModel) -> tuple[str, bool] | None:
        """The rate window of a delegated upload: its token's project."""
        found = model.upload_tokens.by_token.get(parse_query(request).get("token") or "")
        if found is None:
            return None
        project = model.projects.by_id.get(found.project_id)
        return found.project_id, project.rate_limited if project is not None else True

    async def token_upload(request: Request, _: Project | None) -> Response:
        model: VideoModel = api.model
        token = model.upload_tokens.authenticate(parse_query(request).get("token"), model.clock.now_ms())
        cr = parse_content_range(header_value(request, b"content-range"))
        path = model.storage.incoming_path(token.token, next(_attempts))
        flagged: list[Any] = []
        try:
            with storage_room():
                form = await read_file_to(request, path, settings.max_upload_bytes, allowed_fields=TOKEN_FIELDS)
                named = form.fields.get("videoId") or None
                video = model.token_upload(token, named, form.filename, cr, form.size, path, flagged)
        finally:
            remove_file(path)
            flag_all(request, flagged)
        return json_response(model.render(video, api.base_of(request)), 201)

    # -- upload tokens -------------------------------------------------------------------------
    async def tokens(request: Request, project: Project) -> Response:
        model: VideoModel = api.model
        now = model.clock.now_ms()
        if request.method == "POST":
            body = await read_json_object(request, required=True)
            with model.lock:
                created = model.upload_tokens.create(project.project_id, body, now)
            return json_response(created.to_json(atom))
        query = api.paging(request)
        sort_by = choice(request, "sortBy", ("createdAt", "ttl")) or "createdAt"
        descending = choice(request, "sortOrder", ("asc", "desc")) == "desc"
        found = model.upload_tokens.of_project(project.project_id, now)
        found.sort(key=(lambda t: (t.ttl, t.created_ms)) if sort_by == "ttl" else (lambda t: t.created_ms),
                   reverse=descending)
        return api.page([t.to_json(atom) for t in found], query, request, "/upload-tokens")

    async def token(request: Request, project: Project) -> Response:
        model: VideoModel = api.model
        now = model.clock.now_ms()
        name = request.path_params["token"]
        if request.method == "DELETE":
            with model.lock:
                model.upload_tokens.delete(project.project_id, name, now)
            return Response(status_code=204)
        return json_response(model.upload_tokens.get(project.project_id, name, now).to_json(atom))

    return [
        # an upload streams to disk: its cap is the documented file limit (plus the framing)
        *api.routes("/videos/{video_id}/source", {"POST": upload}, upload_methods=("POST",),
                  file_bytes=settings.max_upload_bytes),
        *api.routes("/upload", {"POST": token_upload}, authenticated=False, upload_methods=("POST",),
                  bucket_of=token_bucket, file_bytes=settings.max_upload_bytes),
        api.route("/upload-tokens", {"GET": tokens, "POST": tokens}),
        api.route("/upload-tokens/{token}", {"GET": token, "DELETE": token}),
    ]
