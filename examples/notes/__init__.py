"""Notes: the smallest complete service, the template for a new one (see README.md here).

Clients create text notes that become "ready" a configurable time after creation. Every role of
a service package is here, each in its own module:

``settings.py`` (typed settings), ``model.py`` (state and rules, no HTTP), ``data.py`` (seeded
generated data), ``routes.py`` (the public API), ``openapi.py`` (its OpenAPI document),
``control.py`` (its ``/_fake/`` additions), ``rules.py`` (client rules for verdicts), and this
module: the :class:`~fakes.kernel.fake.Fake` subclass that ties them together.
"""

from __future__ import annotations

from typing import Any

from starlette.routing import BaseRoute

from fakes.kernel.benchops import BenchOperation
from fakes.kernel.errors import ServiceError
from fakes.kernel.fake import Fake

from . import control, openapi, routes
from .model import NotesModel
from .rules import OLD_PARAMETER
from .settings import NotesSettings

__all__ = ["NotesFake", "NotesSettings"]


class NotesFake(Fake):
    name = "notes"
    title = "Notes (example service)"
    state_required_fields = ("generated", "notes")
    default_port = 8799
    settings_class = NotesSettings
    client_rules = (OLD_PARAMETER,)

    model: NotesModel
    settings: NotesSettings

    # -- hooks the kernel calls ----------------------------------------------------------------
    def create_model(self) -> NotesModel:
        return NotesModel(seed=self.seed, clock=self.clock, settings=self.settings)

    def routes(self) -> list[BaseRoute]:
        return routes.routes()

    def control_routes(self) -> list[BaseRoute]:
        return control.routes()

    def error_body(self, err: ServiceError) -> dict[str, Any]:
        """The service's own error shape (the kernel uses it for 404s, 405s and faults too)."""
        return {"problem": err.message, "code": err.code or "error"}

    def openapi_document(self) -> dict[str, Any]:
        return openapi.document(self.settings)

    def demo_credentials(self) -> dict[str, str]:
        return {"api_token": self.settings.api_token} if self.settings.api_token else {"api_token": "(none needed)"}

    def auth_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.settings.api_token}"} if self.settings.api_token else {}

    def sample_request(self) -> tuple[str, str]:
        """The benchmark's request. It must not change the fake: the generic suites export the state
        after :meth:`auth_headers` and then send this request to the fake and to an imported twin
        (state a request needs is made in ``auth_headers()``, as video's sample project is)."""
        return ("GET", "/notes?limit=100")

    def bench_operations(self) -> list[BenchOperation]:
        """One timed request per operation of the OpenAPI document (the contract tests hold it whole)."""
        return [
            BenchOperation("POST /notes", "POST", "/notes", json={"text": "benchmark"}, expect=(201,)),
            BenchOperation("GET /notes", "GET", "/notes?limit=100"),
            BenchOperation("GET /notes/{note_id}", "GET", "/notes/{note_id}",
                           prepare=lambda: {"note_id": self.add_note("benchmark")["id"]}),
        ]

    @classmethod
    def settings_for_tests(cls) -> dict[str, Any]:
        return {"api_token": "test-token"}  # the generic suites then prove the token check too

    # -- control plane as Python (control.py calls these) --------------------------------------
    def api_token(self) -> dict[str, str]:
        """The bearer token that public calls need ("" when the API is open): how a scenario (or a
        test container) that did not start the fake learns it, as other services hand out keys."""
        return {"api_token": self.settings.api_token}

    def add_note(self, text: str | None = None, tag: str | None = None) -> dict[str, Any]:
        """A note with ``text``, or with seeded generated text when none is given."""
        if text is None:
            return self.model.create_generated(tag)
        return self.model.create(text, tag)
