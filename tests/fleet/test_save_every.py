"""`fakes serve --save-state-every S` (FAKES_SAVE_STATE_EVERY): what changed is saved while serving,
so that a killed process (SIGKILL) comes back with its worlds; a SIGTERM still saves everything."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import httpx
import pytest

from fakes import create_fake
from fakes.kernel.autosave import IncrementalSaver
from fakes.kernel.cli import main
from tests.support.serving import clean_env, fakes_command, free_port, running

SERVICE = "member-export"


def get_state(base: str) -> dict[str, object]:
    answer = httpx.get(f"{base}/_fake/state", trust_env=False, timeout=10)
    assert answer.status_code == 200, answer.text
    body: dict[str, object] = answer.json()
    return body


def wait_for_file(path: Path, expected: dict[str, object], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not (path.is_file() and json.loads(path.read_text()) == expected):
        assert time.monotonic() < deadline, f"{path} never held the state"
        time.sleep(0.05)


def test_a_killed_server_comes_back_with_what_was_saved_while_it_served(tmp_path: Path) -> None:
    directory = tmp_path / "state"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    command = [fakes_command(), "serve", "--only", SERVICE, "--port", str(port), "--clock", "manual",
               "--state", str(directory)]
    env = clean_env({"FAKES_SAVE_STATE": str(directory), "FAKES_SAVE_STATE_EVERY": "0.2"})
    with running(command, env) as server:
        banner = server.wait_banner()
        assert f"on stop the states are saved to {directory}, and every 0.2 s what changed" in banner
        server.wait_until_up([f"{base}/_fake/health"])
        httpx.post(f"{base}/_fake/members", json={"region": "DE"}, trust_env=False)
        for world in ("job-1", "job-2"):
            httpx.post(f"{base}/_w/{world}/_fake/members", json={"region": "FR"}, trust_env=False)
        httpx.post(f"{base}/_w/job-1/_fake/clock", json={"advance_seconds": 3600}, trust_env=False)
        before = {"": get_state(base), "job-1": get_state(f"{base}/_w/job-1")}
        wait_for_file(directory / f"{SERVICE}.json", before[""])
        wait_for_file(directory / SERVICE / "worlds" / "job-1.json", before["job-1"])
        # one save may write job-1 and job-2 one after the other: job-1's file says nothing of job-2's
        wait_for_file(directory / SERVICE / "worlds" / "job-2.json", get_state(f"{base}/_w/job-2"))
        # a deleted world's file goes at the next save, so that a restart does not bring it back
        assert httpx.delete(f"{base}/_fake/worlds/job-2", trust_env=False).status_code == 200
        deadline = time.monotonic() + 10
        while (directory / SERVICE / "worlds" / "job-2.json").exists():
            assert time.monotonic() < deadline, "the deleted world's file stayed"
            time.sleep(0.05)
        server.proc.send_signal(signal.SIGKILL)  # no chance to save on the way out
        assert server.proc.wait(10) == -signal.SIGKILL
    assert not [p for p in directory.rglob(".*")]  # no half-written file left

    with running(command, clean_env()) as server:
        banner = server.wait_banner()
        assert f"state loaded from {directory}: {SERVICE}, {SERVICE}/worlds/job-1" in banner
        server.wait_until_up([f"{base}/_fake/health"])
        assert get_state(base) == before[""]
        assert get_state(f"{base}/_w/job-1") == before["job-1"]  # its clock too
        assert httpx.get(f"{base}/_fake/worlds/job-2", trust_env=False).status_code == 404


def test_a_save_writes_only_what_changed(tmp_path: Path) -> None:
    fake = create_fake(SERVICE, clock="manual")
    fake.world("a")
    fake.world("b")
    saver = IncrementalSaver({SERVICE: fake}, tmp_path)
    writes, removals = saver.snapshot()
    assert sorted(p.relative_to(tmp_path).as_posix() for p in writes) == [
        f"{SERVICE}.json", f"{SERVICE}/worlds/a.json", f"{SERVICE}/worlds/b.json"]
    saver.write(writes, removals)
    assert saver.snapshot() == ({}, [])  # nothing happened: nothing to write
    assert fake.client().post("/_w/a/_fake/clock", json={"advance_seconds": 60}).status_code == 200
    fake.worlds.delete("b")  # type: ignore[union-attr]
    writes, removals = saver.snapshot()
    assert [p.relative_to(tmp_path).as_posix() for p in writes] == [f"{SERVICE}/worlds/a.json"]
    assert removals == [tmp_path / SERVICE / "worlds" / "b.json"]
    fake.advance(60)  # the default world's clock: its export differs
    assert [p.name for p in saver.snapshot()[0]] == [f"{SERVICE}.json"]


def test_save_every_needs_a_save_directory(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--only", SERVICE, "--port", str(free_port()), "--save-state-every", "5"]) == 2
    assert capsys.readouterr().err.strip() == (
        "fakes: error: --save-state-every (FAKES_SAVE_STATE_EVERY) saves to the --save-state directory: "
        "give --save-state DIR (FAKES_SAVE_STATE) too")
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--save-state-every", "-1"])
    assert exited.value.code == 2
