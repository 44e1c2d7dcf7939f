"""The pytest plugin: strict mode names the warning rules at the end of the report (also from
pytest-xdist's workers), and --fakes-port-range / FAKES_PORT_RANGE puts the served fixtures' ports
in a range."""

from __future__ import annotations

import re

import pytest

from tests.support.serving import free_port_block

CLIENTS = '''
import httpx
import pytest
from urllib.parse import urlsplit

PORTS = range({first}, {last} + 1)


def test_warned_once(member_export_fake):
    member_export_fake.client().get("/rest/memberAuthorizations", params={{"q": "memberAndApplication"}})


def test_clean(member_export_fake):
    assert member_export_fake.verdicts() == []


@pytest.mark.fakes_strict(False)
def test_not_strict(member_export_fake):
    member_export_fake.client().get("/rest/memberAuthorizations", params={{"q": "memberAndApplication"}})


def test_served_in_the_range(member_export_url, member_export_world_url):
    for url in (member_export_url, member_export_world_url):
        assert urlsplit(url).port in PORTS, url
    assert httpx.get(member_export_world_url + "/_fake/health").status_code == 200
'''


def make_clients(pytester: pytest.Pytester) -> range:
    first = free_port_block(8)
    pytester.makepyfile(test_clients=CLIENTS.format(first=first, last=first + 7))
    return range(first, first + 8)


def test_strict_mode_names_the_warnings_at_the_end(pytester: pytest.Pytester) -> None:
    ports = make_clients(pytester)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--fakes-strict",
                                          f"--fakes-port-range={ports.start}-{ports.stop - 1}")
    result.assert_outcomes(passed=4)
    out = result.stdout.str()
    summary = out[out.index("contract-fakes: client warnings (strict mode; docs/verdicts.md)"):]
    assert "test_clients.py::test_warned_once\n  member-export:\n    member-export/no-version-header [warning] " \
           "broken once" in summary
    assert "test_not_strict" not in summary and "test_clean" not in summary
    assert "1 test with warnings: they fail nothing" in summary
    assert re.search(r"first: +GET /rest/memberAuthorizations\?q=memberAndApplication -> 426", summary)


def test_without_strict_mode_no_summary(pytester: pytest.Pytester) -> None:
    make_clients(pytester)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-k", "warned or clean")
    result.assert_outcomes(passed=2)
    assert "client warnings" not in result.stdout.str()


def test_the_summary_and_the_range_work_under_xdist(pytester: pytest.Pytester,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    ports = make_clients(pytester)
    monkeypatch.setenv("FAKES_PORT_RANGE", f"{ports.start}-{ports.stop - 1}")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--fakes-strict", "-n", "1")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["*contract-fakes: client warnings (strict mode; docs/verdicts.md)*",
                                 "test_clients.py::test_warned_once",
                                 "*member-export/no-version-header [[]warning[]] broken once*"])


@pytest.mark.parametrize(("text", "where"), [("abc", "option"), ("9399-9340", "option"), ("1-70000", "option"),
                                             ("0-10", "option"), ("9399-9340", "env"), ("20000-19999", "ini")])
def test_a_bad_port_range_is_refused_once_at_start(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                   text: str, where: str) -> None:
    pytester.makepyfile(test_urls="def test_one(member_export_url):\n    pass\n\n"
                                  "def test_two(filings_url):\n    pass\n")
    args = ["-p", "no:cacheprovider"]
    if where == "option":
        args.append(f"--fakes-port-range={text}")
    elif where == "env":
        monkeypatch.setenv("FAKES_PORT_RANGE", text)
    else:
        pytester.makeini(f"[pytest]\nfakes_port_range = {text}\n")
    result = pytester.runpytest_inprocess(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str() + result.stderr.str()
    output = result.stdout.str() + result.stderr.str()
    assert output.count("the port range is FIRST-LAST") == 1, output  # once, not per test
    assert "passed" not in output and "failed" not in output and "error" not in output.replace("ERROR", ""), output


def test_a_full_range_says_so(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_one='''
import socket

def test_one(request):
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        request.config.option.fakes_port_range = f"{port}-{port}"
        try:
            request.getfixturevalue("member_export_url")
        except RuntimeError as exc:
            assert f"no free port in {port}-{port} for member-export" in str(exc)
        else:
            raise AssertionError("served on a taken port")
''')
    pytester.runpytest_inprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
