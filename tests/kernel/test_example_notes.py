"""The example service (examples/notes/, the template for a new service) keeps its own contract:
schemathesis over its OpenAPI document, with and without its bearer token, and its control-plane
addition; plus what the template shows: settings checked at start, seeded data, client rules."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from examples.notes import NotesFake
from fakes import registry
from fakes.kernel.settings import SettingsError
from tests.support.schemathesis_harness import operation_labels, run_operation
from tests.support.serving import ROOT, clean_env

VARIANTS = {"open": {}, "token": NotesFake.settings_for_tests()}


# the public operations and the service's own control addition (the shared control plane is the
# kernel's, tested in its own files)
LABELS = [label for label in operation_labels(NotesFake(), with_control_plane=True)
          if not label.split()[1].startswith("/_fake/") or label == "POST /_fake/notes"]


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("label", LABELS)
def test_every_operation_keeps_its_contract(variant: str, label: str) -> None:
    fake = NotesFake(**VARIANTS[variant])
    assert run_operation(fake, label, max_examples=25, with_control_plane=True) >= 1


def test_the_token_is_checked_when_set() -> None:
    fake = NotesFake(**NotesFake.settings_for_tests())
    assert fake.client().get("/notes").status_code == 401
    assert fake.client(headers={"Authorization": "Bearer wrong"}).get("/notes").status_code == 401
    assert fake.client(headers=fake.auth_headers()).get("/notes").status_code == 200


def test_generated_notes_are_a_function_of_the_seed() -> None:
    def texts(seed: int) -> list[str]:
        fake = NotesFake(seed=seed)
        return [fake.add_note()["text"] for _ in range(3)]

    assert texts(1) == texts(1)
    assert texts(1) != texts(2)
    assert len(set(texts(1))) == 3


def test_build_time_per_tag_and_the_old_parameter_rule() -> None:
    fake = NotesFake(build_seconds_by_tag={"quick": 1})
    client = fake.client()
    client.post("/notes", json={"text": "slow"})
    client.post("/notes", json={"text": "fast", "tag": "quick"})
    fake.advance(1)
    assert [n["status"] for n in client.get("/notes").json()["notes"]] == ["building", "ready"]
    assert fake.verdicts() == []
    client.get("/notes", params={"old": "1"})
    assert [v["id"] for v in fake.verdicts()] == ["notes/old-parameter"]


@pytest.mark.parametrize("settings", [{"build_seconds": -1}, {"max_text": 0}, {"build_seconds_by_tag": {"a": -5}}])
def test_bad_settings_are_refused_at_creation(settings: dict[str, object]) -> None:
    with pytest.raises(SettingsError, match=r"^notes: "):
        NotesFake(**settings)


# -- the template as a registered service: what a copy of it must pass ---------------------------------
#: the generic suites, and the tests in them that walk the whole registry (the others are selected
#: by the service's name in their id)
GENERIC_SUITES = ("tests/contract", "tests/hardening", "tests/worlds", "tests/scenarios")
WHOLE_REGISTRY_TESTS = (
    "test_every_service_has_a_scenario", "test_every_registered_service_has_world_fixtures",
    "test_fakes_serve_gateway_serves_worlds", "test_serve_flags_and_environment_reach_every_fake",
    "test_gateway_forms_in_process",
)
#: registers the template in every Python process of the run (the pytest process, and each
#: `fakes serve` it starts), as a service of one's own package does in its import
REGISTER_NOTES = 'from fakes import registry\nregistry.register("notes", "examples.notes:NotesFake")\n'


def test_the_template_registered_as_a_sixth_service_passes_the_generic_suites(tmp_path: Path) -> None:
    (tmp_path / "sitecustomize.py").write_text(REGISTER_NOTES)
    env = clean_env({"PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])})
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rp", "-p", "no:cacheprovider",
         "-W", "ignore::pytest.PytestAssertRewriteWarning", "-k", " or ".join(("notes", *WHOLE_REGISTRY_TESTS)),
         *GENERIC_SUITES],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    told = "\n".join(line for line in result.stdout.splitlines() if not line.startswith("PASSED "))
    assert result.returncode == 0, told[-6000:] + result.stderr[-2000:]  # the failures, not the passes
    passed = re.findall(r"^PASSED (\S+)", result.stdout, re.M)
    for suite in GENERIC_SUITES:
        assert [test for test in passed if test.startswith(suite + "/") and "notes" in test], f"nothing of {suite} ran"
    for name in WHOLE_REGISTRY_TESTS:
        assert [test for test in passed if f"::{name}" in test], f"{name} did not run"
    assert not re.search(r"\d+ (skipped|xfailed|failed)", result.stdout.splitlines()[-1]), result.stdout[-2000:]
    assert "notes" not in registry.SERVICES, "the registration stays in the child processes"
