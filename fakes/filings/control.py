"""The filings fake's additions to the control plane (``/_fake/keys``, ``/companies``, ``/filings``).

Thin: parse the JSON body and call the same methods :class:`~fakes.filings.FilingsFake` offers in
Python, so the two faces cannot drift apart. Errors use the control plane's own shape.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from fakes.kernel.errors import ControlError
from fakes.kernel.http import json_response, read_json_object

if TYPE_CHECKING:
    from . import FilingsFake


def routes(fake: FilingsFake) -> list[BaseRoute]:
    async def keys(request: Request) -> Response:
        if request.method == "GET":
            return json_response({"keys": fake.list_keys()})
        body = await read_json_object(request, error=ControlError)
        unknown = set(body) - {"tier", "quota"}
        if unknown:
            raise ControlError(400, f"unknown field(s): {', '.join(sorted(unknown))}", code="invalid_body")
        if "tier" not in body or not isinstance(body["tier"], str):
            raise ControlError(400, "tier is required: free, standard, level2 or enterprise", code="invalid_body")
        quota: Any = body.get("quota", "default")
        return json_response(fake.create_key_record(body["tier"], quota), 201)

    async def companies(request: Request) -> Response:
        body = await read_json_object(request, error=ControlError)
        return json_response(fake.add_company(**body), 201)

    async def filings(request: Request) -> Response:
        body = await read_json_object(request, error=ControlError)
        base = f"{request.url.scheme}://{request.url.netloc}{fake.prefix}"
        return json_response(fake.model.add_filing(body, base), 201)

    return [
        Route("/keys", keys, methods=["GET", "POST"]),
        Route("/companies", companies, methods=["POST"]),
        Route("/filings", filings, methods=["POST"]),
    ]
