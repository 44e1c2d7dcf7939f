"""The opt-in for tests that download at test time (a vendor's client from npm or PyPI).

The suite downloads nothing unless ``FAKES_TEST_DOWNLOADS=1`` (``.ci/run`` sets it); without it
such a test skips and says how to turn it on. What it installs is cached under the checkout's own
``build/test-downloads/`` (git-ignored, never in the docker build context), or where
``FAKES_TEST_CACHE`` says: never in the user's home.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOWNLOADS_ENV = "FAKES_TEST_DOWNLOADS"
CACHE_ENV = "FAKES_TEST_CACHE"
DEFAULT_CACHE = ROOT / "build" / "test-downloads"


def downloads_allowed() -> bool:
    return os.environ.get(DOWNLOADS_ENV) == "1"


def download_cache(name: str, what: str) -> Path:
    """The cache folder ``name`` for ``what`` the test installs; skips unless downloads are on."""
    if not downloads_allowed():
        pytest.skip(f"installs {what} at test time: runs only with {DOWNLOADS_ENV}=1 (.ci/run sets it; "
                    f"the download is cached in {cache_root()})")
    return cache_root() / name


def cache_root() -> Path:
    return Path(os.environ.get(CACHE_ENV) or DEFAULT_CACHE)
