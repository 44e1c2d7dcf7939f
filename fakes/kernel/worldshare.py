"""What a fake and its worlds share: the parts of a world that cannot differ from its parent's.

A world is its parent's class built again from the parent's constructor arguments (see
:mod:`fakes.kernel.worlds`), so its settings, its control-plane access rules, its journal's
redaction rules and the rules silenced for its verdicts are the parent's; it takes them from the
parent instead of resolving them again (issue 37, item 4: ten thousand worlds of five services in
a gigabyte). Its routers are shared by every world of the parent when the service's routes are
shared objects (their endpoints find the fake serving them in ``scope["app"]``); a service whose
routes close over their fake gets routers of its own per world, as before.

:func:`building_world` marks the construction of a world; :meth:`Fake.__init__
<fakes.kernel.fake.Fake.__init__>` takes the mark (:func:`template_of_new_fake`) and reads the
shared parts from the parent it names.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol, TypeVar

from starlette.routing import BaseRoute, Route, Router

from .limits import limit_body, route_cap

_BUILDING = threading.local()

RouterT = TypeVar("RouterT", bound=Router)


class Template(Protocol):
    """What sharing needs of the parent's worlds registry: where the routers its worlds share are kept."""

    routers: dict[str, tuple[list[BaseRoute] | None, Router | None]]
    parent: Any


@contextlib.contextmanager
def building_world(parent: Any) -> Iterator[None]:
    """The fake constructed in this block (on this thread) is a world of ``parent``."""
    _BUILDING.template = parent
    try:
        yield
    finally:
        _BUILDING.template = None


def template_of_new_fake(fake: Any) -> Any:
    """The parent whose world ``fake`` (being constructed) is, or None; the mark is taken, so a fake
    constructed while this one is (a service's helper) is no world."""
    template = getattr(_BUILDING, "template", None)
    _BUILDING.template = None
    return template if type(template) is type(fake) else None


def shared_router(worlds: Template | None, kind: str, routes: list[BaseRoute],
                  listing: Callable[[Any], list[BaseRoute]], build: Callable[[list[BaseRoute]], RouterT]) -> RouterT:
    """The router of a world (``worlds``: its parent's registry; None: not a world) over
    ``routes``: one for every world of the parent when ``listing(parent)`` (the parent's own
    listing of the same routes) yields the very same route objects, else a router of its own."""
    if worlds is None:
        return build(routes)
    known = worlds.routers.get(kind)
    if known is None:
        reference = listing(worlds.parent)
        known = worlds.routers[kind] = (routes if _same(reference, routes) else None, None)
    shareable, router = known
    if shareable is None or not _same(shareable, routes):
        return build(routes)
    if router is None:
        router = build(routes)
        worlds.routers[kind] = (shareable, router)
    return router  # type: ignore[return-value]  # built by this very ``build``


def _same(one: Sequence[BaseRoute], other: Sequence[BaseRoute]) -> bool:
    return len(one) == len(other) and all(a is b for a, b in zip(one, other, strict=True))


_MOVED = "_fakes_under_control"


def under_control_prefix(routes: list[BaseRoute]) -> list[BaseRoute]:
    """Service control routes are declared relative to /_fake; give them the full path. The copy
    is kept on the declared route, so a service that hands every world the same route objects
    (its endpoints find their fake in ``scope["app"]``) builds no copies per world."""
    moved: list[BaseRoute] = []
    for route in routes:
        if isinstance(route, Route):
            copy: BaseRoute | None = getattr(route, _MOVED, None)
            if copy is None:
                copy = Route("/_fake" + route.path, route.endpoint, methods=list(route.methods or []) or None,
                             name=route.name)
                cap = route_cap(route)
                copy = copy if cap is None else limit_body(copy, cap)
                setattr(route, _MOVED, copy)
            moved.append(copy)
        else:
            moved.append(route)
    return moved
