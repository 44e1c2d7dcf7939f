"""Schemathesis on every registered fake: each public operation of its own OpenAPI document."""

from __future__ import annotations

import os

import pytest

from fakes import registry
from fakes.kernel.fake import Fake
from tests.support.schemathesis_harness import load_schema, operation_labels, run_operation

MAX_EXAMPLES = int(os.environ.get("FAKES_CONTRACT_EXAMPLES", "10"))


def contract_fake(service: str) -> Fake:
    # the service's own test settings (e.g. a small catalogue): the same contract on less data
    cls = registry.fake_class(service)
    return cls(seed=0, **cls.settings_for_tests())


def _cases() -> list[tuple[str, str]]:
    return [(service, label) for service in registry.service_names()
            for label in operation_labels(contract_fake(service))]


@pytest.mark.parametrize(("service", "label"), _cases())
def test_operation_keeps_its_contract(service: str, label: str) -> None:
    sent = run_operation(contract_fake(service), label, max_examples=MAX_EXAMPLES)
    assert sent >= 1


@pytest.mark.parametrize("service", registry.service_names())
def test_document_is_valid_openapi_with_operations_and_errors(service: str) -> None:
    fake = contract_fake(service)
    document = fake.openapi()
    assert document["openapi"].startswith("3.")
    schema = load_schema(fake)
    operations = [op.ok() for op in schema.get_all_operations()]
    assert operations, f"{service} documents no public operation"
    for operation in operations:
        statuses = set(operation.definition.raw["responses"])
        assert any(s.startswith("2") for s in statuses), f"{operation.label} documents no success"
        assert any(s.startswith("4") for s in statuses), f"{operation.label} documents no error"
