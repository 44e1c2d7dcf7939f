from __future__ import annotations

import contextlib

import pytest

from examples.notes import NotesFake, NotesSettings
from fakes import registry
from fakes.kernel.cli import make_fakes
from fakes.kernel.settings import SettingsError, coerce


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


@pytest.mark.parametrize(("hint", "raw"), [
    (list[str], "[1]"), (list[str], "[null]"), (dict[str, int], '{"a": "x"}'), (dict[str, int], '{"a": null}'),
    (dict[str, int], '{"a": true}'), (dict[str, float], '{"a": []}'), (float, "nan"), (float, "inf"),
    (list[int], '{"a": 1}'),
])
def test_text_values_must_fit_the_declared_type_items_included(hint: object, raw: str) -> None:
    with pytest.raises(SettingsError):
        coerce(hint, raw, "x")


def test_text_values_that_fit_are_read() -> None:
    assert coerce(dict[str, float], '{"a": 1, "b": 2.5}', "x") == {"a": 1, "b": 2.5}
    assert coerce(list[str] | None, "none", "x") is None
    assert coerce(dict[str, list[int]], '{"a": [1, 2]}', "x") == {"a": [1, 2]}


BAD_TEXT = {"int": ["-1", "0", "99999999999999999999"], "float": ["-1", "0", "nan"], "str": ["", "zzz"]}
BAD_JSON = {"dict": ['{"zz": -1}', '{"zz": "x"}', '{"zz": null}'], "list": ["[-1]", '["zz"]', "[null]"]}


@pytest.mark.parametrize("service", registry.service_names())
def test_a_bad_setting_of_any_service_is_a_settings_error(service: str) -> None:
    # what `fakes serve --set` turns into one line and exit 2; any other exception would be a traceback
    for row in registry.fake_class(service).settings_class.describe():
        kind = row["type"].split("[")[0]
        for raw in BAD_TEXT.get(kind, []) + BAD_JSON.get(kind, []):
            with contextlib.suppress(SettingsError):
                make_fakes([service], seed=0, clock="manual", settings={service: {row["name"]: raw}})


@pytest.mark.parametrize(("service", "setting", "real"), [
    ("filings", "api_key_header", "X-API-Key"), ("member-export", "version_header", "LinkedIn-Version"),
    ("enrichment", "cost_header", "X-Credit-Cost"), ("relay", "header_prefix", "X-Treg")])
@pytest.mark.parametrize("bad", ["X-Kéy€", "X-Жук", "bad name", "bad:name", "", "x" * 101])
def test_a_header_name_setting_that_no_client_could_send_is_refused_when_the_fake_is_made(
        service: str, setting: str, real: str, bad: str) -> None:
    """Not at its first request (a name that is no latin-1 token made every request a 500)."""
    from fakes.kernel.settings import is_header_name

    cls = registry.fake_class(service)
    with pytest.raises(SettingsError):
        cls(seed=0, **cls.settings_for_tests(), **{setting: bad})
    fake = cls(seed=0, **cls.settings_for_tests(), **{setting: real})
    assert fake.settings.__dict__[setting] == real and is_header_name(real) and not is_header_name(bad)
