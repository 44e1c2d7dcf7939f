"""The shipped HAProxy configuration, for real: 3 `fakes serve` replicas and HAProxy on loopback,
300 worlds made through the balancer (docs/fleet.md).

- every world's requests reach one replica: its journal holds all of them, the others do not
  hold the world at all; all services' world of one id live on that replica;
- the worlds spread evenly (each replica 100 +- 25 of 300) and the default world is on one replica;
- DELETE /_fake/worlds/<id> through the balancer reaches the replica that holds the world;
- a replica stopped (SIGTERM) answers its worlds with the balancer's JSON 503 while it is down,
  the others' worlds are untouched meanwhile, and once it is started again with its state
  directory its worlds are back with their state and clocks; after a SIGKILL too (the replicas
  save what changed every half second).

Skipped with the reason where HAProxy is not installed (.ci/prepare-fleet installs it with apt).
"""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from .support import Fleet, fleet, worlds_of

WORLDS = 300
IDS = [f"job-{1000 + n}" for n in range(WORLDS)]


def call(method: str, url: str, **kwargs: Any) -> httpx.Response:
    return httpx.request(method, url, trust_env=False, timeout=15, **kwargs)


def make_world(client: httpx.Client, base: str, gateway_root: str, world: str) -> dict[str, Any]:
    """A world made through the balancer: a member (control, by path), two API calls (one naming
    the world by header, one by path) and a filings health check (the same id, another service)."""
    made = client.post(f"{base}/_w/{world}/_fake/members", json={"region": "DE"})
    assert made.status_code == 201, made.text
    member: dict[str, Any] = made.json()
    auth = {"Authorization": f"Bearer {member['access_token']}", "Service-Version": "202312"}
    by_header = client.get(f"{base}/rest/memberAuthorizations", params={"q": "memberAndApplication"},
                           headers={**auth, "X-Fake-World": world})
    assert by_header.status_code == 200, by_header.text
    by_path = client.get(f"{base}/_w/{world}/rest/memberChangeLogs", params={"q": "memberAndApplication"},
                         headers=auth)
    assert by_path.status_code == 200, by_path.text
    assert client.get(f"{gateway_root}/filings/_w/{world}/_fake/health").status_code == 200
    return member


def owners(running: Fleet) -> tuple[list[dict[str, int]], list[dict[str, int]]]:
    """Each replica's member-export worlds and filings worlds ({id: requests}), read past the balancer."""
    member_export = [worlds_of(running.replica_url(i)) for i in range(len(running.hosts))]
    filings = [worlds_of(running.replica_url(i).replace("/member-export", "/filings"))
               for i in range(len(running.hosts))]
    return member_export, filings


def states(running: Fleet, worlds: list[str]) -> dict[str, Any]:
    """Each world's exported state, through the balancer."""
    found = {}
    with httpx.Client(trust_env=False, timeout=15) as client:
        for world in worlds:
            answer = client.get(f"{running.url}/_w/{world}/_fake/state")
            assert answer.status_code == 200, answer.text
            found[world] = answer.json()
    return found


def test_worlds_are_pinned_spread_evenly_and_survive_a_replica_restart(tmp_path: Path) -> None:
    ids = list(IDS)
    with fleet(tmp_path, 3) as running:
        root = running.root
        with httpx.Client(trust_env=False, timeout=15) as client:
            for world in ids:
                make_world(client, running.url, root, world)
            for _ in range(20):  # the default world: no world named
                assert client.get(f"{running.url}/rest/memberChangeLogs").status_code == 426  # journaled all the same

        member_export, filings = owners(running)
        holder = {}
        for world in ids:
            holding = [i for i, held in enumerate(member_export) if world in held]
            assert len(holding) == 1, (world, holding)  # one replica, and only one, ever saw the world
            holder[world] = holding[0]
            assert member_export[holding[0]][world] == 3  # all 3 requests of member-export's world reached it
            assert [i for i, held in enumerate(filings) if world in held] == holding  # and filings' world
        counts = [sum(1 for owner in holder.values() if owner == i) for i in range(3)]
        assert sum(counts) == WORLDS and all(75 <= count <= 125 for count in counts), counts

        # the journal of a world's replica holds its requests; the default world's went to one replica
        for world in ids[:30]:
            journal = call("GET", f"{running.replica_url(holder[world])}/_w/{world}/_fake/journal").json()
            assert [(e["method"], e["path"]) for e in journal["entries"]] == [
                ("GET", "/rest/memberAuthorizations"), ("GET", "/rest/memberChangeLogs")], journal
        defaults = [call("GET", f"{running.replica_url(i)}/_fake/journal").json()["total"] for i in range(3)]
        assert sorted(defaults) == [0, 0, 20], defaults

        # DELETE /_fake/worlds/<id> (a default-world control call) reaches the replica holding the world
        gone = ids.pop()
        assert call("DELETE", f"{running.url}/_fake/worlds/{gone}").json() == {"deleted": gone}
        assert gone not in worlds_of(running.replica_url(holder[gone]))

        restart_and_crash(running, {world: holder[world] for world in ids})


def restart_and_crash(running: Fleet, holder: dict[str, int]) -> None:
    stopped = 1
    mine = [w for w, i in holder.items() if i == stopped]
    others = [w for w, i in holder.items() if i != stopped]
    for world in mine[:10]:  # clocks moved: they must come back where they were
        moved = call("POST", f"{running.url}/_w/{world}/_fake/clock", json={"advance_seconds": 86_400})
        assert moved.status_code == 200, moved.text
    mine_before = states(running, mine)
    others_before = states(running, others)
    listed_before = [set(worlds_of(running.replica_url(i))) for i in range(3)]

    assert running.stop_replica(stopped) == 0  # SIGTERM: saves every world
    for world in mine[:5]:  # its worlds: the balancer's 503, never another replica's fresh world
        answer = call("GET", f"{running.url}/_w/{world}/_fake/health")
        assert answer.status_code == 503, answer.text
        assert answer.headers["x-fakes-fleet"] == "replica-unavailable" and answer.headers["retry-after"] == "5"
        body = answer.json()
        assert body["error"] == "replica_unavailable" and body["world"] == world
        assert body["replica"] == f"replica-{stopped + 1}" and "docs/fleet.md" in body["message"]
        by_header = call("GET", f"{running.url}/rest/memberChangeLogs", headers={"X-Fake-World": world})
        assert by_header.status_code == 503 and by_header.json()["world"] == world
    # meanwhile the other replicas' worlds answer, unchanged, and none of the stopped one's worlds appeared
    assert states(running, others) == others_before
    for i in (0, 2):
        assert set(worlds_of(running.replica_url(i))) == listed_before[i]

    running.start_replica(stopped)
    running.wait_replica(stopped)
    running.wait_routed(stopped, mine[0])
    assert states(running, mine) == mine_before  # state and clocks, as they were
    assert set(worlds_of(running.replica_url(stopped))) == set(mine)

    # a crash: what changed is saved every 0.5 s (--save-state-every), so a SIGKILL loses nothing older
    crashed = 2
    theirs = [w for w, i in holder.items() if i == crashed]
    for world in theirs[:10]:
        assert call("POST", f"{running.url}/_w/{world}/_fake/clock", json={"advance_seconds": 3600}).status_code == 200
    before = states(running, theirs)
    time.sleep(1.5)  # more than the replicas' --save-state-every
    assert running.stop_replica(crashed, signal.SIGKILL) == -signal.SIGKILL
    assert call("GET", f"{running.url}/_w/{theirs[0]}/_fake/health").status_code == 503
    running.start_replica(crashed)
    running.wait_replica(crashed)
    running.wait_routed(crashed, theirs[0])
    assert states(running, theirs) == before


@pytest.mark.parametrize("token", [None, "fleet-secret"])
def test_per_service_ports_and_the_control_token(tmp_path: Path, token: str | None) -> None:
    """Replicas with one port per service (--port), HAProxy's per-service frontends, and a control
    token: the balancer's health checks send it (else every replica would look down), and the
    clients' token passes through."""
    with fleet(tmp_path, 3, gateway=False, services="member-export", token=token) as running:
        ids = [f"ci-{n}" for n in range(30)]
        for world in ids:
            made = call("POST", f"{running.url}/_w/{world}/_fake/members", json={}, headers=running.headers())
            assert made.status_code == 201, made.text
            answer = call("GET", f"{running.url}/_w/{world}/_fake/members/{made.json()['id']}",
                          headers=running.headers())
            assert answer.status_code == 200, answer.text
        held = [worlds_of(running.replica_url(i), running.headers()) for i in range(3)]
        for world in ids:
            assert [h[world] for h in held if world in h] == [2], (world, held)
        assert all(held), held  # 30 worlds reach every replica
        if token:
            refused = call("GET", f"{running.url}/_w/{ids[0]}/_fake/health")
            assert refused.status_code == 401  # the fakes' own refusal, through the balancer
