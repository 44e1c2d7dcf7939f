"""Realistic states of every registered service, made by driving the fake through its public API
and control plane: each of the service's scenarios (scenarios/, the documented client flows) runs
against a fresh fake in process, which then holds members, keys, accounts, teams, videos, ...
as a client would have left them. Generic: the scenarios are found by their ``service``."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import httpx

from fakes.kernel.fake import Fake
from scenarios.runner import Report, discover, run_scenario

from .conftest import make_fake


@dataclass(frozen=True)
class Recorded:
    """One request a scenario sent, as sent (credentials, body), to send again to another fake."""

    method: str
    target: str  # path and query below the fake's base URL
    headers: tuple[tuple[str, str], ...]
    body: bytes

    @property
    def control(self) -> bool:
        return self.target.startswith("/_fake")

    def send(self, client: httpx.Client) -> httpx.Response:
        return client.request(self.method, self.target, headers=dict(self.headers), content=self.body or None)


@dataclass(frozen=True)
class Realistic:
    """What driving a fake through its scenarios left: its exported state after every request
    that changed something (the last one is the final state), and every request sent."""

    states: tuple[dict[str, Any], ...]
    sent: tuple[Recorded, ...]


_STATES: dict[str, Realistic] = {}
_SKIPPED_HEADERS = frozenset({"host", "content-length", "accept-encoding", "connection", "user-agent", "accept"})


def drive(fake: Fake, client: httpx.Client | None = None) -> list[Report]:
    """Run every scenario of the fake's service against it (``client``: over HTTP, say)."""
    reports = []
    for scenario in discover().values():
        if scenario.service == fake.name:
            reports.append(run_scenario(scenario, client or fake.client(), is_fake=True))
    return reports


def recording_client(fake: Fake, into: list[Recorded],
                     states: list[dict[str, Any]] | None = None) -> httpx.Client:
    """``fake.client()`` that appends every request it sends to ``into`` (and, with ``states``,
    the fake's exported state after each request other than a GET)."""
    base = len(str(httpx.URL(fake.base_url)).rstrip("/"))

    def record(request: httpx.Request) -> None:
        headers = tuple((k, v) for k, v in request.headers.items() if k.lower() not in _SKIPPED_HEADERS)
        into.append(Recorded(request.method, str(request.url)[base:] or "/", headers, request.read()))

    def snapshot(response: httpx.Response) -> None:
        if states is not None and response.request.method not in ("GET", "HEAD"):
            states.append(fake.export_state())

    return fake.client(event_hooks={"request": [record], "response": [snapshot]})


def realistic(service: str) -> Realistic:
    """A fake of ``service`` driven through its scenarios: its states on the way and the requests."""
    if service not in _STATES:
        fake = make_fake(service)
        sent: list[Recorded] = []
        states: list[dict[str, Any]] = []
        drive(fake, recording_client(fake, sent, states))
        fake.clear_faults()  # a scenario's leftover fault would answer 5xx on purpose
        for state in states:
            state["faults"] = fake.export_state()["faults"]
        states.append(fake.export_state())
        _STATES[service] = Realistic(tuple(states), tuple(sent))
    return _STATES[service]


def realistic_state(service: str) -> dict[str, Any]:
    """The final state of a fake driven through its scenarios (a copy)."""
    return copy.deepcopy(realistic(service).states[-1])


def realistic_fake(service: str, **kwargs: Any) -> Fake:
    fake = make_fake(service, **kwargs)
    fake.import_state(realistic_state(service))
    return fake


def server_errors(fake: Fake) -> list[str]:
    """The journaled requests the fake answered with a 5xx."""
    return [f"{e['method']} {e['path']}?{e['query']} -> {e['status']}" for e in fake.journal_entries()
            if e["status"] >= 500]
