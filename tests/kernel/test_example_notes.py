"""The example service (examples/notes/, the template for a new service) keeps its own contract:
schemathesis over its OpenAPI document, with and without its bearer token, and its control-plane
addition; plus what the template shows: settings checked at start, seeded data, client rules."""

from __future__ import annotations

import pytest

from examples.notes import NotesFake
from fakes.kernel.settings import SettingsError
from tests.support.schemathesis_harness import operation_labels, run_operation

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
