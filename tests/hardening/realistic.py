"""Realistic states of every registered service, made by driving the fake through its public API
and control plane: each of the service's scenarios (scenarios/, the documented client flows) runs
against a fresh fake in process, which then holds members, keys, accounts, teams, videos, ...
as a client would have left them. Generic: the scenarios are found by their ``service``."""

from __future__ import annotations

import copy
from typing import Any

import httpx

from fakes.kernel.fake import Fake
from scenarios.runner import Report, discover, run_scenario

from .conftest import make_fake

_STATES: dict[str, dict[str, Any]] = {}


def drive(fake: Fake, client: httpx.Client | None = None) -> list[Report]:
    """Run every scenario of the fake's service against it (``client``: over HTTP, say)."""
    reports = []
    for scenario in discover().values():
        if scenario.service == fake.name:
            reports.append(run_scenario(scenario, client or fake.client(), is_fake=True))
    return reports


def realistic_state(service: str) -> dict[str, Any]:
    """The exported state of a fake that went through its service's scenarios (a copy)."""
    if service not in _STATES:
        fake = make_fake(service)
        drive(fake)
        fake.clear_faults()  # a scenario's leftover fault would answer 5xx on purpose
        _STATES[service] = fake.export_state()
    return copy.deepcopy(_STATES[service])


def realistic_fake(service: str, **kwargs: Any) -> Fake:
    fake = make_fake(service, **kwargs)
    fake.import_state(realistic_state(service))
    return fake


def server_errors(fake: Fake) -> list[str]:
    """The journaled requests the fake answered with a 5xx."""
    return [f"{e['method']} {e['path']}?{e['query']} -> {e['status']}" for e in fake.journal_entries()
            if e["status"] >= 500]
