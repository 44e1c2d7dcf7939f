"""What a server shared by a CI fleet relies on (issue 23's relay items): an imported state is
refused field by field, never 5xx'd later; a malformed upstream answer is the relay's own 502 with
nothing charged; a blank Idempotency-Key is no key; an idle world is small; every state that
changes an answer survives an export; and a world's relay uses the same world's other fakes."""

from __future__ import annotations

import asyncio
import copy
import gc
from typing import Any

import httpx
import pytest

from fakes import registry
from fakes.member_export import MemberExportFake
from fakes.relay import RelayFake, UpstreamResponse
from fakes.relay.records import CallRecords

from .test_mcp import _run

CALL = "/call/firmdata.companies.enrich"


def _state_after_some_calls() -> tuple[RelayFake, dict[str, Any], dict[str, Any]]:
    fake = RelayFake(seed=0)
    team = fake.create_team()
    with fake.client(headers={"X-Proxy-Token": team["token"]}) as http:
        http.get(CALL, params={"domain": "northwind.com"}, headers={"Idempotency-Key": "k1"})
        http.post("/call/jobsignal.alerts.create", params={"domain": "northwind.com"})
        state = http.get("/_fake/state").json()
    return fake, team, state


@pytest.mark.parametrize(("path", "value", "field"), [
    (("idempotency", 0, "status"), -1, "model.idempotency[0].status"),
    (("idempotency", 0, "headers"), {"a": "b"}, "model.idempotency[0].headers"),
    (("idempotency", 0, "body"), "\u20ac", "model.idempotency[0].body"),
    (("idempotency", 0, "team_id"), "team_99", "model.idempotency[0].team_id"),
    (("saturation", "saturated"), "yes", "model.saturation.saturated"),
    (("saturation", "max_in_flight"), -1, "model.saturation.max_in_flight"),
    (("saturation", "retry_after_s"), 10**12, "model.saturation.retry_after_s"),
    (("teams", 0, "balance_micro"), "1000", "model.teams[0].balance_micro"),
    (("teams", 0, "ledger", 0, "epoch_ms"), 10**18, "model.teams[0].ledger[0].epoch_ms"),
    (("teams", 0, "upstream_rate_limited"), None, "model.teams[0].upstream_rate_limited"),
    (("calls", 0, "status"), 1000, "model.calls[0].status"),
    (("calls", 0, "credential"), "stolen", "model.calls[0].credential"),
    (("stats",), {"x.y.z": [1, 5]}, "model.stats.x.y.z"),
    (("rate_windows",), [["firmdata", "relay_key", -1, 3]], "model.rate_windows[0]"),
    (("upstreams",), {"firmdata": {"responses": [{"status": 99}]}}, "model.upstreams.firmdata.responses"),
    (("entries",), [{"id": "firmdata.x.y", "path": "no-slash"}], "model.entries[0].path"),
    (("surprise",), 1, "model.surprise"),
])
def test_an_imported_state_is_refused_naming_the_field(path: tuple[Any, ...], value: Any, field: str) -> None:
    """A mistyped or out-of-range field is a 400 naming it at import: never accepted and then a 5xx,
    a dropped connection or a 503 forever."""
    _fake, _team, state = _state_after_some_calls()
    target = state["model"]
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    fresh = RelayFake(seed=0)
    with fresh.client() as http:
        answer = http.put("/_fake/state", json=state)
    assert answer.status_code == 400, answer.text
    assert answer.json()["field"] == field, answer.json()


def test_every_scalar_of_an_exported_state_mutated_is_refused_or_served() -> None:
    """Each scalar of a realistic state set to a wrong type, null or out of range: the import is a
    400, or the imported fake answers its calls without a 5xx (the clock moved on too)."""
    _fake, team, state = _state_after_some_calls()
    paths: list[tuple[Any, ...]] = []

    def walk(node: Any, path: tuple[Any, ...]) -> None:
        if isinstance(node, dict):
            for key, item in node.items():
                walk(item, (*path, key))
        elif isinstance(node, list) and node:
            for index, item in enumerate(node[:2]):
                walk(item, (*path, index))
        else:
            paths.append(path)

    walk(state["model"], ())
    assert len(paths) > 40
    for path in paths:
        for wrong in (None, "x", -1, 2**62, True, []):
            mutated = copy.deepcopy(state)
            target = mutated["model"]
            for step in path[:-1]:
                target = target[step]
            target[path[-1]] = wrong
            fresh = RelayFake(seed=0)
            with fresh.client(headers={"X-Proxy-Token": team["token"]}) as http:
                answer = http.put("/_fake/state", json=mutated)
                assert answer.status_code in (200, 400), (path, wrong, answer.text)
                if answer.status_code == 400:
                    continue
                http.post("/_fake/clock", json={"advance_seconds": 90_000})
                for call in (http.get(CALL, params={"domain": "northwind.com"}, headers={"Idempotency-Key": "k1"}),
                             http.get(CALL, params={"domain": "northwind.com"}),
                             http.get("/balance"), http.get("/_fake/state")):
                    assert call.status_code < 500 or (call.status_code == 503 and "proxy_saturated" in call.text), \
                        (path, wrong, call.status_code, call.text[:200])


@pytest.mark.parametrize("answer", [
    UpstreamResponse(200, {"content-type": "application/json"}, b"{}"),  # type: ignore[arg-type]
    UpstreamResponse(200, [], "a str body"),  # type: ignore[arg-type]
    UpstreamResponse(200, [("x-bad", "line\r\nbreak")], b"{}"),
    UpstreamResponse(200, [("bad name", "v")], b"{}"),
    UpstreamResponse(200, [["x", "y"]], b"{}"),  # type: ignore[list-item]
    {"status": 200},
])
def test_a_malformed_upstream_answer_is_the_relays_502_with_nothing_charged(answer: Any) -> None:
    fake = RelayFake(seed=0)
    team = fake.create_team()
    fake.register_upstream("firmdata", lambda request: answer)
    with fake.serve() as url, httpx.Client(base_url=url, headers={"X-Proxy-Token": team["token"]}) as http:
        got = http.get(CALL, params={"domain": "northwind.com"})
        assert got.status_code == 502 and got.json()["error"] == "upstream_failed" and got.json()["detail"]
        assert got.headers["X-Proxy-Error"] == "1"
        money = http.get("/balance").json()
    assert money["balance_micro"] == 1_000_000 and money["holds_micro"] == 0


def test_a_blank_idempotency_key_is_no_key() -> None:
    fake = RelayFake(seed=0)
    team = fake.create_team()
    with fake.client(headers={"X-Proxy-Token": team["token"]}) as http:
        answers = [http.post("/call/jobsignal.alerts.create", params={"domain": "northwind.com"},
                             headers={"Idempotency-Key": key}) for key in ("", "  ", "")]
        spaced = [http.post("/call/jobsignal.alerts.create", params={"domain": "a.com"},
                            headers={"Idempotency-Key": key}) for key in (" k ", "k")]
    assert all("X-Proxy-Idempotent-Replay" not in a.headers for a in answers)
    assert [a.headers["X-Proxy-Cost-Micro"] for a in answers] == ["1000"] * 3  # each billed
    assert spaced[1].headers["X-Proxy-Idempotent-Replay"] == "true"  # stripped, as treg reads it
    assert fake.model.idempotency.to_state()[0]["key"] == "k"


def test_the_mcp_call_tool_sends_an_object_or_array_body() -> None:
    fake = RelayFake(seed=0)
    team = fake.create_team()
    seen: list[tuple[bytes, str]] = []

    def upstream(request: Any) -> UpstreamResponse:
        seen.append((request.body, dict(request.headers).get("content-type", "")))
        return UpstreamResponse(201, [("content-type", "application/json")], b'{"id": 7}')

    fake.register_upstream("jobsignal", upstream)
    _, as_object, as_array, as_text = _run(fake, {"X-Proxy-Token": team["token"]}, [
        ("call", {"endpoint_id": "jobsignal.alerts.create", "params": {"domain": "northwind.com", "limit": 3},
                  "body": {"keywords": ["rust"], "remote": True}, "write": True}),
        ("call", {"endpoint_id": "jobsignal.alerts.create", "params": {"domain": "northwind.com"},
                  "body": [1, 2], "write": True}),
        ("call", {"endpoint_id": "jobsignal.alerts.create", "params": {"domain": "northwind.com"},
                  "body": "plain", "write": True}),
    ])
    assert [r.structured_content["status"] for r in (as_object, as_array, as_text)] == [201, 201, 201]
    assert seen[0] == (b'{"keywords":["rust"],"remote":true}', "application/json")
    assert seen[1] == (b"[1,2]", "application/json")
    assert seen[2][0] == b"plain"


def test_an_idle_models_call_records_hold_nothing_and_grow_on_use() -> None:
    records = CallRecords("call_x")
    assert len(records._seq) == 0 and len(records._who) == 0
    records.put(5, "a.b.c", "a", "relay_key", "team_1", 200, 0, 1)
    assert 6 <= len(records._seq) <= 64 and records.get(records.call_id(5))["status"] == 200
    for seq in range(6, 30_000):
        records.put(seq, "a.b.c", "a", "relay_key", "team_1", 200, 0, 1)
    assert len(records._seq) == records.limit and len(records) == records.limit
    assert records.get(records.call_id(5)) is None and records.get(records.call_id(29_999)) is not None


def test_an_empty_relay_world_is_small_and_gives_its_memory_back() -> None:
    import tracemalloc

    parent = RelayFake(seed=0)
    parent.world("warm")  # the shared catalogue and first-use caches are built once per process
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for index in range(50):
        parent.world(f"w{index}")
    per_world = (tracemalloc.get_traced_memory()[0] - before) / 50
    for index in range(50):
        assert parent.worlds is not None and parent.worlds.delete(f"w{index}")
    gc.collect()
    left = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert per_world <= 64 * 1024, f"{per_world / 1024:.1f} KiB per empty world"
    assert left <= 256 * 1024, f"{left / 1024:.1f} KiB left after deleting 50 worlds"


def test_a_providers_minute_window_survives_an_export() -> None:
    """After 600 calls in a clock minute the provider answers 429 (free); a restored copy does too."""
    fake = RelayFake(seed=0)
    team = fake.create_team(balance_micro=10**9)
    with fake.client(headers={"X-Proxy-Token": team["token"]}) as http:
        for index in range(600):
            assert http.get("/call/mailscout.email.verify", params={"email": f"a{index}@b.com"}).status_code == 200
        state = http.get("/_fake/state").json()
        original = http.get("/call/mailscout.email.verify", params={"email": "z@b.com"})
    restored = RelayFake(seed=0)
    restored.import_state(state)
    with restored.client(headers={"X-Proxy-Token": team["token"]}) as http:
        copy_answer = http.get("/call/mailscout.email.verify", params={"email": "z@b.com"})
    assert original.status_code == copy_answer.status_code == 429
    assert original.headers["X-Proxy-Cost-Micro"] == copy_answer.headers["X-Proxy-Cost-Micro"] == "0"


def test_the_per_second_count_and_pending_retry_after_survive_an_export() -> None:
    fake = RelayFake(seed=0, max_per_second=2)
    team = fake.create_team()
    with fake.client(headers={"X-Proxy-Token": team["token"]}) as http:
        for _ in range(2):
            http.get(CALL, params={"domain": "northwind.com"})
        state = http.get("/_fake/state").json()
        original = http.get(CALL, params={"domain": "northwind.com"})
    restored = RelayFake(seed=0, max_per_second=2)
    restored.import_state(state)
    with restored.client(headers={"X-Proxy-Token": team["token"]}) as http:
        copy_answer = http.get(CALL, params={"domain": "northwind.com"})
    assert original.status_code == copy_answer.status_code == 503


def test_a_worlds_relay_uses_the_same_worlds_other_fake(monkeypatch: pytest.MonkeyPatch) -> None:
    """In world ``a``, a provider answered by another served fake reaches that fake's world ``a``,
    over a shared server as the gateway and per-service ports serve it (issue 23, item 10)."""
    neighbour = MemberExportFake(seed=0)
    relay = RelayFake(seed=0)
    monkeypatch.setitem(registry.LIVE_FAKES, "member-export", neighbour)
    monkeypatch.setitem(registry.LIVE_FAKES, "relay", relay)
    with relay.serve() as url, httpx.Client(base_url=f"{url}/_w/a") as http:
        team = http.post("/_fake/teams", json={}).json()
        assert http.post("/_fake/providers", json={"provider": "dma", "host": "api.dma.example"}).status_code == 201
        assert http.post("/_fake/catalog/entries", json={
            "id": "dma.clock.get", "method": "GET", "path": "/_fake/clock", "params": {},
            "cost": {"type": "per_call", "value": 1_500}}).status_code == 201
        assert http.post("/_fake/upstreams", json={"provider": "dma", "fake": "member-export"}).status_code == 201
        neighbour.world("a").advance(3600)  # world a of the neighbour: an hour ahead of its parent
        answer = http.get("/call/dma.clock.get", headers={"X-Proxy-Token": team["token"]})
        state = http.get("/_fake/state").json()
    assert answer.status_code == 200, answer.text
    assert answer.json()["epoch_ms"] == neighbour.world("a").clock.now_ms() != neighbour.clock.now_ms()
    assert state["model"]["upstreams"] == {"dma": {"fake": "member-export"}}  # exported, resolved by name


def test_a_fake_upstream_that_is_gone_is_the_relays_502(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = RelayFake(seed=0)
    team = fake.create_team()
    monkeypatch.setitem(registry.LIVE_FAKES, "member-export", MemberExportFake(seed=0))
    fake.use_fake_upstream("firmdata", "member-export")
    monkeypatch.delitem(registry.LIVE_FAKES, "member-export")
    with fake.client(headers={"X-Proxy-Token": team["token"]}) as http:
        answer = http.get(CALL, params={"domain": "northwind.com"})
    assert answer.status_code == 502 and "no fake" in answer.json()["detail"]
    assert fake.team_info(team["team_id"])["holds_micro"] == 0


def test_concurrent_malformed_answers_release_every_hold() -> None:
    fake = RelayFake(seed=0)
    team = fake.create_team()

    async def broken(request: Any) -> Any:
        await asyncio.sleep(0)
        return UpstreamResponse(200, [], "text")

    fake.register_upstream("firmdata", broken)

    async def many() -> list[int]:
        async with fake.async_client(headers={"X-Proxy-Token": team["token"]}) as http:
            answers = await asyncio.gather(*(http.get(CALL, params={"domain": "northwind.com"}) for _ in range(20)))
        return [a.status_code for a in answers]

    assert asyncio.run(many()) == [502] * 20
    assert fake.team_info(team["team_id"])["holds_micro"] == 0
