"""The real relay's command-line client (``tools-registry``, command ``treg``) against the fake with
``header_prefix=X-Treg``: ``call``, ``catalog search``, ``catalog get`` and ``balance``.

The client needs Python >= 3.12 (the project runs on 3.11), so the test looks for such a Python
(``FAKES_TREG_PYTHON``, ``python3.12``/``python3.13`` on PATH, pyenv versions) and installs the
client from PyPI once, only when downloads are allowed (``FAKES_TEST_DOWNLOADS=1``, which
``.ci/run`` sets), into a virtual environment cached in the checkout's
``build/test-downloads/tools-registry`` (``FAKES_TEST_CACHE`` moves the root;
tests/support/downloads.py); ``FAKES_TREG_BIN`` points at a ready ``treg`` instead (no download).
Without a Python >= 3.12, with downloads off, or when the client cannot be installed (offline),
it skips and says why.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from fakes.relay import RelayFake
from tests.support.downloads import download_cache

CLIENT = "tools-registry==0.27.0"


def _python_312() -> str | None:
    candidates = [os.environ.get("FAKES_TREG_PYTHON", "")]
    candidates += [shutil.which(name) or "" for name in ("python3.14", "python3.13", "python3.12")]
    for root in ("/root/.pyenv/versions", os.path.expanduser("~/.pyenv/versions")):
        candidates += sorted(glob.glob(f"{root}/3.1[2-9]*/bin/python"), reverse=True)
    for candidate in candidates:
        if not candidate or not os.path.exists(candidate):
            continue
        probe = subprocess.run([candidate, "-c", "import sys; print(sys.version_info >= (3, 12))"],
                               capture_output=True, text=True)
        if probe.stdout.strip() == "True":
            return candidate
    return None


def _treg() -> str:
    given = os.environ.get("FAKES_TREG_BIN")
    if given:
        return given
    venv = download_cache("tools-registry", f"{CLIENT} from PyPI into a virtual environment (about 90 MB)")
    python = _python_312()
    if python is None:
        pytest.skip("the relay's command-line client (tools-registry) needs Python >= 3.12 and none was found "
                    "(set FAKES_TREG_PYTHON or FAKES_TREG_BIN)")
    treg = venv / "bin" / "treg"
    if not treg.exists():
        made = subprocess.run([python, "-m", "venv", str(venv)], capture_output=True, text=True, timeout=120)
        installed = made.returncode == 0 and subprocess.run(
            [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--retries", "0", "--timeout", "10", CLIENT],
            capture_output=True, text=True, timeout=300).returncode == 0
        if not installed or not treg.exists():
            shutil.rmtree(venv, ignore_errors=True)
            pytest.skip(f"could not install {CLIENT} for {python} (offline?)")
    return str(treg)


def cli(url: str, token: str, home: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """``run(*args)``: the official client run with ``args`` against ``url`` as the team of ``token``."""
    treg = _treg()
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "TREG_URL": url, "TREG_TOKEN": token,
           "TREG_TELEMETRY": "0", "NO_COLOR": "1", "POSTHOG_DISABLED": "1"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([treg, *args], capture_output=True, text=True, timeout=60, env=env)

    return run


def test_the_official_cli_calls_searches_gets_and_reads_the_balance(tmp_path: Path) -> None:
    _treg()
    fake = RelayFake(header_prefix="X-Treg", clock="real")
    token = fake.demo_credentials()["token"]
    with fake.serve() as url:
        run = cli(url, token, tmp_path)
        called = run("call", "treg.people.email.find", "-p", "domain=northwind.com", "-p", "first_name=Ada",
                     "-p", "last_name=Lovelace")
        assert called.returncode == 0, called.stdout + called.stderr
        assert "ada.lovelace@northwind.com" in called.stdout
        assert "$0.0089" in called.stderr  # the client reports the charge from X-Treg-Cost-Micro
        searched = run("catalog", "search", "work", "email", "find")
        assert searched.returncode == 0 and "mailscout.people.email.find" in searched.stdout, searched.stderr
        got = run("catalog", "get", "mailscout.people.email.find")
        assert got.returncode == 0 and "$0.0089" in got.stdout and "domain" in got.stdout, got.stderr
        balance = run("balance")
        assert balance.returncode == 0 and "991100" in balance.stdout, balance.stdout + balance.stderr
    assert fake.team_info("team_1")["balance_micro"] == 1_000_000 - 8_900


def test_the_official_cli_logs_in_creates_a_team_uploads_a_key_and_calls_unbilled(tmp_path: Path) -> None:
    """``treg login`` (the browser's approval done through the control plane), ``treg org create``,
    ``treg upload env`` (a key from a project's .env, matched against ``/providers.json``), then the
    next call of that provider is served on the team's own key: unbilled."""
    import time

    treg = _treg()
    fake = RelayFake(header_prefix="X-Treg", clock="real")
    with fake.serve() as url:
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "TREG_URL": url, "TREG_TELEMETRY": "0",
               "NO_COLOR": "1", "POSTHOG_DISABLED": "1", "BROWSER": "true"}

        def run(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run([treg, *args], capture_output=True, text=True, timeout=90, env=env,
                                  stdin=subprocess.DEVNULL)

        assert run("config", "--base-url", url).returncode == 0  # treg login talks to the configured registry
        login = subprocess.Popen([treg, "login"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                 stdin=subprocess.DEVNULL)
        try:
            pending: list[dict[str, object]] = []
            for _ in range(100):
                pending = fake.pending_logins()
                if pending:
                    break
                time.sleep(0.05)
            assert pending, "treg login never started a login"
            fake.approve_login(str(pending[0]["login_id"]), "ada@northwind.com")
            out, err = login.communicate(timeout=60)
        finally:
            login.kill()
        assert login.returncode == 0 and "Logged in as ada@northwind.com" in out, out + err
        created = run("org", "create", "Northwind Data")
        assert created.returncode == 0 and '"org": "northwind-data"' in created.stdout, created.stdout + created.stderr
        project = tmp_path / "project"
        project.mkdir()
        (project / ".env").write_text("MAILSCOUT_API_KEY=ms-live-123\n")
        uploaded = run("upload", "env", "--dir", str(project), "--all")
        assert uploaded.returncode == 0 and "Registered 1/1 tools" in uploaded.stdout, uploaded.stdout
        searched = run("catalog", "search", "work", "email", "find")
        assert searched.returncode == 0 and "mailscout.people.email.find" in searched.stdout, searched.stderr
        called = run("call", "mailscout.people.email.find", "-p", "domain=northwind.com", "-p", "first_name=Ada",
                     "-p", "last_name=Lovelace")
        assert called.returncode == 0 and "ada.lovelace@northwind.com" in called.stdout, called.stdout + called.stderr
        assert "charged" not in called.stderr  # the uploaded key served it: nothing metered
        balance = run("balance")
        assert balance.returncode == 0 and "1000000 micro-USD" in balance.stdout, balance.stdout + balance.stderr
    team = fake.model.accounts.by_slug["northwind-data"]
    assert team.tools == {"mailscout": "ms-live-123"}  # rung 1: the uploaded key, on its provider's host
    record = fake.model.calls.of_team(team.team_id, 1)[0]
    assert record["credential"] == "own_tool" and record["user_email"] == "ada@northwind.com"
