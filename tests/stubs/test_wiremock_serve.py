"""`fakes serve --wiremock-mappings` and `--state` with stubs, as a user runs them: one command moves a
team's WireMock stubs over; a bad folder is one line and exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from fakes import create_fake
from fakes.kernel.cli import main
from tests.support.serving import clean_env, fakes_command, free_port, run, running

FOLDER = Path(__file__).parent / "wiremock"
SERVICE = "member-export"


def test_serve_loads_mappings_and_a_state_with_stubs(tmp_path: Path) -> None:
    fake = create_fake(SERVICE)
    fake.stub("GET", "/vendor/shipped-last-week", response={"json": {"new": True}})
    (tmp_path / f"{SERVICE}.json").write_text(json.dumps(fake.export_state()))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    command = [fakes_command(), "serve", "--only", SERVICE, "--port", str(port), "--clock", "manual",
               "--state", str(tmp_path)]
    with running(command, clean_env({"FAKES_WIREMOCK_MAPPINGS": str(FOLDER)})) as server:
        banner = server.wait_banner()
        assert f"wiremock mappings from {FOLDER}: " in banner and "refused not-json.json: not a JSON file" in banner
        server.wait_until_up([f"{base}/_fake/health"])
        assert httpx.get(f"{base}/vendor/shipped-last-week", trust_env=False).json() == {"new": True}
        assert httpx.get(f"{base}/admin/users/u1", trust_env=False).json() == {"id": "u1", "name": "User u1"}
        listed = httpx.get(f"{base}/_fake/stubs", trust_env=False).json()["stubs"]
        assert listed[0]["id"] == "s1" and len(listed) > 15  # the state's stub, then the mappings
        assert server.terminate()[0] == 0


@pytest.mark.parametrize(("flag", "message"), [
    ("nowhere", "--wiremock-mappings nowhere: not a folder"),
    ("nosuch=.", "unknown service 'nosuch'"),
    (f"video={FOLDER}", "video is not served (--only)"),
])
def test_a_bad_mappings_folder_is_one_line_and_exit_2(flag: str, message: str, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FAKES_WIREMOCK_MAPPINGS", raising=False)
    code = main(["serve", "--only", SERVICE, "--port", str(free_port()), "--wiremock-mappings", flag])
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith("fakes: error: ") and err.count("\n") == 1


def test_a_folder_of_no_mapping_is_refused_by_the_command(tmp_path: Path) -> None:
    result = run([fakes_command(), "serve", "--only", SERVICE, "--port", str(free_port()),
                  "--wiremock-mappings", str(tmp_path)], clean_env())
    assert result.returncode == 2 and "holds no .json mapping files" in result.stderr
    assert result.stderr.count("\n") == 1
