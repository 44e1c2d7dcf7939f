"""The video fake has what each of its pieces uses of it.

The package reads bottom-up (tests/test_layout.py): the routes, the assets, the control plane, the
panels, the benchmark stage, the webhook sender and the state import depend on small protocols
of what they use, defined below them, rather than on ``VideoFake`` (or ``VideoModel``), which
imports them. mypy checks most of them where the fake passes itself (``Dispatcher(self)``,
``state.export(self)`` ...); the routes and the control routes (one set for every fake and world)
read theirs from the request, which mypy cannot follow, so this test holds every protocol of the
package to the objects that serve it: each member present, each attribute of its declared type,
each method taking the protocol's parameters. The annotated assignments below say the same to a
type checker (``mypy tests/video/test_protocols.py``).
"""

from __future__ import annotations

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
from tests.support.protocols import missing, protocols_of

#: protocols of something else than the fake or its model
NOT_OF_THE_FAKE = {Sink}  # where an upload's file part is written


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
    assert protocols_of(fakes.video) - NOT_OF_THE_FAKE == set(checked), "a protocol of fakes/video not checked here"
    problems = {protocol.__name__: lacks for protocol, implementation in checked.items()
                if (lacks := missing(protocol, implementation))}
    assert not problems


def test_the_check_names_what_an_implementation_lacks() -> None:
    class HalfServed:
        model = "not a model"

        def sync(self, extra: int) -> None: ...

    assert missing(ServedVideo, HalfServed()) == [
        "attribute model is a str", "attribute dispatcher", "method sync requires extra", "method dispatch"]

    class Stricter:
        def usage(self, project: str | None) -> dict[str, Any]:
            return {}

        def create_project(self, keeps_discarded: bool | None = None) -> dict[str, Any]:
            return {}

    lacks = missing(ControlledVideo, Stricter())
    assert "method usage requires project" in lacks
    assert "method create_project takes no keyword-only keeps_discarded" in lacks
    assert "method outbox" in lacks and "attribute settings" in lacks
