"""`fakes serve` moves what it built before serving to the collector's permanent generation, so that
no request pays for a full collection over the fakes themselves (docs/benchmark.md)."""

from __future__ import annotations

import asyncio
import gc
import time
from typing import Any

import pytest

from fakes import registry
from fakes.kernel import serving
from fakes.kernel.server import settle_startup_objects


def test_settling_freezes_what_exists_and_a_full_collection_then_costs_little() -> None:
    kept = [registry.fake_class(name)(seed=0) for name in registry.service_names()]
    for fake in kept:
        assert fake.client().get("/_fake/health").status_code == 200
    try:
        settle_startup_objects()
        assert gc.get_freeze_count() > 10_000  # the fakes, their catalogues, the imports
        started = time.process_time()
        gc.collect()
        frozen_collection = time.process_time() - started
    finally:
        gc.unfreeze()  # the rest of this test process collects as before
    started = time.process_time()
    gc.collect()
    full_collection = time.process_time() - started
    assert frozen_collection < full_collection  # what was frozen is not scanned again


def test_serve_settles_before_its_first_request(monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[str] = []

    async def serve_until(*_: Any, **__: Any) -> None:
        events.append("serving")

    monkeypatch.setattr(serving, "settle_startup_objects", lambda: events.append("settled"))
    monkeypatch.setattr(serving, "serve_until", serve_until)
    asyncio.run(serving._serve_forever([], "warning", None))  # type: ignore[arg-type]
    assert events == ["settled", "serving"]
