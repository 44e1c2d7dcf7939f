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
from urllib.parse import urlsplit

import httpx

from fakes.kernel.sender import BackgroundSender
from fakes.kernel.upstream import Upstream, UpstreamError

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
    started = model.clock.now_ms()
    timeout = model.settings.webhook_timeout_s
    if item.url.startswith("http://"):
        status, text = await _post_plain(item, timeout)
    else:
        status, text = await _post_with_httpx(item, timeout)
    model.record_attempt(item, status, text, max(0, model.clock.now_ms() - started))
    return status, text


async def _post_plain(item: Outgoing, timeout: float) -> tuple[int | None, str | None]:
    """An http:// receiver through the kernel's lean client: httpx's async path costs a test
    delivery 1.5-2 ms of CPU before anything is sent (its async-library probe, a client and a pool
    per delivery); this costs a fraction of that."""
    upstream = None
    try:
        parts = urlsplit(item.url)
        if not parts.hostname:
            raise ValueError(f"no host in {item.url!r}")
        upstream = Upstream(f"http://{parts.netloc}", timeout=timeout)  # a bad port: ValueError
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        headers = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in item.headers.items()]
        status, _headers, body = await upstream.request("POST", target, headers, item.body)
    except (UpstreamError, ValueError) as exc:  # UnicodeError is a ValueError
        return None, f"{type(exc).__name__}: {exc}"[:MAX_RESPONSE_BODY]
    finally:
        if upstream is not None:
            await upstream.aclose()
    return status, body[:MAX_RESPONSE_BODY * 4].decode("utf-8", "replace")[:MAX_RESPONSE_BODY]


async def _post_with_httpx(item: Outgoing, timeout: float) -> tuple[int | None, str | None]:
    global _TLS
    if _TLS is None:
        _TLS = httpx.create_ssl_context()
    try:
        async with httpx.AsyncClient(trust_env=False, verify=_TLS) as client:
            response = await client.post(item.url, content=item.body, headers=item.headers, timeout=timeout)
    except (httpx.HTTPError, httpx.InvalidURL, ValueError) as exc:
        return None, f"{type(exc).__name__}: {exc}"[:MAX_RESPONSE_BODY]
    return response.status_code, response.text[:MAX_RESPONSE_BODY]
