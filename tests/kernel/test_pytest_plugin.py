"""The fixtures, used from a test file that pytester runs (the plugin loads via its entry point)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]


def test_fixtures_from_the_entry_point(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parents[2]))
    pytester.makeconftest("""
from fakes import registry
registry.register("notes", "examples.notes:NotesFake")
""")
    pytester.makepyfile("""
import httpx
import pytest
from fakes.kernel import pytest_plugin
from examples.notes import NotesFake

notes_fake, notes_url = pytest_plugin.service_fixtures("notes")

def test_fresh_fake(notes_fake):
    assert isinstance(notes_fake, NotesFake)
    notes_fake.client().post("/notes", json={"text": "a"})
    assert len(notes_fake.model.notes) == 1

def test_fresh_fake_again_is_empty(notes_fake):
    assert notes_fake.model.notes == {}

def test_live_url(notes_url, notes_fake):
    assert httpx.post(notes_url + "/notes", json={"text": "b"}).status_code == 201
    assert notes_fake.model.notes["n1"]["text"] == "b"

def test_shared_clock(make_fake, fakes_clock):
    first, second = make_fake("notes"), make_fake("notes", build_seconds=5)
    fakes_clock.advance(10)
    assert first.clock is second.clock is fakes_clock
    assert second.settings.build_seconds == 5

def test_start_ms_would_be_ignored_on_the_shared_clock(make_fake):
    with pytest.raises(TypeError, match="fakes_clock"):
        make_fake("notes", start_ms=0)

@pytest.mark.fake_settings("notes", build_seconds=1)
def test_marker_settings(notes_fake):
    assert notes_fake.settings.build_seconds == 1

def test_seed_option(notes_fake):
    assert notes_fake.seed == 5
""")
    result = pytester.runpytest_subprocess("--fakes-seed", "5", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=7)


def test_plugin_exposes_a_fixture_pair_per_registered_service() -> None:
    from fakes import registry
    from fakes.kernel import pytest_plugin

    for name in registry.service_names():
        stem = name.replace("-", "_")
        assert hasattr(pytest_plugin, f"{stem}_fake") and hasattr(pytest_plugin, f"{stem}_url")


def test_every_fixture_of_the_plugin_has_a_docstring(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--fixtures", "-p", "no:cacheprovider")
    text = result.stdout.str()
    ours = text[text.index("fixtures defined from fakes.kernel.pytest_plugin"):]
    ours = ours.split("\n---", 1)[0]  # up to the next plugin's section
    assert "_fake -- " in ours and "make_fake" in ours
    assert "no docstring available" not in ours, ours
