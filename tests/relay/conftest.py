"""Fixtures of the relay's tests, and the guard that no relay test opens a socket to anything but
loopback: every ``socket.connect`` (and ``connect_ex``) to another address, and every resolution
of a host name other than a loopback one, fails the test."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from fakes.relay import RelayFake

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_real_getaddrinfo = socket.getaddrinfo
#: every host name a relay test resolved
RESOLVED: list[Any] = []
#: every address a relay test connected to (the guard's own test reads it)
CONNECTED: list[Any] = []


class NonLoopbackConnection(AssertionError):
    pass


def _loopback(address: Any) -> bool:
    if isinstance(address, (str, bytes)):  # AF_UNIX
        return True
    host = address[0]
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _guarded_connect(self: socket.socket, address: Any) -> None:
    CONNECTED.append(address)
    if not _loopback(address):
        raise NonLoopbackConnection(f"a relay test opened a socket to {address!r}")
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> int:
    CONNECTED.append(address)
    if not _loopback(address):
        raise NonLoopbackConnection(f"a relay test opened a socket to {address!r}")
    return _real_connect_ex(self, address)


def _guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
    RESOLVED.append(host)
    name = host.decode() if isinstance(host, bytes) else host
    if name is not None and name not in ("localhost", "testserver") and not _loopback((name, 0)):
        raise NonLoopbackConnection(f"a relay test resolved the host name {name!r}")
    return _real_getaddrinfo(host, *args, **kwargs)


@pytest.fixture(autouse=True)
def only_loopback(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", _guarded_connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", _guarded_getaddrinfo)
    yield


@pytest.fixture
def fake() -> RelayFake:
    return RelayFake(seed=0)


@pytest.fixture
def team(fake: RelayFake) -> dict[str, Any]:
    return fake.create_team()


@pytest.fixture
def client(fake: RelayFake, team: dict[str, Any]) -> Iterator[httpx.Client]:
    with fake.client(headers={"X-Proxy-Token": team["token"]}) as http:
        yield http


def balance(fake: RelayFake, team: dict[str, Any]) -> int:
    return int(fake.team_info(team["team_id"])["balance_micro"])
