"""Every scenario runs against an in-process fake; the runner's own behaviour is checked too."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import httpx
import pytest

from examples.notes import NotesFake
from fakes import registry
from fakes.kernel.clock import DEFAULT_START_MS
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


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_a_scenario_judges_only_its_own_requests(name: str) -> None:
    # a second run on the same fake finds the first run's requests, members, keys and verdicts
    scenario = SCENARIOS[name]
    fake = scenario_fake(scenario.service, **_test_settings(scenario.service))
    for attempt in ("first", "second"):
        with fake.client() as client:
            report = run_scenario(scenario, client)
        assert report.passed, f"{attempt} run: " + report.render()


# the CLI against a live fake: the first service with scenarios, and its scenarios
CLI_SERVICE = next(iter(SCENARIOS.values())).service if SCENARIOS else ""
CLI_SCENARIOS = [name for name, s in SCENARIOS.items() if s.service == CLI_SERVICE]


def scenarios_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "FAKES_CONTROL_TOKEN"} | (env or {})
    return subprocess.run([sys.executable, "-m", "scenarios", *args], capture_output=True, text=True, timeout=300,
                          env=environ)


def test_cli_lists_and_runs_against_a_live_fake() -> None:
    listed = scenarios_cli("list")
    assert listed.returncode == 0 and all(name in listed.stdout for name in SCENARIOS)
    if not SCENARIOS:
        return
    name = CLI_SCENARIOS[0]
    fake = scenario_fake(CLI_SERVICE)
    with fake.serve() as base_url:
        result = scenarios_cli("run", name, "--base-url", base_url)
        assert httpx.get(base_url + "/_fake/health").status_code == 200
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"PASSED: {name}" in result.stdout
    unknown = scenarios_cli("run", "nope", "--base-url", "http://127.0.0.1:9")
    assert unknown.returncode == 2 and unknown.stderr.count("\n") == 1, unknown.stderr


def test_cli_runs_in_a_world_of_its_own_with_the_control_token() -> None:
    if not SCENARIOS:
        pytest.skip("no scenario yet")
    name = CLI_SCENARIOS[0]
    fake = registry.fake_class(CLI_SERVICE)(seed=0, control_token="s3cret")
    token = {"Authorization": "Bearer s3cret"}
    with fake.serve() as base_url:
        refused = scenarios_cli("run", name, "--base-url", base_url)
        fresh = scenarios_cli("run", name, "--base-url", base_url, "--control-token", "s3cret")
        kept = scenarios_cli("run", name, "--base-url", base_url, "--world", "mine",
                             env={"FAKES_CONTROL_TOKEN": "s3cret"})
        worlds = httpx.get(base_url + "/_fake/worlds", headers=token).json()["worlds"]
    assert refused.returncode == 2 and "--control-token" in refused.stderr, refused.stderr
    assert refused.stderr.count("\n") == 1 and "Traceback" not in refused.stderr
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr
    assert "ran in world 'scenario-" in fresh.stdout and f"PASSED: {name}" in fresh.stdout
    assert kept.returncode == 0, kept.stdout + kept.stderr
    assert [w["id"] for w in worlds] == ["mine"]  # the fresh world was deleted, the named one kept
    # the default world saw none of it: no request, its clock where it started
    assert fake.journal.total == 0 and fake.clock.now_ms() == DEFAULT_START_MS
    assert fake.model.to_state() == scenario_fake(CLI_SERVICE).model.to_state()


def test_cli_without_a_world_judges_its_own_requests_and_says_what_it_moved() -> None:
    if not SCENARIOS:
        pytest.skip("no scenario yet")
    name = CLI_SCENARIOS[0]
    fake = scenario_fake(CLI_SERVICE)
    with fake.serve() as base_url:
        runs = [scenarios_cli("run", name, "--base-url", base_url, "--no-world") for _ in range(2)]
    for result in runs:
        assert result.returncode == 0, result.stdout + result.stderr
    if fake.clock.now_ms() > DEFAULT_START_MS:
        assert "moved the fake's clock forward by " in runs[0].stdout


def test_cli_run_all_prints_one_json_document() -> None:
    if not SCENARIOS:
        pytest.skip("no scenario yet")
    fake = scenario_fake(CLI_SERVICE)
    with fake.serve() as base_url:
        result = scenarios_cli("run", "all", "--base-url", base_url, "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    document = json.loads(result.stdout)  # one document, not several back to back
    assert document["status"] == "passed" and document["passed"] == len(CLI_SCENARIOS)
    assert [report["scenario"] for report in document["reports"]] == CLI_SCENARIOS
    assert all(report["world"].startswith("scenario-") for report in document["reports"])
    real = scenarios_cli("run", "all", "--base-url", "http://127.0.0.1:9", "--real")
    assert real.returncode == 2 and "--service" in real.stderr


def test_a_run_judges_its_own_journal_entries_and_verdicts() -> None:
    fake = NotesFake()
    other = fake.client()
    other.get("/notes", params={"old": "1"})  # another client's mistake before the run

    def flow(run: Run) -> None:
        with run.step("mine"):
            run.request("GET", "/notes", params={"old": "1"})
            other.get("/notes", params={"old": "2"})  # and another request during it
            run.request("POST", "/notes", json={"text": "a"})
            own = [(entry["method"], entry["query"], bool(entry["warnings"])) for entry in run.own_journal()]
            run.check(own == [("GET", "old=1", True), ("POST", "", False)], "only this run's entries", own)

    report = run_scenario(Scenario("own", "notes", "", flow), fake.client())
    assert report.passed, report.render()
    fresh = NotesFake()
    fresh.client().get("/notes", params={"old": "1"})
    counted: dict[str, int] = {}

    def breaks_one_rule(run: Run) -> None:
        run.request("GET", "/notes", params={"old": "3"})
        counted.update(run.new_verdicts())

    run_scenario(Scenario("verdicts", "notes", "", breaks_one_rule), fresh.client())
    assert counted == {"notes/old-parameter": 1}  # its own, not the earlier one
