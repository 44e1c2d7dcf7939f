"""pytest fixtures, registered through the ``pytest11`` entry point (installing is enough).

For each service NAME (``-`` becomes ``_``):

* ``NAME_fake`` - a fresh in-process fake per test (function scope), on the test's shared clock;
* ``NAME_url``  - the same fake served over real HTTP on a free loopback port (base URL);
* ``fakes_clock`` - the manual clock every fake of one test shares;
* ``make_fake`` - a factory: ``make_fake("filings", scale="small")`` for custom settings;
* ``NAME_world_url`` - a world of its own for this test (``<server>/_w/<id>``) on ONE live server
  per service shared by the whole session (per xdist worker): isolated state, clock, faults and
  journal without starting a server per test; ``NAME_world`` is that world's fake object (move its
  clock, read its journal in Python); ``fakes_shared_servers`` starts the shared servers.

``@pytest.mark.fake_settings("filings", scale="small")`` sets settings of the ``NAME_fake``
fixtures; ``--fakes-seed N`` changes the seed (default 0).

Strict mode (``--fakes-strict``, the ini option ``fakes_strict = true``, or the marker
``@pytest.mark.fakes_strict``; ``@pytest.mark.fakes_strict(False)`` opts one test out) fails a
test whose client broke an ``error`` client rule of any fake it got from these fixtures, with the
rule, its explanation, its source and the offending request, and names the ``warning`` rules
broken at the end of the report (see docs/verdicts.md).

``--fakes-port-range 20000-20999`` (``FAKES_PORT_RANGE``, the ini option ``fakes_port_range``) puts
the ``NAME_url`` and ``NAME_world_url`` servers on ports of that range (CI runners whose firewall
opens a range only); a bad range (reversed, outside 1-65535) stops the session at its start.

HTTPS: ``NAME_https_url`` serves the test's ``NAME_fake`` over TLS (``https://127.0.0.1:PORT``)
with a certificate signed by the local CA of ``--fakes-tls-dir`` (``FAKES_TLS_DIR``, the ini option
``fakes_tls_dir``, else the user's, as ``fakes serve`` uses; see :mod:`fakes.kernel.tls`);
``fakes_ca_path`` is that CA's ``ca.pem`` for clients to verify with (``httpx.Client(verify=...)``,
``requests``' ``verify=``), ``fakes_tls`` the certificate itself (``.client_context()``).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import random
import re
import ssl
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from .. import registry
from .clock import Clock
from .fake import Fake
from .server import PortInUse
from .tls import TLS_DIR_ENV, ServerCertificate, TLSError, default_tls_dir, local_certificate
from .verdicts import render_verdicts, verdicts_of_worlds

#: the fakes a test got from this plugin's fixtures (strict mode judges their clients)
FAKES_USED = pytest.StashKey[list[Fake]]()
#: the test report property holding strict mode's warnings (reports cross pytest-xdist's processes)
WARNINGS_PROPERTY = "contract_fakes_warnings"
PORT_RANGE_ENV = "FAKES_PORT_RANGE"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fakes-seed", type=int, default=0, help="seed of the contract-fakes fixtures")
    parser.addoption("--fakes-strict", action="store_true", default=None,
                     help="fail a test whose client broke an error client rule of a fake, and name the warnings "
                          "at the end of the report (docs/verdicts.md)")
    parser.addini("fakes_strict", "strict mode for every test (see --fakes-strict)", type="bool", default=False)
    parser.addoption("--fakes-port-range", metavar="FIRST-LAST", default=None,
                     help=f"serve the NAME_url and NAME_world_url fixtures on ports FIRST to LAST (default: any free "
                          f"port; env {PORT_RANGE_ENV}, ini fakes_port_range)")
    parser.addini("fakes_port_range", "ports of the NAME_url and NAME_world_url fixtures (see --fakes-port-range)",
                  default="")
    parser.addoption("--fakes-tls-dir", metavar="DIR", default=None,
                     help=f"the local CA that signs the NAME_https_url fixtures' certificates (made there on first "
                          f"use, then reused; env {TLS_DIR_ENV}, ini fakes_tls_dir; default: the user's, as `fakes "
                          "serve` uses)")
    parser.addini("fakes_tls_dir", "the local CA's directory of the NAME_https_url fixtures (see --fakes-tls-dir; "
                  "a relative path is below the rootdir)", default="")


def port_range(config: pytest.Config) -> range | None:
    """The ports the served fixtures take: --fakes-port-range, else FAKES_PORT_RANGE, else the ini
    option, else None (any free port)."""
    text = config.getoption("--fakes-port-range") or os.environ.get(PORT_RANGE_ENV) or config.getini("fakes_port_range")
    if not text:
        return None
    first, dash, last = str(text).strip().partition("-")
    try:
        low, high = int(first), int(last if dash else first)
    except ValueError:
        low = high = 0
    if not 1 <= low <= high <= 65_535:
        raise pytest.UsageError(f"contract-fakes: the port range is FIRST-LAST with 1 <= FIRST <= LAST <= 65535 "
                                f"(e.g. 20000-20999), got {text!r} (--fakes-port-range, {PORT_RANGE_ENV} or "
                                "fakes_port_range)")
    return range(low, high + 1)


def tls_dir(config: pytest.Config) -> Path:
    """The local CA's directory: --fakes-tls-dir, else FAKES_TLS_DIR, else the ini option (below
    the rootdir when relative), else the user's (:func:`fakes.kernel.tls.default_tls_dir`)."""
    chosen = config.getoption("--fakes-tls-dir") or os.environ.get(TLS_DIR_ENV)
    if chosen:
        return Path(chosen)
    ini = str(config.getini("fakes_tls_dir") or "")
    return config.rootpath / ini if ini else default_tls_dir()


@contextlib.contextmanager
def serve_in_range(fake: Fake, ports: range | None, tls: ssl.SSLContext | None = None) -> Iterator[str]:
    """``fake.serve()`` on a free port of ``ports`` (any free port when None): tried from a random
    one on (xdist workers seldom collide), each taken one skipped; none free is an error. ``tls``:
    over HTTPS with this server context."""
    if ports is None:
        with fake.serve(tls=tls) as base_url:
            yield base_url
        return
    first = random.randrange(len(ports))
    with ExitStack() as stack:
        for step in range(len(ports)):
            port = ports[(first + step) % len(ports)]
            try:
                base_url = stack.enter_context(fake.serve(port=port, tls=tls))
            except PortInUse:
                continue
            yield base_url
            return
    raise RuntimeError(f"contract-fakes: no free port in {ports.start}-{ports.stop - 1} for {fake.name} "
                       f"(--fakes-port-range / {PORT_RANGE_ENV})")


def pytest_configure(config: pytest.Config) -> None:
    # a bad range (reversed, out of 1-65535, not numbers) is one usage error at the start, not a
    # failure of every test that asks for a URL fixture
    port_range(config)
    config.addinivalue_line(
        "markers", "fake_settings(service, **settings): settings of that service's NAME_fake and NAME_world fixtures")
    config.addinivalue_line(
        "markers", "fakes_strict(enabled=True): fail this test if its client broke an error client rule of a fake")


def used_by_test(request: pytest.FixtureRequest, fake: Fake) -> Fake:
    """Remember that this test uses ``fake`` (strict mode reads its verdicts after the test)."""
    used = request.node.stash.setdefault(FAKES_USED, [])
    if not any(known is fake for known in used):
        used.append(fake)
    return fake


def is_strict(item: pytest.Item) -> bool:
    marker = item.get_closest_marker("fakes_strict")
    if marker is not None:
        return bool(marker.args[0] if marker.args else marker.kwargs.get("enabled", True))
    option = item.config.getoption("--fakes-strict")
    return bool(option) if option is not None else bool(item.config.getini("fakes_strict"))


def warnings_report(fakes: list[Fake]) -> str:
    """The warning rules the test's clients broke, per fake and world ("" when none)."""
    sections = []
    for fake in fakes:
        for world_id, verdicts in verdicts_of_worlds(fake, "warning"):
            if verdicts:
                label = fake.name if world_id is None else f"{fake.name} (world {world_id})"
                sections.append(f"  {label}:\n{render_verdicts(verdicts, indent='    ')}")
    return "\n".join(sections)


def strict_report(fakes: list[Fake]) -> str:
    """The readable failure of strict mode ("" when no error rule was broken)."""
    sections: list[str] = []
    errors, warnings = 0, set[str]()
    for fake in fakes:
        for world_id, verdicts in verdicts_of_worlds(fake):
            warnings.update(v["id"] for v in verdicts if v["severity"] == "warning")
            broken = [v for v in verdicts if v["severity"] == "error"]
            if broken:
                errors += len(broken)
                label = fake.name if world_id is None else f"{fake.name} (world {world_id})"
                sections.append(f"{label}:\n{render_verdicts(broken, indent='  ')}")
    if not errors:
        return ""
    head = (f"contract-fakes strict mode: the client broke {errors} error rule{'s' if errors > 1 else ''} "
            "(docs/verdicts.md)")
    tail = [f"(also broken, warnings only: {', '.join(sorted(warnings))})"] if warnings else []
    return "\n".join([head, *sections, *tail])


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """Strict mode: after a test that passed, fail it if its client broke an error rule; the
    warning rules its clients broke (passed or not) go to the end of the report."""
    try:
        result = yield
    finally:  # the fakes the test got, make_fake's during its body too
        fakes = item.stash.get(FAKES_USED, [])
        if fakes and is_strict(item):
            warnings = warnings_report(fakes)
            if warnings:
                item.user_properties.append((WARNINGS_PROPERTY, warnings))
    if fakes and is_strict(item):
        report = strict_report(fakes)
        if report:
            pytest.fail(report, pytrace=False)
    return result


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Strict mode: name the warning rules each test's clients broke (docs/verdicts.md). Reads the
    test reports, so it also sees the tests pytest-xdist ran in its workers."""
    found = []
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", None) != "call":
                continue
            for name, text in getattr(report, "user_properties", ()):
                if name == WARNINGS_PROPERTY:
                    found.append((report.nodeid, text))
    if not found:
        return
    terminalreporter.write_sep("=", "contract-fakes: client warnings (strict mode; docs/verdicts.md)")
    for nodeid, text in sorted(found):
        terminalreporter.write_line(nodeid)
        terminalreporter.write_line(text)
    rules = "test" if len(found) == 1 else "tests"
    terminalreporter.write_line(f"{len(found)} {rules} with warnings: they fail nothing; fix the client or silence "
                                "the rule (FAKES_SILENCE_RULES, silence_rules=)")


@pytest.fixture
def fakes_clock() -> Clock:
    """The manual clock shared by every fake of the test (advance it to move all of them)."""
    return Clock("manual")


@pytest.fixture
def make_fake(request: pytest.FixtureRequest, fakes_clock: Clock) -> Callable[..., Fake]:
    """A factory of fakes for this test: ``make_fake("filings", scale="small", seed=3)``.

    Each fake is new, on the test's shared clock (``fakes_clock``) unless ``clock=`` is given,
    with the ``--fakes-seed`` seed unless ``seed=`` is given; strict mode judges its clients."""
    seed = request.config.getoption("--fakes-seed")

    def make(service: str, **kwargs: Any) -> Fake:
        if "start_ms" in kwargs and "clock" not in kwargs:  # it would be ignored: the clock is shared
            raise TypeError("make_fake puts every fake on the test's shared clock: move it with "
                            "fakes_clock.set_ms(...), or pass clock=Clock('manual', start_ms=...)")
        kwargs.setdefault("seed", seed)
        kwargs.setdefault("clock", fakes_clock)
        return used_by_test(request, registry.fake_class(service)(**kwargs))

    return make


def _marker_settings(request: pytest.FixtureRequest, service: str) -> dict[str, Any]:
    settings: dict[str, Any] = {}
    for marker in reversed(list(request.node.iter_markers("fake_settings"))):
        if marker.args and marker.args[0] == service:
            settings.update(marker.kwargs)
    return settings


def _doc(text: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give a fixture made in a loop its docstring before ``pytest.fixture`` wraps it (``pytest
    --fixtures`` reads the wrapped function's, so assigning ``__doc__`` afterwards shows nothing)."""

    def document(function: Callable[..., Any]) -> Callable[..., Any]:
        function.__doc__ = text
        return function

    return document


@pytest.fixture(scope="session")
def fakes_tls(request: pytest.FixtureRequest) -> ServerCertificate:
    """The certificate of the NAME_https_url fixtures: signed by the local CA of --fakes-tls-dir
    (made there on first use); ``.client_context()`` is an ``ssl`` context trusting it."""
    try:
        return local_certificate(tls_dir(request.config))
    except TLSError as exc:
        pytest.fail(f"contract-fakes: no HTTPS for the NAME_https_url fixtures: {exc}", pytrace=False)


@pytest.fixture(scope="session")
def fakes_ca_path(fakes_tls: ServerCertificate) -> str:
    """The local CA's certificate (``ca.pem``) that signs the NAME_https_url fixtures' certificates:
    ``httpx.Client(verify=fakes_ca_path)``, ``requests.get(..., verify=fakes_ca_path)``,
    ``SSL_CERT_FILE`` / ``NODE_EXTRA_CA_CERTS`` for a subprocess."""
    assert fakes_tls.ca_path is not None
    return str(fakes_tls.ca_path)


def https_fixture(service: str) -> Callable[..., Any]:
    """The NAME_https_url fixture of a service (a plugin adding its own fake assigns it like
    :func:`service_fixtures`: ``notes_https_url = https_fixture("notes")``)."""
    stem = service.replace("-", "_")

    @pytest.fixture(name=f"{stem}_https_url")
    @_doc(f"The {service} fake of this test ({stem}_fake) served over HTTPS on a free loopback port "
          f"(``https://127.0.0.1:PORT``; verify with fakes_ca_path): its base URL.")
    def https_url_fixture(request: pytest.FixtureRequest, fakes_tls: ServerCertificate) -> Iterator[str]:
        fake: Fake = request.getfixturevalue(f"{stem}_fake")
        with serve_in_range(fake, port_range(request.config), fakes_tls.context) as base_url:
            yield base_url

    return https_url_fixture


def service_fixtures(service: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The (NAME_fake, NAME_url) fixtures of a service; a plugin adding its own fake assigns them
    to module names of its conftest: ``notes_fake, notes_url = service_fixtures("notes")``."""
    stem = service.replace("-", "_")

    @pytest.fixture(name=f"{stem}_fake")
    @_doc(f"A fresh in-process {service} fake (function scope; settings from "
          f"@pytest.mark.fake_settings({service!r}, ...); judged in strict mode).")
    def fake_fixture(request: pytest.FixtureRequest, make_fake: Callable[..., Fake]) -> Fake:
        return make_fake(service, **_marker_settings(request, service))

    @pytest.fixture(name=f"{stem}_url")
    @_doc(f"The {service} fake of this test ({stem}_fake) served on a free loopback port (in "
          f"--fakes-port-range if given): its base URL.")
    def url_fixture(request: pytest.FixtureRequest) -> Iterator[str]:
        fake: Fake = request.getfixturevalue(f"{stem}_fake")
        with serve_in_range(fake, port_range(request.config)) as base_url:
            yield base_url

    return fake_fixture, url_fixture


class SharedServers:
    """One live fake per (service, settings) for the whole session, started on first use; each
    test gets a world of its own on it (see :mod:`fakes.kernel.worlds`)."""

    def __init__(self, seed: int, ports: range | None = None) -> None:
        self.seed = seed
        self.ports = ports
        self._servers: dict[tuple[str, str], tuple[Fake, str]] = {}
        self._stack = ExitStack()
        self._world_numbers = itertools.count(1)

    def get(self, service: str, **settings: Any) -> tuple[Fake, str]:
        """(the shared fake, its base URL); the fake is never used itself, only its worlds."""
        key = (service, json.dumps(settings, sort_keys=True, default=repr))
        if key not in self._servers:
            # no world cap: a long session creates (and deletes) one world per test
            fake = registry.fake_class(service)(seed=self.seed, clock="manual", max_worlds=0, **settings)
            self._servers[key] = (fake, self._stack.enter_context(serve_in_range(fake, self.ports)))
        return self._servers[key]

    def world_id(self, nodeid: str) -> str:
        """A unique world id that still says which test it belongs to (seen in /_fake/worlds)."""
        number = next(self._world_numbers)
        readable = re.sub(r"[^A-Za-z0-9_-]+", "-", nodeid.rpartition("::")[2]).strip("-")
        return f"t{number}-{readable}"[:64]

    def close(self) -> None:
        self._stack.close()


@pytest.fixture(scope="session")
def fakes_shared_servers(request: pytest.FixtureRequest) -> Iterator[SharedServers]:
    """The session's shared live fakes, one per service and settings, started on first use.

    Each pytest-xdist worker is its own process with its own servers; tests never share a world."""
    servers = SharedServers(request.config.getoption("--fakes-seed"), port_range(request.config))
    try:
        yield servers
    finally:
        servers.close()


def world_fixtures(service: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The (NAME_world, NAME_world_url) fixtures of a service; a plugin adding its own fake
    assigns them like :func:`service_fixtures`: ``notes_world, notes_world_url = world_fixtures("notes")``."""
    stem = service.replace("-", "_")

    @pytest.fixture(name=f"{stem}_world")
    @_doc(f"This test's own world of the session's shared live {service} fake (a Fake: its clock, "
          f"journal, faults and control methods); deleted after the test.")
    def world_fixture(request: pytest.FixtureRequest, fakes_shared_servers: SharedServers) -> Iterator[Fake]:
        fake, _ = fakes_shared_servers.get(service, **_marker_settings(request, service))
        world_id = fakes_shared_servers.world_id(request.node.nodeid)
        world = used_by_test(request, fake.world(world_id))
        try:
            yield world
        finally:
            assert fake.worlds is not None
            fake.worlds.delete(world_id)  # frees its memory and its slot

    @pytest.fixture(name=f"{stem}_world_url")
    @_doc(f"Base URL of this test's own world on the session's shared live {service} server "
          f"(``http://127.0.0.1:PORT/_w/<id>``): isolated state and clock, no server started per test.")
    def world_url_fixture(request: pytest.FixtureRequest, fakes_shared_servers: SharedServers) -> str:
        world: Fake = request.getfixturevalue(f"{stem}_world")
        _, base_url = fakes_shared_servers.get(service, **_marker_settings(request, service))
        return f"{base_url}/_w/{world.world_id}"

    return world_fixture, world_url_fixture


for _service in registry.service_names():
    _stem = _service.replace("-", "_")
    globals()[f"{_stem}_fake"], globals()[f"{_stem}_url"] = service_fixtures(_service)
    globals()[f"{_stem}_world"], globals()[f"{_stem}_world_url"] = world_fixtures(_service)
    globals()[f"{_stem}_https_url"] = https_fixture(_service)
