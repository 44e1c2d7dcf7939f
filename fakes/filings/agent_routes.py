"""``/agent/...`` (an AI agent's own account) and ``/usage/`` (what a key has used).

Sign-up and key claims need no key (plain routes); the others authenticate with the account's
key and work in every state but ``blocked`` (they are how an agent gets out of ``unfunded``).
``/usage/`` is never counted against the quota.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from fakes.kernel.errors import ServiceError
from fakes.kernel.http import json_response, read_json_object

from .endpoints import Endpoint, fake_of
from .keys import AGENT_ACCOUNT, PLAN_LABELS, ApiKey

if TYPE_CHECKING:
    from .agent import AgentAccount
    from .model import FilingsModel


def _account(model: FilingsModel, key: ApiKey) -> AgentAccount:
    account = model.agents.accounts.get(key.agent or "")
    if account is None:
        raise ServiceError(403, "This key does not belong to an agent account.", code="permission_denied")
    return account


async def agent_status(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    account = _account(model, key)
    return json_response(account.status_json(model.settings.agent_sandbox_calls, model.now_s()))


async def rotate_key(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    account = _account(model, key)
    if account.owner_logged_in:
        raise ServiceError(403, "The owner has logged in: the key is managed from the dashboard now.",
                           code="permission_denied")
    fresh = model.rotate_agent_key(account)
    return json_response({"api_key": fresh.key, "state": account.state,
                          "detail": "The previous key no longer works. This key is shown once."})


async def owner_confirmation(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    account = _account(model, key)
    if account.state in ("active", "funded"):
        raise ServiceError(409, "The owner has already confirmed this account.", code="conflict")
    account.confirmation_sent_s = model.now_s()
    model.version += 1
    return json_response({"status": "sent", "email": account.email,
                          "detail": "A confirmation link was emailed to the owner; poll GET /agent/status/."}, 202)


async def checkout_link(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    account = _account(model, key)
    status, body = model.agents.checkout(model.seed, model.epoch, account, model.now_s())
    model.version += 1
    return json_response(body, status)


async def usage(request: Request, model: FilingsModel, key: ApiKey) -> Response:
    now = dt.datetime.fromtimestamp(model.now_s(), tz=dt.UTC)
    key.roll_over(model.clock.now_ms())
    account = model.agents.accounts.get(key.agent or "") if key.agent else None
    body: dict[str, Any] = {
        "plan": PLAN_LABELS[key.tier], "cycle": {"start": f"{now.year}-01-01", "end": f"{now.year}-12-31",
                                                 "interval": "annual"},
        "requests": {"limit": key.quota, "used": key.used, "remaining": key.remaining(), "unit": "requests"},
        "free_credits": None, "payg": None,
        "agent": None if account is None else {"state": account.state, "sandbox_calls_used": account.sandbox_used},
    }
    if account is not None and account.state == "funded":
        body["payg"] = {"cycle_spend": "0.00", "daily_cap": "50.00", "today_spend": "0.00",
                        "cycle_ceiling": "500.00", "currency": "EUR", "credits_by_category": {}}
    return json_response(body)


async def signup(request: Request) -> Response:
    fake = fake_of(request)
    fake.sync()
    status, body = fake.model.sign_up(await read_json_object(request))
    return json_response(body, status)


async def claim(request: Request) -> Response:
    fake = fake_of(request)
    fake.sync()
    status, body = fake.model.agents.claim(await read_json_object(request), fake.model.now_s())
    fake.model.version += 1
    return json_response(body, status)


#: no key needed: an agent signs up, or polls its claim
UNAUTHENTICATED = [Route("/agent/signup/", signup, methods=["POST"]),
                   Route("/agent/key-claim/", claim, methods=["POST"])]


ENDPOINTS = [
    Endpoint("GET", "/agent/status/", agent_status, AGENT_ACCOUNT, counted=False),
    Endpoint("POST", "/agent/key/rotate/", rotate_key, AGENT_ACCOUNT, counted=False),
    Endpoint("POST", "/agent/owner-confirmation/", owner_confirmation, AGENT_ACCOUNT, counted=False),
    Endpoint("POST", "/agent/checkout-link/", checkout_link, AGENT_ACCOUNT, counted=False),
    Endpoint("GET", "/usage/", usage, AGENT_ACCOUNT, counted=False),
]
