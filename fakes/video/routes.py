"""The public API: parse the request, ask the model, answer the service's own bodies.

Every API response, errors included, carries ``X-RateLimit-Limit``, ``X-RateLimit-Remaining`` and
``X-RateLimit-Retry-After`` of the caller's window for the request's class (uploads, writes,
reads); that is why this module routes every method and every unknown path itself (405 and 404
in the service's shape with the headers) instead of leaving them to the kernel. The caller's
window is its project's when the Authorization header names one (or, for ``POST /upload``, its
upload token does), else its address's.

The routes of each concept are in their own module (routes_videos.py, routes_uploads.py,
routes_tracks.py, routes_live.py, routes_analytics.py, and the assets in assets.py); what they
share, the endpoint wrapper, bases, paging and the ``{data, pagination}`` envelope, is in
endpoints.py, below them all; this one assembles the list.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from fakes.kernel.http import json_response

from . import routes_analytics, routes_live, routes_tracks, routes_uploads, routes_videos
from .assets import asset_routes
from .endpoints import ALL_METHODS, Api
from .problems import problem
from .projects import Project
from .settings import VideoSettings


def service_routes(settings: VideoSettings) -> list[BaseRoute]:
    """The service's routes for these settings; one list serves a fake and all its worlds."""
    api = Api(settings)

    async def unknown(request: Request, _: Project) -> Response:
        raise problem(404, "unrecognized-request-url", "Unrecognized request URL.",
                      detail=f"{request.method} {request.url.path} is not an endpoint of this API")

    async def openapi(request: Request) -> Response:
        return json_response(request.scope["app"].openapi())

    return [
        *routes_videos.routes(api),
        *routes_uploads.routes(api),
        *routes_tracks.routes(api),
        *routes_live.routes(api),
        *routes_analytics.routes(api),
        *asset_routes(settings),
        Route("/openapi.json", openapi, methods=["GET"]),
        api.route("/{path:path}", dict.fromkeys(ALL_METHODS, unknown), authenticated=False),
    ]
