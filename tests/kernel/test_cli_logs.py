"""`fakes --version`, `--log-requests` (FAKES_LOG_REQUESTS), `--log-level` (each level), and
`fakes serve --help` naming each flag's environment variable."""

from __future__ import annotations

import re
from importlib.metadata import version
from pathlib import Path

import httpx
import pytest

from fakes import create_fake
from fakes.kernel import requestlog
from fakes.kernel.cli import build_parser, main, serve_variable
from tests.support.serving import clean_env, fakes_command, free_port, run, running

SERVICE = "member-export"
REQUEST_LINE = re.compile(r"^\d\d:\d\d:\d\d\.\d{3} (?P<service>\S+) (?P<world>\S+) (?P<method>[A-Z]+) "
                          r"(?P<target>\S+) (?P<status>\d{3}) (?P<ms>\d+\.\d\d)ms$")


def test_version() -> None:
    result = run([fakes_command(), "--version"], clean_env())
    assert result.returncode == 0 and result.stdout.strip() == f"fakes {version('contract-fakes')}"


@pytest.mark.parametrize(("flags", "env"), [(["--log-requests"], {}), ([], {"FAKES_LOG_REQUESTS": "1"}),
                                            (["--log-level", "debug"], {})])
def test_one_line_per_request(flags: list[str], env: dict[str, str]) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    command = [fakes_command(), "serve", "--only", SERVICE, "--port", str(port), "--clock", "manual", *flags]
    with running(command, clean_env(env)) as server:
        server.wait_banner()
        server.wait_until_up([f"{base}/_fake/health"])
        httpx.get(f"{base}/rest/memberSnapshotData?q=criteria&access_token=s3cret", trust_env=False)
        httpx.post(f"{base}/_w/job-7/rest/memberAuthorizations", trust_env=False)
        assert server.terminate()[0] == 0
        out = server.stdout
    lines = [m for m in map(REQUEST_LINE.match, out.splitlines()) if m]
    assert [(m["service"], m["world"], m["method"], m["target"], m["status"]) for m in lines] == [
        (SERVICE, "-", "GET", "/rest/memberSnapshotData?q=criteria&access_token=[redacted]", "426"),
        (SERVICE, "job-7", "POST", "/rest/memberAuthorizations", "426"),
    ]
    assert "s3cret" not in out


def test_no_request_lines_by_default_and_trace_shows_asgi_messages() -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    command = [fakes_command(), "serve", "--only", SERVICE, "--port", str(port), "--log-level", "trace"]
    with running(command, clean_env()) as server:
        server.wait_banner()
        server.wait_until_up([f"{base}/_fake/health"])
        httpx.get(f"{base}/rest/memberSnapshotData", trust_env=False)
        assert server.terminate()[0] == 0
        assert "ASGI [" in server.stderr and "HTTP connection made" in server.stderr
        assert any(REQUEST_LINE.match(line) for line in server.stdout.splitlines())
    fake = create_fake(SERVICE)
    fake.client().get("/rest/memberSnapshotData")  # in process nothing is logged unless enabled
    assert requestlog.active is None


def test_the_request_log_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    fake = create_fake(SERVICE)
    requestlog.enable()
    try:
        fake.world("w1").client().get("/rest/memberSnapshotData", params={"client_secret": "x"})
    finally:
        requestlog.disable()
    line = capsys.readouterr().out.strip()
    match = REQUEST_LINE.match(line)
    assert match and match["world"] == "w1" and match["target"].endswith("client_secret=[redacted]"), line


@pytest.mark.parametrize("level", ["loud", "DEBUGGING"])
def test_a_bad_log_level_is_one_line(level: str, capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--log-level", level])
    assert exited.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1
    monkeypatch.setenv("FAKES_LOG_LEVEL", level)
    with pytest.raises(SystemExit) as exited:
        main(["serve"])
    assert exited.value.code == 2 and "is not a log level" in capsys.readouterr().err


def test_bad_switch_variables_are_one_line(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKES_LOG_REQUESTS", "perhaps")
    assert main(["serve", "--only", SERVICE, "--port", str(free_port())]) == 2
    assert capsys.readouterr().err.strip() == \
        "fakes: error: FAKES_LOG_REQUESTS must be one of 1, true, yes, on or 0, false, no, off, got 'perhaps'"


def test_serve_help_names_every_flags_variable() -> None:
    serve = build_parser()._subparsers._group_actions[0].choices["serve"]  # type: ignore[union-attr]
    source = (Path(__file__).resolve().parents[2] / "fakes" / "kernel" / "cli.py").read_text()
    read = set(re.findall(r"_(?:list_)?env\(\"(FAKES_[A-Z_]+)\"", source))
    named = set()
    for action in serve._actions:
        if action.dest == "help":
            continue
        variable = serve_variable(action.dest)
        assert variable and action.help and action.help.endswith(f"[env: {variable}]"), action.option_strings
        named.add(variable)
    assert named - {"FAKES_<SERVICE>_<KEY>"} == read  # each named variable is the one the flag reads
    text = serve.format_help()
    for variable in named:
        assert variable in re.sub(r"\s+", " ", text), variable
