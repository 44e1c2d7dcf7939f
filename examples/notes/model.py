"""State and rules of the notes service: plain Python, no HTTP; time only from the fake's clock.

A note becomes "ready" ``build_seconds`` after it was created. Nothing fires at that instant: the
model stores when the note was created and compares with the clock whenever a note is read, so
moving the clock is all a test needs to do.
"""

from __future__ import annotations

from typing import Any

from fakes.kernel.clock import MAX_EPOCH_MS, Clock
from fakes.kernel.errors import ServiceError
from fakes.kernel.statecheck import StateReader, refuse

from .data import generated_text
from .settings import NotesSettings

MAX_TAG = 40


class NotesModel:
    def __init__(self, *, seed: int, clock: Clock, settings: NotesSettings) -> None:
        self.seed = seed
        self.clock = clock
        self.settings = settings
        self.notes: dict[str, dict[str, Any]] = {}
        self.generated = 0  # generated notes so far: the index of the next one

    def create(self, text: Any, tag: Any = None) -> dict[str, Any]:
        if not isinstance(text, str) or not text.strip():
            raise ServiceError(400, "text must be a non-empty string", code="invalid_text")
        if len(text) > self.settings.max_text:
            raise ServiceError(400, f"text must be at most {self.settings.max_text} characters", code="invalid_text")
        if tag is not None and (not isinstance(tag, str) or not 1 <= len(tag) <= MAX_TAG):
            raise ServiceError(400, f"tag must be a string of 1 to {MAX_TAG} characters", code="invalid_tag")
        note_id = f"n{len(self.notes) + 1}"
        self.notes[note_id] = {"id": note_id, "text": text, "tag": tag, "created_ms": self.clock.now_ms()}
        return self.view(note_id)

    def create_generated(self, tag: Any = None) -> dict[str, Any]:
        """A note with seeded text (the control plane's way to fill the fake)."""
        self.generated += 1
        return self.create(generated_text(self.seed, self.generated)[: self.settings.max_text], tag)

    def view(self, note_id: str) -> dict[str, Any]:
        note = self.notes.get(note_id)
        if note is None:
            raise ServiceError(404, f"no note {note_id}", code="not_found")
        build_s = self.settings.build_seconds_by_tag.get(note["tag"], self.settings.build_seconds)
        ready = self.clock.now_ms() >= note["created_ms"] + build_s * 1000
        return {**note, "status": "ready" if ready else "building"}

    def first(self, limit: int) -> list[dict[str, Any]]:
        return [self.view(note_id) for note_id in list(self.notes)[:limit]]

    # -- state: what export/import carries (generated data is a function of the seed) ------------
    def to_state(self) -> dict[str, Any]:
        return {"notes": self.notes, "generated": self.generated}

    def load_state(self, state: dict[str, Any]) -> None:
        """Replace the state by an exported one; everything is checked before anything changes.

        Every field is read through the kernel's StateReader: a wrong type, a value out of range or
        a missing field is a 400 naming it (``model.notes.n1.tag``), never a 500 later."""
        read = StateReader(state, "model").only(("notes", "generated"))
        notes: dict[str, dict[str, Any]] = {}
        for key in read.mapping("notes"):
            note = read.object("notes").object(key).only(("id", "text", "tag", "created_ms"))
            if note.text("id", max_length=40) != key:
                refuse(note.where("id"), f"must be the note's key {key!r}")
            notes[key] = {"id": key, "text": note.text("text", min_length=1, max_length=self.settings.max_text),
                          "tag": note.text("tag", min_length=1, max_length=MAX_TAG, nullable=True),
                          "created_ms": note.integer("created_ms", minimum=0, maximum=MAX_EPOCH_MS)}
        self.generated = read.integer("generated", minimum=0, maximum=2**31 - 1)
        self.notes = notes
