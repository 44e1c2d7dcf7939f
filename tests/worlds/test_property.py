"""Property: requests interleaved over N worlds of one fake get exactly the answers that N
dedicated fakes, each given only its own world's requests, give (for every registered service)."""

from __future__ import annotations

import os
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fakes.kernel.fake import Fake

from .conftest import SERVICES, dedicated, make_root

WORLD_IDS = ["w-0", "w_1", "W2"]
EXAMPLES = int(os.environ.get("FAKES_WORLDS_EXAMPLES", "12"))


def plain_get_paths(fake: Fake) -> list[str]:
    """The service's documented GET operations without path parameters."""
    paths = fake.openapi_document().get("paths", {})
    return sorted(p for p, item in paths.items() if "get" in item and "{" not in p and not p.startswith("/_fake"))


def ops(paths: list[str]) -> st.SearchStrategy[tuple[Any, ...]]:
    world = st.integers(0, len(WORLD_IDS) - 1)
    path = st.sampled_from(paths or ["/openapi.json"])
    return st.one_of(
        st.tuples(st.just("sample"), world),
        st.tuples(st.just("get"), world, path, st.booleans()),
        st.tuples(st.just("advance"), world, st.sampled_from([0, 1, 59, 3_600, 86_400, 40 * 86_400])),
        st.tuples(st.just("fault"), world, path, st.sampled_from([429, 500, 503])),
        st.tuples(st.just("reset"), world),
        st.tuples(st.just("state"), world),
        st.tuples(st.just("journal"), world),
    )


def perform(op: tuple[Any, ...], fake: Fake, client: httpx.Client, root: str) -> httpx.Response:
    """Run one operation against ``fake`` (a world or a dedicated fake) through ``client`` at ``root``."""
    kind = op[0]
    if kind == "sample":
        method, path = fake.sample_request()
        return client.request(method, root + path, headers=fake.auth_headers())
    if kind == "get":
        _, _, path, authenticated = op
        return client.get(root + path, headers=fake.auth_headers() if authenticated else {})
    if kind == "advance":
        return client.post(root + "/_fake/clock", json={"advance_seconds": op[2]})
    if kind == "fault":
        return client.post(root + "/_fake/faults", json={"path": op[2], "status": op[3], "times": 1})
    if kind == "reset":
        return client.post(root + "/_fake/reset")
    if kind == "state":
        return client.get(root + "/_fake/state")
    return client.get(root + "/_fake/journal")


@pytest.mark.parametrize("service", SERVICES)
def test_interleaved_worlds_answer_like_dedicated_fakes(service: str) -> None:
    paths = plain_get_paths(make_root(service))

    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(ops(paths), min_size=1, max_size=25))
    def interleaved(operations: list[tuple[Any, ...]]) -> None:
        shared = make_root(service)
        shared_client = shared.client()
        alone = {world_id: dedicated(service, world_id) for world_id in WORLD_IDS}
        alone_clients = {world_id: fake.client(base_url="http://testserver") for world_id, fake in alone.items()}
        for op in operations:
            world_id = WORLD_IDS[op[1]]
            got = perform(op, shared.world(world_id), shared_client, f"/_w/{world_id}")
            expected = perform(op, alone[world_id], alone_clients[world_id], f"/_w/{world_id}")
            assert (got.status_code, got.headers.multi_items(), got.content) == (
                expected.status_code, expected.headers.multi_items(), expected.content), op
        for world_id, fake in alone.items():
            assert shared.world(world_id).export_state() == fake.export_state()
        assert shared.journal_entries() == []

    interleaved()
