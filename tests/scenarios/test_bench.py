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
