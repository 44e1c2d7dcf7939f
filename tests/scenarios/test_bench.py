"""The benchmark harness produces its figures (``--quick``, in-process parts only).

Nothing here asserts a speed target: those are measured and reported by `python -m scenarios bench`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scenarios import bench
from scenarios.bench import scale
from scenarios.bench.instructions import valgrind_missing as bench_valgrind_missing


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


def test_a_mix_holds_reads_the_sample_and_each_kind_of_client_error() -> None:
    from fakes.kernel.benchops import UNKNOWN_ID, BenchOperation, mix_from_operations

    operations = [BenchOperation(f"read{n}", "GET", f"/things/{n}?page=2", template="/things/{id}") for n in range(10)]
    operations.append(BenchOperation("create", "POST", "/things", json={"a": 1}, expect=(201,)))
    mix = mix_from_operations(operations, {"Authorization": "Bearer secret-key-1234", "X-Version": "2"},
                              ("GET", "/things?page=1"))
    names = [op.name for op in mix]
    assert "create" not in names and names.count("sample") == 1
    errors = [op for op in mix if "(" in op.name]
    assert 0.2 <= len(errors) / len(mix) <= 0.35
    kinds = {op.name.split("(")[1].rstrip(")") for op in errors}
    assert kinds == {"wrong key", "unknown id", "bad parameter"}
    wrong = next(op for op in errors if "wrong key" in op.name)
    assert wrong.headers["X-Version"] == "2" and wrong.headers["Authorization"].startswith("Bearer ")
    assert wrong.headers["Authorization"] != "Bearer secret-key-1234" and not wrong.auth
    assert any(op.path.startswith(f"/things/{UNKNOWN_ID}") for op in errors)
    assert any("page=many" in op.path for op in errors)


def test_a_service_that_names_its_resources_in_the_query_gets_each_kind_of_client_error_there() -> None:
    from fakes.kernel.benchops import BAD_WORD, UNKNOWN_ID, BenchOperation, mix_from_operations

    known = {"stripe.com", "never"}

    def probe(op: BenchOperation) -> int:  # a service answering 404 for an unknown site, 400 for a bad choice
        values = [pair.partition("=")[2] for pair in op.path.partition("?")[2].split("&")]
        if not op.auth:
            return 401
        if f"{UNKNOWN_ID}.com" in values:
            return 404
        return 200 if all(value in known for value in values) else 400

    operations = [BenchOperation(f"read{n}", "GET", f"/v1/thing{n}?website=stripe.com&use_cache=never")
                  for n in range(10)]
    mix = mix_from_operations(operations, {"Authorization": "Bearer secret-key-1234"}, None, probe)
    errors = {op.name.rsplit("(", 1)[1].rstrip(")"): op for op in mix if "(" in op.name}
    assert set(errors) == {"wrong key", "unknown id", "bad parameter"}
    assert f"website={UNKNOWN_ID}.com&use_cache=never" in errors["unknown id"].path  # the domain stays a domain
    assert f"website={BAD_WORD}" in errors["bad parameter"].path
    # a service with no unknown ids (it answers any site): no unknown id, and no 4xx passed off as one
    everything = mix_from_operations(operations, {"Authorization": "Bearer secret-key-1234"}, None,
                                     lambda op: 401 if not op.auth else 200 if BAD_WORD not in op.path else 400)
    assert {op.name.rsplit("(", 1)[1].rstrip(")") for op in everything if "(" in op.name} == {
        "wrong key", "bad parameter"}


def test_the_wrk_script_replays_the_mix_with_any_byte_escaped() -> None:
    from scenarios.bench.load import MixRequest, wrk_mix_script

    script = wrk_mix_script([MixRequest("a", "POST", '/x?q="\xe9"', {"k": 'v\\"'}, body='{"a":1}\n')])
    assert ('wrk.format("POST", "/x?q=\\034\\233\\034", {["k"] = "v\\092\\034"}, "{\\034a\\034:1}\\010")'
            in script)
    assert "requests[next_one]" in script


def test_the_mixed_part_reports_its_rows(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    assert bench.main(["--parts", "mixed", "--only", "member-export", "--no-kernel", "--generator", "python",
                       "--duration", "0.3", "--warmup", "0.1", "--rounds", "1", "--mix-connections", "2",
                       "--quiet-wait", "0", "--json", str(out)]) == 0
    figures = json.loads(out.read_text())
    (row,) = figures["mixed"]
    assert row["service"] == "member-export" and row["problems"] == []
    assert row["answers_2xx"] > 0 and row["answers_4xx"] > 0 and row["requests"] >= 3
    assert row["mixed"]["rps"] > 0 and row["sample"]["rps"] > 0 and row["ratio"] > 0
    # the server's CPU per request, and the mix's speed on a busy core from it
    assert row["mixed"]["server_cpu_us"] > 0 and row["sample"]["server_cpu_us"] > 0 and row["cpu_ratio"] > 0


@pytest.mark.parametrize("service", ["member-export", "filings", "enrichment", "relay", "video"])
def test_every_service_has_a_mix_of_reads_and_client_errors(service: str) -> None:
    from fakes import registry

    cls = registry.fake_class(service)
    fake = cls(seed=0, **cls.settings_for_tests())
    fake.sample_request()
    mix = fake.bench_mix()
    errors = [op for op in mix if op.expect and min(op.expect) >= 400]
    assert len(mix) > len(errors) > 0
    assert "wrong key" in {op.name.rsplit("(", 1)[-1].rstrip(")") for op in errors}


def test_the_operations_part_gives_wall_and_cpu_times(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bench.json"
    assert bench.main(["--parts", "operations", "--only", "member-export", "--no-kernel", "--op-repeats", "3",
                       "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["operations"]
    assert rows and all(row["failures"] == [] for row in rows)
    for row in rows:
        assert 0 < row["p50_ms"] <= row["max_ms"] and 0 <= row["cpu_p50_ms"] <= row["cpu_p99_ms"]
    assert "cpu50" in capsys.readouterr().out


def test_server_cpu_time_is_taken_per_request_around_a_load_run() -> None:
    from scenarios.bench.load import LoadConfig, measured_load
    from scenarios.bench.measure import proc_cpu_seconds
    from scenarios.bench.servers import Server

    assert proc_cpu_seconds() is not None and proc_cpu_seconds() > 0  # this process has run
    assert proc_cpu_seconds(2**22 + 7) is None  # no such process
    config = LoadConfig(generator="python", connections=2, duration=0.5, warmup=0, threads=1, rounds=1)
    with Server({"kind": "bare", "method": "GET", "path": "/x", "status": 200, "content_type": "text/plain",
                 "body_file": _body_file(b"hello")}) as server:
        served = measured_load(config, server.url + "/x", "GET", {}, 0.5, server.proc.pid)
        unmeasured = measured_load(config, server.url + "/x", "GET", {}, 0.3, None)
    assert served["requests"] > 0 and served["server_cpu_us"] > 0
    assert "server_cpu_us" not in unmeasured  # not our process: nothing to read


def test_each_measured_run_waits_for_idle_cores_up_to_its_limit() -> None:
    from scenarios.bench.load import QUIET_WINDOW_S, wait_until_quiet

    def machine(busy_shares: list[float]) -> tuple[Any, list[float]]:
        """(busy, total) readings whose windows were busy for these shares in turn; and the sleeps."""
        readings, busy, total = [(0, 0)], 0, 0
        for share in busy_shares:
            total += 200
            busy += round(200 * share)
            readings.append((busy, total))
        sleeps: list[float] = []
        return (lambda: readings.pop(0)), sleeps

    sample, sleeps = machine([0.9, 0.6, 0.05, 0.9])  # a JVM's compiler busy for two windows, then idle
    assert wait_until_quiet(8, sample=sample, sleep=sleeps.append) == 3 * QUIET_WINDOW_S
    assert sleeps == [QUIET_WINDOW_S] * 3
    sample, sleeps = machine([1.0] * 20)  # never quiet: the limit ends the wait
    assert wait_until_quiet(1, sample=sample, sleep=sleeps.append) == pytest.approx(1.0)
    sample, sleeps = machine([0.0])
    assert wait_until_quiet(0, sample=sample, sleep=sleeps.append) == 0 and sleeps == []  # 0: no wait at all
    assert wait_until_quiet(5, sample=lambda: None, sleep=sleeps.append) == 0 and sleeps == []  # no /proc/stat


def test_the_cores_busy_time_is_read_from_proc_stat() -> None:
    from scenarios.bench.load import cpu_jiffies

    found = cpu_jiffies()
    if not Path("/proc/stat").exists():
        assert found is None
        return
    assert found is not None
    busy, total = found
    assert 0 < busy < total


def test_a_negative_quiet_wait_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        bench.main(["--parts", "http", "--quiet-wait", "-1"])
    assert stopped.value.code == 2
    assert "--quiet-wait takes seconds >= 0" in capsys.readouterr().err


def _body_file(body: bytes) -> str:
    import tempfile

    with tempfile.NamedTemporaryFile(delete=False, suffix=".body") as handle:
        handle.write(body)
    return handle.name


def test_the_instructions_part_reads_callgrind_totals_and_skips_without_valgrind(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from scenarios.bench import instructions

    dump = tmp_path / "callgrind.1.1"
    dump.write_text("version: 1\ncmd: python\nevents: Ir\nsummary: 12345\ntotals: 12345\n")
    assert instructions._totals(dump) == 12345
    simulated = tmp_path / "callgrind.2.1"  # with --instr-caches: the caches' events beside Ir
    simulated.write_text("events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\nsummary: 9000 10 10 5 5 5 30 20 10\n")
    assert instructions._events(simulated) == {"Ir": 9000, "Dr": 10, "Dw": 10, "I1mr": 5, "D1mr": 5, "D1mw": 5,
                                               "ILmr": 30, "DLmr": 20, "DLmw": 10}
    monkeypatch.setattr(instructions.shutil, "which", lambda tool: None)
    assert "valgrind" in (instructions.valgrind_missing() or "")
    out = tmp_path / "bench.json"
    assert bench.main(["--parts", "instructions", "--only", "member-export", "--no-kernel", "--json", str(out)]) == 0
    figures = json.loads(out.read_text())
    assert figures["instructions"] == []
    assert [s["part"] for s in figures["skipped"]] == ["instructions"]


def test_counts_warm_up_past_what_a_service_keeps_per_request() -> None:
    """The relay's request costs more while its window of call records fills than once it is
    full (as it always is over HTTP): its counts warm up past the window unless asked otherwise."""
    from fakes.relay.records import MAX_CALL_RECORDS
    from scenarios.bench.cli import parse_options
    from scenarios.bench.instructions import INSTR_WARMUP, render_instructions, steady_warmup
    from scenarios.bench.report import Report

    assert steady_warmup("relay", INSTR_WARMUP) > MAX_CALL_RECORDS
    assert steady_warmup("member-export", INSTR_WARMUP) == INSTR_WARMUP  # nothing of its own to fill
    assert steady_warmup("member-export", 50_000) == 50_000
    options, _ = parse_options(["--parts", "instructions"])
    assert options.instr_warmup is None  # per service
    assert parse_options(["--parts", "instructions", "--instr-warmup", "10"])[0].instr_warmup == 10
    rows = [{"service": service, "request": "GET /x", "response_bytes": 1, "counted_requests": 300,
             "warmup_requests": warmup, "bare": 9.0, "fake": 10.0, "lean": 9.5, "ratio": 0.9, "lean_ratio": 0.95}
            for service, warmup in (("filings", 1200), ("relay", 21_000))]
    (title,) = [line for line in render_instructions(Report(machine={}, config={}, instructions=rows))
                if line.startswith("Instructions per served request")]
    assert "300 counted after filings 1,200, relay 21,000 uncounted" in title


def _instructions_report(service: str, bare: float, fake: float, lean: float) -> Any:
    """A report holding one row of the instructions part (no misses, no mix counted)."""
    from scenarios.bench.report import Report

    row = {"service": service, "request": "GET /x", "response_bytes": 123, "counted_requests": 300,
           "warmup_requests": 1200, "bare": bare, "fake": fake, "lean": lean,
           "ratio": bare / fake, "lean_ratio": bare / lean}
    return Report(machine={}, config={}, instructions=[row])


def test_the_instructions_table_shows_the_mix_when_it_was_counted() -> None:
    from scenarios.bench.instructions import render_instructions

    report = _instructions_report("member-export", 196_000.0, 186_000.0, 175_000.0)
    assert not any("realistic mix" in line for line in render_instructions(report))
    report.instructions[0].update(mix=217_000.0, mix_ratio=186 / 217)
    lines = render_instructions(report)
    assert any(line.startswith("The realistic mix served") for line in lines)
    (mixed,) = [line for line in lines if line.startswith("member-export") and "217,000" in line]
    assert mixed.split() == ["member-export", "186,000", "217,000", "0.86"]
    report.instructions[0]["misses"] = {"bare": 424.0, "fake": 610.0, "lean": 496.0, "mix": 702.0}  # --instr-caches
    (mixed,) = [line for line in render_instructions(report) if line.startswith("member-export") and "217,000" in line]
    assert mixed.split() == ["member-export", "186,000", "217,000", "0.86", "|", "610", "702"]


def test_the_instructions_table_shows_the_simulated_misses_when_they_were_counted() -> None:
    from scenarios.bench.instructions import render_instructions

    report = _instructions_report("relay", 232_000.0, 262_000.0, 245_000.0)
    assert not any("Simulated" in line for line in render_instructions(report))
    report.instructions[0]["misses"] = {"bare": 316.0, "fake": 453.0, "lean": 432.0}
    lines = render_instructions(report)
    assert any(line.startswith("Simulated cache misses per served request") for line in lines)
    (misses,) = [line for line in lines if line.startswith("relay") and "+" in line]
    assert misses.split() == ["relay", "316", "453", "+137", "|", "432", "+116"]


@pytest.mark.skipif(instructions_unavailable := bench_valgrind_missing(), reason=str(instructions_unavailable))
def test_the_instructions_part_counts_each_server_under_callgrind(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    dumps = tmp_path / "dumps"
    assert bench.main(["--parts", "instructions", "--only", "member-export", "--no-kernel", "--instr-requests", "7",
                       "--instr-warmup", "10", "--instr-caches", "--instr-mix", "--instr-dumps", str(dumps),
                       "--json", str(out)]) == 0
    (row,) = json.loads(out.read_text())["instructions"]
    # --instr-dumps kept each server's dump, whose totals are the row's
    from scenarios.bench import instructions

    assert sorted(path.name for path in dumps.iterdir()) == [
        "member-export-bare.callgrind", "member-export-fake.callgrind", "member-export-jb0.callgrind",
        "member-export-mix.callgrind"]
    assert instructions._totals(dumps / "member-export-fake.callgrind") == pytest.approx(row["fake"] * 7)
    # --instr-mix: the fake serving its realistic mix (seven requests: one round), a wrong key and a
    # bad parameter among them, counted as the sample is
    assert instructions._totals(dumps / "member-export-mix.callgrind") == pytest.approx(row["mix"] * 7)
    assert row["mix"] > 50_000 and row["mix_ratio"] == pytest.approx(row["fake"] / row["mix"])
    # the whole served request: uvicorn, httptools and the app, some 100,000 instructions or more
    assert row["bare"] > 50_000 and row["fake"] > 50_000 and row["lean"] > 50_000
    assert row["ratio"] == pytest.approx(row["bare"] / row["fake"])
    assert row["counted_requests"] == 7 and row["warmup_requests"] == 10
    # the simulated L2's misses: some per request (a served request touches more than 512 KiB of code
    # and data over a few requests), far fewer than its instructions
    assert set(row["misses"]) == {"bare", "fake", "lean", "mix"}
    assert all(0 < misses < row["bare"] / 20 for misses in row["misses"].values())


def test_enrichments_mix_asks_as_a_client_that_follows_the_cache_rule() -> None:
    """Enrichment's operations part times its paid lookups uncached (``use_cache=never``), which its
    rule ``paid-twice-in-cache-window`` flags when repeated; its realistic mix asks them with the
    default cache policy, so rounds of its good calls flag nothing (the other services' mixes may
    poll faster than their cadence rules allow: a loop under a clock that does not move)."""
    from fakes import registry

    cls = registry.fake_class("enrichment")
    fake = cls(seed=0, **cls.settings_for_tests())
    fake.sample_request()
    good = [op for op in fake.bench_mix() if op.expect and min(op.expect) < 400]
    assert not any("use_cache=never" in op.path or "force_refresh" in op.path for op in good)
    assert any("use_cache=never" in op.path for op in fake.bench_operations())  # still timed uncached
    auth = fake.auth_headers()
    with fake.client() as client:
        client.delete("/_fake/journal")
        for _ in range(2):
            for op in good:
                client.request(op.method, op.path, headers={**auth, **op.headers} if op.auth else dict(op.headers))
        entries = client.get("/_fake/journal", params={"limit": 1000}).json()["entries"]
    assert len(entries) == 2 * len(good) and {entry["status"] // 100 for entry in entries} == {2}
    assert not [warning for entry in entries for warning in entry["warnings"]]
