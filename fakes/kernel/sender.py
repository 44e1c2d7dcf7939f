"""A fake's outgoing HTTP (webhooks, callbacks): one daemon thread that sends, never decides.

The owner's model decides what is sent and when, on its clock; this thread only takes each item
handed to :meth:`BackgroundSender.submit`, in order, and calls ``send(owner, client, item)`` with
a shared ``httpx.Client``. While idle it calls ``tick(owner)`` every ``tick_s`` wall seconds, so a
real or scaled clock (or a shared manual clock moved elsewhere) can make its consequences happen
without a request. It holds only a weak reference to the owner and ends when the owner is gone.
"""

from __future__ import annotations

import queue
import threading
import weakref
from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

import httpx

Owner = TypeVar("Owner")
Item = TypeVar("Item")


class BackgroundSender(Generic[Owner, Item]):
    def __init__(self, owner: Owner, send: Callable[[Owner, httpx.Client, Item], None],
                 tick: Callable[[Owner], None], *, name: str, tick_s: float = 0.2) -> None:
        self._owner = weakref.ref(owner)
        self._send, self._tick, self._name, self._tick_s = send, tick, name, tick_s
        self._queue: queue.Queue[Item] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._start = threading.Lock()

    def submit(self, items: Iterable[Item]) -> None:
        for item in items:
            self._queue.put(item)
        self.ensure_running()

    def ensure_running(self) -> None:
        with self._start:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()

    def wait(self, timeout: float) -> bool:
        """True once every item submitted so far was sent (within ``timeout`` seconds)."""
        done = threading.Event()

        def joiner() -> None:
            self._queue.join()
            done.set()

        threading.Thread(target=joiner, daemon=True).start()
        return done.wait(timeout)

    def _run(self) -> None:
        with httpx.Client(trust_env=False) as client:
            while True:
                try:
                    item = self._queue.get(timeout=self._tick_s)
                except queue.Empty:
                    owner = self._owner()
                    if owner is None:
                        return
                    self._tick(owner)
                    del owner
                    continue
                try:
                    owner = self._owner()
                    if owner is not None:
                        self._send(owner, client, item)
                    del owner
                finally:
                    self._queue.task_done()
