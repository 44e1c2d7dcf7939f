"""Filings settings are checked when the fake is created: a bad one is a SettingsError in Python
and one line with exit status 2 from `fakes serve` (it was a ScaleError traceback)."""

from __future__ import annotations

import pytest

from fakes.filings import FilingsFake
from fakes.kernel.settings import SettingsError
from tests.support.serving import clean_env, fakes_command, free_port, run


@pytest.mark.parametrize(("settings", "message"), [
    ({"scale": "huge"}, "scale must be 'full', 'small' or a number of companies"),
    ({"scale": "10"}, "a catalogue needs at least 44 companies"),
    ({"default_page_size": 500}, "default_page_size must be between 1 and max_page_size"),
    ({"free_quota": -1}, "quotas and processing_delay_s must be >= 0"),
])
def test_bad_settings_are_refused_at_creation(settings: dict[str, object], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        FilingsFake(**settings)


@pytest.mark.parametrize(("flags", "env"), [
    (["--set", "filings.scale=huge"], {}),
    ([], {"FAKES_FILINGS_SCALE": "10"}),
])
def test_fakes_serve_prints_one_line_and_exits_2(flags: list[str], env: dict[str, str]) -> None:
    result = run([fakes_command(), "serve", "--only", "filings", "--port", str(free_port()), *flags], clean_env(env))
    assert result.returncode == 2, result
    assert result.stderr.startswith("fakes: error: filings: ") and result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.stderr
