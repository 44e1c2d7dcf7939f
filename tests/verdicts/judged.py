"""A tiny fake with one error rule and one warning rule, to test the verdict machinery alone."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from fakes.kernel.fake import Fake
from fakes.kernel.http import json_response
from fakes.kernel.verdicts import ClientRule, flag

BAD = ClientRule("judged/bad", "error", "Never send bad=1.", "tests/verdicts/judged.py")
WASTE = ClientRule("judged/waste", "warning", "waste=1 is wasteful.", "tests/verdicts/judged.py")


class JudgedModel:
    def __init__(self) -> None:
        self.calls = 0

    def to_state(self) -> dict[str, Any]:
        return {"calls": self.calls}

    def load_state(self, state: dict[str, Any]) -> None:
        self.calls = int(state["calls"])


class JudgedFake(Fake):
    name = "judged"
    client_rules = (BAD, WASTE)

    def create_model(self) -> JudgedModel:
        return JudgedModel()

    def routes(self) -> list[BaseRoute]:
        async def thing(request: Request) -> Response:
            self.model.calls += 1
            if request.query_params.get("bad") == "1":
                flag(request, BAD, "bad=1 sent")
            if request.query_params.get("waste") == "1":
                flag(request, WASTE)
            return json_response({"ok": True})

        return [Route("/thing", thing, methods=["GET"])]
