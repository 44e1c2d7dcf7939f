from __future__ import annotations

import pytest

from examples.notes import NotesFake


@pytest.fixture
def notes() -> NotesFake:
    return NotesFake(seed=7)
