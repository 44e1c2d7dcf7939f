"""Nothing downloads at test time unless asked: the tests that install a vendor's client from npm
or PyPI skip without FAKES_TEST_DOWNLOADS=1 and say how to turn them on; with it (.ci/run sets it)
the download is cached under the checkout's build/ folder, never in the user's home; and that
folder is git-ignored and kept out of the docker build context."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docker.context import context_files
from tests.support.downloads import CACHE_ENV, DEFAULT_CACHE, DOWNLOADS_ENV, download_cache
from tests.support.serving import ROOT, clean_env

DOWNLOADING = ["tests/video/test_node_client.py", "tests/relay/test_official_cli.py"]


def test_downloading_tests_skip_unless_asked(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {key: value for key, value in clean_env().items() if key not in ("HOME", "XDG_CACHE_HOME")}
    env |= {"HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"), "FAKES_TREG_BIN": ""}
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-rs", "-v",
                             *DOWNLOADING], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    outcomes = re.findall(r"^(tests/\S+)::\S+ (PASSED|FAILED|SKIPPED|ERROR)", output, re.M)
    assert {path for path, _ in outcomes} == set(DOWNLOADING), output
    assert {outcome for _, outcome in outcomes} == {"SKIPPED"}, output
    reasons = re.findall(r"^SKIPPED \[(\d+)\] \S+: (.*)$", output, re.M)
    assert sum(int(count) for count, _ in reasons) == len(outcomes), output
    assert all(f"{DOWNLOADS_ENV}=1" in reason for _, reason in reasons), output
    assert not any(home.iterdir()), f"a test wrote to the home directory: {list(home.rglob('*'))}"


def test_the_cache_is_the_checkouts_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DOWNLOADS_ENV, "1")
    monkeypatch.delenv(CACHE_ENV, raising=False)
    assert download_cache("node", "x") == ROOT / "build" / "test-downloads" / "node" == DEFAULT_CACHE / "node"
    monkeypatch.setenv(CACHE_ENV, "/tmp/elsewhere")
    assert download_cache("node", "x") == Path("/tmp/elsewhere/node")
    for path in DOWNLOADING:
        source = (ROOT / path).read_text()
        assert ".cache" not in source and "Path.home()" not in source, f"{path} caches in the home directory"


def test_the_cache_is_ignored_by_git_and_docker() -> None:
    ignored = subprocess.run(["git", "check-ignore", "-q", "build/test-downloads/node/x"], cwd=ROOT)
    assert ignored.returncode == 0, "build/test-downloads/ is not git-ignored"
    probe = ROOT / "build" / "test-downloads" / "probe.txt"
    probe.parent.mkdir(parents=True, exist_ok=True)
    probe.write_text("x")
    try:
        assert not any(rel.startswith("build/") for rel in context_files(ROOT)), "build/ is in the build context"
    finally:
        probe.unlink()


def test_ci_turns_downloads_on() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(rf"^export {DOWNLOADS_ENV}=\"\$\{{{DOWNLOADS_ENV}:-1\}}\"$", ci, re.M), ci
    assert ci.index(DOWNLOADS_ENV) < ci.index("\npytest -n 2"), "set before the tests run"
    assert os.environ.get(DOWNLOADS_ENV) in (None, "", "0", "1")
