"""``/watchlist/``: the caller's watchlist, one company or up to 100 at a time (Level 1)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response

from fakes.kernel.errors import ServiceError
from fakes.kernel.http import JSON_INT_MAX, InvalidInteger, ascii_int, json_response, read_json_object

from .endpoints import Endpoint, page_of
from .keys import WATCHLIST, ApiKey
from .watchlist import answer

if TYPE_CHECKING:
    from .model import FilingsModel

MAX_BULK = 100


def _company_id(value: Any, name: str = "company_id") -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise answer(400, f"{name}: A valid integer is required.")
    if not 1 <= value <= JSON_INT_MAX:
        raise answer(400, f"{name}: Ensure this value is a positive integer.")
    return value


async def _body(request: Request) -> dict[str, Any]:
    try:
        return await read_json_object(request)
    except ServiceError as err:
        if err.status != 400:
            raise  # a body past the cap is the kernel's 413
        raise answer(400, err.message) from None


async def get_watchlist(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    watchlist = model.watchlists.of(key.key)
    rows = [{"id": cid, "name": model.company_name(cid)} for cid in watchlist.companies]
    return page_of(request, model, rows, is_locked=watchlist.locked)


async def add_company(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    body = await _body(request)
    if "company_id" not in body:
        raise answer(400, "company_id: This field is required.")
    company_id = _company_id(body["company_id"])
    if model.core(company_id) is None:
        raise answer(400, f'company_id: Invalid pk "{company_id}" - object does not exist.', company_id)
    model.watchlists.add(key.key, company_id)
    model.version += 1
    return json_response({"status": "success", "message": "Company added to watchlist.", "company_id": company_id},
                         201)


async def remove_company(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    raw = request.path_params["company_id"]
    try:
        company_id = ascii_int(raw, minimum=0, maximum=JSON_INT_MAX)
    except InvalidInteger:
        raise answer(404, "Company not in watchlist.") from None
    model.watchlists.remove(key.key, company_id)
    model.version += 1
    return json_response({"status": "success", "message": "Company removed from watchlist.",
                          "company_id": company_id})


async def _bulk_ids(request: Request, model: FilingsModel, *, must_exist: bool) -> list[int]:
    body = await read_json_object(request)
    ids = body.get("company_ids")
    if not isinstance(ids, list) or not 1 <= len(ids) <= MAX_BULK:
        raise ServiceError(400, f"company_ids: A list of 1 to {MAX_BULK} company ids is required.",
                           code="invalid_body")
    found = []
    for index, value in enumerate(ids):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= JSON_INT_MAX:
            raise ServiceError(400, f"company_ids[{index}]: A valid integer is required.", code="invalid_body")
        found.append(value)
    if must_exist:
        unknown = [cid for cid in found if model.core(cid) is None]
        if unknown:
            raise ServiceError(400, f"company_ids: Invalid pk(s) {unknown[:10]} - object does not exist.",
                               code="invalid_body")
    return found


async def _bulk(request: Request, model: FilingsModel, key: ApiKey, *, adding: bool) -> Response:
    ids = await _bulk_ids(request, model, must_exist=adding)
    changed = (model.watchlists.add_many if adding else model.watchlists.remove_many)(key.key, ids)
    model.version += 1
    noun = "company" if len(changed) == 1 else "companies"
    done = "added to" if adding else "removed from"
    return json_response({"status": "success", "message": f"{len(changed)} {noun} {done} watchlist.",
                          "company_ids": changed})


async def bulk_add(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    return await _bulk(request, model, key, adding=True)


async def bulk_remove(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    return await _bulk(request, model, key, adding=False)


ENDPOINTS = [
    Endpoint("GET", "/watchlist/", get_watchlist, WATCHLIST),
    Endpoint("POST", "/watchlist/companies/", add_company, WATCHLIST),
    # before {company_id}: as OpenAPI matches paths, the concrete ones own their requests
    Endpoint("POST", "/watchlist/companies/bulk-add/", bulk_add, WATCHLIST),
    Endpoint("POST", "/watchlist/companies/bulk-remove/", bulk_remove, WATCHLIST),
    Endpoint("DELETE", "/watchlist/companies/{company_id}/", remove_company, WATCHLIST),
]
