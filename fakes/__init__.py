"""contract-fakes: stateful fake servers for five HTTP APIs, driven by a virtual clock.

>>> from fakes import create_fake
>>> fake = create_fake("member-export", seed=1)
>>> with fake.client() as client: ...
"""

from __future__ import annotations

from typing import Any

from .kernel.clock import DEFAULT_START_MS, Clock, ClockError
from .kernel.errors import ServiceError
from .kernel.fake import Fake
from .registry import fake_class, service_names

__all__ = ["DEFAULT_START_MS", "Clock", "ClockError", "Fake", "ServiceError", "create_fake", "service_names"]


def create_fake(name: str, **kwargs: Any) -> Fake:
    """A fresh in-process fake of service ``name`` (see `fakes list`), e.g. ``create_fake("filings")``."""
    return fake_class(name)(**kwargs)
