"""Routes of captions, chapters, summaries, watermarks and webhook subscriptions."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from fakes.kernel.http import json_response, parse_query, read_json_object

from .attachments import MAX_TRACK_BYTES
from .endpoints import Api, choice
from .forms import read_small_file
from .images import IMAGE_EXTENSIONS, Image, check_image
from .model import VideoModel
from .problems import invalid_query
from .projects import Project
from .summaries import STATUSES
from .videos import atom
from .webhooks import EVENTS


def routes(api: Api) -> list[BaseRoute]:
    # -- captions ------------------------------------------------------------------------------
    async def captions(request: Request, project: Project) -> Response:
        found = api.model.captions(project, request.path_params["video_id"], api.base_of(request))
        return api.page(found, api.paging(request), request)

    async def caption(request: Request, project: Project) -> Response:
        model: VideoModel = api.model
        video_id, language, base = request.path_params["video_id"], request.path_params["language"], \
            api.base_of(request)
        if request.method == "GET":
            return json_response(model.caption(project, video_id, language, base))
        if request.method == "DELETE":
            model.delete_caption(project, video_id, language)
            return Response(status_code=204)
        if request.method == "PATCH":
            body = await read_json_object(request)
            return json_response(model.set_caption_default(project, video_id, language, body, base))
        model.video(project, video_id)  # 404 before the body is read
        form = await read_small_file(request, MAX_TRACK_BYTES)
        return json_response(model.upload_caption(project, video_id, language, form.data, base))

    # -- chapters ------------------------------------------------------------------------------
    async def chapters(request: Request, project: Project) -> Response:
        found = api.model.chapters(project, request.path_params["video_id"], api.base_of(request))
        return api.page(found, api.paging(request), request)

    async def chapter(request: Request, project: Project) -> Response:
        model: VideoModel = api.model
        video_id, language, base = request.path_params["video_id"], request.path_params["language"], \
            api.base_of(request)
        if request.method == "GET":
            return json_response(model.chapter(project, video_id, language, base))
        if request.method == "DELETE":
            model.delete_chapter(project, video_id, language)
            return Response(status_code=204)
        model.video(project, video_id)
        form = await read_small_file(request, MAX_TRACK_BYTES)
        return json_response(model.upload_chapter(project, video_id, language, form.data, base))

    # -- summaries -----------------------------------------------------------------------------
    async def summaries(request: Request, project: Project) -> Response:
        model: VideoModel = api.model
        if request.method == "POST":
            return json_response(model.create_summary(project, await read_json_object(request)), 201)
        query = api.paging(request)
        wanted = {"videoId": parse_query(request).get("videoId"), "origin": choice(request, "origin", ("api", "auto")),
                  "sourceStatus": choice(request, "sourceStatus", STATUSES)}
        sort_by = choice(request, "sortBy", ("createdAt", "updatedAt", "videoId")) or "createdAt"
        descending = choice(request, "sortOrder", ("asc", "desc")) == "desc"
        rows = [row for row in model.summary_rows(project)
                if all(value is None or row[name] == value for name, value in wanted.items())]
        rows.sort(key=lambda row: row[sort_by], reverse=descending)
        return api.page(rows, query, request, "/summaries")

    async def summary(request: Request, project: Project) -> Response:
        api.model.delete_summary(project, request.path_params["summary_id"])
        return Response(status_code=204)

    async def summary_source(request: Request, project: Project) -> Response:
        summary_id = request.path_params["summary_id"]
        if request.method == "PATCH":
            body = await read_json_object(request)
            return json_response(api.model.edit_summary(project, summary_id, body), 201)
        return json_response(api.model.summary_source(project, summary_id))

    # -- watermarks ----------------------------------------------------------------------------
    async def watermarks(request: Request, project: Project) -> Response:
        model: VideoModel = api.model
        if request.method == "POST":
            form = await read_small_file(request, api.settings.max_image_bytes)
            image = Image(check_image(form.filename, form.data, IMAGE_EXTENSIONS), form.data)
            return json_response(model.create_watermark(project, image).to_json(atom))
        query = api.paging(request)
        choice(request, "sortBy", ("createdAt",))
        descending = choice(request, "sortOrder", ("asc", "desc")) == "desc"
        found = sorted(model.watermarks.of_project(project.project_id), key=lambda m: m.created_ms,
                       reverse=descending)
        return api.page([m.to_json(atom) for m in found], query, request, "/watermarks")

    async def watermark(request: Request, project: Project) -> Response:
        api.model.delete_watermark(project, request.path_params["watermark_id"])
        return Response(status_code=204)

    # -- webhooks ------------------------------------------------------------------------------
    async def webhooks(request: Request, project: Project) -> Response:
        model: VideoModel = api.model
        if request.method == "POST":
            sub = model.subscribe(project, await read_json_object(request))
            api.fake.dispatcher.ensure_running()
            return json_response(sub.to_json(atom), 201)
        query = api.paging(request)
        wanted = parse_query(request).get("events")
        if wanted is not None and wanted not in EVENTS:
            raise invalid_query("events", f"events must be one of {', '.join(EVENTS)}")
        rows = [s.to_json(atom) for s in model.webhooks.of_project(project.project_id)
                if wanted is None or wanted in s.events]
        return api.page(rows, query, request, "/webhooks")

    async def webhook(request: Request, project: Project) -> Response:
        webhook_id = request.path_params["webhook_id"]
        model: VideoModel = api.model
        if request.method == "DELETE":
            with model.lock:
                model.webhooks.unsubscribe(project.project_id, webhook_id)
            return Response(status_code=204)
        return json_response(model.webhooks.subscription(project.project_id, webhook_id).to_json(atom))

    return [
        api.route("/videos/{video_id}/captions", {"GET": captions}),
        *api.routes("/videos/{video_id}/captions/{language}",
                  {"GET": caption, "POST": caption, "PATCH": caption, "DELETE": caption}, file_bytes=MAX_TRACK_BYTES),
        api.route("/videos/{video_id}/chapters", {"GET": chapters}),
        *api.routes("/videos/{video_id}/chapters/{language}", {"GET": chapter, "POST": chapter, "DELETE": chapter},
                  file_bytes=MAX_TRACK_BYTES),
        api.route("/summaries", {"GET": summaries, "POST": summaries}),
        api.route("/summaries/{summary_id}", {"DELETE": summary}),
        api.route("/summaries/{summary_id}/source", {"GET": summary_source, "PATCH": summary_source}),
        *api.routes("/watermarks", {"GET": watermarks, "POST": watermarks}, file_bytes=api.settings.max_image_bytes),
        api.route("/watermarks/{watermark_id}", {"DELETE": watermark}),
        api.route("/webhooks", {"GET": webhooks, "POST": webhooks}),
        api.route("/webhooks/{webhook_id}", {"GET": webhook, "DELETE": webhook}),
    ]
