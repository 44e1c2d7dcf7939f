"""Every scenario runs against an in-process fake; the runner's own behaviour is checked too."""

from __future__ import annotations

import subprocess
import sys

import httpx
import pytest

from examples.notes import NotesFake
from fakes import registry
from fakes.kernel.fake import Fake
from fakes.kernel.verdicts import render_verdicts
from scenarios.runner import Run, Scenario, discover, run_scenario

SCENARIOS = discover()


def scenario_fake(service: str, **settings: object) -> Fake:
    return registry.fake_class(service)(seed=0, **settings)


def _test_settings(service: str) -> dict[str, object]:
    try:
        return registry.fake_class(service).settings_for_tests()
    except Exception:  # a service still being written: its scenarios fail on their own
        return {}


# each scenario against the fake as `fakes serve` runs it (default settings) and, where the service
# has test settings (e.g. a small catalogue), with those too
CASES = [(name, {}) for name in SCENARIOS] + [
    (name, settings) for name, scenario in SCENARIOS.items() if (settings := _test_settings(scenario.service))]


@pytest.mark.parametrize(("name", "settings"), CASES,
                         ids=[f"{n}-{'test-settings' if s else 'default'}" for n, s in CASES])
def test_scenario_passes_against_the_fake(name: str, settings: dict[str, object]) -> None:
    scenario = SCENARIOS[name]
    fake = scenario_fake(scenario.service, **settings)
    with fake.client() as client:
        report = run_scenario(scenario, client)
    assert report.target == "fake"
    assert report.status == "passed", report.render()
    assert report.steps and all(step.ok for step in report.steps)
    # a scenario's client follows the documentation: it breaks no client rule but those its steps
    # declare they break on purpose (run.step(..., expect_verdicts=[...])); docs/verdicts.md
    verdicts = fake.verdicts()
    assert {v["id"] for v in verdicts} == report.expected_verdicts(), render_verdicts(verdicts)


def test_every_service_has_a_scenario() -> None:
    services = {s.service for s in SCENARIOS.values()}
    assert set(registry.service_names()) <= services


def _notes_flow(run: Run) -> None:
    with run.step("create a note"):
        response = run.request("POST", "/notes", json={"text": "hello"})
        run.check(response.status_code == 201, "created", response.text)
    with run.step("wait for it to be ready"):
        run.wait_until(lambda: run.request("GET", "/notes/n1").json()["status"] == "ready",
                       timeout_s=300, poll_s=30, what="the note")
        run.check(run.now_ms() >= 1_767_603_660_000, "a minute of virtual time passed")


NOTES = Scenario(name="notes-ready", service="notes", summary="a note becomes ready", flow=_notes_flow)


def test_runner_reports_steps_requests_and_checks() -> None:
    report = run_scenario(NOTES, NotesFake().client())
    assert report.passed, report.render()
    text = report.render()
    assert "PASS create a note" in text and "POST /notes -> 201" in text and "[ok ] created" in text
    assert report.to_dict()["steps"][1]["checks"][0]["ok"] is True


def test_runner_reports_a_broken_promise() -> None:
    fake = NotesFake(build_seconds=10_000)
    report = run_scenario(NOTES, fake.client())
    assert report.status == "failed"
    assert "the note within 300 s" in report.message
    assert "FAIL wait for it to be ready" in report.render()


def test_fake_only_steps_skip_against_a_real_service() -> None:
    def flow(run: Run) -> None:
        run.credential("token", create=lambda: run.control("POST", "/_fake/notes", json={"text": "x"})["id"])

    report = run_scenario(Scenario("needs-token", "notes", "", flow), NotesFake().client(), is_fake=False)
    assert report.status == "skipped" and "credential 'token'" in report.message
    given = run_scenario(Scenario("needs-token", "notes", "", flow), NotesFake().client(), is_fake=False,
                         credentials={"token": "t"})
    assert given.passed


def test_cli_lists_and_runs_against_a_live_fake() -> None:
    listed = subprocess.run([sys.executable, "-m", "scenarios", "list"], capture_output=True, text=True, check=True)
    for name in SCENARIOS:
        assert name in listed.stdout
    if not SCENARIOS:
        return
    name, scenario = next(iter(SCENARIOS.items()))
    fake = scenario_fake(scenario.service)
    with fake.serve() as base_url:
        result = subprocess.run([sys.executable, "-m", "scenarios", "run", name, "--base-url", base_url],
                                capture_output=True, text=True, timeout=120)
        assert httpx.get(base_url + "/_fake/health").status_code == 200
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"PASSED: {name}" in result.stdout
    unknown = subprocess.run([sys.executable, "-m", "scenarios", "run", "nope", "--base-url", "http://x"],
                             capture_output=True, text=True)
    assert unknown.returncode == 2


def test_cli_run_all_runs_the_targets_own_scenarios() -> None:
    fake = scenario_fake("member-export")
    with fake.serve() as base_url:
        result = subprocess.run([sys.executable, "-m", "scenarios", "run", "all", "--base-url", base_url],
                                capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    ran = {line.split(": ")[1] for line in result.stdout.splitlines() if line.startswith("PASSED: ")}
    assert ran == {name for name, s in SCENARIOS.items() if s.service == "member-export"}
    real = subprocess.run([sys.executable, "-m", "scenarios", "run", "all", "--base-url", "http://127.0.0.1:9",
                           "--real"], capture_output=True, text=True, timeout=60)
    assert real.returncode == 2 and "--service" in real.stderr
