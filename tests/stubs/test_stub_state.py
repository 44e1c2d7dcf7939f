"""Stubs, where their sequences stand and their scenarios' states are part of an exported state; an
import validates all of it before it changes anything, naming the field."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from examples.notes import NotesFake
from fakes.kernel.errors import ControlError


def _used(notes: NotesFake) -> NotesFake:
    notes.stub("GET", "/seq", responses=[{"status": 201}, {"status": 202}, {"status": 203}])
    notes.stub("GET", "/once", response={"status": 299}, times=1)
    notes.stub("POST", "/step", scenario="flow", new_state="two", response={"json": {"at": "{{now | epoch_ms}}"}})
    notes.stub(None, "/vendor/{id}", place="behind", priority=3, name="vendor",
               response={"headers": {"X-Id": "{{request.path.id}}"}})
    client = notes.client()
    client.get("/seq")
    client.get("/once")
    client.post("/step")
    return notes


def test_a_state_round_trip_keeps_stubs_sequences_and_scenarios(notes: NotesFake) -> None:
    state = _used(notes).export_state()
    assert state["stubs"]["scenarios"] == {"flow": "two"} and state["stubs"]["next_id"] == 5
    restored = NotesFake(seed=7)
    restored.import_state(state)
    assert restored.export_state() == state
    client = restored.client()
    assert client.get("/seq").status_code == 202  # the sequence goes on where it stood
    assert client.get("/once").status_code == 404  # spent: listed, no longer answering
    assert client.get("/vendor/v9").headers["x-id"] == "v9"
    assert restored.stub("GET", "/new").id == "s5"


def test_worlds_keep_their_own_stubs_in_their_states(notes: NotesFake) -> None:
    world = notes.world("w1")
    _used(world)
    assert notes.export_state()["stubs"]["rules"] == []
    twin = NotesFake(seed=7).world("w1", state=world.export_state())
    assert twin.stubs() == world.stubs()


@pytest.mark.parametrize(("change", "field"), [
    (lambda s: s.update(stubs=[]), "stubs"),
    (lambda s: s["stubs"].update(extra=1), "stubs.extra"),
    (lambda s: s["stubs"].update(rules={}), "stubs.rules"),
    (lambda s: s["stubs"]["rules"][0].pop("id"), "stubs.rules[0].id"),
    (lambda s: s["stubs"]["rules"][1].update(id="s1"), "stubs.rules[1].id"),
    (lambda s: s["stubs"]["rules"][0].update(fired=-1), "stubs.rules[0].fired"),
    (lambda s: s["stubs"]["rules"][0].update(served="x"), "stubs.rules[0].served"),
    (lambda s: s["stubs"]["rules"][0].update(times=-1), "stubs.rules[0].times"),
    (lambda s: s["stubs"]["rules"][2]["response"].update(json={"a": "{{nope}}"}),
     "stubs.rules[2].response.json.a"),
    (lambda s: s["stubs"]["rules"][3]["request"].update(path="/a/{x}{y}"), "stubs.rules[3].request.path"),
    (lambda s: s["stubs"]["rules"][0].update(colour="red"), "stubs.rules[0].colour"),
    (lambda s: s["stubs"].update(scenarios={"flow": 3}), "stubs.scenarios"),
    (lambda s: s["stubs"].update(next_id=0), "stubs.next_id"),
])
def test_a_bad_stub_state_is_refused_whole(notes: NotesFake, change: Any, field: str) -> None:
    state = _used(notes).export_state()
    before = copy.deepcopy(state)
    broken = copy.deepcopy(state)
    change(broken)
    answer = notes.client().put("/_fake/state", json=broken)
    assert answer.status_code == 400, answer.text
    assert (answer.json()["error"], answer.json()["field"]) == ("invalid_state", field)
    assert notes.export_state() == before
    with pytest.raises(ControlError):
        notes.import_state(broken)


def test_an_old_state_without_stubs_imports(notes: NotesFake) -> None:
    state = _used(notes).export_state()
    del state["stubs"]
    notes.import_state(state)
    assert notes.stubs() == []
