"""The plugin's NAME_world / NAME_world_url fixtures: one shared live server per service for the
session, a world of its own per test, also under pytest-xdist."""

from __future__ import annotations

from pathlib import Path

import pytest

from fakes import registry
from fakes.kernel import pytest_plugin

pytest_plugins = ["pytester"]

TESTS = '''
import httpx
import pytest

START = 1_767_603_600_000
seen_ports = set()

@pytest.mark.parametrize("n", range(6))
def test_each_test_has_its_own_world(filings_world_url, filings_world, n):
    clock = httpx.get(filings_world_url + "/_fake/clock").json()
    assert clock["epoch_ms"] == START  # no other test's clock move is visible here
    httpx.post(filings_world_url + "/_fake/clock", json={"advance_seconds": 3600 * (n + 1)})
    assert filings_world.clock.now_ms() == START + 3_600_000 * (n + 1)
    assert "/_w/t" in filings_world_url
    httpx.post(filings_world_url + "/_fake/faults", json={"path": "*", "status": 503})
    port = filings_world_url.split(":")[2].split("/")[0]
    with open(f"ports-{port}", "a") as out:
        out.write(filings_world.world_id + "\\n")

def test_worlds_of_two_services(member_export_world_url, filings_world_url):
    assert httpx.get(member_export_world_url + "/_fake/health").json()["service"] == "member-export"
    assert httpx.get(filings_world_url + "/_fake/health").json()["service"] == "filings"

@pytest.mark.fake_settings("filings", scale="small")
def test_settings_marker_gets_a_server_of_its_own(filings_world):
    assert filings_world.settings.scale == "small"
'''


@pytest.mark.parametrize("workers", ["2"])
def test_world_fixtures_isolate_tests_on_one_server(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                    workers: str) -> None:
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parents[2]))
    pytester.makepyfile(test_worlds=TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", workers)
    result.assert_outcomes(passed=8)
    port_files = list(pytester.path.glob("ports-*"))
    # one server per session (per xdist worker), not one per test
    assert 1 <= len(port_files) <= max(1, int(workers))
    world_ids = [line for path in port_files for line in path.read_text().split()]
    assert len(world_ids) == len(set(world_ids)) == 6


def test_every_registered_service_has_world_fixtures() -> None:
    for name in registry.service_names():
        stem = name.replace("-", "_")
        world = getattr(pytest_plugin, f"{stem}_world")
        world_url = getattr(pytest_plugin, f"{stem}_world_url")
        assert world is not None and world_url is not None


def test_world_ids_say_which_test_they_belong_to() -> None:
    servers = pytest_plugin.SharedServers(seed=0)
    first = servers.world_id("tests/test_x.py::test_thing[param-1/2]")
    second = servers.world_id("tests/test_x.py::test_thing[param-1/2]")
    assert first != second and first.startswith("t1-test_thing-param-1-2")
    assert len(servers.world_id("x::" + "y" * 200)) == 64
