"""`fakes serve --state DIR` / `--save-state DIR` (FAKES_STATE, FAKES_SAVE_STATE): the states of
the fakes and their worlds saved on stop and loaded at start, a bad file refused in one line."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import httpx
import pytest

from fakes import create_fake, registry
from fakes.kernel.cli import main
from fakes.kernel.statedir import StateFileError, load_states, save_states
from tests.support.serving import clean_env, fakes_command, free_port, parse_banner, running

SERVICE = "member-export"


def state_of(base: str) -> dict[str, object]:
    answer = httpx.get(f"{base}/_fake/state", trust_env=False, timeout=10)
    assert answer.status_code == 200, answer.text
    body: dict[str, object] = answer.json()
    return body


def test_states_saved_on_stop_are_loaded_at_the_next_start(tmp_path: Path) -> None:
    directory = tmp_path / "state"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = clean_env({"FAKES_SAVE_STATE": str(directory)})
    command = [fakes_command(), "serve", "--only", SERVICE, "--port", str(port), "--clock", "manual"]
    with running(command, env) as server:
        server.wait_banner()
        server.wait_until_up([f"{base}/_fake/health"])
        member = httpx.post(f"{base}/_fake/members", json={"region": "DE"}, trust_env=False).json()
        httpx.post(f"{base}/_w/job-1/_fake/members", json={"region": "FR"}, trust_env=False)
        httpx.post(f"{base}/_fake/clock", json={"advance_seconds": 3600}, trust_env=False)
        before, world_before = state_of(base), state_of(f"{base}/_w/job-1")
        code, _ = server.terminate(signal.SIGTERM)
        assert code == 0, server.describe()
        assert f"states saved to {directory}: {SERVICE}, {SERVICE}/worlds/job-1" in server.stdout
    assert json.loads((directory / f"{SERVICE}.json").read_text()) == before
    assert json.loads((directory / SERVICE / "worlds" / "job-1.json").read_text()) == world_before
    assert not [p for p in directory.rglob(".*")]  # no temporary file left

    gateway = free_port()
    restart = [fakes_command(), "serve", "--only", SERVICE, "--gateway", str(gateway), "--clock", "manual"]
    with running(restart, clean_env({"FAKES_STATE": str(directory)})) as server:
        banner = server.wait_banner()
        assert f"state loaded from {directory}: {SERVICE}, {SERVICE}/worlds/job-1" in banner
        shown = parse_banner(banner)[SERVICE]
        assert "access_token" not in shown["credentials"] and shown["credentials"]["state"].startswith("loaded")
        routed = f"http://127.0.0.1:{gateway}/{SERVICE}"
        server.wait_until_up([f"{routed}/_fake/health"])
        assert state_of(routed) == before
        assert state_of(f"{routed}/_w/job-1") == world_before
        assert httpx.get(f"{routed}/_fake/members/{member['id']}", trust_env=False).status_code == 200
        assert server.terminate()[0] == 0


def bad_start(tmp_path: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> str:
    code = main(["serve", "--only", SERVICE, "--port", str(free_port()), *flags])
    captured = capsys.readouterr()
    assert code == 2, captured
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    return lines[0]


def exported(**changes: object) -> dict[str, object]:
    fake = create_fake(SERVICE, clock="real")
    fake.create_member(region="DE")
    return {**fake.export_state(), **changes}


def test_a_bad_state_file_is_one_line_naming_the_file_and_the_field(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / f"{SERVICE}.json"
    target.write_text(json.dumps(exported(seed=9)))
    assert bad_start(tmp_path, capsys, "--state", str(tmp_path)) == \
        f"fakes: error: {target}: field seed: differs from this fake's seed 0"
    state = exported()
    state["model"]["members"][0]["region"] = 7  # type: ignore[index]
    target.write_text(json.dumps(state))
    line = bad_start(tmp_path, capsys, "--state", str(tmp_path))
    assert line.startswith(f"fakes: error: {target}: field model.members[0].region: ")
    target.write_text("{not json")
    assert bad_start(tmp_path, capsys, "--state", str(tmp_path)).startswith(f"fakes: error: {target}: not JSON")
    target.write_text(json.dumps(exported(settings={"page_size": 3})))
    assert "field settings.page_size" in bad_start(tmp_path, capsys, "--state", str(tmp_path))


def test_a_bad_state_directory_is_refused_before_serving(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "not a directory" in bad_start(tmp_path, capsys, "--state", str(tmp_path / "missing"))
    (tmp_path / "billing.json").write_text("{}")
    assert "'billing' is not a service; known: " in bad_start(tmp_path, capsys, "--state", str(tmp_path))
    (tmp_path / "billing.json").unlink()
    world = tmp_path / SERVICE / "worlds" / "no way!.json"
    world.parent.mkdir(parents=True)
    world.write_text("{}")
    assert "not a world's state file" in bad_start(tmp_path, capsys, "--state", str(tmp_path))
    world.unlink()
    (world.parent / "job.json").write_text(json.dumps(exported(service="filings")))
    assert "field service: this state belongs to 'filings'" in bad_start(tmp_path, capsys, "--state", str(tmp_path))


def test_an_unwritable_save_directory_is_refused_at_start(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("")  # a directory cannot be made below a file, whoever runs the test
    assert "cannot write there" in bad_start(tmp_path, capsys, "--save-state", str(blocked / "state"))


def test_saving_again_replaces_files_and_forgets_deleted_worlds(tmp_path: Path) -> None:
    fake = create_fake(SERVICE)
    fake.world("a")
    fake.world("b")
    assert save_states({SERVICE: fake}, tmp_path) == [SERVICE, f"{SERVICE}/worlds/a", f"{SERVICE}/worlds/b"]
    assert fake.worlds is not None and fake.worlds.delete("a")
    fake.world("b").create_member(region="DE")
    save_states({SERVICE: fake}, tmp_path)
    assert sorted(p.name for p in (tmp_path / SERVICE / "worlds").iterdir()) == ["b.json"]
    again = create_fake(SERVICE)
    assert load_states({SERVICE: again}, tmp_path, registry.service_names()) == [SERVICE, f"{SERVICE}/worlds/b"]
    assert again.world("b").export_state() == fake.world("b").export_state()
    with pytest.raises(StateFileError, match="is not a service"):
        load_states({SERVICE: again}, tmp_path, ["filings"])


def test_a_state_of_a_service_not_served_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "filings.json").write_text("{}")  # not read at all: filings is not served
    fake = create_fake(SERVICE)
    assert load_states({SERVICE: fake}, tmp_path, registry.service_names()) == []
