"""A fleet on loopback for the tests: N `fakes serve` replicas and HAProxy or nginx with the
shipped configuration (docker/fleet/haproxy.cfg, nginx.conf.template), on free ports.

Every replica and the balancer get their own address in a random 127.x.y.0/24 (all of 127/8 is
loopback on Linux) and the same free port: the shipped configurations forward a request to the
port its client used, as in compose and Kubernetes, where every replica serves 8700.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from tests.support.serving import ROOT, Server, clean_env, fakes_command

FLEET_DIR = ROOT / "docker" / "fleet"
HAPROXY_CFG = FLEET_DIR / "haproxy.cfg"
NGINX_TEMPLATE = FLEET_DIR / "nginx.conf.template"
#: what the replicas serve in the live tests: enough to prove the routing, quick to start
SERVICES = "member-export,filings"
SERVE_FLAGS = ["--clock", "manual", "--set", "filings.scale=small", "--log-level", "error"]


def fleet_module() -> ModuleType:
    """docker/fleet/fleet.py (a script, not a package module), imported."""
    spec = importlib.util.spec_from_file_location("fakes_fleet_script", FLEET_DIR / "fleet.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return sys.modules[spec.name]


def require(program: str) -> str:
    """The program's path; skips the test with the reason if it is not installed."""
    found = shutil.which(program)
    if found is None:
        pytest.skip(f"{program} is not installed (Debian: apt-get install {program}; .ci/prepare-fleet does it "
                    f"where apt can): the fleet tests run the shipped {program} configuration for real")
    return found


def _free_everywhere(hosts: Sequence[str], ports: Sequence[int]) -> bool:
    for host in hosts:
        for port in ports:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                try:
                    sock.bind((host, port))
                except OSError:
                    return False
    return True


def loopback_plan(replicas: int, ports: int = 6) -> tuple[str, list[str], int]:
    """(balancer address, replica addresses, first port): a fresh 127.x.y.0/24 and ``ports``
    consecutive ports free on every one of its addresses."""
    for _ in range(200):
        net = f"127.{random.randint(100, 250)}.{random.randint(1, 250)}."
        balancer, hosts = net + "100", [f"{net}{i}" for i in range(1, replicas + 1)]
        first = random.randint(20_000, 32_000 - ports)
        if _free_everywhere([balancer, *hosts], range(first, first + ports)):
            return balancer, hosts, first
    raise RuntimeError("no free loopback ports")


class Fleet:
    """Replicas (`fakes serve`, each with its state directory) and one balancer over them."""

    def __init__(self, tmp: Path, replicas: int, *, gateway: bool = True, services: str = SERVICES,
                 save_every: float = 0.5, token: str | None = None) -> None:
        self.tmp = tmp
        self.gateway = gateway
        self.services = services
        self.save_every = save_every
        self.token = token
        self.bind, self.hosts, self.port = loopback_plan(replicas)
        # gateway: replicas on port P (--gateway); per-service: P+1.. (--port), as 8700 and 8701-8705
        self.check_port = self.port if gateway else self.port + 1
        self.replicas: list[Server | None] = [None] * replicas
        self.balancer: Server | None = None
        self.name = f"t{os.getpid()}x{random.randint(0, 10**6)}"
        self._run_dir: Path | None = None

    # -- replicas --------------------------------------------------------------------------------
    def state_dir(self, index: int) -> Path:
        return self.tmp / f"state-{index + 1}"

    def replica_command(self, index: int) -> list[str]:
        ports = ["--gateway", str(self.port)] if self.gateway else ["--port", str(self.port + 1)]
        state = self.state_dir(index)
        state.mkdir(parents=True, exist_ok=True)
        return [fakes_command(), "serve", "--only", self.services, "--host", self.hosts[index], *ports,
                "--state", str(state), "--save-state", str(state), "--save-state-every", f"{self.save_every:g}",
                *(["--control-token", self.token] if self.token else []), *SERVE_FLAGS]

    def start_replica(self, index: int) -> Server:
        server = Server(self.replica_command(index), clean_env(), ROOT)
        self.replicas[index] = server
        return server

    def wait_replica(self, index: int, timeout: float = 60.0) -> None:
        server = self.replicas[index]
        assert server is not None
        server.wait_banner(timeout)
        server.wait_until_up([f"{self.replica_url(index)}/_fake/health"], timeout=timeout)

    def stop_replica(self, index: int, sig: int = signal.SIGTERM) -> int:
        server = self.replicas[index]
        assert server is not None
        if sig == signal.SIGKILL:
            server.proc.kill()
            code = server.proc.wait(10)
        else:
            code, _ = server.terminate(sig, timeout=15)
        server.kill()
        self.replicas[index] = None
        return code

    def replica_url(self, index: int) -> str:
        """The replica's own base URL (member-export's, in either mode), past the balancer."""
        if self.gateway:
            return f"http://{self.hosts[index]}:{self.port}/member-export"
        return f"http://{self.hosts[index]}:{self.port + 1}"

    # -- the balancer ----------------------------------------------------------------------------
    def environment(self) -> dict[str, str]:
        fleet = fleet_module()
        env: dict[str, str] = fleet.fleet_environment(
            len(self.hosts), bind=self.bind, prefix="", gateway_port=self.port, first_service_port=self.port + 1,
            gateway=self.gateway, name=self.name, run_dir=str(self.run_dir()), token=self.token)
        env.update({f"FLEET_REPLICA_{i + 1}": host for i, host in enumerate(self.hosts)})
        return env

    def run_dir(self) -> Path:
        """Sockets and nginx's files: a directory that nginx's workers (nobody, when the tests run as
        root) can reach, outside pytest's private temporary tree, with a short path (a socket's is
        at most 107 bytes)."""
        if self._run_dir is None:
            self._run_dir = Path(tempfile.mkdtemp(prefix="fakes-fleet-"))
            self._run_dir.chmod(0o755)
        return self._run_dir

    def start_balancer(self, kind: str = "haproxy") -> Server:
        program = require(kind)
        env = {**clean_env(), **self.environment()}
        if kind == "haproxy":
            argv = [program, "-db", "-f", str(HAPROXY_CFG)]
        else:
            config = self.run_dir() / "nginx.conf"
            config.write_text(fleet_module().render_nginx(NGINX_TEMPLATE.read_text(), env))
            argv = [program, "-e", "stderr", "-p", str(self.run_dir()), "-c", str(config), "-g", "daemon off;"]
        self.balancer = Server(argv, env, ROOT)
        deadline = time.monotonic() + 20
        while True:
            if self.balancer.proc.poll() is not None:
                raise AssertionError(f"the balancer exited:\n{self.balancer.describe()}")
            try:
                if httpx.get(f"{self.root}/_fleet/health", trust_env=False, timeout=2).status_code == 200:
                    return self.balancer
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, self.balancer.describe()
            time.sleep(0.05)

    @property
    def root(self) -> str:
        """The balancer's root: port P in gateway mode, P+1 (member-export's) with per-service ports."""
        return f"http://{self.bind}:{self.port if self.gateway else self.port + 1}"

    @property
    def url(self) -> str:
        """The balancer's base URL for member-export (gateway: /member-export on port P)."""
        if self.gateway:
            return f"http://{self.bind}:{self.port}/member-export"
        return f"http://{self.bind}:{self.port + 1}"

    def wait_routed(self, index: int, world: str, timeout: float = 20.0) -> None:
        """Until the balancer sends ``world`` (on replica ``index``) through again (its health check)."""
        deadline = time.monotonic() + timeout
        while True:
            answer = httpx.get(f"{self.url}/_w/{world}/_fake/health", headers=self.headers(), trust_env=False,
                               timeout=5)
            if answer.status_code == 200:
                return
            assert time.monotonic() < deadline, (answer.status_code, answer.text)
            time.sleep(0.1)

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def close(self) -> None:
        for server in [self.balancer, *self.replicas]:
            if server is not None:
                server.kill()
        if self._run_dir is not None:
            shutil.rmtree(self._run_dir, ignore_errors=True)


@contextlib.contextmanager
def fleet(tmp: Path, replicas: int = 3, *, balancer: str = "haproxy", **options: Any) -> Iterator[Fleet]:
    """A running fleet (replicas started side by side, then the balancer), stopped at the end."""
    require(balancer)
    running = Fleet(tmp, replicas, **options)
    try:
        for index in range(replicas):
            running.start_replica(index)
        for index in range(replicas):
            running.wait_replica(index)
        running.start_balancer(balancer)
        yield running
    finally:
        running.close()


def worlds_of(base: str, headers: Mapping[str, str] | None = None) -> dict[str, int]:
    """{world id: requests} that one replica holds (its own GET /_fake/worlds, past the balancer)."""
    answer = httpx.get(f"{base}/_fake/worlds", headers=dict(headers or {}), trust_env=False, timeout=10)
    assert answer.status_code == 200, answer.text
    return {world["id"]: world["requests"] for world in answer.json()["worlds"]}


def run_script(argv: Sequence[str], env: Mapping[str, str] | None = None, timeout: float = 30) -> \
        subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(FLEET_DIR / "fleet.py"), *argv], capture_output=True, text=True,
                          env=dict(env or clean_env()), timeout=timeout, cwd=ROOT, stdin=subprocess.DEVNULL)
