"""pytest fixtures, registered through the ``pytest11`` entry point (installing is enough).

For each service NAME (``-`` becomes ``_``):

* ``NAME_fake`` - a fresh in-process fake per test (function scope), on the test's shared clock;
* ``NAME_url``  - the same fake served over real HTTP on a free loopback port (base URL);
* ``fakes_clock`` - the manual clock every fake of one test shares;
* ``make_fake`` - a factory: ``make_fake("filings", scale="small")`` for custom settings.

``@pytest.mark.fake_settings("filings", scale="small")`` sets settings of the ``NAME_fake``
fixtures; ``--fakes-seed N`` changes the seed (default 0).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from .. import registry
from .clock import Clock
from .fake import Fake


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fakes-seed", type=int, default=0, help="seed of the contract-fakes fixtures")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "fake_settings(service, **settings): settings of that service's NAME_fake fixture")


@pytest.fixture
def fakes_clock() -> Clock:
    """The manual clock shared by every fake of the test (advance it to move all of them)."""
    return Clock("manual")


@pytest.fixture
def make_fake(request: pytest.FixtureRequest, fakes_clock: Clock) -> Callable[..., Fake]:
    seed = request.config.getoption("--fakes-seed")

    def make(service: str, **kwargs: Any) -> Fake:
        kwargs.setdefault("seed", seed)
        kwargs.setdefault("clock", fakes_clock)
        return registry.fake_class(service)(**kwargs)

    return make


def _marker_settings(request: pytest.FixtureRequest, service: str) -> dict[str, Any]:
    settings: dict[str, Any] = {}
    for marker in reversed(list(request.node.iter_markers("fake_settings"))):
        if marker.args and marker.args[0] == service:
            settings.update(marker.kwargs)
    return settings


def service_fixtures(service: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The (NAME_fake, NAME_url) fixtures of a service; a plugin adding its own fake assigns them
    to module names of its conftest: ``notes_fake, notes_url = service_fixtures("notes")``."""
    stem = service.replace("-", "_")

    @pytest.fixture(name=f"{stem}_fake")
    def fake_fixture(request: pytest.FixtureRequest, make_fake: Callable[..., Fake]) -> Fake:
        return make_fake(service, **_marker_settings(request, service))

    @pytest.fixture(name=f"{stem}_url")
    def url_fixture(request: pytest.FixtureRequest) -> Iterator[str]:
        fake: Fake = request.getfixturevalue(f"{stem}_fake")
        with fake.serve() as base_url:
            yield base_url

    fake_fixture.__doc__ = f"A fresh in-process {service} fake (function scope)."
    url_fixture.__doc__ = f"The {service} fake of this test served on a free loopback port: its base URL."
    return fake_fixture, url_fixture


for _service in registry.service_names():
    _stem = _service.replace("-", "_")
    globals()[f"{_stem}_fake"], globals()[f"{_stem}_url"] = service_fixtures(_service)
