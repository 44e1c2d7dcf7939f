"""Strict mode of the pytest plugin, run on test files by pytester (the plugin loads via its entry point)."""

from __future__ import annotations

import pytest

CLIENTS = '''
import httpx
import pytest

HEADERS = {"Service-Version": "202312"}


def ready(fake):
    member = fake.create_member(region="DE", sizes={"SKILLS": 5}, build_times={"SKILLS": 0})
    fake.consent(member["id"])
    return {"Authorization": "Bearer " + fake.consent(member["id"])["access_token"], **HEADERS}


def page(client, headers, start):
    return client.get("/rest/memberSnapshotData", params={"q": "criteria", "domain": "SKILLS", "start": start},
                      headers=headers)


def test_careless_client(member_export_fake):
    headers = ready(member_export_fake)
    client = member_export_fake.client()
    assert [page(client, headers, start).status_code for start in range(3)] == [200, 404, 404]


def test_careful_client(member_export_fake):
    headers = ready(member_export_fake)
    client = member_export_fake.client()
    start = 0
    while page(client, headers, start).status_code == 200:
        start += 1
    assert start == 1


def test_wasteful_but_not_wrong(member_export_fake):
    member_export_fake.client().get("/rest/memberAuthorizations", params={"q": "memberAndApplication"})
    assert member_export_fake.verdicts()


def test_careless_over_http(member_export_fake, member_export_url):
    headers = ready(member_export_fake)
    with httpx.Client(base_url=member_export_url) as client:
        assert page(client, headers, 1).status_code == 404
        assert page(client, headers, 2).status_code == 404


def test_careless_in_a_world(member_export_world, member_export_world_url):
    headers = ready(member_export_world)
    with httpx.Client(base_url=member_export_world_url) as client:
        assert [page(client, headers, start).status_code for start in (1, 2)] == [404, 404]


def test_careless_with_make_fake(make_fake):
    filings = make_fake("filings", scale="small", free_quota=0)
    key = filings.create_key("free")
    client = filings.client(headers={"X-API-Key": key})
    assert [client.get("/companies/").status_code for _ in range(3)] == [429, 429, 429]


@pytest.mark.fakes_strict(False)
def test_opted_out(member_export_fake):
    headers = ready(member_export_fake)
    client = member_export_fake.client()
    assert [page(client, headers, start).status_code for start in range(3)] == [200, 404, 404]


def test_failing_anyway(member_export_fake):
    headers = ready(member_export_fake)
    client = member_export_fake.client()
    page(client, headers, 1), page(client, headers, 2)
    assert False, "the test's own failure"
'''


@pytest.fixture
def clients(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(test_clients=CLIENTS)
    return pytester


def test_without_strict_mode_verdicts_fail_nothing(clients: pytest.Pytester) -> None:
    result = clients.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=7, failed=1)


def test_strict_mode_fails_clients_that_broke_an_error_rule(clients: pytest.Pytester) -> None:
    result = clients.runpytest("-p", "no:cacheprovider", "--fakes-strict")
    outcomes = {report.head_line: report.outcome for report in result.reprec.getreports("pytest_runtest_logreport")
                if report.when == "call"}
    assert outcomes == {
        "test_careless_client": "failed", "test_careful_client": "passed", "test_wasteful_but_not_wrong": "passed",
        "test_careless_over_http": "failed", "test_careless_in_a_world": "failed",
        "test_careless_with_make_fake": "failed", "test_opted_out": "passed",
        "test_failing_anyway": "failed"}
    result.stdout.fnmatch_lines([
        "*_ test_careless_client _*",
        "contract-fakes strict mode: the client broke 1 error rule (docs/verdicts.md)",
        "member-export:",
        "  member-export/paging-past-404 [error] broken once",
        "      why:    Paging ends at the first 404 'No data found'; asking for a later start of the same domain "
        "walks past the end of the data.",
        "      source: https://learn.microsoft.com/en-us/linkedin/dma/member-data-portability/shared/member-snapshot-api*",
        "      first:  GET /rest/memberSnapshotData?q=criteria&domain=SKILLS&start=2 -> 404 at * (journal #3): "
        "start=2 requested after start=1 answered 404*",
    ])
    result.stdout.fnmatch_lines([
        "*_ test_careless_with_make_fake _*",
        "filings:",
        "  filings/calls-after-quota-refusal [error] broken 2 times",
        "      last:   GET /companies/ -> 429 *",
    ])
    result.stdout.fnmatch_lines(["*test_failing_anyway*", "*AssertionError: the test's own failure*"])


def test_the_marker_and_the_ini_option_turn_strict_mode_on(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_marked=CLIENTS.replace("def test_careless_client", "@pytest.mark.fakes_strict\n"
                                                                                 "def test_careless_client"))
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=6, failed=2)
    result.stdout.fnmatch_lines(["FAILED test_marked.py::test_careless_client - Failed: contract-fakes strict*"])
    pytester.makeini("[pytest]\nfakes_strict = true\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, failed=5)


def test_a_clean_strict_run_passes(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_clean="""
def test_careful(member_export_fake):
    member = member_export_fake.create_member(region="DE")
    client = member_export_fake.client(headers={
        "Authorization": "Bearer " + member["access_token"], "Service-Version": "202312"})
    assert client.get("/rest/memberAuthorizations", params={"q": "memberAndApplication"}).status_code == 200
    assert member_export_fake.verdicts() == []
""")
    result = pytester.runpytest("-p", "no:cacheprovider", "--fakes-strict")
    result.assert_outcomes(passed=1)
