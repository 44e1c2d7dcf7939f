"""Worlds as users reach them: `fakes serve` flags and environment, the gateway's path and Host
forms, a mount prefix, the control token."""

from __future__ import annotations

import httpx
import pytest

from fakes import registry
from fakes.kernel import cli
from fakes.kernel.clock import DEFAULT_START_MS
from fakes.kernel.gateway import GatewayApp
from fakes.kernel.server import ServerThread
from tests.support import serving

from .conftest import SERVICES, make_root


def test_serve_flags_and_environment_reach_every_fake(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKES_MAX_WORLDS", "7")
    monkeypatch.setenv("FAKES_WORLD_IDLE_EXPIRY", "90")
    args = cli.build_parser().parse_args(["serve"])
    assert (args.max_worlds, args.world_idle_expiry) == (7, 90.0)
    args = cli.build_parser().parse_args(["serve", "--max-worlds", "0", "--world-idle-expiry", "0"])
    assert (args.max_worlds, args.world_idle_expiry) == (0, 0.0)
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["serve", "--max-worlds", "-1"])
    fakes = cli.make_fakes(SERVICES, seed=0, clock="manual", max_worlds=3, world_idle_expiry=60)
    for fake in fakes.values():
        assert fake.worlds is not None
        assert (fake.worlds.max_worlds, fake.worlds.idle_expiry) == (3, 60.0)
        world = fake.world("a")
        assert world.worlds is None and world.world_id == "a" and world.prefix == "/_w/a"


def test_fakes_serve_gateway_serves_worlds_by_path_and_host_and_caps_them() -> None:
    names = serving.ready_services()
    command = serving.fakes_command()
    port = serving.free_port()
    argv = [command, "serve", "--gateway", str(port), "--clock", "manual", "--only", ",".join(names)]
    env = serving.clean_env({"FAKES_MAX_WORLDS": "2", "FAKES_FILINGS_SCALE": "small"})
    base = f"http://127.0.0.1:{port}"
    with serving.running(argv, env) as server:
        server.wait_until_up([f"{base}/_fake/health"])
        with httpx.Client(base_url=base, trust_env=False, timeout=10) as http:
            for name in names:
                prefix = registry.GATEWAY_PREFIXES[name]
                host = {"Host": f"{name}.localhost:{port}"}
                moved = http.post(f"{prefix}/_w/ci-1/_fake/clock", json={"advance_seconds": 3_600})
                assert moved.json()["epoch_ms"] == DEFAULT_START_MS + 3_600_000, (name, moved.text)
                # the Host form reaches the same world
                assert http.get("/_w/ci-1/_fake/clock", headers=host).json()["epoch_ms"] == moved.json()["epoch_ms"]
                assert http.get(f"{prefix}/_fake/clock").json()["epoch_ms"] == DEFAULT_START_MS
                assert http.get("/_w/ci-2/_fake/health", headers=host).status_code == 200
                capped = http.get(f"{prefix}/_w/ci-3/_fake/health")
                assert capped.status_code == 429 and "2 worlds" in capped.text, (name, capped.text)
                listed = http.get(f"{prefix}/_fake/worlds").json()
                assert sorted(w["id"] for w in listed["worlds"]) == ["ci-1", "ci-2"]
                assert http.delete(f"{prefix}/_fake/worlds/ci-1").status_code == 200
                assert http.get(f"{prefix}/_w/ci-3/_fake/health").status_code == 200


def test_a_prefixed_fake_and_the_control_token(service: str) -> None:
    fake = make_root(service, prefix="/api/v9", control_token="secret")
    with fake.serve() as base, httpx.Client(base_url=base) as http:  # base ends with the prefix
        token = {"Authorization": "Bearer secret"}
        assert http.get("/_w/p1/_fake/clock").status_code == 401  # a world's control plane needs it too
        assert http.get("/_w/p1/_fake/clock", headers=token).status_code == 200
        assert http.get("/_fake/worlds").status_code == 401
        assert [w["id"] for w in http.get("/_fake/worlds", headers=token).json()["worlds"]] == ["p1"]
        world = fake.world("p1")
        assert world.prefix == "/api/v9/_w/p1" and world.base_url.endswith("/api/v9/_w/p1")
        method, path = world.sample_request()
        answer = http.request(method, "/_w/p1" + path, headers=world.auth_headers())
        assert answer.status_code < 300, answer.text
        entries = http.get("/_w/p1/_fake/journal", headers=token).json()["entries"]
        assert [e["path"] for e in entries] == [path.partition("?")[0]]  # relative to the world's base


def test_gateway_forms_in_process() -> None:
    fakes = {name: make_root(name, prefix=registry.GATEWAY_PREFIXES[name]) for name in SERVICES}
    with ServerThread([(GatewayApp(fakes), "127.0.0.1", 0)]) as [(host, port)], \
            httpx.Client(base_url=f"http://{host}:{port}") as http:
        for name in SERVICES:
            prefix = registry.GATEWAY_PREFIXES[name]
            http.post(f"{prefix}/_w/g/_fake/clock", json={"advance_seconds": 60})
            by_header = http.get(f"{prefix}/_fake/clock", headers={"X-Fake-World": "g"}).json()
            by_host = http.get("/_fake/clock", headers={"Host": f"{name}.localhost", "X-Fake-World": "g"}).json()
            assert by_header["epoch_ms"] == by_host["epoch_ms"] == DEFAULT_START_MS + 60_000
            assert fakes[name].world("g").clock.now_ms() == DEFAULT_START_MS + 60_000
