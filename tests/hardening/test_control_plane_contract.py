"""Schemathesis with all its checks on every control-plane operation of every registered service:
the shared /_fake/ operations and each service's own, as its OpenAPI document declares them.

The one check left out, and only where an operation says why (``x-acceptance-beyond-schema``, see
fakes/kernel/openapi.py): positive data acceptance. ``PUT /_fake/state`` is valid only as a whole
(the seed, the settings, references between records), which no JSON schema can say; the invariant
harness imports real states with one field broken instead (test_invariants.py).
More cases: FAKES_CONTROL_EXAMPLES=N, or FAKES_HYPOTHESIS_EXPLORE=1 for new ones."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import positive_data_acceptance

from fakes import registry
from fakes.kernel.openapi import ACCEPTANCE_BEYOND_SCHEMA

from .harness import CONTROL_EXAMPLES, EXPLORE, PHASES, load_schema, make_fake, operations


def _cases() -> list[tuple[str, str]]:
    found = []
    for service in registry.service_names():
        try:
            schema = load_schema(make_fake(service))
        except Exception:  # a service being written that does not import yet: its own tests say why
            continue
        found += [(service, operation.label) for operation in operations(schema, control=True)]
    return found


@pytest.mark.parametrize(("service", "label"), _cases())
def test_control_operation_keeps_its_documented_contract(service: str, label: str) -> None:
    fake = make_fake(service)
    schema = load_schema(fake)
    operation = next(op for op in operations(schema, control=True) if op.label == label)
    beyond_schema = ACCEPTANCE_BEYOND_SCHEMA in operation.definition.raw
    excluded = [positive_data_acceptance] if beyond_schema else []

    @settings(max_examples=CONTROL_EXAMPLES, deadline=None, database=None, derandomize=not EXPLORE,
              suppress_health_check=list(HealthCheck), phases=PHASES)
    @given(case=st.one_of(operation.as_strategy(generation_mode=GenerationMode.POSITIVE),
                          operation.as_strategy(generation_mode=GenerationMode.NEGATIVE)))
    def run(case: Any) -> None:
        case.call_and_validate(excluded_checks=excluded)

    run()
