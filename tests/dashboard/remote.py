"""Playwright's async API on an event loop of its own thread, used from the tests' thread as if sync.

Playwright's sync API keeps its event loop marked as running in the thread that started it for as
long as the browser lives; a browser shared by the whole session would then break every later
test of that pytest worker that calls ``asyncio.run`` (the in-process clients do). Here the loop
runs in a daemon thread, and :class:`Remote` forwards every attribute read and call to it, so the
tests read like the sync API (``page.click(...)``, ``expect(locator).to_have_text(...)``) while
the tests' own thread never has a running loop.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Callable
from typing import Any


class LoopThread:
    """An event loop running in a daemon thread; :meth:`run` calls a function there and waits."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="playwright", daemon=True)
        self.thread.start()

    def run(self, call: Callable[[], Any]) -> Any:
        async def on_the_loop() -> Any:
            result = call()
            return await result if inspect.isawaitable(result) else result

        return asyncio.run_coroutine_threadsafe(on_the_loop(), self.loop).result()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()


class Remote:
    """A Playwright object living on a :class:`LoopThread`: attribute reads and calls run there,
    and what they return comes back wrapped the same way."""

    __slots__ = ("_runner", "_target")

    def __init__(self, target: Any, runner: LoopThread) -> None:
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "_runner", runner)

    def __getattr__(self, name: str) -> Any:
        value = self._runner.run(lambda: getattr(self._target, name))
        if callable(value) and not isinstance(value, type):
            def call(*args: Any, **kwargs: Any) -> Any:
                plain_args = [_unwrap(arg) for arg in args]
                plain_kwargs = {key: _unwrap(arg) for key, arg in kwargs.items()}
                return self._wrap(self._runner.run(lambda: value(*plain_args, **plain_kwargs)))
            return call
        return self._wrap(value)

    def _wrap(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self._wrap(item) for item in value]
        if type(value).__module__.startswith("playwright."):
            return Remote(value, self._runner)
        return value


def _unwrap(value: Any) -> Any:
    return value._target if isinstance(value, Remote) else value


def expect(subject: Remote) -> Remote:
    """Playwright's ``expect`` for a remote locator or page (its assertions wait on the loop)."""
    from playwright.async_api import expect as async_expect

    return Remote(subject._runner.run(lambda: async_expect(subject._target)), subject._runner)
