"""The command lines: `fakes conform | record | replay` (flags, files, exit statuses)."""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import httpx
import pytest

from fakes.kernel.cli import main
from fakes.kernel.server import ServerThread
from tests.support.serving import clean_env, fakes_command, running

from .drift import Drifted
from .test_conform import PLANTED, PLANTS, SMALL, key_of, stand_in


@pytest.mark.parametrize(("argv", "message"), [
    (["conform", "filings"], "the following arguments are required: --real-url"),
    (["conform", "nope", "--real-url", "http://x"], "unknown service 'nope'"),
    (["conform", "filings", "--real-url", "ftp://x"], "--real-url must be an http(s) URL"),
    (["conform", "filings", "--real-url", "http://x", "--max-calls", "0"], "--max-calls: must be >= 1"),
    (["conform", "filings", "--real-url", "http://x", "--max-wait", "soon"], "--max-wait: must be a number"),
    (["conform", "filings", "--real-url", "http://x", "--set", "nope=1"], "filings has no setting 'nope'"),
    (["conform", "filings", "--real-url", "http://x", "--set", "scale"], "--set takes NAME=VALUE"),
    (["conform", "filings", "--real-url", "http://x", "--scenarios", "video-webhooks"], "unknown scenario"),
    (["conform", "filings", "--real-url", "http://x", "--credentials", "/nowhere.json"], "cannot read --credentials"),
    (["conform", "filings", "--real-url", "http://x", "--baseline", "/nowhere.json"], "cannot read --baseline"),
    (["conform", "filings", "--real-url", "http://x", "--document", "/nowhere.yaml", "--set", "scale=small"],
     "cannot read the document"),
    (["record", "video", "--upstream", "http://x"], "the following arguments are required: --cassette"),
    (["record", "video", "--upstream", "x", "--cassette", "c.jsonl"], "--upstream must be an http(s) URL"),
    (["record", "video", "--upstream", "http://x", "--cassette", "c", "--port", "70000"], "a port is from 0"),
    (["replay", "/nowhere.jsonl"], "cannot read the cassette"),
    (["replay"], "the following arguments are required: cassette"),
    (["conform", "filings", "--real-url", "http://x", "--bogus"], "unrecognized arguments: --bogus"),
])
def test_a_bad_command_line_is_one_line_and_exit_2(argv: list[str], message: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        code = main(argv)
        raise SystemExit(code)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err, err


def test_credentials_come_from_the_environment_and_a_missing_variable_is_named(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from fakes.conform.cli import read_credentials

    path = tmp_path / "credentials.json"
    path.write_text(json.dumps({"api_key": "env:CONFORM_TEST_KEY", "user": "plain"}))
    monkeypatch.setenv("CONFORM_TEST_KEY", "from-the-environment")
    assert read_credentials(str(path)) == {"api_key": "from-the-environment", "user": "plain"}
    monkeypatch.delenv("CONFORM_TEST_KEY")
    assert main(["conform", "filings", "--real-url", "http://x", "--credentials", str(path)]) == 2
    assert "names the environment variable CONFORM_TEST_KEY, which is not set" in capsys.readouterr().err


def test_fakes_help_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert all(name in out for name in ("conform", "record", "replay"))


def test_conform_writes_its_reports_and_a_baseline_silences_known_drift(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with stand_in(*PLANTS, **SMALL) as (fake, url):
        credentials = tmp_path / "credentials.json"
        credentials.write_text(json.dumps({"api_key": key_of(fake)}))
        argv = ["conform", "filings", "--real-url", url, "--credentials", str(credentials), "--set", "scale=small",
                "--stand-in", "--max-calls", "500", "--scenarios", "filings-incremental-sync", "--quiet"]
        code = main([*argv, "--json", str(tmp_path / "report.json"), "--junit", str(tmp_path / "junit.xml"),
                     "--markdown", str(tmp_path / "report.md")])
        out = capsys.readouterr().out
        assert code == 1, out
        assert "DIFFERS GET /languages/{id}/: real 400, fake 200" in out
        report = json.loads((tmp_path / "report.json").read_text())
        found = {d["key"] for op in report["operations"] for d in op.get("differences", [])}
        assert found == PLANTED
        assert {s["scenario"]: s["real"] for s in report["scenarios"]} == {"filings-incremental-sync": "passed"}
        assert ET.parse(tmp_path / "junit.xml").getroot().find("testsuite") is not None
        assert (tmp_path / "report.md").read_text().startswith("# Is the fake still right? `filings`")
        for name in ("report.json", "junit.xml", "report.md"):
            assert key_of(fake) not in (tmp_path / name).read_text()
    # the next night: the same drift, known now (a fresh stand-in: the first run moved the clock of
    # its "real" service an hour on, and new filings would be still processing there)
    with stand_in(*PLANTS, **SMALL) as (fake, url):
        credentials.write_text(json.dumps({"api_key": key_of(fake)}))
        argv[3] = url
        code = main([*argv, "--baseline", str(tmp_path / "report.json"), "--json", "-"])
        printed = json.loads(capsys.readouterr().out)
    assert code == 0 and printed["new_differences"] == 0 and printed["baseline"] == str(tmp_path / "report.json")


def test_conform_against_nothing_listening_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with ServerThread([(Drifted(None), "127.0.0.1", 0)]) as [(host, port)]:
        pass
    assert main(["conform", "filings", "--real-url", f"http://{host}:{port}", "--set", "scale=small", "--quiet"]) == 2
    assert "cannot reach --real-url" in capsys.readouterr().err


def test_record_serves_a_proxy_until_stopped_and_replay_reads_its_cassette(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cassette = tmp_path / "session.jsonl"
    with stand_in(service="video") as (fake, url), running(
            [fakes_command(), "record", "video", "--upstream", url, "--cassette", str(cassette)], clean_env()) as proxy:
        deadline = time.monotonic() + 60
        while not (found := re.search(r"recording video: (http://\S+) ", proxy.stdout)):
            assert proxy.proc.poll() is None and time.monotonic() < deadline, proxy.describe()
            time.sleep(0.05)
        with httpx.Client(base_url=found.group(1), headers=fake.auth_headers()) as client:
            assert client.get("/videos").status_code == 200
            created = client.post("/videos", json={"title": "through the proxy"})
            assert created.status_code == 201
            assert client.get(f"/videos/{created.json()['videoId']}").status_code == 200
        code, _ = proxy.terminate(signal.SIGTERM)
        assert code == 0, proxy.describe()
        assert "recorded 3 exchanges" in proxy.stdout
    assert main(["replay", str(cassette)]) == 0
    assert "3 of 3 exchanges replayed, 0 differences" in capsys.readouterr().out
    assert main(["replay", str(cassette), "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["differences"] == 0
    assert main(["replay", str(cassette), "--pytest", str(tmp_path / "test_session.py")]) == 0
    assert (tmp_path / "test_session.py").read_text().count("replay_cassette(CASSETTE") == 1
    capsys.readouterr()
    assert main(["replay", str(cassette), "--set", "nope=1"]) == 2
    assert "video has no setting 'nope'" in capsys.readouterr().err


def test_python_m_fakes_runs_conform_too() -> None:
    import subprocess

    done = subprocess.run([sys.executable, "-m", "fakes", "conform", "--help"], capture_output=True, text=True,
                          env={**os.environ}, timeout=120)
    assert done.returncode == 0 and "--max-calls N" in done.stdout


def documented_lines() -> list[tuple[str, str]]:
    from tests.test_docs import PAGES, documented_commands

    assert PAGES
    return [(page, line) for page, line in documented_commands("fakes")
            if line.split()[1] in ("conform", "record", "replay")]


@pytest.mark.parametrize(("page", "line"), documented_lines())
def test_documented_conform_record_and_replay_commands_parse(page: str, line: str) -> None:
    """The kernel's parser hands these lines on whole: each parses with its own command's parser."""
    import shlex

    from fakes.conform.cli import conform_parser, record_parser, replay_parser

    words = shlex.split(line)
    parser = {"conform": conform_parser, "record": record_parser, "replay": replay_parser}[words[1]]()
    try:
        parser.parse_args(words[2:])
    except SystemExit as exc:
        pytest.fail(f"{page}: `{line}` does not parse (exit {exc.code})")


def test_the_conformance_page_documents_every_flag() -> None:
    from fakes.conform.cli import conform_parser, record_parser, replay_parser

    page = (Path(__file__).resolve().parents[2] / "docs" / "conformance.md").read_text()
    for parser in (conform_parser(), record_parser(), replay_parser()):
        for action in parser._actions:
            for flag in action.option_strings:
                if flag.startswith("--") and flag != "--help":
                    assert f"`{flag}" in page, f"docs/conformance.md does not document {parser.prog} {flag}"
