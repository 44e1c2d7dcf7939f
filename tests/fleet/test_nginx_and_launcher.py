"""The shipped nginx template, for real (3 replicas, worlds pinned, a stopped replica's worlds get
the JSON 503), and `docker/fleet/fleet.py up`: replicas and HAProxy on one host with one command.
Skipped with the reason where nginx or HAProxy is not installed."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.support.serving import ROOT, Server, clean_env

from .support import FLEET_DIR, fleet, loopback_plan, require, worlds_of


def test_nginx_pins_worlds_and_answers_a_lost_replicas_worlds_with_a_503(tmp_path: Path) -> None:
    with fleet(tmp_path, 3, balancer="nginx", services="member-export") as running:
        ids = [f"nx-{n}" for n in range(30)]
        for n, world in enumerate(ids):
            if n % 2:
                made = httpx.post(f"{running.url}/_fake/members", json={}, headers={"X-Fake-World": world},
                                  trust_env=False, timeout=10)
            else:
                made = httpx.post(f"{running.url}/_w/{world}/_fake/members", json={}, trust_env=False, timeout=10)
            assert made.status_code == 201, made.text
            member = made.json()["id"]
            again = httpx.get(f"{running.url}/_w/{world}/_fake/members/{member}", trust_env=False, timeout=10)
            assert again.status_code == 200, again.text
        held = [worlds_of(running.replica_url(i)) for i in range(3)]
        holder = {}
        for world in ids:
            holding = [i for i, h in enumerate(held) if world in h]
            assert len(holding) == 1 and held[holding[0]][world] == 2, (world, held)
            holder[world] = holding[0]
        assert len(set(holder.values())) == 3  # 30 worlds reach every replica

        running.stop_replica(0)
        for world in ids:
            answer = httpx.get(f"{running.url}/_w/{world}/_fake/health", trust_env=False, timeout=10)
            if holder[world] == 0:
                assert answer.status_code == 503, answer.text
                assert answer.json()["world"] == world and answer.json()["replica"] == "replica-1"
                assert answer.headers["retry-after"] == "5"
            else:
                assert answer.status_code == 200, answer.text
        assert set(worlds_of(running.replica_url(1))) == {w for w in ids if holder[w] == 1}


def test_the_launcher_runs_replicas_and_haproxy_on_one_host(tmp_path: Path) -> None:
    require("haproxy")
    bind, hosts, port = loopback_plan(2)
    prefix = hosts[0][:-1]
    argv = [sys.executable, str(FLEET_DIR / "fleet.py"), "up", "--replicas", "2", "--replica-prefix", prefix,
            "--bind", bind, "--gateway", str(port), "--run-dir", str(tmp_path / "run"), "--save-state-every", "0.5",
            "--", "--only", "member-export", "--clock", "manual"]
    launcher = Server(argv, clean_env(), ROOT)
    try:
        deadline = time.monotonic() + 90
        while "Ctrl-C to stop" not in launcher.stdout:
            assert launcher.proc.poll() is None and time.monotonic() < deadline, launcher.describe()
            time.sleep(0.1)
        assert f"fleet: 2 replicas behind haproxy: http://{bind}:{port}/<service>/_w/<world>/..." in launcher.stdout
        base = f"http://{bind}:{port}/member-export"
        for n in range(10):
            made = httpx.post(f"{base}/_w/w{n}/_fake/members", json={}, trust_env=False, timeout=10)
            assert made.status_code == 201, made.text
        listed = subprocess.run([sys.executable, str(FLEET_DIR / "fleet.py"), "worlds", "--replicas", "2",
                                 "--replica-prefix", prefix, "--gateway", str(port)],
                                capture_output=True, text=True, timeout=30, env=clean_env())
        lines = listed.stdout.splitlines()
        assert [line.split(":")[0] for line in lines] == ["replica-1", "replica-2"], listed.stdout
        assert sum(int(line.split(": ")[1].split()[0]) for line in lines) == 10
        launcher.proc.send_signal(signal.SIGTERM)
        assert launcher.proc.wait(30) == 0, launcher.describe()
        assert "fleet: stopped (replicas saved their states)" in launcher.stdout
        saved = sorted(p.name for p in (tmp_path / "run" / "state").glob("replica-*/member-export/worlds/*.json"))
        assert saved == sorted(f"w{n}.json" for n in range(10))
    finally:
        launcher.kill()
