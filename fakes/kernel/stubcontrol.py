"""The stubs' control routes under ``/_fake/stubs`` (:mod:`fakes.kernel.stubs`): list, add, read,
remove one or all, move a scenario, import WireMock mappings. Each calls the fake's Python face
(:class:`StubbedFake`), as the rest of the control plane does."""

from __future__ import annotations

from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from .errors import ControlError
from .http import json_response, read_json, read_json_object
from .stubs import MAX_NAME, PLACES, StubRule, StubSet


class StubbedFake(Protocol):
    """What the stub routes use of the fake (or world) a request is for."""

    @property
    def stubs(self) -> StubSet: ...

    def add_stub(self, spec: dict[str, Any]) -> StubRule: ...

    def remove_stub(self, stub_id: str) -> bool: ...

    def clear_stubs(self) -> None: ...

    def set_scenario(self, name: str, state: str) -> None: ...

    def import_wiremock(self, document: Any, *, place: str = "before", source: str = "request") -> dict[str, Any]: ...


def _fake(request: Request) -> StubbedFake:
    fake: StubbedFake = request.scope["app"]
    return fake


async def stubs(request: Request) -> Response:
    fake = _fake(request)
    if request.method == "POST":
        body = await read_json_object(request, error=ControlError)
        return json_response(fake.add_stub(body).to_dict(), 201)
    if request.method == "DELETE":
        fake.clear_stubs()
        return json_response({"stubs": []})
    return json_response({"stubs": fake.stubs(), "scenarios": fake.stubs.scenario_states()})


async def stub(request: Request) -> Response:
    fake = _fake(request)
    stub_id = request.path_params["stub_id"]
    if request.method == "DELETE":
        if not fake.remove_stub(stub_id):
            raise ControlError(404, f"no stub {stub_id}", code="not_found")
        return json_response({"deleted": stub_id})
    found = fake.stubs.get(stub_id)
    if found is None:
        raise ControlError(404, f"no stub {stub_id}", code="not_found")
    return json_response(found.to_dict())


async def scenario(request: Request) -> Response:
    name = request.path_params["name"]
    body = await read_json_object(request, error=ControlError)
    state = body.get("state", "")
    if set(body) != {"state"}:
        raise ControlError(400, f"send {{\"state\": \"...\"}}: a text of 1 to {MAX_NAME} characters",
                           code="invalid_stub", field="state")
    _fake(request).set_scenario(name, state)
    return json_response({"scenario": name, "state": state})


async def import_wiremock(request: Request) -> Response:
    place = request.query_params.get("place", "before")
    if place not in PLACES:
        raise ControlError(400, "place is before or behind", code="invalid_parameter", field="place")
    body = await read_json(request, error=ControlError)
    if not isinstance(body, (dict, list)):
        raise ControlError(400, "send WireMock mappings: {\"mappings\": [...]}, one mapping, or a list of them",
                           code="invalid_mappings")
    return json_response(_fake(request).import_wiremock(body, place=place))


STUB_ROUTES: list[BaseRoute] = [
    Route("/_fake/stubs", stubs, methods=["GET", "POST", "DELETE"]),
    Route("/_fake/stubs/import/wiremock", import_wiremock, methods=["POST"]),
    Route("/_fake/stubs/scenarios/{name}", scenario, methods=["PUT"]),
    Route("/_fake/stubs/{stub_id}", stub, methods=["GET", "DELETE"]),
]
