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

import importlib
import inspect
import pkgutil
import types
import typing
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mypy import api

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

if TYPE_CHECKING:
    _served: ServedRelay = RelayFake()
    _connector: ConnectorHost = RelayFake()
    _controlled: ControlledRelay = RelayFake()
    _panelled: PanelSource = RelayFake()
    _benched: BenchedRelay = RelayFake()

ROOT = Path(__file__).resolve().parents[2]
OF_THE_FAKE = (ServedRelay, ConnectorHost, ControlledRelay, PanelSource, BenchedRelay)
OF_THE_MODEL = (CatalogueLookup, ModelView, JobsModel, RoutingModel, AccountsModel, AccountsHolder, ExportedModel)


def _protocols_of_the_package() -> set[type]:
    found = set()
    for info in pkgutil.walk_packages(fakes.relay.__path__, "fakes.relay."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if inspect.isclass(value) and value.__module__ == module.__name__ \
                    and getattr(value, "_is_protocol", False):
                found.add(value)
    return found


def _hints(protocol: type) -> dict[str, Any]:
    """The attributes a protocol names (its bases' too), their annotations resolved."""
    from mcp.server.mcpserver import MCPServer  # imported by the connector only under TYPE_CHECKING

    return typing.get_type_hints(protocol, localns={"MCPServer": MCPServer})


def _is_a(value: Any, hint: Any) -> bool:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_is_a(value, arg) for arg in typing.get_args(hint))
    if hint is None or hint is type(None):
        return value is None
    return hint is Any or isinstance(value, origin or hint)


def _missing(protocol: type, implementation: object) -> list[str]:
    """What ``implementation`` lacks of ``protocol``: members, attribute types, method parameters."""
    problems = []
    for name, hint in _hints(protocol).items():
        if not hasattr(implementation, name):
            problems.append(f"attribute {name}")
        elif not _is_a(getattr(implementation, name), hint):
            problems.append(f"attribute {name} is a {type(getattr(implementation, name)).__name__}")
    methods = {name: declared for klass in reversed(protocol.__mro__) for name, declared in vars(klass).items()
               if inspect.isfunction(declared) and not name.startswith("__")}
    for name, declared in methods.items():
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


def test_mypy_finds_the_fake_is_what_each_piece_reads_of_it() -> None:
    out, err, status = api.run(["--config-file", str(ROOT / "pyproject.toml"), "--no-error-summary", __file__])
    assert status == 0, out + err


def test_every_protocol_of_the_package_is_satisfied_by_the_fake_a_world_or_the_model() -> None:
    assert _protocols_of_the_package() == {*OF_THE_FAKE, *OF_THE_MODEL}, "a protocol of fakes/relay not checked here"
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
    out, err, status = api.run(["--config-file", str(ROOT / "pyproject.toml"), "--no-error-summary", str(partial)])
    assert status == 1 and 'variable has type "PanelSource"' in out, out + err
