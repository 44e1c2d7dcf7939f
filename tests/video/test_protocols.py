"""The video fake has what each of its pieces uses of it.

The package reads bottom-up (tests/test_layout.py): the routes, the assets, the control plane, the
panels, the benchmark stage, the webhook sender and the state import depend on small protocols
of what they use, defined below them, rather than on ``VideoFake`` (or ``VideoModel``), which
imports them. mypy checks most of them where the fake passes itself (``control_routes(self)``,
``Dispatcher(self)``, ``state.export(self)`` ...); the routes read theirs from the request, which
mypy cannot follow, so this test holds every protocol of the package to the objects that serve it:
each member present, each attribute of its declared type, each method taking the protocol's
parameters. The annotated assignments below say the same to a type checker
(``mypy tests/video/test_protocols.py``).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import typing
from typing import Any

import fakes.video
from fakes.video import VideoFake
from fakes.video.bench import BenchedVideo
from fakes.video.control import ControlledVideo
from fakes.video.delivery import WebhookSource
from fakes.video.endpoints import ServedVideo
from fakes.video.multipart import Sink
from fakes.video.panel import PanelledVideo
from fakes.video.state import ModelParts

#: protocols of something else than the fake or its model
NOT_OF_THE_FAKE = {Sink}  # where an upload's file part is written


def _protocols_of_the_package() -> set[type]:
    found = set()
    for info in pkgutil.iter_modules(fakes.video.__path__):
        module = importlib.import_module(f"fakes.video.{info.name}")
        for value in vars(module).values():
            if inspect.isclass(value) and value.__module__ == module.__name__ \
                    and getattr(value, "_is_protocol", False):
                found.add(value)
    return found


def _missing(protocol: type, implementation: object) -> list[str]:
    """What ``implementation`` lacks of ``protocol``: members, attribute types, method parameters."""
    problems = []
    for name, hint in typing.get_type_hints(protocol).items():
        if not hasattr(implementation, name):
            problems.append(f"attribute {name}")
        elif not isinstance(getattr(implementation, name), typing.get_origin(hint) or hint):
            problems.append(f"attribute {name} is a {type(getattr(implementation, name)).__name__}")
    for name, declared in vars(protocol).items():
        if not inspect.isfunction(declared) or name.startswith("__"):
            continue
        bound = getattr(implementation, name, None)
        if not callable(bound):
            problems.append(f"method {name}")
            continue
        wanted = list(inspect.signature(declared).parameters.values())[1:]
        offered = inspect.signature(bound).parameters
        for parameter in wanted:
            given = offered.get(parameter.name)
            if given is None or given.kind != parameter.kind:
                problems.append(f"method {name} takes no {parameter.kind.description} {parameter.name}")
            elif parameter.default is not inspect.Parameter.empty and given.default is inspect.Parameter.empty:
                problems.append(f"method {name} requires {parameter.name}")
        problems += [f"method {name} requires {extra.name}" for extra in offered.values()
                     if extra.default is inspect.Parameter.empty and extra.name not in {p.name for p in wanted}
                     and extra.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)]
    return problems


def test_every_protocol_of_the_package_is_satisfied_by_the_fake_or_its_model() -> None:
    fake = VideoFake()
    # a world is a fake of the same class (fakes/kernel/worlds.py): what holds here holds for it
    served: ServedVideo = fake
    sender: WebhookSource = fake
    controlled: ControlledVideo = fake
    panelled: PanelledVideo = fake
    benched: BenchedVideo = fake
    parts: ModelParts = fake.model
    checked: dict[type, Any] = {ServedVideo: served, WebhookSource: sender, ControlledVideo: controlled,
                                PanelledVideo: panelled, BenchedVideo: benched, ModelParts: parts}
    assert _protocols_of_the_package() - NOT_OF_THE_FAKE == set(checked), "a protocol of fakes/video not checked here"
    problems = {protocol.__name__: missing for protocol, implementation in checked.items()
                if (missing := _missing(protocol, implementation))}
    assert not problems


def test_the_check_names_what_an_implementation_lacks() -> None:
    class HalfServed:
        model = "not a model"

        def sync(self, extra: int) -> None: ...

    assert _missing(ServedVideo, HalfServed()) == [
        "attribute model is a str", "attribute dispatcher", "method sync requires extra", "method dispatch"]

    class Stricter:
        def usage(self, project: str | None) -> dict[str, Any]:
            return {}

        def create_project(self, keeps_discarded: bool | None = None) -> dict[str, Any]:
            return {}

    lacks = _missing(ControlledVideo, Stricter())
    assert "method usage requires project" in lacks
    assert "method create_project takes no keyword-only keeps_discarded" in lacks
    assert "method outbox" in lacks and "attribute settings" in lacks
