"""The enrichment scenarios against the fake served over real HTTP (as against any base URL)."""

from __future__ import annotations

import httpx
import pytest

from fakes.enrichment import EnrichmentFake
from scenarios.runner import discover, run_scenario

NAMES = sorted(name for name, scenario in discover().items() if scenario.service == "enrichment")


def test_the_documented_flows_have_scenarios() -> None:
    assert {"enrichment-budget", "enrichment-monitoring"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_scenario_passes_against_a_live_server(name: str) -> None:
    fake = EnrichmentFake(seed=0)
    with fake.serve() as base_url, httpx.Client(base_url=base_url) as client:
        report = run_scenario(discover()[name], client)
    assert report.target == "fake" and report.status == "passed", report.render()
