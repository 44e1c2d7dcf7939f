"""What a world costs, per registered service: ``python -m tests.worlds.measure [--worlds N]``.

Prints, for each service: the time to create a world in Python (``fake.world(id)``), the time
to create one and answer its first request in process (``GET /_w/<id>/_fake/health``), the same
over a real loopback socket, and the memory one more empty world holds (tracemalloc, after one
request each, averaged over N worlds), and what is left after deleting them all.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
import tracemalloc
from typing import Any

import httpx

from fakes import registry
from fakes.kernel.fake import Fake


def new_fake(service: str) -> Fake:
    fake = registry.fake_class(service)(seed=0, max_worlds=0)
    fake.client().get("/_fake/health")  # the default world's app, caches and shared data exist
    return fake


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def measure(service: str, worlds: int = 200) -> dict[str, Any]:
    fake = new_fake(service)
    create = []
    for i in range(worlds):
        started = time.perf_counter()
        fake.world(f"py-{i}")
        create.append(time.perf_counter() - started)

    client = fake.client()
    first = []
    for i in range(worlds):
        started = time.perf_counter()
        response = client.get(f"/_w/in-{i}/_fake/health")
        first.append(time.perf_counter() - started)
        assert response.status_code == 200, response.text
    again = []
    for _ in range(worlds):
        started = time.perf_counter()
        client.get("/_w/in-0/_fake/health")
        again.append(time.perf_counter() - started)

    socket_first = []
    with fake.serve() as base_url, httpx.Client(base_url=base_url) as http:
        http.get("/_fake/health")  # the connection is open: only the world's cost is timed
        for i in range(min(worlds, 100)):
            started = time.perf_counter()
            response = http.get(f"/_w/net-{i}/_fake/health")
            socket_first.append(time.perf_counter() - started)
            assert response.status_code == 200, response.text

    memory = measure_memory(service, worlds)
    return {"service": service, "create_ms": median_ms(create), "first_request_ms": median_ms(first),
            "later_request_ms": median_ms(again), "socket_first_request_ms": median_ms(socket_first), **memory}


def measure_memory(service: str, worlds: int) -> dict[str, Any]:
    fake = new_fake(service)
    client = fake.client()
    client.get("/_w/warm/_fake/health")  # first-world costs (imports, shared caches) out of the figure
    fake.worlds.delete("warm")  # type: ignore[union-attr]
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for i in range(worlds):
        client.get(f"/_w/m-{i}/_fake/health")
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - before
    assert fake.worlds is not None
    fake.worlds.clear()
    gc.collect()
    left = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return {"kib_per_world": held / worlds / 1024, "kib_left_after_delete": left / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", type=int, default=200)
    parser.add_argument("--only", default="", help="comma-separated services (default: all registered)")
    args = parser.parse_args()
    services = [s for s in args.only.split(",") if s] or registry.service_names()
    print(f"{'service':<15} {'create':>9} {'1st req':>9} {'later':>9} {'1st/sock':>9} {'KiB/world':>10} "
          f"{'KiB left':>9}")
    for service in services:
        row = measure(service, args.worlds)
        print(f"{service:<15} {row['create_ms']:>7.2f}ms {row['first_request_ms']:>7.2f}ms "
              f"{row['later_request_ms']:>7.3f}ms {row['socket_first_request_ms']:>7.2f}ms "
              f"{row['kib_per_world']:>10.1f} {row['kib_left_after_delete']:>9.1f}", flush=True)


if __name__ == "__main__":
    main()
