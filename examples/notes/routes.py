"""The public API: parse the request, call the model, answer in the service's own shape.

Checks run in the real service's order (here: token, then parameters, then data); every refusal
is a :class:`~fakes.kernel.errors.ServiceError` that the kernel renders with
:meth:`NotesFake.error_body`, so no bad input reaches a 500.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from fakes.kernel.errors import ServiceError
from fakes.kernel.http import bearer_token, json_response, query_int, read_json_object
from fakes.kernel.routing import claim_methods
from fakes.kernel.verdicts import flag

from .rules import OLD_PARAMETER

if TYPE_CHECKING:
    from . import NotesFake

MAX_LIMIT = 100


def routes() -> list[BaseRoute]:
    """The routes, one set for every fake and world of the process (a world builds none): an
    endpoint reads the fake serving the request from ``scope["app"]``, never from a closure."""
    return list(_routes())


def served(request: Request) -> NotesFake:
    fake: NotesFake = request.scope["app"]  # the fake or world serving the request
    return fake


def check_token(request: Request) -> None:
    expected = served(request).settings.api_token
    if expected and bearer_token(request) != expected:
        raise ServiceError(401, "send Authorization: Bearer <api token>", code="unauthorized",
                           headers={"WWW-Authenticate": "Bearer"})


async def create(request: Request) -> Response:
    check_token(request)
    body = await read_json_object(request)
    return json_response(served(request).model.create(body.get("text"), body.get("tag")), 201)


async def listing(request: Request) -> Response:
    check_token(request)
    limit = query_int(request, "limit", 10, minimum=1, maximum=MAX_LIMIT)
    old = request.query_params.get("old")
    if old is not None:
        flag(request, OLD_PARAMETER, f"old={old} sent")
    return json_response({"notes": served(request).model.first(limit or 10)})


async def one(request: Request) -> Response:
    check_token(request)
    return json_response(served(request).model.view(request.path_params["note_id"]))


@functools.cache
def _routes() -> tuple[BaseRoute, ...]:
    # claim_methods: a method a path does not take is a 405 naming every method it does (GET and POST)
    return tuple(claim_methods([
        Route("/notes", create, methods=["POST"]),
        Route("/notes", listing, methods=["GET"]),
        Route("/notes/{note_id}", one, methods=["GET"]),
    ]))
