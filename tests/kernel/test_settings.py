from __future__ import annotations

import pytest

from examples.notes import NotesFake, NotesSettings
from fakes.kernel.settings import SettingsError


def test_defaults_kwargs_cli_and_environment_resolve_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    assert NotesFake().settings.build_seconds == 60
    monkeypatch.setenv("FAKES_NOTES_BUILD_SECONDS", "5")
    monkeypatch.setenv("FAKES_NOTES_BUILD_SECONDS_BY_TAG", '{"a": 1}')
    assert NotesFake().settings.build_seconds == 5
    assert NotesFake().settings.build_seconds_by_tag == {"a": 1}
    assert NotesFake(overrides={"build_seconds": "7"}).settings.build_seconds == 7
    assert NotesFake(overrides={"build_seconds": "7"}, build_seconds=9).settings.build_seconds == 9


def test_settings_drive_the_model() -> None:
    fake = NotesFake(build_seconds=1)
    client = fake.client()
    client.post("/notes", json={"text": "a"})
    fake.advance(1)
    assert client.get("/notes/n1").json()["status"] == "ready"


@pytest.mark.parametrize("overrides", [{"nope": "1"}, {"build_seconds": "soon"}, {"build_seconds_by_tag": "[1]"}])
def test_bad_settings_are_refused(overrides: dict[str, str]) -> None:
    with pytest.raises(SettingsError):
        NotesFake(overrides=overrides)


def test_unknown_keyword_setting_is_refused() -> None:
    with pytest.raises(SettingsError):
        NotesFake(colour="red")


def test_describe_lists_every_setting_with_default_and_help() -> None:
    rows = {row["name"]: row for row in NotesSettings.describe()}
    assert rows["build_seconds"] == {"name": "build_seconds", "type": "int", "default": 60,
                                     "help": "how long a note takes to be 'ready'"}
    assert rows["build_seconds_by_tag"]["default"] == {}
