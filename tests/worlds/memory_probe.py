"""Measures, in a process of its own, what a service's deleted and expired worlds leave behind.

``python -m tests.worlds.memory_probe SERVICE`` prints one JSON object. A process of its own: in a
test worker, other tests' threads, log capture and caches warmed in another order would be counted
with the worlds (tests/worlds/test_memory_and_expiry.py reads it).
"""

from __future__ import annotations

import gc
import json
import sys
import tracemalloc
import urllib.parse
import weakref

from fakes.kernel.fake import Fake
from fakes.kernel.routing import ServiceRouter

from .conftest import make_root

WORLDS = 20


def busy_worlds(fake: Fake, prefix: str, count: int) -> list[weakref.ref[Fake]]:
    """``count`` worlds that each answered requests and hold state; weak references to them."""
    client = fake.client()
    refs = []
    for i in range(count):
        world = fake.world(f"{prefix}{i}")
        method, path = world.sample_request()
        assert client.request(method, f"/_w/{prefix}{i}{path}", headers=world.auth_headers()).status_code < 300
        client.post(f"/_w/{prefix}{i}/_fake/clock", json={"advance_seconds": 60})
        refs.append(weakref.ref(world))
    return refs


def traced_bytes() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def forget_bounded_caches() -> None:
    """Empty the bounded tables outside the worlds that remember paths (world names among them), so
    what is left counts only what the worlds may have kept: each table is capped, and fills slowly."""
    urllib.parse.clear_cache()
    for router in [obj for obj in gc.get_objects() if isinstance(obj, ServiceRouter)]:
        router._remembered.clear()


def busy_then_gone(fake: Fake, prefix: str, wall: list[float]) -> tuple[list[weakref.ref[Fake]], int]:
    """``WORLDS`` busy worlds, half deleted and half expired: their references and the bytes they held."""
    start = traced_bytes()
    refs = busy_worlds(fake, prefix, WORLDS)
    held = traced_bytes() - start
    client = fake.client()
    for i in range(0, WORLDS, 2):  # half deleted ...
        assert client.delete(f"/_fake/worlds/{prefix}{i}").status_code == 200
    wall[0] += 61  # ... the other half expires
    assert client.get("/_fake/worlds").json()["worlds"] == []
    del client
    forget_bounded_caches()
    return refs, held


def where_kept(after: tracemalloc.Snapshot, before: tracemalloc.Snapshot) -> list[str]:
    """The five places that kept the most between two snapshots."""
    return [f"{stat.size_diff} B at {stat.traceback}" for stat in after.compare_to(before, "lineno")[:5]]


def measure(service: str) -> dict[str, object]:
    fake = make_root(service, max_worlds=0, world_idle_expiry=60)
    assert fake.worlds is not None
    wall = [0.0]
    fake.worlds._monotonic = lambda: wall[0]
    busy_worlds(fake, "warm", 2)  # first-use costs (imports, shared caches) out of the figure
    assert fake.worlds.clear() == 2
    tracemalloc.start()
    try:
        before, first = traced_bytes(), tracemalloc.take_snapshot()
        refs, held = busy_then_gone(fake, "w", wall)
        left, second = traced_bytes() - before, tracemalloc.take_snapshot()
        # a second round, as many worlds again: what stays must not grow with the worlds that went
        more_refs, _ = busy_then_gone(fake, "v", wall)
        grown, third = traced_bytes() - before - left, tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    return {"held": held, "left": left, "grown": grown,
            "still_referenced": sum(ref() is not None for ref in refs + more_refs),
            "kept_by_the_first_round": where_kept(second, first),
            "kept_by_the_second_round": where_kept(third, second)}


if __name__ == "__main__":
    print(json.dumps(measure(sys.argv[1])))
