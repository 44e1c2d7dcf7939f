from __future__ import annotations

from typing import Any

import pytest

from fakes import registry
from fakes.filings import FilingsFake
from fakes.kernel.fake import Fake
from fakes.member_export import MemberExportFake


def make_fake(service: str, **kwargs: Any) -> Fake:
    """A registered service's fake with the settings the generic suites use (small catalogues)."""
    cls = registry.fake_class(service)
    settings_for_tests = getattr(cls, "settings_for_tests", None)
    settings = settings_for_tests() if settings_for_tests is not None else {}
    return cls(seed=0, **{**settings, **kwargs})


@pytest.fixture
def member_fake() -> MemberExportFake:
    return MemberExportFake(seed=3)


@pytest.fixture
def filings_fake() -> FilingsFake:
    return FilingsFake(seed=0, scale="small")
