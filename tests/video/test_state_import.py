"""Imported states are read field by field (the kernel's StateReader): a broken field is a 400 that
names it, never a 500 at the import or later; a whole state restores every concept byte for byte."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from fakes.kernel.errors import ControlError
from fakes.video import VideoFake

from .helpers import basic
from .state_world import every_read, populated, project_key

MUTATIONS: tuple[Any, ...] = (None, "x", -1, 1e308, [], {}, True, 2**70)


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [p for key, item in value.items() for p in _leaves(item, (*path, key))] or [path]
    if isinstance(value, list):
        return [p for index, item in enumerate(value) for p in _leaves(item, (*path, index))] or [path]
    return [path]


def _set(state: dict[str, Any], path: tuple[Any, ...], value: Any) -> None:
    target: Any = state
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value


def _settled(state: dict[str, Any]) -> dict[str, Any]:
    """The state without the outbox's delivery outcomes (the sender thread moves them on its own,
    and an imported outbox is history: its pending deliveries are not sent again)."""
    state = copy.deepcopy(state)
    for delivery in state["model"]["webhooks"]["outbox"]:
        for name in ("status", "attempts", "error", "response_status"):
            delivery.pop(name)
    return state


def _answers(fake: VideoFake) -> list[tuple[str, int, bytes]]:
    with fake.client(headers=basic(project_key(fake))) as client:
        return [(path, (r := client.get(path)).status_code, r.content) for path in every_read(fake)]


def test_the_named_mutations_of_the_issue_are_refused_naming_their_field() -> None:
    fake = populated()
    exported = fake.export_state()
    for path, value, field in ((("videos", 0, "tags"), None, "model.videos[0].tags"),
                               (("videos", 0, "probe", "duration_s"), 1e308, "model.videos[0].probe.duration_s"),
                               (("videos", 0, "player_id"), "pl" + "0" * 22, "model.videos[0].player_id"),
                               (("plays", 0, 11), "x", "model.plays[0].seconds"),
                               (("live_streams", "streams", 0, "broadcast", "end_ms"), 0,
                                "model.live_streams.streams[0].broadcast.end_ms")):
        broken = copy.deepcopy(exported)
        _set(broken["model"], path, value)
        with pytest.raises(ControlError) as refused:
            VideoFake(seed=0, **VideoFake.settings_for_tests()).import_state(broken)
        assert refused.value.status == 400 and refused.value.extra["field"] == field, refused.value.message


def test_a_whole_state_restores_every_concept_and_answers_the_same() -> None:
    fake = populated()
    exported = fake.export_state()
    twin = VideoFake(seed=0, **VideoFake.settings_for_tests())
    twin.import_state(json.loads(json.dumps(exported)))
    assert _settled(twin.export_state()) == _settled(exported)
    assert _answers(twin) == _answers(fake)
    for moved in (fake, twin):
        moved.advance(120)  # the broadcast ends, the recording and the encoding go on, on both
    assert _answers(twin) == _answers(fake)
    assert [d.event for d in twin.model.webhooks.outbox] == [d.event for d in fake.model.webhooks.outbox]


def test_every_field_broken_is_refused_or_served_without_a_5xx_clock_moves_included() -> None:
    fake = populated()
    exported = fake.export_state()
    leaves = _leaves(exported["model"])
    assert len(leaves) > 150
    accepted = 0
    for number, path in enumerate(leaves):
        value = MUTATIONS[number % len(MUTATIONS)]
        broken = copy.deepcopy(exported)
        _set(broken["model"], path, value)
        twin = VideoFake(seed=0, **VideoFake.settings_for_tests())
        try:
            twin.import_state(broken)
        except ControlError as refused:
            assert refused.status == 400 and refused.extra.get("field", "").startswith("model"), (path, refused)
            continue
        accepted += 1
        for _ in range(2):
            for read, status, _body in _answers(twin):
                assert status < 500, (path, value, read)
            twin.advance(86_400)
        twin.export_state()
    assert accepted < len(leaves)  # most mutations are refusals; the others were served
