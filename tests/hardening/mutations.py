"""One-field mutations of a realistic exported state (issue 23, item 3), generic over services.

Every field of the state (each object member and list item, at any depth) is replaced by a value
of the wrong type, by null, or by one out of range for its type; lists also lose their items or
repeat their first one, objects lose their members or gain an unknown one. A fake given such a
state must either refuse it (400 naming a ``field``) or serve correctly afterwards: every request
the service's scenarios sent answers without a 5xx, before and after the clock moves 40 days ahead,
and what it exports imports again.

CI covers every field *pattern* (the path with list indices as ``*``: ``model.videos[*].tags``)
with all the mutations of its value's type, at one seeded index; ``FAKES_STATE_MUTATIONS=all`` (or
``FAKES_HYPOTHESIS_EXPLORE=1``) mutates every concrete field.
"""

from __future__ import annotations

import copy
import os
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx

from fakes.kernel.fake import Fake
from fakes.kernel.http import dumps

from .realistic import Recorded

Path = tuple[str | int, ...]
EVERY_FIELD = os.environ.get("FAKES_STATE_MUTATIONS") == "all" or bool(os.environ.get("FAKES_HYPOTHESIS_EXPLORE"))
#: the days the clock moves after an accepted state, to reach what the state schedules
DAYS_AHEAD = (40,)
DAY_S = 86_400


@dataclass(frozen=True)
class Mutation:
    path: Path
    kind: str
    value: Any  # the replacement; ``DELETE`` removes the field
    state: int = 0  # which of the states it mutates

    @property
    def where(self) -> str:
        return render(self.path)

    def apply(self, state: dict[str, Any]) -> dict[str, Any]:
        """The state with this field changed; only the containers on its path are copied (the
        rest is shared with ``state``, which stays as it was)."""
        mutated = copy.copy(state)
        parent: Any = mutated
        for step in self.path[:-1]:
            child = copy.copy(parent[step])
            parent[step] = child
            parent = child
        if self.value is DELETE:
            del parent[self.path[-1]]
        else:
            parent[self.path[-1]] = self.value
        return mutated


DELETE = object()


def render(path: Path) -> str:
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else str(step))
    return text


#: an object with more members than this, all of one type, is a map (ids or names as keys): its
#: keys count as one pattern, like list indices
MAP_SIZE = 8


class Key(str):
    """A map's key (see :data:`MAP_SIZE`): one pattern for all its siblings."""


def pattern(path: Path) -> Path:
    return tuple("*" if isinstance(step, (int, Key)) else step for step in path)


def fields(value: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    if path:
        yield path, value
    if isinstance(value, dict):
        is_map = len(value) > MAP_SIZE and len({type(child) for child in value.values()}) == 1
        for key, child in value.items():
            yield from fields(child, (*path, Key(key) if is_map else key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from fields(child, (*path, index))


def replacements(value: Any, every: bool = EVERY_FIELD) -> list[tuple[str, Any]]:
    """Wrong type, null, out of range: the mutations of one value, by its type (CI: the first
    wrong type and the first out-of-range value of each type; all of them with ``every``)."""
    found = _replacements(value)
    if every:
        return found
    kept: list[tuple[str, Any]] = []
    for kind, replacement in found:
        if kind not in {k for k, _ in kept}:
            kept.append((kind, replacement))
    return kept


def _replacements(value: Any) -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = [("null", None)]
    if isinstance(value, bool):
        found += [("wrong type", "true"), ("wrong type", 1)]
    elif isinstance(value, int):
        found += [("wrong type", str(value)), ("out of range", -1), ("out of range", 2**62),
                  ("out of range", -(2**62)), ("wrong type", value + 0.5)]
    elif isinstance(value, float):
        found += [("wrong type", str(value)), ("out of range", -1.0), ("out of range", 1e308)]
    elif isinstance(value, str):
        found += [("wrong type", 12), ("out of range", ""), ("out of range", value + "x" * 20_000),
                  ("wrong type", [value])]
    elif isinstance(value, list):
        found += [("wrong type", {}), ("out of range", [])]
        if value:
            found += [("out of range", [value[0], *value]), ("wrong type", [None, *value[1:]])]
    elif isinstance(value, dict):
        found += [("wrong type", []), ("out of range", {}), ("out of range", {**value, "unknown_field": 1})]
    return found


def mutations(states: tuple[dict[str, Any], ...], *, every_field: bool = EVERY_FIELD,
              seed: int = 0) -> list[Mutation]:
    """The mutations of a service's states (a client's way through it): of every field of the
    last state and of the fields only earlier ones hold, or of one field per pattern (seeded,
    from the last state that holds the pattern)."""
    by_pattern: dict[Path, list[tuple[int, Path, Any]]] = {}
    for index in range(len(states) - 1, -1, -1):
        seen_here: dict[Path, list[tuple[int, Path, Any]]] = {}
        for path, value in fields(states[index]):
            if pattern(path) not in by_pattern:
                seen_here.setdefault(pattern(path), []).append((index, path, value))
        by_pattern.update(seen_here)
    rng = random.Random(seed)
    chosen: list[Mutation] = []
    for _, instances in sorted(by_pattern.items(), key=lambda item: render(item[0])):
        picked = instances if every_field else [rng.choice(instances)]
        for index, path, value in picked:
            chosen += [Mutation(path, kind, replacement, index)
                       for kind, replacement in replacements(value, every_field)]
            if isinstance(path[-1], str):
                chosen.append(Mutation(path, "missing", DELETE, index))
    return chosen


# -- the check ---------------------------------------------------------------------------------
def public_requests(recorded: tuple[Recorded, ...], limit: int = 16) -> list[Recorded]:
    """The scenarios' public requests, one per method and path (at most ``limit``)."""
    seen: set[tuple[str, str]] = set()
    chosen = []
    for request in recorded:
        key = (request.method, request.target.partition("?")[0])
        if not request.control and key not in seen:
            seen.add(key)
            chosen.append(request)
    return chosen[:limit]


def server_errors(fake: Fake, client: httpx.Client, requests: list[Recorded]) -> list[str]:
    errors = []
    for request in requests:
        try:
            response = request.send(client)
        except httpx.TransportError as exc:  # a dropped connection is no answer at all
            errors.append(f"{request.method} {request.target}: {exc!r}")
            continue
        if response.status_code >= 500 and not fake.deliberate_5xx(response.status_code, response.headers,
                                                                    response.content):
            errors.append(f"{request.method} {request.target} -> {response.status_code} {response.text[:200]}")
    return errors


def judge(make: Any, mutation: Mutation, states: tuple[dict[str, Any], ...],
          recorded: tuple[Recorded, ...]) -> str | None:
    """Why the fake mishandled this mutation, or None: a refusal naming a field, or correct service."""
    fake: Fake = make()
    client = fake.client()
    body = dumps(mutation.apply(states[mutation.state]))
    try:
        response = client.put("/_fake/state", content=body, headers={"content-type": "application/json"})
    except Exception as exc:
        return f"the import raised {exc!r}"
    if response.status_code == 400:
        answer = response.json()
        if not isinstance(answer.get("field"), str) or not answer["field"]:
            return f"400 without a field: {response.text[:200]}"
        return None
    if response.status_code != 200:
        return f"the import answered {response.status_code}: {response.text[:300]}"
    requests = public_requests(recorded)
    problems = server_errors(fake, client, requests)
    for days in DAYS_AHEAD:  # what the state schedules comes due (a catch-up handles what is overdue)
        moved = client.post("/_fake/clock", json={"advance_seconds": days * DAY_S})
        if moved.status_code >= 500:
            problems.append(f"advancing {days} days -> {moved.status_code}")
        problems += [f"after {days} days: {p}" for p in server_errors(fake, client, requests)]
    exported = client.get("/_fake/state")
    if exported.status_code != 200:
        problems.append(f"the export answered {exported.status_code}: {exported.text[:200]}")
    else:
        again = make().client().put("/_fake/state", content=exported.content,
                                     headers={"content-type": "application/json"})
        if again.status_code != 200:
            problems.append(f"its own export is refused: {again.text[:200]}")
    return "; ".join(problems[:3]) or None
