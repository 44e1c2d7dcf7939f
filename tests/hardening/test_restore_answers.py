"""Issue 23, item 11: an export holds every state that changes an answer.

A fake is driven through its service's scenarios and then pushed further (each public request
the scenarios sent, again and again, until limits and windows fill up); its state is exported and
imported into a fresh fake. Both then get the same mixed sequence - the scenarios' requests, bad
variants of them (no credentials, an unknown parameter, an unknown path) and clock moves from a
second to a day - and must answer each one identically (status, headers, body).

A service that fails is a strict xfail naming the state its export misses (its helper fixes the
service and removes the mark)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from fakes import registry
from fakes.kernel.fake import Fake

from .conftest import make_fake
from .realistic import Recorded, drive, recording_client

#: services whose export misses a state that changes an answer (the reason names it)
MISSING: dict[str, str] = {}
#: requests sent before the export beyond the scenarios' own, to fill windows and limits
PUSH = 700
#: clock moves (seconds) between the blocks of the replayed sequence
MOVES = (1, 30, 61, 3_600, 86_400)
#: answers that describe the fake's process or the client's history, not the exported state
NOT_STATE = ("/_fake/journal", "/_fake/verdicts", "/_fake/state", "/_fake/worlds")
VOLATILE_HEADERS = frozenset({"date", "server"})


def _params() -> list[object]:
    return [pytest.param(service, marks=pytest.mark.xfail(strict=True, reason=MISSING[service]))
            if service in MISSING else service for service in registry.service_names()]


def variants(request: Recorded) -> Iterator[Recorded]:
    """The request as sent, and bad versions of it."""
    yield request
    if request.control:
        return
    yield Recorded(request.method, request.target, (), request.body)  # no credentials
    joiner = "&" if "?" in request.target else "?"
    yield Recorded(request.method, request.target + joiner + "zz_unknown=1", request.headers, request.body)
    path, _, query = request.target.partition("?")
    yield Recorded(request.method, path.rstrip("/") + "/nope" + ("?" + query if query else ""), request.headers,
                   request.body)


def sequence(sent: list[Recorded]) -> list[Recorded | int]:
    """The mixed sequence: blocks of requests and their bad variants, a clock move after each."""
    requests = [r for r in sent if not r.target.startswith(NOT_STATE)]
    blocks = max(1, len(MOVES))
    size = max(1, -(-len(requests) // blocks))
    mixed: list[Recorded | int] = []
    for index, move in enumerate(MOVES):
        for request in requests[index * size:(index + 1) * size]:
            mixed += list(variants(request))
        mixed.append(move)
    return mixed


def answer(client: httpx.Client, step: Recorded | int) -> tuple[int, list[tuple[str, str]], bytes]:
    if isinstance(step, int):
        response = client.post("/_fake/clock", json={"advance_seconds": step})
    else:
        try:
            response = step.send(client)
        except httpx.TransportError as exc:
            return (-1, [], repr(exc).encode())
    headers = sorted((k, v) for k, v in response.headers.items() if k.lower() not in VOLATILE_HEADERS)
    return response.status_code, headers, response.content


def pushed(service: str) -> tuple[Fake, list[Recorded]]:
    """A fake driven through its scenarios and pushed on with their public requests."""
    fake = make_fake(service)
    sent: list[Recorded] = []
    client = recording_client(fake, sent)
    drive(fake, client)
    public = [r for r in sent if not r.control]
    for index in range(PUSH if public else 0):
        public[index % len(public)].send(client)
    fake.clear_faults()  # a scenario's leftover fault is not what this test is about
    return fake, sent


@pytest.mark.parametrize("service", _params())
def test_a_restored_copy_answers_exactly_as_the_original(service: str) -> None:
    original, sent = pushed(service)
    copy = make_fake(service)
    copy.import_state(original.export_state())
    steps = sequence(sent)
    differences = []
    with original.client() as first, copy.client() as second:
        for step in steps:
            mine, theirs = answer(first, step), answer(second, step)
            if mine != theirs:
                label = f"clock +{step} s" if isinstance(step, int) else f"{step.method} {step.target}"
                differences.append(f"{label}: original {mine[0]} {mine[2][:150]!r}, restored {theirs[0]} "
                                   f"{theirs[2][:150]!r}" + (" (headers differ)" if mine[:1] + mine[2:] ==
                                                              theirs[:1] + theirs[2:] else ""))
    assert not differences, (f"{len(differences)} of {len(steps)} answers differ:\n" + "\n".join(differences[:10]))
