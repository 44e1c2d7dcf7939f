"""Twenty CI jobs at once on one single-port server, each in its own world of every service."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import httpx

from fakes import registry
from fakes.kernel.clock import DEFAULT_START_MS
from fakes.kernel.fake import Fake
from fakes.kernel.gateway import GatewayApp
from fakes.kernel.server import ServerThread

from .conftest import SERVICES, make_root

JOBS = 20


def run_job(number: int, fakes: dict[str, Fake], base: str, start: threading.Barrier) -> list[str]:
    """One job: in its world of each service, move time, call the API, check it saw only itself.

    Even jobs name their world by the gateway path (``/<service>/_w/<id>/``), odd ones by the
    Host form (``<service>.localhost`` + ``/_w/<id>/``). Returns what went wrong."""
    world_id = f"job-{number}"
    problems: list[str] = []
    start.wait()
    with httpx.Client(base_url=base, timeout=30) as http:
        for service, fake in fakes.items():
            if number % 2:
                root, host = f"/_w/{world_id}", {"Host": f"{service}.localhost"}
            else:
                root, host = f"{registry.GATEWAY_PREFIXES[service]}/_w/{world_id}", {}
            advance = 3_600 * (number + 1)
            moved = http.post(f"{root}/_fake/clock", json={"advance_seconds": advance}, headers=host)
            world = fake.world(world_id)  # its Python face: credentials made in this world only
            method, path = world.sample_request()
            answers = [http.request(method, root + path, headers={**world.auth_headers(), **host})
                       for _ in range(3)]
            clock = http.get(f"{root}/_fake/clock", headers=host).json()
            journal = http.get(f"{root}/_fake/journal", headers=host).json()["entries"]
            if moved.status_code != 200 or any(a.status_code >= 300 for a in answers):
                problems.append(f"{service} {world_id}: {moved.status_code} {[a.status_code for a in answers]}")
            if clock["epoch_ms"] < DEFAULT_START_MS + advance * 1000:
                problems.append(f"{service} {world_id}: clock {clock['epoch_ms']} not moved by {advance} s")
            if len(journal) != 3 or {e["path"] for e in journal} != {path.partition("?")[0]}:
                problems.append(f"{service} {world_id}: journal {[(e['method'], e['path']) for e in journal]}")
    return problems


def test_twenty_concurrent_jobs_each_in_its_own_world_none_failing() -> None:
    fakes = {service: make_root(service, prefix=registry.GATEWAY_PREFIXES[service]) for service in SERVICES}
    for fake in fakes.values():
        fake.sample_request()  # shared first-use work (catalogues) before the jobs start
    start = threading.Barrier(JOBS)
    with ServerThread([(GatewayApp(fakes), "127.0.0.1", 0)]) as [(host, port)]:
        base = f"http://{host}:{port}"
        with ThreadPoolExecutor(JOBS) as pool:
            outcomes = list(pool.map(lambda n: run_job(n, fakes, base, start), range(JOBS)))
    assert [p for problems in outcomes for p in problems] == []
    for service, fake in fakes.items():
        assert fake.worlds is not None and len(fake.worlds) == JOBS
        assert fake.journal_entries() == [], f"{service}: the default world saw a job's request"
        assert fake.clock.now_ms() == DEFAULT_START_MS
        for number in range(JOBS):
            world = fake.world(f"job-{number}")
            assert world.clock.now_ms() == DEFAULT_START_MS + 3_600_000 * (number + 1)
