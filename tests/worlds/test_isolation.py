"""Two worlds of one server, for every registered service: own clocks, own data, own faults."""

from __future__ import annotations

import re
import time

import httpx

from fakes.kernel.clock import DEFAULT_START_MS

from .conftest import dedicated, make_root

DAY_MS = 86_400_000


def test_two_worlds_advance_their_clocks_independently(service: str) -> None:
    fake = make_root(service)
    with fake.serve() as base, httpx.Client(base_url=base) as http:
        assert http.post("/_w/a/_fake/clock", json={"advance_seconds": 86_400}).status_code == 200
        assert http.post("/_fake/clock", json={"advance_seconds": 60},
                         headers={"X-Fake-World": "b"}).status_code == 200
        assert http.get("/_w/a/_fake/clock").json()["epoch_ms"] == DEFAULT_START_MS + DAY_MS
        assert http.get("/_w/b/_fake/clock").json()["epoch_ms"] == DEFAULT_START_MS + 60_000
        assert http.get("/_fake/clock").json()["epoch_ms"] == DEFAULT_START_MS  # the default world
        both = http.get("/_w/a/_fake/clock", headers={"X-Fake-World": "b"})  # the path wins over the header
        assert both.json()["epoch_ms"] == DEFAULT_START_MS + DAY_MS
        # a reset of one world rewinds only its own clock
        assert http.post("/_w/a/_fake/reset").status_code == 200
        assert http.get("/_w/a/_fake/clock").json()["epoch_ms"] == DEFAULT_START_MS
        assert http.get("/_w/b/_fake/clock").json()["epoch_ms"] == DEFAULT_START_MS + 60_000
        listed = {w["id"]: w for w in http.get("/_fake/worlds").json()["worlds"]}
    assert listed["b"]["clock"]["epoch_ms"] == DEFAULT_START_MS + 60_000
    assert listed["a"]["requests"] == 5 and listed["b"]["requests"] == 3
    assert fake.world("b").clock.now_ms() == DEFAULT_START_MS + 60_000
    assert fake.clock.now_ms() == DEFAULT_START_MS


def test_two_worlds_never_see_each_others_data(service: str) -> None:
    fake = make_root(service)
    fresh_state = dedicated(service, "b").export_state()
    with fake.serve() as base, httpx.Client(base_url=base) as http:
        world_a = fake.world("a")
        headers = world_a.auth_headers()  # creates whatever a client needs, in world a only
        method, path = world_a.sample_request()
        answer = http.request(method, "/_w/a" + path, headers=headers)
        assert answer.status_code < 300, answer.text
        http.post("/_w/a/_fake/clock", json={"advance_seconds": 3_600})
        http.post("/_w/a/_fake/faults", json={"path": "*", "status": 503})

        # world b is exactly a fresh fake: same state, an empty journal, no faults
        state_b = http.get("/_w/b/_fake/state").json()
        assert state_b == fresh_state
        assert http.get("/_w/b/_fake/journal").json()["entries"] == []
        assert http.get("/_w/b/_fake/faults").json()["faults"] == []
        assert http.get("/_w/b/_fake/health").status_code == 200
        # ... while world a holds what its client did
        journal_a = http.get("/_w/a/_fake/journal").json()["entries"]
        assert [(e["method"], e["path"]) for e in journal_a] == [(method, path.partition("?")[0])]
        state_a = http.get("/_w/a/_fake/state").json()
        assert state_a["clock"]["epoch_ms"] == DEFAULT_START_MS + 3_600_000
        assert state_a["model"] == world_a.model.to_state()
        # the default world saw none of it
        assert http.get("/_fake/journal").json()["entries"] == []
        assert http.get("/_fake/state").json() == make_root(service).export_state()
        # a world's fault fires in that world only
        assert http.request(method, "/_w/a" + path, headers=headers).status_code == 503
    assert fake.world("b").model.to_state() == fresh_state["model"]


def test_a_world_answers_like_a_dedicated_fake_and_links_keep_its_prefix(service: str) -> None:
    fake = make_root(service)
    alone = dedicated(service, "job-1")
    world = fake.world("job-1")
    method, path = world.sample_request()
    headers = world.auth_headers()
    alone.sample_request()
    alone_headers = alone.auth_headers()
    via_parent = fake.client().request(method, "/_w/job-1" + path, headers=headers)
    via_world = world.client().request(method, path, headers=headers)  # world.client() is under /_w/job-1
    expected = alone.client().request(method, path, headers=alone_headers)
    assert via_parent.status_code == expected.status_code == via_world.status_code
    assert via_parent.content == expected.content == via_world.content
    # every link back to the fake (absolute, or an href relative to the host) keeps the world's base
    links = re.findall(rb'https?://testserver(/[^"\\ ]*)', via_parent.content)
    links += re.findall(rb'"href": ?"(/[^"]*)"', via_parent.content)
    assert all(link.startswith(b"/_w/job-1/") for link in links), links[:5]


def test_a_worlds_clock_is_what_a_fake_started_now_with_the_same_flags_would_have() -> None:
    scaled = make_root("filings", clock="scaled:60")
    world = scaled.world("s")
    assert (world.clock.mode, world.clock.rate) == ("scaled", 60.0)
    assert abs(world.clock.now_ms() - time.time() * 1000) < 60_000 * 5  # starts at the wall time
    assert world.clock is not scaled.clock
    world.advance(86_400)
    assert scaled.clock.now_ms() < world.clock.now_ms() - 80_000_000
    real = make_root("filings", clock="real", start_ms=DEFAULT_START_MS)
    assert abs(real.world("r").clock.now_ms() - DEFAULT_START_MS) < 60_000  # the parent's start flag
    manual = make_root("filings", start_ms=DEFAULT_START_MS + DAY_MS)
    manual.advance(3_600)
    assert manual.world("m").clock.now_ms() == DEFAULT_START_MS + DAY_MS  # where the parent started
