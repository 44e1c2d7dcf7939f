"""The in-process probes behind docs/benchmark.md's figures of grown relay views and of the
collector's pass (scenarios/bench/probes.py) run and report what they say."""

from __future__ import annotations

import pytest

from scenarios.bench import probes
from scenarios.bench.instructions import valgrind_missing
from scenarios.bench.loopcount import loop_requests
from scenarios.bench.report import BENCH_SETTINGS
from scenarios.bench.subjects import build_fake


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


def test_the_counted_loop_takes_the_sample_the_mix_or_one_request_of_it_by_name() -> None:
    from scenarios.bench.loopcount import loop_requests
    from scenarios.bench.report import BENCH_SETTINGS
    from scenarios.bench.subjects import build_fake

    fake = build_fake("member-export", BENCH_SETTINGS)
    (sample,) = loop_requests(fake, "sample")
    assert (sample["method"], sample["path"]) == fake.sample_request()
    mix = loop_requests(fake, "mix")
    assert len(mix) >= 3 and loop_requests(fake, mix[0]["name"])[0] == mix[0]
    with pytest.raises(ValueError, match="no request 'nosuch'"):
        loop_requests(fake, "nosuch")


@pytest.mark.skipif(counting_unavailable := valgrind_missing(), reason=str(counting_unavailable))
def test_the_counted_probe_counts_instructions_per_request_under_callgrind(capsys: pytest.CaptureFixture[str]
                                                                          ) -> None:
    assert probes.main(["counted", "member-export", "sample", "--requests", "40", "--warmup", "60"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("member-export sample: ") and line.endswith("(40 requests after 60)")
    assert int(line.split(": ")[1].split()[0].replace(",", "")) > 20_000  # the app alone: tens of thousands
    # each request of the mix alone, costliest first, one line each
    assert probes.main(["counted", "member-export", "each", "--requests", "3", "--warmup", "14"]) == 0
    head, *rows = capsys.readouterr().out.strip().splitlines()
    mix = loop_requests(build_fake("member-export", BENCH_SETTINGS), "mix")
    assert head.startswith(f"member-export: {len(mix)} requests of the mix, each counted alone 3 times after 14 ")
    counts = [int(row.split()[0].replace(",", "")) for row in rows]
    assert len(rows) == len(mix) and counts == sorted(counts, reverse=True) and counts[-1] > 20_000
    assert {row.split(None, 1)[1].rsplit(" GET ", 1)[0].strip() for row in rows} == {r["name"] for r in mix}


def test_the_floor_answers_in_process_what_the_fake_answers_its_sample_request() -> None:
    import asyncio

    from scenarios.bench.inprocess import asgi_scope
    from scenarios.bench.loopcount import floor_app, loop_requests
    from scenarios.bench.report import BENCH_SETTINGS
    from scenarios.bench.subjects import build_fake

    fake = build_fake("enrichment", BENCH_SETTINGS)
    (sample,) = loop_requests(fake, "sample")
    app = floor_app(fake, sample)
    with fake.client() as client:  # the steady answer (the first lookup was paid, the later ones cached)
        expected = client.request(sample["method"], sample["path"], headers=sample["headers"])
    sent: list[dict[str, object]] = []

    async def receive() -> dict[str, object]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, object]) -> None:
        sent.append(message)

    asyncio.run(app(asgi_scope(sample["method"], sample["path"], sample["headers"]), receive, send))
    start, body = sent[0], sent[1]
    assert start["status"] == expected.status_code and body["body"] == expected.content
    headers = {name.decode(): value.decode() for name, value in start["headers"]}  # type: ignore[attr-defined]
    assert headers["x-service-credit-cost"] == expected.headers["x-service-credit-cost"]
    assert headers["content-type"] == expected.headers["content-type"]
