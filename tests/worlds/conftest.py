"""Helpers of the worlds suite: every registered service, built the way the generic suites build it."""

from __future__ import annotations

from typing import Any

import pytest

from fakes import registry
from fakes.kernel.fake import Fake

SERVICES = registry.service_names()


def settings_for(service: str) -> dict[str, Any]:
    """The service's settings for generic suites (same contract, less data), if it declares any."""
    cls = registry.fake_class(service)
    hook = getattr(cls, "settings_for_tests", None)
    return dict(hook()) if hook is not None else {}


def make_root(service: str, **kwargs: Any) -> Fake:
    """A fresh default world (the fake a user starts) of ``service`` with seed 0."""
    return registry.fake_class(service)(seed=0, **{**settings_for(service), **kwargs})


def dedicated(service: str, world_id: str, **kwargs: Any) -> Fake:
    """What a world should equal: a fake of its own, mounted where the world is (same links)."""
    return make_root(service, prefix=f"/_w/{world_id}", **kwargs)


@pytest.fixture(params=SERVICES)
def service(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name
