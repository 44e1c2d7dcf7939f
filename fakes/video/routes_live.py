"""Routes of live streams (their thumbnails, completing a broadcast) and player themes (logos)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from fakes.kernel.http import json_response, parse_query, query_text, read_json_object

from .endpoints import Api, choice
from .forms import read_small_file
from .images import IMAGE_EXTENSIONS, JPEG_EXTENSIONS, Image, check_image
from .live_streams import SORT_FIELDS, LiveStream
from .model import VideoModel
from .players import MAX_LINK, PlayerTheme
from .problems import invalid_attribute, invalid_query
from .projects import Project
from .videos import atom


def routes(api: Api) -> list[BaseRoute]:
    def stream_json(request: Request, stream: LiveStream) -> dict[str, Any]:
        return stream.to_json(api.base_of(request), api.model.clock.now_ms(), atom)

    def theme_json(request: Request, theme: PlayerTheme) -> dict[str, Any]:
        return theme.to_json(api.base_of(request), atom)

    # -- live streams --------------------------------------------------------------------------
    async def live_streams(request: Request, project: Project) -> Response:
        model: VideoModel = api.model
        if request.method == "POST":
            stream = model.create_live_stream(project, await read_json_object(request))
            return json_response(stream_json(request, stream))
        query = api.paging(request)
        params = parse_query(request)
        for name in ("name", "streamKey"):
            query[name] = query_text(params, name, max_length=1000,
                                     refuse=lambda n, _: invalid_query(n, f"{n} is longer than 1000 characters"))
        query["sortBy"] = choice(request, "sortBy", SORT_FIELDS)
        query["sortOrder"] = choice(request, "sortOrder", ("asc", "desc"))
        model.catch_up()
        found = model.live.of_project(project.project_id, query)
        return api.page([stream_json(request, s) for s in found], query, request, "/live-streams")

    async def live_stream(request: Request, project: Project) -> Response:
        model: VideoModel = api.model
        live_id = request.path_params["live_id"]
        if request.method == "DELETE":
            model.delete_live_stream(project, live_id)
            return Response(status_code=204)
        if request.method == "PATCH":
            stream = model.update_live_stream(project, live_id, await read_json_object(request))
            return json_response(stream_json(request, stream))
        return json_response(stream_json(request, model.live_stream(project, live_id)))

    async def live_thumbnail(request: Request, project: Project) -> Response:
        model: VideoModel = api.model
        live_id = request.path_params["live_id"]
        if request.method == "DELETE":  # nothing uploaded: nothing to delete, the stream as it is
            return json_response(stream_json(request, model.set_live_thumbnail(project, live_id, None)))
        model.live_stream(project, live_id)  # 404 before the body is read
        form = await read_small_file(request, api.settings.max_image_bytes)
        image = Image(check_image(form.filename, form.data, JPEG_EXTENSIONS), form.data)
        return json_response(stream_json(request, model.set_live_thumbnail(project, live_id, image)), 201)

    async def complete(request: Request, project: Project) -> Response:
        api.model.complete_live_stream(project, request.path_params["live_id"])
        return Response(status_code=202)

    # -- player themes -------------------------------------------------------------------------
    async def players(request: Request, project: Project) -> Response:
        model: VideoModel = api.model
        if request.method == "POST":
            theme = model.create_player(project, await read_json_object(request, required=True))
            return json_response(theme_json(request, theme), 201)
        query = api.paging(request)
        sort_by = choice(request, "sortBy", ("name", "createdAt", "updatedAt")) or "createdAt"
        descending = choice(request, "sortOrder", ("asc", "desc")) == "desc"
        key = {"name": lambda t: (t.name, t.number), "createdAt": lambda t: (t.created_ms, t.number),
               "updatedAt": lambda t: (t.updated_ms, t.number)}[sort_by]
        found = sorted(model.players.of_project(project.project_id), key=key, reverse=descending)
        return api.page([theme_json(request, t) for t in found], query, request, "/players")

    async def player(request: Request, project: Project) -> Response:
        model: VideoModel = api.model
        player_id = request.path_params["player_id"]
        if request.method == "DELETE":
            model.delete_player(project, player_id)
            return Response(status_code=204)
        if request.method == "PATCH":
            theme = model.update_player(project, player_id, await read_json_object(request))
            return json_response(theme_json(request, theme))
        return json_response(theme_json(request, model.players.get(project.project_id, player_id)))

    async def logo(request: Request, project: Project) -> Response:
        model: VideoModel = api.model
        player_id = request.path_params["player_id"]
        if request.method == "DELETE":
            model.set_logo(project, player_id, None, None)
            return Response(status_code=204)
        model.players.get(project.project_id, player_id)  # 404 before the body is read
        form = await read_small_file(request, api.settings.max_image_bytes, allowed_fields=frozenset({"link"}))
        image = Image(check_image(form.filename, form.data, IMAGE_EXTENSIONS), form.data)
        link = form.fields.get("link")
        if link is not None and len(link) > MAX_LINK:
            raise invalid_attribute("link", f"link is longer than {MAX_LINK} characters")
        return json_response(theme_json(request, model.set_logo(project, player_id, image, link)), 201)

    return [
        api.route("/live-streams", {"GET": live_streams, "POST": live_streams}),
        api.route("/live-streams/{live_id}", {"GET": live_stream, "PATCH": live_stream, "DELETE": live_stream}),
        *api.routes("/live-streams/{live_id}/thumbnail", {"POST": live_thumbnail, "DELETE": live_thumbnail},
                  file_bytes=api.settings.max_image_bytes),
        api.route("/live-streams/{live_id}/complete", {"PUT": complete}),
        api.route("/players", {"GET": players, "POST": players}),
        api.route("/players/{player_id}", {"GET": player, "PATCH": player, "DELETE": player}),
        *api.routes("/players/{player_id}/logo", {"POST": logo, "DELETE": logo},
                  file_bytes=api.settings.max_image_bytes),
    ]
