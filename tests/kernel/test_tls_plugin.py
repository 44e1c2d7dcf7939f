"""The pytest plugin's HTTPS fixtures (NAME_https_url, fakes_ca_path, fakes_tls), run by pytester
in a session of their own: the CA goes where --fakes-tls-dir, else fakes_tls_dir, says."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

TESTS = """
import ssl
import httpx
from fakes.kernel import pytest_plugin

def test_https_url_serves_the_tests_own_fake(video_https_url, video_fake, fakes_ca_path):
    assert video_https_url.startswith("https://127.0.0.1:")
    key = video_fake.create_project()["sandbox_key"]
    with httpx.Client(verify=ssl.create_default_context(cafile=fakes_ca_path), auth=(key, "")) as client:
        created = client.post(video_https_url + "/videos", json={"title": "t"}).json()
    assert created["assets"]["hls"].startswith(video_https_url + "/vod/")
    assert created["videoId"] in video_fake.model.videos

def test_both_schemes_at_once(filings_url, filings_https_url, fakes_tls):
    assert filings_url.startswith("http://") and filings_https_url.startswith("https://")
    answer = httpx.get(filings_https_url + "/_fake/health", verify=fakes_tls.client_context())
    assert answer.json()["service"] == "filings"

def test_a_client_that_does_not_trust_the_ca_is_refused(enrichment_https_url):
    try:
        httpx.get(enrichment_https_url + "/_fake/health")
    except httpx.ConnectError as exc:
        assert "CERTIFICATE_VERIFY_FAILED" in str(exc)
    else:
        raise AssertionError("an unknown CA was trusted")
"""


@pytest.fixture
def tests_file(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parents[2]))
    monkeypatch.delenv("FAKES_TLS_DIR", raising=False)
    pytester.makepyfile(TESTS)
    pytester.makeini("[pytest]\nfakes_tls_dir = ca-here\n")
    return pytester


def test_https_fixtures_with_the_ca_of_the_option_else_of_the_ini(tests_file: pytest.Pytester,
                                                                   tmp_path: Path) -> None:
    chosen = tmp_path / "chosen"
    result = tests_file.runpytest_subprocess("-p", "no:cacheprovider", "--fakes-tls-dir", str(chosen))
    result.assert_outcomes(passed=3)
    assert (chosen / "ca.pem").exists() and not (tests_file.path / "ca-here").exists()  # the option wins
    tests_file.runpytest_subprocess("-p", "no:cacheprovider", "-k", "both").assert_outcomes(passed=1)
    assert (tests_file.path / "ca-here" / "ca.pem").exists()  # the ini's, below the rootdir


def test_a_tls_directory_that_cannot_be_made_fails_the_test_in_one_line(tests_file: pytest.Pytester) -> None:
    (tests_file.path / "blocker").write_text("a file")
    result = tests_file.runpytest_subprocess("-p", "no:cacheprovider", "--fakes-tls-dir", "blocker/tls", "-k", "own")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*contract-fakes: no HTTPS for the NAME_https_url fixtures: cannot create the TLS "
                                 "directory blocker/tls*"])
