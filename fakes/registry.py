"""Which fakes exist, in `fakes list` order (also the order of their default ports).

Entries are imported lazily so that `import fakes` and a single fixture stay cheap.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .kernel.fake import Fake

#: service name -> "module:Class"
SERVICES: dict[str, str] = {
    "member-export": "fakes.member_export:MemberExportFake",
    "filings": "fakes.filings:FilingsFake",
    "enrichment": "fakes.enrichment:EnrichmentFake",
    "relay": "fakes.relay:RelayFake",
    "video": "fakes.video:VideoFake",
}

#: the gateway's path prefix of each service in single-port mode
GATEWAY_PREFIXES: dict[str, str] = {name: "/" + name for name in SERVICES}


#: the fakes this process serves (`fakes serve` fills it), by service name, so that one fake can
#: reach another's ASGI app in process (the relay's upstream `{"fake": "enrichment"}`)
LIVE_FAKES: dict[str, Fake] = {}


def live_fake(name: str, world_id: str | None = None) -> Fake | None:
    """The served fake ``name``; with ``world_id`` (the caller's ``fake.world_id``), its world of
    that id, so that a world's upstream stays inside the same world (docs/worlds.md). Call what it
    returns through its ``local_app`` (paths below its base, whatever its prefix or world)."""
    fake = LIVE_FAKES.get(name)
    if fake is not None and world_id is not None and fake.worlds is not None:
        return fake.world(world_id)
    return fake


@contextlib.contextmanager
def live(*fakes: Fake) -> Iterator[None]:
    """Make fakes built in process reachable from each other by name, as ``fakes serve`` makes the
    fakes it serves (``with registry.live(relay, enrichment): ...``); restored on exit."""
    saved = dict(LIVE_FAKES)
    LIVE_FAKES.update({fake.name: fake for fake in fakes})
    try:
        yield
    finally:
        LIVE_FAKES.clear()
        LIVE_FAKES.update(saved)


class UnknownService(KeyError):
    pass


def service_names() -> list[str]:
    return list(SERVICES)


def fake_class(name: str) -> type[Fake]:
    try:
        target = SERVICES[name]
    except KeyError:
        raise UnknownService(f"unknown service {name!r}; known: {', '.join(SERVICES)}") from None
    module_name, _, class_name = target.partition(":")
    cls: type[Fake] = getattr(importlib.import_module(module_name), class_name)
    return cls


def register(name: str, target: str) -> None:
    """Add a service (e.g. a plugin's own fake); ``target`` is "module:Class"."""
    SERVICES[name] = target
    GATEWAY_PREFIXES.setdefault(name, "/" + name)
