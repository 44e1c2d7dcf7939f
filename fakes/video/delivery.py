"""Sending webhook deliveries: one daemon thread per fake, never the event loop or the clock.

When deliveries are made: at the model's catch-up, which runs on every request to the fake, on
every clock move through the fake (``fake.advance``, ``POST /_fake/clock``) and, while a
subscription exists, every ``TICK_S`` wall seconds in this thread (so a real or scaled clock, or a
manual clock shared with other fakes and advanced elsewhere, still emits on its own). How: this
thread POSTs each delivery once, in emission order, with the settings' timeout, and records the
outcome in the outbox (``delivered`` with the receiver's status for a 2xx, ``failed`` otherwise).
A slow receiver delays only later deliveries, never a request or a clock move. The thread holds a
weak reference to the fake and ends when the fake is garbage collected. It reads the fake through
:class:`WebhookSource`, a protocol of what it uses (the package's ``VideoFake`` satisfies it).
"""

from __future__ import annotations

import queue
import threading
import weakref
from typing import Protocol

import httpx

from .model import VideoModel
from .settings import VideoSettings
from .webhooks import Delivery

TICK_S = 0.2
_START_LOCK = threading.Lock()  # starting a sender thread is rare: one lock for every fake


class WebhookSource(Protocol):
    """What the sender thread uses of its fake: the timeout setting, whether anything is subscribed,
    and the catch-up that emits what the clock passed."""

    settings: VideoSettings
    model: VideoModel

    def sync(self) -> None: ...


class Dispatcher:
    def __init__(self, fake: WebhookSource) -> None:
        self._fake = weakref.ref(fake)
        # the queue and the thread come with the first delivery (most fakes and worlds send none)
        self._queue: queue.Queue[Delivery] | None = None
        self._thread: threading.Thread | None = None

    def submit(self, deliveries: list[Delivery]) -> None:
        if not deliveries:
            return
        self.ensure_running()
        assert self._queue is not None
        for delivery in deliveries:
            if delivery.deliverable:
                self._queue.put(delivery)

    def ensure_running(self) -> None:
        with _START_LOCK:
            if self._queue is None:
                self._queue = queue.Queue()
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=_run, args=(self._fake, self._queue),
                                                name="fakes-video-webhooks", daemon=True)
                self._thread.start()

    def wait(self, timeout: float) -> bool:
        """True once every submitted delivery was attempted (within ``timeout`` seconds)."""
        work = self._queue
        if work is None:
            return True  # nothing was ever submitted
        done = threading.Event()

        def joiner() -> None:
            work.join()
            done.set()

        threading.Thread(target=joiner, daemon=True).start()
        return done.wait(timeout)


def _run(fake_ref: weakref.ReferenceType[WebhookSource], deliveries: queue.Queue[Delivery]) -> None:
    with httpx.Client(trust_env=False) as client:
        while True:
            try:
                delivery = deliveries.get(timeout=TICK_S)
            except queue.Empty:
                fake = fake_ref()
                if fake is None:
                    return
                if fake.model.webhooks.subscriptions:
                    fake.sync()  # emits what the clock passed without a request; submits to this queue
                del fake
                continue
            try:
                _send(client, delivery, fake_ref)
            finally:
                deliveries.task_done()


def _send(client: httpx.Client, delivery: Delivery, fake_ref: weakref.ReferenceType[WebhookSource]) -> None:
    fake = fake_ref()
    timeout = fake.settings.webhook_timeout_s if fake is not None else 5.0
    del fake
    delivery.attempts += 1
    try:
        response = client.post(delivery.url, content=delivery.body.encode(), headers=delivery.headers,
                               timeout=timeout)
    except httpx.HTTPError as exc:
        delivery.status, delivery.error = "failed", repr(exc)
        return
    delivery.response_status = response.status_code
    delivery.status = "delivered" if 200 <= response.status_code < 300 else "failed"
