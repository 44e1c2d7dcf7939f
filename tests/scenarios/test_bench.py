"""The benchmark harness produces its figures (``--quick``, in-process parts only).

Nothing here asserts a speed target: those are measured and reported by `python -m scenarios bench`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scenarios import bench
from scenarios.bench import scale


def test_quick_in_process_figures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bench.json"
    assert bench.main(["--quick", "--parts", "inprocess", "--fresh-runs", "3", "--inproc-seconds", "0.1",
                       "--json", str(out)]) == 0
    figures = json.loads(out.read_text())
    rows = {row["service"]: row for row in figures["inprocess"]}
    assert bench.KERNEL in rows  # the kernel-only fake is always there, whatever services import
    for row in rows.values():
        assert row["sync_calls_per_s"] > 0
        assert row["async_calls_per_s"] > 0
        assert row["fresh_median_ms"] > 0
        assert row["fresh_create_median_ms"] > 0
    skipped = {s["what"] for s in figures["skipped"]}
    assert set(rows) | skipped >= set(figures["config"]["services"]) - {bench.KERNEL}
    assert figures["machine"]["nproc"] >= 1
    assert "2. In process" in capsys.readouterr().out


def test_journal_run_is_bounded(capsys: pytest.CaptureFixture[str]) -> None:
    assert scale.child_journal({"requests": 3000, "size": 100}) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert figures["len"] == 100
    assert figures["total"] == 3000
    assert figures["statuses"] == {"200": 3000}
    assert figures["us_per_request"] > 0


def test_last_page_of_a_django_style_listing() -> None:
    body = {"count": 95, "next": "http://x/filings/?ordering=-release_datetime&page=2", "results": [{}] * 10}
    assert scale._last_page_path("/filings/?ordering=-release_datetime", body) == \
        "/filings/?ordering=-release_datetime&page=10"


def test_start_up_part_times_serve_cycles(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    assert bench.main(["--quick", "--parts", "startup", "--cycles", "2", "--json", str(out)]) == 0
    figures = json.loads(out.read_text())
    rows = {row["service"]: row for row in figures["startup"]}
    assert bench.KERNEL in rows
    for row in rows.values():
        assert row["statuses"] == [200]
        assert 0 < row["start_p50_ms"] <= row["cycle_p50_ms"]
        assert row["first_p50_ms"] > 0 and row["stop_p50_ms"] > 0
    assert figures["startup_httpx_client_ms"] > 0


def test_peers_that_are_not_installed_are_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    from scenarios.bench import peers

    monkeypatch.setattr(peers, "PEERS", (peers.Peer("Nowhere", lambda: None, peers.serve_prism),))
    found, missing = peers.installed_peers()
    assert found == []
    assert "not installed" in missing["Nowhere"]


def test_the_prism_document_answers_the_sample_body_as_its_example() -> None:
    from scenarios.bench.peers import Sample, prism_document

    sample = Sample("GET", "/filings/?ordering=-release_datetime", 200,
                    {"content-type": "application/json", "x-ratelimit-limit": "100"}, b'{"count":2,"results":[]}')
    document = prism_document(sample)
    operation = document["paths"]["/filings/"]["get"]["responses"]["200"]
    assert operation["content"]["application/json"]["example"] == {"count": 2, "results": []}
    assert operation["headers"]["x-ratelimit-limit"]["schema"]["example"] == "100"


def test_against_another_checkout_serves_both_in_alternating_runs(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """An A/B of two checkouts (here this one against itself): both fakes and bare Starlette are
    loaded in alternating runs and the report says this / that."""
    out = tmp_path / "bench.json"
    checkout = str(Path(__file__).resolve().parents[2])
    assert bench.main(["--quick", "--parts", "http", "--only", "member-export", "--no-kernel", "--generator",
                       "python", "--duration", "0.3", "--warmup", "0", "--rounds", "2", "--against", checkout,
                       "--json", str(out)]) == 0
    row = json.loads(out.read_text())["http"][0]
    against = row["against"]
    assert against["checkout"] == checkout and against["status"] == 200 and against["same_bytes"]
    assert against["rps"] > 0 and len(against["rounds_rps"]) == 2
    assert against["fake_ratio"] == pytest.approx(row["fake"]["rps"] / against["rps"])
    assert against["fake_ratio_median_of_rounds"] > 0
    assert f"Against {checkout}" in capsys.readouterr().out


def test_against_needs_a_checkout_of_this_project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        bench.main(["--parts", "http", "--against", str(tmp_path)])
    assert stopped.value.code == 2  # a bad flag: one line, status 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"bench: --against {str(tmp_path)!r} is not a checkout of this project (no fakes/kernel and "
        "scenarios/bench in it)"]
