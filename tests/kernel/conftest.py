from __future__ import annotations

import pytest

from .tiny import NotesFake


@pytest.fixture
def notes() -> NotesFake:
    return NotesFake(seed=7)
