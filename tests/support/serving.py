"""Running `fakes serve` as a subprocess in tests: environment, ports, readiness, clean stop.

Shared by tests/docker/ and tests/kernel/. Every process started here is stopped (SIGTERM, then
SIGKILL) when its ``with`` block ends, whatever happened inside it.

The suite is safe on a shared runner: a server started here listens on loopback and on free
ports. Once it serves, :meth:`Server.wait_until_up` checks the process's own listening sockets
and fails the test if one is on a wildcard or external address or on a default port (8700-8705),
unless ``FAKES_TEST_FIXED_PORTS=1`` asks for the image's exact ports and addresses.
"""

from __future__ import annotations

import contextlib
import fcntl
import ipaddress
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest

from fakes import registry

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
START_TIMEOUT_S = 30.0  # a fake may build its seeded catalogue before it listens
STOP_TIMEOUT_S = 5.0  # "a few seconds", like docker stop's grace period


def fakes_command() -> str:
    """The `fakes` console script of the environment running the tests."""
    found = shutil.which("fakes", path=str(VENV_BIN)) or shutil.which("fakes")
    if found is None:
        pytest.skip("the `fakes` console script is not installed (pip install -e .)")
    return found


def import_problems() -> dict[str, str]:
    """Registered services that do not import yet (being written), with the reason."""
    problems = {}
    for name in registry.service_names():
        try:
            registry.fake_class(name)
        except Exception as exc:
            problems[name] = f"{type(exc).__name__}: {exc}"
    return problems


def ready_services() -> list[str]:
    """The registered services that import, in `fakes list` order; skips the test if none does."""
    problems = import_problems()
    names = [name for name in registry.service_names() if name not in problems]
    if not names:
        pytest.skip(f"no registered service imports yet: {problems}")
    return names


def require_all_services() -> list[str]:
    problems = import_problems()
    if problems:
        pytest.skip(f"not every registered service imports yet: {problems}")
    return registry.service_names()


def clean_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment without any FAKES_* variable, plus ``extra``."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("FAKES_")}
    env.update(extra or {})
    return env


# -- ports ---------------------------------------------------------------------------------------
#: the opt-in for tests that run the image's exact command on its fixed ports and every interface
FIXED_PORTS_ENV = "FAKES_TEST_FIXED_PORTS"
#: the ports `fakes serve` and the image use by default: never bound by a test unless asked
DEFAULT_PORTS = range(8700, 8706)


def fixed_ports_asked() -> bool:
    return os.environ.get(FIXED_PORTS_ENV) == "1"


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def free_port_block(count: int) -> int:
    """The first of ``count`` consecutive free ports (for `fakes serve --port P`)."""
    for _ in range(200):
        first = random.randint(20_000, 32_000 - count)  # below Linux's ephemeral range
        if all(port_is_free(first + i, "127.0.0.1") for i in range(count)):
            return first
    raise RuntimeError(f"no block of {count} free ports")


@contextlib.contextmanager
def fixed_ports(ports: Sequence[int]) -> Iterator[None]:
    """Serialise the tests that use fixed (default) ports, also across xdist workers; skip if
    another program holds one of them. Only with ``FAKES_TEST_FIXED_PORTS=1``: otherwise a test
    must not bind them at all (it skips, saying how to ask)."""
    if not fixed_ports_asked():
        pytest.skip(f"binds the fixed ports {list(ports)} on every interface: only with {FIXED_PORTS_ENV}=1")
    lock_path = Path(tempfile.gettempdir()) / "contract-fakes-fixed-ports.lock"
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            busy = [port for port in ports if not port_is_free(port, "0.0.0.0")]
            if busy:
                pytest.skip(f"default port(s) {busy} are in use on this machine; "
                            "the image's exact command needs them")
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


# -- HTTP ----------------------------------------------------------------------------------------
def get(url: str, *, headers: Mapping[str, str] | None = None, timeout: float = 5.0) -> httpx.Response:
    return httpx.get(url, headers=dict(headers or {}), timeout=timeout, trust_env=False)


def health(url: str, **kwargs: Any) -> dict[str, Any]:
    response = get(url, **kwargs)
    assert response.status_code == 200, (url, response.status_code, response.text)
    body: dict[str, Any] = response.json()
    return body


# -- processes -----------------------------------------------------------------------------------
def _appending(file: Any) -> Any:
    """``file`` with O_APPEND: the child shares its offset with us and reading moves it (seek(0));
    without O_APPEND what the child writes meanwhile lands at the start, over the banner."""
    fcntl.fcntl(file.fileno(), fcntl.F_SETFL, fcntl.fcntl(file.fileno(), fcntl.F_GETFL) | os.O_APPEND)
    return file


class Server:
    """A `fakes serve` (or any) subprocess with its output in files (a pipe could fill up)."""

    def __init__(self, argv: Sequence[str], env: Mapping[str, str], cwd: Path) -> None:
        self.argv = list(argv)
        self._out = _appending(tempfile.TemporaryFile())  # noqa: SIM115 - closed by kill()
        self._err = _appending(tempfile.TemporaryFile())  # noqa: SIM115
        self.proc = subprocess.Popen(self.argv, env=dict(env), cwd=cwd, stdin=subprocess.DEVNULL,
                                     stdout=self._out, stderr=self._err, start_new_session=True)

    @property
    def stdout(self) -> str:
        self._out.seek(0)
        return self._out.read().decode(errors="replace")

    @property
    def stderr(self) -> str:
        self._err.seek(0)
        return self._err.read().decode(errors="replace")

    def describe(self) -> str:
        return (f"command {self.argv} (exit {self.proc.poll()})\n--- stdout\n{self.stdout}\n"
                f"--- stderr\n{self.stderr}")

    def wait_until_up(self, urls: Sequence[str], *, headers: Mapping[str, str] | None = None,
                      timeout: float = START_TIMEOUT_S) -> None:
        """Until every URL answers (any status): the server listens and serves."""
        deadline = time.monotonic() + timeout
        pending = list(urls)
        while pending:
            if self.proc.poll() is not None:
                raise AssertionError(f"the server exited before it served:\n{self.describe()}")
            try:
                get(pending[0], headers=headers, timeout=2.0)
                pending.pop(0)
                continue
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"{pending[0]} did not answer within {timeout} s:\n{self.describe()}")
            time.sleep(0.05)
        self.check_listeners()

    def check_listeners(self) -> None:
        """Fail unless every socket the server listens on is on loopback and on no default port
        (but with FAKES_TEST_FIXED_PORTS=1): a test never takes a shared runner's fixed ports or
        every interface unasked."""
        if fixed_ports_asked():
            return
        for address, port in listening_sockets(self.proc.pid):
            assert address in ("127.0.0.1", "::1") or address.startswith("127."), (
                f"the server listens on {address}:{port}, not loopback ({FIXED_PORTS_ENV}=1 allows it):\n"
                f"{self.describe()}")
            assert port not in DEFAULT_PORTS, (
                f"the server listens on the default port {port} ({FIXED_PORTS_ENV}=1 allows it):\n{self.describe()}")

    def wait_banner(self, timeout: float = START_TIMEOUT_S) -> str:
        """The startup banner (everything up to "Ctrl-C to stop.")."""
        deadline = time.monotonic() + timeout
        while "Ctrl-C to stop." not in self.stdout:
            if self.proc.poll() is not None:
                raise AssertionError(f"the server exited before its banner:\n{self.describe()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"no banner within {timeout} s:\n{self.describe()}")
            time.sleep(0.05)
        return self.stdout

    def terminate(self, sig: int = signal.SIGTERM, timeout: float = STOP_TIMEOUT_S) -> tuple[int, float]:
        """Send ``sig`` (what `docker stop` sends) and wait: (exit status, seconds taken)."""
        started = time.monotonic()
        self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"no exit within {timeout} s of signal {sig}:\n{self.describe()}") from None
        return code, time.monotonic() - started

    def kill(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)  # the group is this process's own session
            try:
                self.proc.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(STOP_TIMEOUT_S)
        self._out.close()
        self._err.close()


def listening_sockets(pid: int) -> list[tuple[str, int]]:
    """(address, port) of each TCP socket process ``pid`` listens on (Linux /proc; none elsewhere)."""
    try:
        inodes = {os.readlink(f"/proc/{pid}/fd/{fd}")[8:-1] for fd in os.listdir(f"/proc/{pid}/fd")
                  if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:[")}
    except OSError:
        return []
    found = []
    for table, width in (("/proc/net/tcp", 4), ("/proc/net/tcp6", 16)):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if fields[3] != "0A" or fields[9] not in inodes:  # 0A: LISTEN
                continue
            hex_address, _, hex_port = fields[1].partition(":")
            raw = bytes.fromhex(hex_address)
            if width == 4:
                address = ".".join(str(b) for b in reversed(raw))
            else:  # four little-endian 32-bit words
                words = b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))
                address = str(ipaddress.IPv6Address(words))
                if address.startswith("::ffff:"):
                    address = address[7:]
            found.append((address, int(hex_port, 16)))
    return found


@contextlib.contextmanager
def running(argv: Sequence[str], env: Mapping[str, str], cwd: Path | None = None) -> Iterator[Server]:
    server = Server(argv, env, cwd or ROOT)
    try:
        yield server
    finally:
        server.kill()


def run(argv: Sequence[str], env: Mapping[str, str], *, timeout: float = 30.0,
        cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run a short command to its end (killed if it overruns ``timeout``)."""
    return subprocess.run(list(argv), env=dict(env), cwd=cwd or ROOT, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


BANNER_LINE = re.compile(r"^  (?P<name>\S+)\s+(?P<url>https?://\S+)\s+"
                         r"\(control: (?P<control>\S+), dashboard: (?P<dashboard>\S+)\)$")


def parse_banner(text: str) -> dict[str, dict[str, Any]]:
    """`fakes serve`'s banner -> {service: {"url", "control", "dashboard", "credentials": {k: v}}}."""
    services: dict[str, dict[str, Any]] = {}
    current: dict[str, Any] | None = None
    for line in text.splitlines():
        match = BANNER_LINE.match(line)
        if match:
            current = {"url": match["url"], "control": match["control"], "dashboard": match["dashboard"],
                       "credentials": {}}
            services[match["name"]] = current
        elif current is not None and line.startswith("    ") and ": " in line:
            key, _, value = line.strip().partition(": ")
            current["credentials"][key] = value
        else:
            current = None
    return services
