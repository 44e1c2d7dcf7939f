"""A minimal fake that exists only to prove the kernel end to end (not part of the package)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from fakes.kernel.clock import Clock
from fakes.kernel.errors import ServiceError
from fakes.kernel.fake import Fake
from fakes.kernel.http import json_response, query_int, read_json_object
from fakes.kernel.settings import FakeSettings
from fakes.kernel.verdicts import ClientRule, flag

OLD_PARAMETER = ClientRule("notes/old-parameter", "warning", "The 'old' parameter is deprecated.",
                           "tests/kernel/tiny.py")


@dataclass
class NotesSettings(FakeSettings):
    build_seconds: int = field(default=60, metadata={"help": "how long a note takes to be 'ready'"})
    label: str = field(default="notes", metadata={"help": "a text setting"})
    flags: dict[str, int] = field(default_factory=dict, metadata={"help": "a JSON setting"})


class NotesModel:
    """Notes become ready ``build_seconds`` after creation - a lazily evaluated transition."""

    def __init__(self, clock: Clock, build_seconds: int) -> None:
        self.clock = clock
        self.build_ms = build_seconds * 1000
        self.notes: dict[str, dict[str, Any]] = {}

    def create(self, text: Any) -> dict[str, Any]:
        if not isinstance(text, str) or not text:
            raise ServiceError(400, "text must be a non-empty string", code="invalid_text")
        note_id = f"n{len(self.notes) + 1}"
        self.notes[note_id] = {"id": note_id, "text": text, "created_ms": self.clock.now_ms()}
        return self.view(note_id)

    def view(self, note_id: str) -> dict[str, Any]:
        note = self.notes.get(note_id)
        if note is None:
            raise ServiceError(404, f"no note {note_id}", code="not_found")
        ready = self.clock.now_ms() >= note["created_ms"] + self.build_ms
        return {**note, "status": "ready" if ready else "building"}

    def to_state(self) -> dict[str, Any]:
        return {"notes": self.notes}

    def load_state(self, state: dict[str, Any]) -> None:
        self.notes = dict(state["notes"])


class NotesFake(Fake):
    name = "notes"
    title = "Notes (kernel test fake)"
    default_port = 8799
    settings_class = NotesSettings
    client_rules = (OLD_PARAMETER,)

    def create_model(self) -> NotesModel:
        return NotesModel(self.clock, self.settings.build_seconds)

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/notes", self._create, methods=["POST"]),
            Route("/notes", self._list, methods=["GET"]),
            Route("/notes/{note_id}", self._get, methods=["GET"]),
        ]

    def control_routes(self) -> list[BaseRoute]:
        return [Route("/notes", self._seed, methods=["POST"])]

    def error_body(self, err: ServiceError) -> dict[str, Any]:
        return {"problem": err.message, "code": err.code}

    def openapi_document(self) -> dict[str, Any]:
        return {"openapi": "3.0.3", "info": {"title": self.title, "version": "1"}, "paths": {"/notes": {}}}

    def demo_credentials(self) -> dict[str, str]:
        return {"token": "demo"}

    async def _create(self, request: Request) -> Response:
        body = await read_json_object(request)
        return json_response(self.model.create(body.get("text")), 201)

    async def _list(self, request: Request) -> Response:
        limit = query_int(request, "limit", 10, minimum=1, maximum=100)
        if request.query_params.get("old") == "1":
            flag(request, OLD_PARAMETER, "old=1 sent")
        notes = [self.model.view(i) for i in list(self.model.notes)[:limit]]
        return json_response({"notes": notes})

    async def _get(self, request: Request) -> Response:
        return json_response(self.model.view(request.path_params["note_id"]))

    async def _seed(self, request: Request) -> Response:
        body = await read_json_object(request)
        return json_response(self.model.create(body.get("text")), 201)
