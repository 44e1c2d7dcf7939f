"""The service's additions to the control plane, declared relative to ``/_fake``.

Each route parses JSON and calls the fake's Python method of the same meaning, so the HTTP and
the Python faces cannot drift apart. Errors use the kernel's control shape ``{"error", "message"}``.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from fakes.kernel.errors import ControlError
from fakes.kernel.http import json_response, read_json_object

if TYPE_CHECKING:
    from . import NotesFake

NOTE_FIELDS = frozenset({"text", "tag"})


def routes() -> list[BaseRoute]:
    """One set for every fake and world (see routes.py): the fake serving a request is ``scope["app"]``."""
    return list(_routes())


async def add_note(request: Request) -> Response:
    fake: NotesFake = request.scope["app"]
    body = await read_json_object(request, error=ControlError)
    unknown = sorted(set(body) - NOTE_FIELDS)
    if unknown:  # a typo must not pass unnoticed
        raise ControlError(400, f"unknown field(s) {', '.join(unknown)}; allowed: text, tag", code="unknown_field")
    wrong = [name for name, value in body.items() if not isinstance(value, str)]
    if wrong:  # as the document says: leave a field out for none, null is not a text
        raise ControlError(400, f"{wrong[0]} must be a string (leave it out for none)", code="invalid_field")
    # a model refusal (ServiceError) is rendered in the control plane's shape by the kernel
    return json_response(fake.add_note(**body), 201)


async def api_token(request: Request) -> Response:
    fake: NotesFake = request.scope["app"]
    return json_response(fake.api_token())


@functools.cache
def _routes() -> tuple[BaseRoute, ...]:
    return (Route("/notes", add_note, methods=["POST"]), Route("/notes/token", api_token, methods=["GET"]))
