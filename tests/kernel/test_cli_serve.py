"""`fakes serve` as a user runs it: a subprocess on free ports, stopped by a signal.

Written over the registry: every registered service that imports is served (a service still
being written is left out with --only until it imports).
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
from collections.abc import Sequence

import httpx
import pytest

from examples.notes import NotesFake
from examples.notes.model import NotesModel
from fakes import registry
from fakes.kernel.cli import build_parser, main, make_fakes
from fakes.kernel.fake import Fake
from tests.support.serving import (
    clean_env,
    fakes_command,
    free_port,
    free_port_block,
    get,
    health,
    parse_banner,
    ready_services,
    run,
    running,
)


def serve(*flags: str) -> list[str]:
    return [fakes_command(), "serve", *flags]


def only(names: Sequence[str]) -> list[str]:
    return ["--only", ",".join(names)] if names != registry.service_names() else []


def has_credentials(name: str) -> bool:
    return registry.fake_class(name).demo_credentials is not Fake.demo_credentials


def test_serve_prints_each_service_url_and_credentials_and_stops_on_ctrl_c() -> None:
    names = ready_services()
    first = free_port_block(len(names))
    flags_win = clean_env({"FAKES_SEED": "8", "FAKES_PORT": "1"})  # a flag wins over its variable
    with running(serve(*only(names), "--port", str(first), "--seed", "3"), flags_win) as server:
        text = server.wait_banner()
        assert text.splitlines()[0] == "contract-fakes: seed 3, clock real"
        banner = parse_banner(text)
        assert list(banner) == names
        for offset, (name, shown) in enumerate(banner.items()):
            assert shown["url"] == f"http://127.0.0.1:{first + offset}"
            assert shown["control"] == f"{shown['url']}/_fake/health"
            if has_credentials(name):
                assert shown["credentials"], f"{name} prints no demo credentials"
                assert all(shown["credentials"].values())
        server.wait_until_up([b["control"] for b in banner.values()])
        for name, shown in banner.items():
            assert health(shown["control"]) == {"service": name, "status": "ok"}
            assert shown["dashboard"] == f"{shown['url']}/_fake/ui"
            page = httpx.get(shown["dashboard"], timeout=10)
            assert page.status_code == 200 and "text/html" in page.headers["content-type"], page.text[:300]
        code, seconds = server.terminate(signal.SIGINT)  # Ctrl-C
        assert code == 0 and seconds < 5, server.describe()
        assert "Traceback" not in server.stderr


def test_serve_takes_every_setting_from_the_environment() -> None:
    name = ready_services()[0]
    port = free_port()
    env = clean_env({"FAKES_ONLY": name, "FAKES_PORT": str(port), "FAKES_SEED": "5", "FAKES_CLOCK": "scaled:60",
                     "FAKES_CONTROL_TOKEN": "s3cret", "FAKES_PREFIXES": f"{name}=/mounted",
                     "FAKES_JOURNAL_SIZE": "7", "FAKES_HOST": "127.0.0.1"})
    with running(serve(), env) as server:
        text = server.wait_banner()
        assert text.splitlines()[0] == "contract-fakes: seed 5, clock scaled:60, control token required"
        assert parse_banner(text)[name]["url"] == f"http://127.0.0.1:{port}/mounted"
        base = f"http://127.0.0.1:{port}"
        server.wait_until_up([f"{base}/_fake/health"])
        assert get(f"{base}/_fake/health").status_code == 401
        token = {"Authorization": "Bearer s3cret"}
        assert health(f"{base}/mounted/_fake/health", headers=token)["service"] == name
        clock = health(f"{base}/_fake/clock", headers=token)
        assert (clock["mode"], clock["scale"]) == ("scaled", 60.0)
        assert health(f"{base}/_fake/state", headers=token)["seed"] == 5
        assert health(f"{base}/_fake/journal", headers=token)["size"] == 7
        assert get(f"{base}/mounted/openapi.json").status_code == 200
        assert server.terminate()[0] == 0


def test_gateway_routes_by_path_prefix_and_by_host_header() -> None:
    names = ready_services()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with running(serve(*only(names), "--gateway", str(port)), clean_env()) as server:
        banner = parse_banner(server.wait_banner())
        assert {name: shown["url"] for name, shown in banner.items()} == {name: f"{base}/{name}" for name in names}
        server.wait_until_up([f"{base}/_fake/health"])

        for name in names:
            assert health(f"{base}/{name}/_fake/health")["service"] == name  # by path prefix
            document = health(f"{base}/{name}/openapi.json")
            assert "openapi" in document and "paths" in document
            for host in (name, f"{name}:{port}", f"{name}.localhost:{port}"):  # by Host header
                assert health(f"{base}/_fake/health", headers={"Host": host})["service"] == name
            assert get(f"{base}/openapi.json", headers={"Host": f"{name}.localhost"}).status_code == 200

        root = health(f"{base}/")
        assert root["service"] == "gateway"
        assert root["services"] == {name: f"/{name}" for name in names}
        assert health(f"{base}/_fake/health")["service"] == "gateway"  # the image's healthcheck in gateway mode
        missing = get(f"{base}/no-such-service/x")
        assert missing.status_code == 404
        assert set(missing.json()["services"]) == set(names)

        code, seconds = server.terminate()
        assert code == 0 and seconds < 5, server.describe()


@pytest.mark.parametrize("mode", ["--port", "--gateway"])
def test_a_busy_port_is_a_clear_error(mode: str) -> None:
    name = ready_services()[0]
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        result = run(serve("--only", name, mode, str(port)), clean_env())
    assert result.returncode == 2, result
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1, "one line, no traceback"


BAD_COMMAND_LINES = [
    pytest.param(["serve", "--no-such-flag"], {}, "unrecognized arguments: --no-such-flag", id="unknown-flag"),
    pytest.param(["serve", "--seed", "abc"], {}, "invalid int value: 'abc'", id="bad-seed"),
    pytest.param(["serve", "--port"], {}, "expected one argument", id="missing-value"),
    pytest.param(["serve", "--clock", "sideways"], {}, "unknown clock spec 'sideways'", id="bad-clock"),
    pytest.param(["serve"], {"FAKES_CLOCK": "scaled:0"}, "factor > 0", id="bad-clock-variable"),
    pytest.param(["serve", "--only", "nope"], {}, "unknown service 'nope'", id="unknown-service"),
    pytest.param(["serve"], {"FAKES_ONLY": "nope"}, "unknown service 'nope'", id="unknown-service-variable"),
    pytest.param(["serve", "--set", "oops"], {}, "--set takes SERVICE.KEY=VALUE", id="bad-set"),
    pytest.param(["serve", "--set", "nope.x=1"], {}, "unknown service 'nope'", id="set-unknown-service"),
    pytest.param(["serve", "--prefix", "nopath"], {}, "--prefix takes SERVICE=/path", id="bad-prefix"),
    pytest.param(["no-such-command"], {}, "invalid choice: 'no-such-command'", id="unknown-command"),
    # issue 23, item 14: each of these used to end in a traceback, or was silently ignored
    pytest.param(["serve", "--port", "-1"], {}, "argument --port: a port is from 1 to 65535, got -1",
                 id="port-negative"),
    pytest.param(["serve", "--port", "70000"], {}, "a port is from 1 to 65535, got 70000", id="port-too-high"),
    pytest.param(["serve"], {"FAKES_PORT": "70000"}, "a port is from 1 to 65535", id="port-variable"),
    pytest.param(["serve", "--port", "65534"], {}, "puts 5 services on ports 65534-65538, past 65535",
                 id="ports-do-not-fit"),
    pytest.param(["serve", "--gateway", "70000"], {}, "argument --gateway: a port is from 1 to 65535", id="gateway"),
    pytest.param(["serve", "--log-level", "loud"], {}, "'loud' is not a log level", id="log-level"),
    pytest.param(["serve"], {"FAKES_FILINGS_NOPE": "1"}, "filings has no setting 'nope' (environment variable "
                 "FAKES_FILINGS_NOPE)", id="unknown-setting-variable"),
    pytest.param(["serve"], {"FAKES_MEMBER_EXPORT_NOPE": "1"}, "member-export has no setting 'nope'",
                 id="unknown-setting-variable-dashed"),
]


@pytest.mark.parametrize(("argv", "env", "message"), BAD_COMMAND_LINES)
def test_bad_flags_and_variables_exit_2_with_a_message(
        argv: list[str], env: dict[str, str], message: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    for name in [n for n in os.environ if n.startswith("FAKES_")]:
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.startswith(("fakes: error: ", "usage: fakes")), err


@pytest.mark.parametrize(("argv", "env"), [
    pytest.param(["serve", "--no-such-flag"], {}, id="bad-flag"),
    pytest.param(["serve"], {"FAKES_CLOCK": "sideways"}, id="bad-variable"),
    pytest.param(["serve", "--port", "-1"], {}, id="port-negative"),
    pytest.param(["serve", "--port", "65534"], {}, id="ports-do-not-fit"),
    pytest.param(["serve", "--gateway", "70000"], {}, id="gateway"),
    pytest.param(["serve", "--log-level", "loud"], {}, id="log-level"),
    pytest.param(["serve"], {"FAKES_FILINGS_NOPE": "1"}, id="unknown-setting-variable"),
])
def test_the_command_exits_non_zero_on_a_bad_flag_or_variable(argv: list[str], env: dict[str, str]) -> None:
    result = run([fakes_command(), *argv], clean_env(env))
    assert result.returncode == 2, result
    assert "Traceback" not in result.stderr and "error:" in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1, "one line"


def test_an_address_that_is_not_this_machines_is_named_as_such() -> None:
    result = run([fakes_command(), "serve", "--only", ready_services()[0], "--host", "192.0.2.1",
                  "--port", str(free_port())], clean_env())  # TEST-NET-1: never a local address
    assert result.returncode == 2, result
    assert "the address is not available on this machine" in result.stderr, result.stderr
    assert "another process" not in result.stderr and result.stderr.count("\n") == 1


def test_a_setting_variable_of_a_known_setting_is_still_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    from fakes.kernel.cli import check_setting_variables

    check_setting_variables({"FAKES_FILINGS_SCALE": "small", "FAKES_MAX_WORLDS": "3", "FAKES_ONLY": "filings",
                             "PATH": "/bin"})
    with pytest.raises(Exception, match="no setting 'scal'"):
        check_setting_variables({"FAKES_FILINGS_SCAL": "small"})


class LateCheckingNotes(NotesFake):
    """A service that checks a setting only when it builds its model (as a catalogue scale is)."""

    def create_model(self) -> NotesModel:
        if self.settings.max_text > 10_000:
            raise ValueError("max_text above 10000 would not fit a page")
        return super().create_model()


@pytest.mark.parametrize(("argv", "env", "message"), [
    pytest.param(["--set", "notes.build_seconds=-1"], {}, "notes: build times must be whole seconds >= 0",
                 id="checked-setting"),
    pytest.param([], {"FAKES_NOTES_MAX_TEXT": "0"}, "notes: max_text must be >= 1", id="checked-variable"),
    pytest.param(["--set", "notes.build_seconds=soon"], {}, "cannot read 'soon' as int", id="wrong-type"),
    pytest.param(["--set", "notes.colour=red"], {}, "notes has no setting 'colour'", id="unknown-setting"),
    pytest.param(["--set", "late.max_text=20000"], {}, "late: bad setting: max_text above 10000", id="model-check"),
])
def test_a_bad_setting_is_one_line_and_exit_2(
        argv: list[str], env: dict[str, str], message: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(registry.SERVICES, "notes", "examples.notes:NotesFake")
    monkeypatch.setitem(registry.SERVICES, "late", f"{__name__}:LateCheckingNotes")
    for name in [n for n in os.environ if n.startswith("FAKES_")]:
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    service = "late" if "late." in " ".join(argv) else "notes"
    assert main(["serve", "--only", service, "--port", str(free_port()), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fakes: error: ") and message in err, err
    assert err.count("\n") == 1, err


def test_the_kernel_cli_has_no_service_specific_flag() -> None:
    subcommands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    flags = [flag for sub in subcommands.choices.values() for action in sub._actions for flag in action.option_strings]
    for name in registry.service_names():
        assert not [flag for flag in flags if name in flag], f"a kernel flag names {name}"


def test_a_reader_that_stops_early_gets_no_traceback() -> None:
    # `fakes openapi NAME | head`: the reader leaves after one line, and the rest of the document
    # (indented, far beyond a pipe's 64 KiB) meets a closed pipe
    name = ready_services()[0]
    with subprocess.Popen([fakes_command(), "openapi", name], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          env=clean_env()) as process:
        assert process.stdout is not None and process.stderr is not None
        assert process.stdout.readline() == b"{\n"
        process.stdout.close()
        code = process.wait(timeout=60)
        err = process.stderr.read().decode()
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert code == 0, (code, err)


@pytest.mark.parametrize("clock", ["real", "scaled:60", "manual"])
def test_each_served_fake_has_a_clock_of_its_own(clock: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # what `fakes serve` (and so each container) builds, with --port or --gateway alike
    monkeypatch.setitem(registry.SERVICES, "notes", "examples.notes:NotesFake")
    monkeypatch.setitem(registry.SERVICES, "notes2", "examples.notes:NotesFake")
    fakes = make_fakes(["notes", "notes2"], seed=0, clock=clock)
    first, second = fakes["notes"], fakes["notes2"]
    assert first.clock is not second.clock
    before = second.clock.now_ms()
    first.advance(86_400)
    first.reset()
    assert before <= second.clock.now_ms() < before + 86_400_000
