"""Schemathesis with all its checks on every control-plane operation of every registered service:
the shared /_fake/ operations and each service's own, as its OpenAPI document declares them.

The one check left out, and only where an operation says why (``x-acceptance-beyond-schema``, see
fakes/kernel/openapi.py): positive data acceptance. ``PUT /_fake/state`` is valid only as a whole
(the seed, the settings, references between records), which no JSON schema can say; the invariant
harness imports real states with one field broken instead (test_invariants.py).
More cases: FAKES_CONTROL_EXAMPLES=N, or FAKES_HYPOTHESIS_EXPLORE=1 for new ones."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import positive_data_acceptance

from fakes import registry
from fakes.kernel.openapi import ACCEPTANCE_BEYOND_SCHEMA, CONTROL_TAG

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


# -- the classes of issue 23, item 13, checked for every operation, not left to the draw ------------
SHORTHANDS = re.compile(r"(?<!\\)(?:\\\\)*\\[sSdDwWbB]")


def _schemas(value: Any) -> Any:
    if isinstance(value, dict):
        yield value
        for child in value.values():
            yield from _schemas(child)
    elif isinstance(value, list):
        for child in value:
            yield from _schemas(child)


@pytest.mark.parametrize("service", registry.service_names())
def test_patterns_mean_the_same_to_python_and_to_json_schema(service: str) -> None:
    """\\s, \\d, \\w and \\b match more in Python's re (Unicode digits, \\x1c-\\x1f) than in JSON
    Schema's ECMA-262 regexes: a server checking with Python would refuse what its document allows."""
    document = make_fake(service).openapi()
    found = sorted({schema["pattern"] for schema in _schemas(document)
                    if isinstance(schema.get("pattern"), str) and SHORTHANDS.search(schema["pattern"])})
    assert not found, f"spell these classes out: {found}"


@pytest.mark.parametrize("service", registry.service_names())
def test_a_required_control_body_is_enforced(service: str) -> None:
    fake = make_fake(service)
    client = fake.client()
    checked = 0
    for path, item in fake.openapi()["paths"].items():
        for method, operation in item.items():
            if (not isinstance(operation, dict) or CONTROL_TAG not in operation.get("tags", ())
                    or not (operation.get("requestBody") or {}).get("required")):
                continue
            target = re.sub(r"\{[^}]*\}", "x", path)
            for headers in ({}, {"content-type": "application/json"}):
                answer = client.request(method.upper(), target, headers=headers)
                assert 400 <= answer.status_code < 500, (method, path, answer.status_code, answer.text[:200])
            checked += 1
    assert checked >= 3  # the kernel's clock, faults and state at least


def test_the_state_import_documents_what_it_takes() -> None:
    fake = make_fake(registry.service_names()[0])
    schema = fake.openapi()["paths"]["/_fake/state"]["put"]["requestBody"]["content"]["application/json"]["schema"]
    assert set(schema["required"]) == {"service", "format", "seed", "clock", "model"}
    assert schema["properties"]["service"]["enum"] == [fake.name]
    assert schema["properties"]["seed"]["enum"] == [fake.seed]
    refused = fake.client().put("/_fake/state", json={})
    assert refused.status_code == 400  # what the document says: {} lacks every required field


def test_fault_header_values_are_printable_latin_1_as_documented() -> None:
    fake = make_fake(registry.service_names()[0])
    client = fake.client()
    for value in ("a\u0084b", "a\u009fb", "a\x7fb", "a\x01b"):  # C1, DEL, C0 controls
        assert client.post("/_fake/faults", json={"status": 500, "headers": {"X-A": value}}).status_code == 400
    assert client.post("/_fake/faults", json={"status": 500, "path": "/x", "headers": {"X-A": "caf\u00e9\u00a0"}}
                       ).status_code == 201


def test_fault_bodies_take_integers_of_any_size_as_documented() -> None:
    fake = make_fake(registry.service_names()[0])
    client = fake.client()
    assert client.post("/_fake/faults", json={"status": 500, "path": "/big", "body": {"n": 2**70}}).status_code == 201
    assert client.get("/big").json() == {"n": 2**70}
    twin = make_fake(registry.service_names()[0])
    assert twin.client().put("/_fake/state", content=client.get("/_fake/state").content).status_code == 200
    assert twin.client().get("/big").json() == {"n": 2**70}
