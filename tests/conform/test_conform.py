"""`fakes conform` against a stand-in for the real service: a fake of the same service on its own
loopback port, with planted differences (tests/conform/drift.py). Nothing here reaches a vendor."""

from __future__ import annotations

import contextlib
import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import pytest

from fakes import create_fake
from fakes.conform import ConformOptions, conform
from fakes.conform.observed import Observed
from fakes.conform.redact import service_redactor
from fakes.conform.report import ConformReport
from fakes.conform.runner import _shown, shown_url
from fakes.conform.sides import Unreachable
from fakes.kernel.fake import Fake
from fakes.kernel.server import ServerThread

from .drift import Drifted, Plant

SMALL = {"scale": "small"}
#: every scenario of filings a stand-in can run without the free key (filings-free-quota spends it)
SCENARIOS = ["filings-incremental-sync", "filings-watchlist-webhooks"]
PLANTS = (
    Plant("GET", r"/filings/\d+/", rename=("title", "headline")),  # a renamed field
    Plant("GET", r"/companies/\d+/next-annual-report/", status=(404, 410)),  # a changed status
    Plant("GET", r"/countries/", drop_header="x-ratelimit-monthly-remaining"),  # a missing header
    Plant("GET", r"/languages/\d+/", error=(400, {"detail": "Invalid language."})),  # an extra error case
)
PLANTED = {
    "GET /filings/{filing_id}/ | key-missing | $.headline",
    "GET /filings/{filing_id}/ | key-extra | $.title",
    "GET /companies/{company_id}/next-annual-report/ | status | status | 410 -> 404",
    "GET /countries/ | header-extra | x-ratelimit-monthly-remaining",
    "GET /languages/{id}/ | status | status | 400 -> 200",
}


@contextlib.contextmanager
def stand_in(*plants: Plant, service: str = "filings", **settings: Any) -> Iterator[tuple[Fake, str]]:
    """A fake of ``service`` (plants applied) served on a free loopback port: the "real" service."""
    fake = create_fake(service, clock="manual", **settings)
    with ServerThread([(Drifted(fake.app, *plants), "127.0.0.1", 0)]) as [(host, port)]:
        yield fake, f"http://{host}:{port}"


def key_of(fake: Fake) -> str:
    return fake.auth_headers()["X-API-Key"]


def run(fake: Fake, url: str, **options: Any) -> ConformReport:
    options.setdefault("scenarios", SCENARIOS)
    options.setdefault("max_calls", 10_000)
    return conform(ConformOptions("filings", url, credentials={"api_key": key_of(fake)}, settings=SMALL,
                                  max_wait=10 * 86_400, real_sleep=fake.advance, **options))


def keys(report: ConformReport) -> set[str]:
    return {key for result in report.operations for key in result.difference_keys()}


def test_a_fake_against_the_same_fake_differs_nowhere() -> None:
    """Ids, times, names, URLs, counts and order differ between the two (another seed: another
    catalogue; other keys; other hosts in every URL): no false alarm, reads and writes."""
    with stand_in(seed=1, **SMALL) as (fake, url):
        report = run(fake, url, allow_writes=True)
    assert keys(report) == set(), report.render()
    assert report.count("same") >= 55, report.render()
    assert report.score == 1.0 and report.exit_status == 0
    flows = {flow.name: (flow.real, flow.fake) for flow in report.scenarios}
    assert flows == {name: ("passed", "passed") for name in SCENARIOS}, report.render()
    sources = {source for result in report.operations for source in result.sources}
    assert {"walk", *SCENARIOS} <= sources


def test_each_planted_difference_is_found_and_named_and_nothing_else() -> None:
    with stand_in(*PLANTS, **SMALL) as (fake, url):
        report = run(fake, url)
    assert keys(report) == PLANTED, report.render()
    by_operation = {r.operation: [d.text for d in r.differences] for r in report.operations if r.differences}
    assert by_operation == {
        "GET /filings/{filing_id}/": ["real has `$.headline`, fake lacks it", "fake has `$.title`, real lacks it"],
        "GET /companies/{company_id}/next-annual-report/": ["real 410, fake 404"],
        "GET /countries/": ["fake sends header `x-ratelimit-monthly-remaining`, real does not"],
        "GET /languages/{id}/": ["real 400, fake 200"],
    }
    assert report.count("differs") == 4 and report.exit_status == 1
    assert 0.9 < (report.score or 0) < 1


def test_the_report_as_json_junit_and_markdown_without_secrets() -> None:
    with stand_in(*PLANTS, **SMALL) as (fake, url):
        report = run(fake, url, operations=["GET /countries/", "GET /languages/*", "GET /filings/*"],
                     scenarios=[])
        secret = key_of(fake)
    document = json.loads(report.to_json())
    # /countries/, /languages/ and its {id}, /filings/ and its {id} with 4 sub-resources
    assert document["counts"] == {"same": 6, "differs": 3, "not run": 0}
    assert document["score"] == 0.6667 and document["coverage"] == 1.0
    [countries] = [op for op in document["operations"] if op["operation"] == "GET /countries/"]
    assert countries["status"] == "differs" and countries["differences"][0]["key"] in PLANTED
    assert countries["example"].startswith("GET /countries/ (real) | GET /countries/ (fake)")
    suite = ET.fromstring(report.to_junit()).find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("9", "3", "0")
    failed = {case.get("name") for case in suite.iter("testcase") if case.find("failure") is not None}
    assert failed == {"GET /countries/", "GET /languages/{id}/", "GET /filings/{filing_id}/"}
    markdown = report.to_markdown()
    assert "| `GET /languages/{id}/` | differs | real 400, fake 200 |" in markdown
    assert "Score **67%**" in markdown
    for text in (report.to_json(), report.to_junit(), markdown, report.render()):
        assert secret not in text


def test_secrets_are_scrubbed_wherever_they_hide() -> None:
    """A credential value that reached a report's text (a reason, a scenario's message quoting an
    answer) is replaced, whatever field it is in."""
    with stand_in(**SMALL) as (fake, url):
        report = run(fake, url, operations=["GET /countries/"], scenarios=[])
    secret = key_of(fake)
    report.operations[0].status, report.operations[0].reason = "not run", f"an answer that echoed {secret}"
    for text in (report.to_json(), report.to_junit(), report.to_markdown(), report.render()):
        assert secret not in text and "[redacted]" in text


def test_credentials_in_a_query_or_the_url_are_redacted_in_what_the_report_shows() -> None:
    assert shown_url("https://user:pa55word@api.example/v1") == "https://[redacted]@api.example/v1"
    assert shown_url("https://api.example/v1") == "https://api.example/v1"
    sent = Observed("GET", "/countries/", "api_key=in-a-query-0123&page=2")
    assert _shown(sent, service_redactor("filings")) == "GET /countries/?api_key=[redacted]&page=2"


def test_a_baseline_fails_only_on_new_drift() -> None:
    with stand_in(*PLANTS, **SMALL) as (fake, url):
        report = run(fake, url, scenarios=[])
    known = keys(report)
    report.apply_baseline(known, "nightly.json")
    assert report.new_differences() == [] and report.exit_status == 0
    assert "new" not in report.to_markdown().lower().replace("0 new", "")
    left_out = "GET /languages/{id}/ | status | status | 400 -> 200"
    report.apply_baseline(known - {left_out}, "nightly.json")
    assert [(op, d.key(op)) for op, d in report.new_differences()] == [("GET /languages/{id}/", left_out)]
    assert report.exit_status == 1
    suite = ET.fromstring(report.to_junit()).find("testsuite")
    assert suite is not None and suite.get("failures") == "1"


def test_a_status_that_differs_on_one_listed_item_only_is_confirmed_on_the_next() -> None:
    """The real service's newest filing may be still processing where the fake's is not: a status
    differing on one listed item is tried on the next ones before it is called drift."""
    first = create_fake("filings", **SMALL)
    newest = first.client(headers=first.auth_headers()).get("/filings/").json()["results"][0]["id"]
    one_item = Plant("GET", rf"/filings/{newest}/history/", error=(404, {"detail": "Not found."}))
    with stand_in(one_item, **SMALL) as (fake, url):
        report = run(fake, url, operations=["GET /filings/", "GET /filings/*/history/"], scenarios=[])
    [history] = [r for r in report.operations if r.operation == "GET /filings/{filing_id}/history/"]
    assert history.status == "same" and f"/filings/{newest}/" not in history.example
    every_item = Plant("GET", r"/filings/\d+/history/", error=(404, {"detail": "Not found."}))
    with stand_in(every_item, **SMALL) as (fake, url):
        report = run(fake, url, operations=["GET /filings/", "GET /filings/*/history/"], scenarios=[])
        tried = fake.journal_entries()  # the error plant answers before the fake: only the list reached it
    [history] = [r for r in report.operations if r.operation == "GET /filings/{filing_id}/history/"]
    assert [d.text for d in history.differences] == ["real 404, fake 200"]
    assert report.calls == 4 and len(tried) == 1  # the list, then three items on each side


def test_the_real_side_waits_only_where_a_scenario_does_and_within_max_wait() -> None:
    """filings-incremental-sync waits an hour for new filings: the fake's clock moves at once; the
    real side would sleep, and past --max-wait the scenario stops there."""
    slept: list[float] = []
    with stand_in(**SMALL) as (fake, url):
        report = conform(ConformOptions("filings", url, credentials={"api_key": key_of(fake)}, settings=SMALL,
                                        walk=False, scenarios=["filings-incremental-sync"], max_wait=60,
                                        real_sleep=slept.append))
        waited = conform(ConformOptions("filings", url, credentials={"api_key": key_of(fake)}, settings=SMALL,
                                        walk=False, scenarios=["filings-incremental-sync"], max_wait=3_600,
                                        real_sleep=lambda s: (slept.append(s), fake.advance(s))))
    [flow] = report.scenarios
    assert (flow.real, flow.fake) == ("stopped", "passed")
    assert "the flow waits 3600 s here on the real service; --max-wait 60 leaves 60 s" in flow.real_message
    results = {r.operation: r for r in report.operations}
    assert results["GET /filings/"].status == "same"
    assert results["GET /filings/{filing_id}/markdown/"].reason.startswith(
        "filings-incremental-sync: the real side did not reach it (stopped: the flow waits 3600 s")
    assert slept == [3_600] and [(f.real, f.fake) for f in waited.scenarios] == [("passed", "passed")]
    assert waited.count("differs") == 0 and waited.count("same") == 2


def test_reads_only_by_default_and_never_more_calls_than_allowed() -> None:
    with stand_in(**SMALL) as (fake, url):
        report = run(fake, url, max_calls=7)
        sent = [e for e in fake.journal_entries() if not e["path"].startswith("/_fake")]
    assert len(sent) <= 7 and report.calls == len(sent)
    assert {e["method"] for e in sent} == {"GET"}
    reasons = " ".join(r.reason for r in report.operations)
    assert "the call budget is spent (7 of --max-calls 7)" in reasons
    assert "a write: runs only with --allow-writes" in reasons


def test_writes_are_tagged_and_cleaned_up() -> None:
    with stand_in(**SMALL) as (fake, url):
        report = run(fake, url, allow_writes=True, operations=["POST /webhooks/", "GET /webhooks/*"], scenarios=[])
        sent = [e for e in fake.journal_entries() if not e["path"].startswith("/_fake")]
        left = fake.client(headers=fake.auth_headers()).get("/webhooks/").json()
    assert [e["method"] for e in sent if e["method"] != "GET"] == ["POST", "DELETE"]
    assert all(e["request"]["headers"]["user-agent"] == f"contract-fakes-conform (run {report.run_id})" for e in sent)
    assert "example.invalid/contract-fakes-conform" in sent[1]["request"]["body"]
    assert report.cleanup == [{"path": "/webhooks/1/", "result": "DELETE -> 204"}]
    assert left["count"] == 0


def test_a_run_stopped_half_way_still_cleans_up() -> None:
    def stop_after_the_write(line: str) -> None:
        if line.startswith("walk POST /webhooks/:"):
            raise KeyboardInterrupt

    with stand_in(**SMALL) as (fake, url):
        with pytest.raises(KeyboardInterrupt):
            run(fake, url, allow_writes=True, operations=["POST /webhooks/", "GET /webhooks/*"], scenarios=[],
                progress=stop_after_the_write)
        methods = [e["method"] for e in fake.journal_entries() if not e["path"].startswith("/_fake")]
        left = fake.client(headers=fake.auth_headers()).get("/webhooks/").json()
    assert methods == ["GET", "POST", "DELETE"] and left["count"] == 0


def test_a_write_keeps_a_call_for_its_clean_up() -> None:
    """The budget never runs out between creating a resource and deleting it."""
    with stand_in(**SMALL) as (fake, url):
        report = run(fake, url, allow_writes=True, operations=["POST /webhooks/", "GET /webhooks/*"], scenarios=[],
                     max_calls=3)
        sent = [e for e in fake.journal_entries() if not e["path"].startswith("/_fake")]
        left = fake.client(headers=fake.auth_headers()).get("/webhooks/").json()
    assert len(sent) == 3 and report.calls == 3
    assert [e["method"] for e in sent] == ["GET", "POST", "DELETE"] and left["count"] == 0


def test_an_unreachable_real_service_stops_at_once() -> None:
    with stand_in(**SMALL) as (fake, url):
        pass  # served and stopped: nothing listens there any more
    with pytest.raises(Unreachable, match="cannot reach --real-url"):
        run(fake, url, scenarios=[])
