"""The in-process probes behind docs/benchmark.md's figures of grown relay views and of the
collector's pass (scenarios/bench/probes.py) run and report what they say."""

from __future__ import annotations

import pytest

from scenarios.bench import probes


def test_grown_times_every_request_of_the_mix_slowest_first(capsys: pytest.CaptureFixture[str]) -> None:
    rows = probes.grown("relay", calls=2)
    assert len(rows) > 20 and all(ms > 0 for ms, _, _ in rows)
    assert [ms for ms, _, _ in rows] == sorted((ms for ms, _, _ in rows), reverse=True)
    assert any(path.startswith("/orgs/1/usage") for _, _, path in rows)
    assert probes.main(["grown", "relay", "--calls", "0", "--top", "3"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 3


def test_collection_reports_a_full_pass_before_and_after_settling() -> None:
    before, after, tracked = probes.collection()
    assert tracked > 10_000 and after < before


def test_a_negative_call_count_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        probes.main(["grown", "relay", "--calls", "-1"])
    assert exited.value.code == 2 and "--calls must be 0 or more" in capsys.readouterr().err
