"""``/webhooks/``: the caller's webhook subscriptions, their delivery logs, tests and replays.

Bodies follow Django REST framework: unknown and read-only fields are ignored; ``POST`` and
``PUT`` need ``url``, ``PATCH`` changes only what it sends. ``regenerate-secret``, ``test`` and
``replay`` accept any JSON object body (the vendor document asks for one) or none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response

from fakes.kernel.errors import ServiceError
from fakes.kernel.http import base_url, json_response, read_json_object

from .delivery import send_now
from .endpoints import Endpoint, page_of, path_id
from .keys import WEBHOOKS, ApiKey
from .outbox import headers_for, payload
from .webhooks import Webhook

if TYPE_CHECKING:
    from .model import FilingsModel

DELIVERY_NOT_FOUND = "Delivery not found for this webhook."


def _hook(request: Request, model: FilingsModel, key: ApiKey) -> Webhook:
    return model.webhooks.of(key.key, path_id(request, "id"))


def _changed(model: FilingsModel, request: Request) -> None:
    model.webhooks.base_url = base_url(request)
    model.version += 1


async def list_webhooks(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    return page_of(request, model, [hook.to_json() for hook in model.webhooks.listing(key.key)])


async def create_webhook(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    hook = model.webhooks.create(key.key, await read_json_object(request), model.now_s())
    _changed(model, request)
    return json_response({**hook.to_json(), "secret_key": hook.secret}, 201)


async def get_webhook(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    return json_response(_hook(request, model, key).to_json())


async def put_webhook(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    hook = _hook(request, model, key)
    model.webhooks.update(hook, await read_json_object(request), partial=False, now_s=model.now_s())
    _changed(model, request)
    return json_response(hook.to_json())


async def patch_webhook(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    hook = _hook(request, model, key)
    model.webhooks.update(hook, await read_json_object(request), partial=True, now_s=model.now_s())
    _changed(model, request)
    return json_response(hook.to_json())


async def delete_webhook(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    model.webhooks.delete(_hook(request, model, key))
    _changed(model, request)
    return Response(status_code=204)


async def list_deliveries(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    hook = _hook(request, model, key)
    log = model.webhooks.logs.get(hook.id, [])
    return page_of(request, model, [delivery.to_json() for delivery in reversed(log)])


def _delivery(request: Request, model: FilingsModel, hook: Webhook) -> Any:
    found = model.webhooks.by_uuid.get(request.path_params["delivery_uuid"].lower())
    if found is None or found.webhook_id != hook.id:
        raise ServiceError(404, DELIVERY_NOT_FOUND, code="not_found")
    return found


async def get_delivery(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    hook = _hook(request, model, key)
    delivery = _delivery(request, model, hook)
    placeholder = "<computed at send time>"
    return json_response({**delivery.to_json(), "response_body": delivery.response_body,
                          "request_headers": headers_for(hook, delivery, placeholder, placeholder),
                          "request_payload": payload(model, hook, delivery, base_url(request))})


async def _optional_body(request: Request) -> None:
    await read_json_object(request)  # any JSON object, or nothing: what it says is not used


async def replay_delivery(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    hook = _hook(request, model, key)
    delivery = _delivery(request, model, hook)
    await _optional_body(request)
    now_s = model.now_s()
    model.webhooks.base_url = base_url(request)
    model.webhooks.attempt(model, hook, delivery.event_type, delivery.filing_id, delivery.event_s, now_s,
                           changes=delivery.changes)
    _changed(model, request)
    return json_response({"status": "success",
                          "message": "Replay queued. A new delivery attempt will appear in the logs shortly."}, 202)


async def regenerate_secret(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    hook = _hook(request, model, key)
    await _optional_body(request)
    secret = model.webhooks.regenerate(hook, model.now_s())
    _changed(model, request)
    return json_response({"secret_key": secret})


async def test_webhook(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    """Posts a ``filing.processed.test`` event now and answers with how the endpoint answered."""
    hook = _hook(request, model, key)
    await _optional_body(request)
    book = model.webhooks
    book.base_url = base_url(request)
    now_s = model.now_s()
    delivery = book.attempt(model, hook, "filing.processed.test", None, now_s, now_s)
    items = book.take_outgoing()
    book.outgoing.extend(item for item in items if item.delivery is not delivery)  # the sender's, at the next sync
    status: int | None = None
    for item in items:
        if item.delivery is delivery:
            status, _text = await send_now(model, item)
    model.version += 1
    if status is not None and 200 <= status < 300:
        return json_response({"status": "success", "message": f"Test event successfully sent. Endpoint responded "
                                                              f"with HTTP {status}.", "delivery_uuid": delivery.uuid})
    why = (f"Endpoint responded with error status: {status}" if status is not None
           else (delivery.response_body or "the endpoint could not be reached"))
    return json_response({"status": "failed", "message": f"Test event failed. {why}",
                          "delivery_uuid": delivery.uuid}, 400)


ENDPOINTS = [
    Endpoint("GET", "/webhooks/", list_webhooks, WEBHOOKS),
    Endpoint("POST", "/webhooks/", create_webhook, WEBHOOKS),
    Endpoint("GET", "/webhooks/{id}/", get_webhook, WEBHOOKS),
    Endpoint("PUT", "/webhooks/{id}/", put_webhook, WEBHOOKS),
    Endpoint("PATCH", "/webhooks/{id}/", patch_webhook, WEBHOOKS),
    Endpoint("DELETE", "/webhooks/{id}/", delete_webhook, WEBHOOKS),
    Endpoint("GET", "/webhooks/{id}/deliveries/", list_deliveries, WEBHOOKS),
    Endpoint("GET", "/webhooks/{id}/deliveries/{delivery_uuid}/", get_delivery, WEBHOOKS),
    Endpoint("POST", "/webhooks/{id}/deliveries/{delivery_uuid}/replay/", replay_delivery, WEBHOOKS),
    Endpoint("POST", "/webhooks/{id}/regenerate-secret/", regenerate_secret, WEBHOOKS),
    Endpoint("POST", "/webhooks/{id}/test/", test_webhook, WEBHOOKS),
]
