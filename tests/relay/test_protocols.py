"""The relay's modules read the fake and its model through small protocols defined below them
(issue 28 item 10: the package reads bottom-up, no module imports the one that imports it). The
fake and the model must keep satisfying every one: the annotated lines below are the static check
(``mypy tests/relay/test_protocols.py``), and the test checks at run time that each member a
protocol names is there, and callable where the protocol names a method."""

from __future__ import annotations

import inspect
from typing import Any, Protocol

import pytest

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


def _members(protocol: type) -> tuple[set[str], set[str]]:
    """(attributes, methods) a protocol names, its own and its bases'."""
    attributes: set[str] = set()
    methods: set[str] = set()
    for klass in protocol.__mro__:
        if klass in (object, Protocol) or Protocol not in klass.__mro__:
            continue
        attributes |= set(inspect.get_annotations(klass))
        methods |= {name for name, value in vars(klass).items()
                    if inspect.isfunction(value) and not (name.startswith("__") and name.endswith("__"))}
    return attributes, methods


def _checked(fake: RelayFake) -> list[tuple[type, Any]]:
    """Each protocol with what stands for it; the annotations are what mypy checks."""
    served: ServedRelay = fake
    connector: ConnectorHost = fake
    controlled: ControlledRelay = fake
    panelled: PanelSource = fake
    benched: BenchedRelay = fake
    lookup: CatalogueLookup = fake.model
    view: ModelView = fake.model
    jobs: JobsModel = fake.model
    routing: RoutingModel = fake.model
    accounts: AccountsModel = fake.model
    holder: AccountsHolder = fake.model
    exported: ExportedModel = fake.model
    return [(ServedRelay, served), (ConnectorHost, connector), (ControlledRelay, controlled),
            (PanelSource, panelled), (BenchedRelay, benched), (CatalogueLookup, lookup), (ModelView, view),
            (JobsModel, jobs), (RoutingModel, routing), (AccountsModel, accounts), (AccountsHolder, holder),
            (ExportedModel, exported)]


def test_the_members_of_a_protocol_are_found() -> None:
    attributes, methods = _members(ExportedModel)
    assert {"stats", "tasks", "teams", "accounts", "clock"} <= attributes  # its own, JobsModel's, ModelView's
    assert {"add_entry", "register_upstream", "entry", "search"} <= methods  # its own and CatalogueLookup's
    assert "__init__" not in methods


@pytest.mark.parametrize("in_world", [False, True], ids=["fake", "world"])
def test_the_fake_and_its_model_satisfy_what_their_modules_read(in_world: bool) -> None:
    fake = RelayFake(seed=3)
    if in_world:  # routes read a world as they read the fake: the scope's app is either
        found = fake.world("protocols")
        assert isinstance(found, RelayFake) and found is not fake
        fake = found
    for protocol, value in _checked(fake):
        attributes, methods = _members(protocol)
        missing = sorted(name for name in attributes | methods if not hasattr(value, name))
        assert not missing, f"{type(value).__name__} lacks what {protocol.__name__} names: {missing}"
        not_callable = sorted(name for name in methods if not callable(getattr(value, name)))
        assert not not_callable, f"{protocol.__name__} calls these, not callable here: {not_callable}"
