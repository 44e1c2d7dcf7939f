"""The relay fake and its model have what each piece of the package uses of them.

The package reads bottom-up (tests/test_layout.py): the routes, pages, connector, control plane,
panels and benchmark read the fake, and the call pipeline's rules, the asynchronous jobs, the
accounts and the state read the model, through small protocols defined below them, never through
``RelayFake`` or ``RelayModel``, which import them. mypy checks the model's where it hands itself
over (``state.export(self)``, ``Accounts(self)``, the pipeline passing itself to its rules); the
fake's are read from the request's scope, which mypy cannot follow. So this test holds every
protocol of the package to what serves it twice: mypy reads the annotated assignments under
``TYPE_CHECKING`` below, and at run time each member must be there, each attribute of its declared
type, each method taking the protocol's parameters.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import fakes.relay
from fakes.relay import RelayFake
from fakes.relay.accounts.identity import AccountsModel
from fakes.relay.accounts.state import AccountsHolder
from fakes.relay.asyncjobs import JobsModel
from fakes.relay.benchstage import BenchedRelay
from fakes.relay.control import ControlledRelay
from fakes.relay.modelview import CatalogueLookup, ModelView
from fakes.relay.panel import PanelSource
from fakes.relay.routed import RoutingModel
from fakes.relay.served import ConnectorHost, ServedRelay
from fakes.relay.state import ExportedModel
from tests.support.protocols import missing, protocols_of, run_mypy

if TYPE_CHECKING:
    _served: ServedRelay = RelayFake()
    _connector: ConnectorHost = RelayFake()
    _controlled: ControlledRelay = RelayFake()
    _panelled: PanelSource = RelayFake()
    _benched: BenchedRelay = RelayFake()

OF_THE_FAKE = (ServedRelay, ConnectorHost, ControlledRelay, PanelSource, BenchedRelay)
OF_THE_MODEL = (CatalogueLookup, ModelView, JobsModel, RoutingModel, AccountsModel, AccountsHolder, ExportedModel)


def _missing(protocol: type, implementation: object) -> list[str]:
    from mcp.server.mcpserver import MCPServer  # imported by the connector only under TYPE_CHECKING

    return missing(protocol, implementation, {"MCPServer": MCPServer})


def test_mypy_finds_the_fake_is_what_each_piece_reads_of_it() -> None:
    status, report = run_mypy(__file__)
    assert status == 0, report


def test_every_protocol_of_the_package_is_satisfied_by_the_fake_a_world_or_the_model() -> None:
    assert protocols_of(fakes.relay) == {*OF_THE_FAKE, *OF_THE_MODEL}, "a protocol of fakes/relay not checked here"
    fake = RelayFake(seed=3)
    world = fake.world("protocols")  # the scope's app may be a world: a fake of the same class, its own model
    assert isinstance(world, RelayFake) and world.model is not fake.model
    problems = {f"{protocol.__name__} of {where}": missing
                for where, served in (("the fake", fake), ("a world", world))
                for protocol, implementation in [*((p, served) for p in OF_THE_FAKE),
                                                 *((p, served.model) for p in OF_THE_MODEL)]
                if (missing := _missing(protocol, implementation))}
    assert not problems


def test_the_check_names_what_an_implementation_lacks() -> None:
    class HalfServed:
        settings = "not settings"

        def render(self, body: Any, extra: int) -> bytes:
            return b""

    assert _missing(ServedRelay, HalfServed()) == ["attribute settings is a str", "attribute model",
                                                   "method render requires extra"]

    class Stricter:
        def team_info(self, team: str) -> dict[str, Any]:
            return {}

        def create_team(self, balance_micro: int | None = None, name: str | None = None,
                        upstream_rate_limited: bool = True) -> dict[str, Any]:
            return {}

    lacks = _missing(ControlledRelay, Stricter())
    assert "method team_info takes no positional or keyword team_id" in lacks
    assert "method create_team takes no keyword-only upstream_rate_limited" in lacks
    assert "method outbox" in lacks and "attribute model" in lacks
    # a protocol's bases count: ExportedModel extends JobsModel, which extends ModelView and CatalogueLookup
    assert {"attribute tasks", "attribute clock", "method search", "method add_entry"} <= set(
        _missing(ExportedModel, Stricter()))


def test_mypy_catches_a_fake_missing_what_a_piece_reads(tmp_path: Path) -> None:
    partial = tmp_path / "partial.py"
    partial.write_text("from fakes.relay.panel import PanelSource\n"
                       "class Partial:\n"
                       "    model = None\n"
                       "_: PanelSource = Partial()\n")
    status, report = run_mypy(str(partial))
    assert status == 1 and 'variable has type "PanelSource"' in report, report
