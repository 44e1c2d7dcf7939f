"""The test suite is safe on a shared runner: no test binds a fixed port (8700-8705) or a wildcard
address unless FAKES_TEST_FIXED_PORTS=1 asks for it. Every server a test starts is checked once it
serves (tests/support/serving.py); these tests check the check, and that the docker tests move the
image's command to loopback and free ports by default."""

from __future__ import annotations

import socket
import sys
import time

import pytest

from tests.support import serving
from tests.support.serving import DEFAULT_PORTS, FIXED_PORTS_ENV, Server, clean_env, free_port, running

from . import dockerfile
from .conftest import entry_command, image_ports, served_ports

LISTEN = ("import socket,sys,time; s=socket.socket(); "
          "s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen(); time.sleep(60)")


def test_a_servers_listening_sockets_are_found() -> None:
    port = free_port()
    with running([sys.executable, "-c", LISTEN, str(port)], clean_env()) as server:
        deadline = time.monotonic() + 10
        while not serving.listening_sockets(server.proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert serving.listening_sockets(server.proc.pid) == [("127.0.0.1", port)]
        server.check_listeners()  # loopback, a free port: fine


@pytest.mark.parametrize("listener", [("0.0.0.0", 20_001), ("::", 20_002), ("192.0.2.7", 20_003),
                                      ("127.0.0.1", 8701), ("::1", 8700)])
def test_a_wildcard_address_or_a_default_port_fails_the_test(monkeypatch: pytest.MonkeyPatch,
                                                              listener: tuple[str, int]) -> None:
    monkeypatch.delenv(FIXED_PORTS_ENV, raising=False)
    monkeypatch.setattr(serving, "listening_sockets", lambda pid: [listener])
    server = Server.__new__(Server)
    server.proc = type("Proc", (), {"pid": 1, "poll": lambda self: 0})()  # type: ignore[assignment]
    server.describe = lambda: "(a server)"  # type: ignore[method-assign]
    with pytest.raises(AssertionError, match="listens on"):
        server.check_listeners()
    monkeypatch.setenv(FIXED_PORTS_ENV, "1")
    server.check_listeners()  # asked for: allowed


def test_the_image_command_is_moved_to_loopback_and_free_ports(monkeypatch: pytest.MonkeyPatch,
                                                               image: dockerfile.Dockerfile,
                                                               image_env: dict[str, str]) -> None:
    monkeypatch.delenv(FIXED_PORTS_ENV, raising=False)
    command = entry_command(image)[1:]
    assert set(served_ports(command, image_env)) <= set(DEFAULT_PORTS)
    for extra in ({}, {"FAKES_GATEWAY": "8700"}, {"FAKES_ONLY": "filings"}):
        with image_ports(command, {**image_env, **extra}) as (env, ports):
            assert env["FAKES_HOST"] == "127.0.0.1"
            assert ports and not set(ports) & set(DEFAULT_PORTS), ports
            assert list(ports.values()) == list(served_ports(command, {**image_env, **extra}).values())


@pytest.mark.parametrize("address", [("0.0.0.0", 0), ("", 0), ("127.0.0.1", 8701), ("127.0.0.1", 8700)])
def test_this_process_cannot_bind_a_wildcard_address_or_a_default_port(monkeypatch: pytest.MonkeyPatch,
                                                                       address: tuple[str, int]) -> None:
    monkeypatch.delenv(FIXED_PORTS_ENV, raising=False)
    with socket.socket() as sock, pytest.raises(PermissionError, match=FIXED_PORTS_ENV):
        sock.bind(address)  # tests/conftest.py's audit hook refuses it
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))  # loopback and a free port: fine
