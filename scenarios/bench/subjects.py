"""What is benchmarked: the registry's services, extra ``module:Class`` fakes, and the kernel-only fake."""

from __future__ import annotations

import functools
import importlib
import importlib.util
from typing import Any

KERNEL = "(kernel)"  # the row of the kernel-only fake defined below


@functools.cache
def kernel_fake_class() -> type:
    """A fake with one constant JSON route and one raw ASGI route: the kernel's cost and nothing
    else (FakeApp dispatch, fault check, journal), to set beside the services."""
    from starlette.routing import Route

    from fakes.kernel.fake import Fake
    from fakes.kernel.http import json_response

    payload = {"id": "k1", "status": "ready", "items": [{"n": i, "name": f"item {i}"} for i in range(5)]}
    raw_body = b'{"ok":true}'

    class RawEndpoint:  # an instance, not a function: Starlette routes it as plain ASGI
        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"application/json"), (b"content-length", b"11")]})
            await send({"type": "http.response.body", "body": raw_body})

    class KernelBenchFake(Fake):
        name = "kernel-bench"
        title = "kernel-only benchmark fake"

        def create_model(self) -> Any:
            return _NoModel()

        def routes(self) -> list[Any]:
            return [Route("/ping", self._ping, methods=["GET"]), Route("/raw", RawEndpoint())]

        def sample_request(self) -> tuple[str, str]:
            return ("GET", "/ping?page=1")

        async def _ping(self, request: Any) -> Any:
            return json_response(payload)

    return KernelBenchFake


class _NoModel:
    def to_state(self) -> dict[str, Any]:
        return {}

    def load_state(self, state: dict[str, Any]) -> None:
        pass


def load_fake_class(target: str) -> type:
    """A registry name (``filings``), ``module:Class``, or ``(kernel)``."""
    if target == KERNEL:
        return kernel_fake_class()
    if ":" in target:
        module, _, cls = target.partition(":")
        return getattr(importlib.import_module(module), cls)  # type: ignore[no-any-return]
    from fakes import registry

    return registry.fake_class(target)


def build_fake(target: str, settings: dict[str, dict[str, str]], **kwargs: Any) -> Any:
    """A fake on a manual clock with the benchmark's settings for its service."""
    cls = load_fake_class(target)
    return cls(seed=0, clock="manual", overrides=settings.get(cls.name, {}), **kwargs)


def importable(target: str) -> str | None:
    """None when the fake class loads, else why not (services still being written skip)."""
    try:
        load_fake_class(target)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None




def service_targets(targets: list[str], skip: Any, part: str) -> list[tuple[int, str]]:
    """(index, target) of the services among ``targets`` that import; the kernel is left out and a
    target that does not import is reported through ``skip(part, target, why)``."""
    found = []
    for index, target in enumerate(targets):
        if target == KERNEL:
            continue
        why = importable(target)
        if why:
            skip(part, target, why)
            continue
        found.append((index, target))
    return found
