from __future__ import annotations

import pytest

from examples.notes import NotesFake

TOKEN = {"Authorization": "Bearer notes-token"}


@pytest.fixture
def notes() -> NotesFake:
    return NotesFake(seed=7, api_token="notes-token")
