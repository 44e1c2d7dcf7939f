"""Posting webhook attempts: the kernel's background sender, and the test delivery sent at once.

The model decides what is sent and when (:mod:`.webhookbook`); the sender thread
(:class:`~fakes.kernel.sender.BackgroundSender`) posts each attempt and reports the answer back
(``FilingsModel.record_attempt``), which may schedule a retry on the virtual clock. While webhooks
exist its tick runs the fake's catch-up, so a real or scaled clock delivers without a request.
``duration_ms`` is virtual time: 0 on a manual clock, so a state and its replay answer alike.
A test delivery is posted by the request that asked for it (:func:`send_now`).
"""

from __future__ import annotations

import ssl
from typing import TYPE_CHECKING

import httpx

from fakes.kernel.sender import BackgroundSender

from .outbox import Outgoing

if TYPE_CHECKING:
    from .model import FilingsModel
    from .served import ServedFilings

MAX_RESPONSE_BODY = 2000
_TLS: ssl.SSLContext | None = None  # made once: a context per test delivery would cost milliseconds


def sender(fake: ServedFilings) -> BackgroundSender[ServedFilings, Outgoing]:
    return BackgroundSender(fake, _send, _tick, name="fakes-filings-webhooks")


def _tick(fake: ServedFilings) -> None:
    if fake.model.webhooks.hooks:
        fake.sync()  # what the clock passed without a request


def _send(fake: ServedFilings, client: httpx.Client, item: Outgoing) -> None:
    started = fake.clock.now_ms()
    try:
        response = client.post(item.url, content=item.body, headers=item.headers,
                               timeout=fake.settings.webhook_timeout_s)
        status: int | None = response.status_code
        text: str | None = response.text[:MAX_RESPONSE_BODY]
    except (httpx.HTTPError, httpx.InvalidURL, ValueError) as exc:
        status, text = None, f"{type(exc).__name__}: {exc}"[:MAX_RESPONSE_BODY]
    fake.model.record_attempt(item, status, text, max(0, fake.clock.now_ms() - started))


async def send_now(model: FilingsModel, item: Outgoing) -> tuple[int | None, str | None]:
    """Post one attempt from the request that asked for it (a test delivery) and record it."""
    global _TLS
    if _TLS is None:
        _TLS = httpx.create_ssl_context()
    started = model.clock.now_ms()
    try:
        async with httpx.AsyncClient(trust_env=False, verify=_TLS) as client:
            response = await client.post(item.url, content=item.body, headers=item.headers,
                                         timeout=model.settings.webhook_timeout_s)
        status: int | None = response.status_code
        text: str | None = response.text[:MAX_RESPONSE_BODY]
    except (httpx.HTTPError, httpx.InvalidURL, ValueError) as exc:
        status, text = None, f"{type(exc).__name__}: {exc}"[:MAX_RESPONSE_BODY]
    model.record_attempt(item, status, text, max(0, model.clock.now_ms() - started))
    return status, text
