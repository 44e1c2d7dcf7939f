"""Issue 23, item 1: every number of the control plane is range-checked before it is converted.

A JSON integer too large for a float (400 digits), or past 64 bits, in any numeric field of any
control operation - the kernel's (clock, faults) and each service's own, as its OpenAPI document
declares them - is a 400 in the control plane's shape, never a 500, and changes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fakes import registry
from fakes.kernel.clock import MAX_EPOCH_MS
from fakes.kernel.fake import Fake
from fakes.kernel.http import finite_number
from fakes.kernel.openapi import CONTROL_TAG

from .conftest import make_fake

SERVICES = registry.service_names()
HUGE = [10**400, -(10**400), 2**64, -(2**63) - 1, 2**1024]


def test_finite_number() -> None:
    assert finite_number(3) == 3.0 and finite_number(1e308) == 1e308
    for bad in (10**400, 2**1024, float("nan"), float("inf"), True, "1", None):
        assert finite_number(bad) is None
    assert finite_number(2**1023) == float(2**1023)


@pytest.mark.parametrize("body", [
    {"advance_seconds": 10**400}, {"advance_seconds": -(10**400)}, {"set_epoch_ms": 10**400},
    {"set_epoch_ms": -(10**400)}, {"set_epoch_ms": 2**64}, {"advance_seconds": 2**1024},
])
def test_a_huge_clock_number_is_a_400_or_409(body: dict[str, Any]) -> None:
    fake = make_fake(SERVICES[0])
    before = fake.clock.now_ms()
    response = fake.client().post("/_fake/clock", json=body)
    assert response.status_code in (400, 409), response.text  # backwards (a negative amount) stays a 409
    assert set(response.json()) >= {"error", "message"}
    assert fake.clock.now_ms() == before


@pytest.mark.parametrize("field", ["probability", "latency_ms", "times", "status"])
@pytest.mark.parametrize("value", HUGE)
def test_a_huge_fault_number_is_a_400_naming_the_field(field: str, value: int) -> None:
    fake = make_fake(SERVICES[0])
    spec = {"status": 500, field: value}
    response = fake.client().post("/_fake/faults", json=spec)
    assert response.status_code == 400, response.text
    assert response.json()["field"] == field
    assert fake.list_faults() == []


def test_a_huge_number_in_an_imported_state_is_a_400() -> None:
    fake = make_fake(SERVICES[0])
    state = fake.export_state()
    state["clock"]["epoch_ms"] = 10**400
    response = fake.client().put("/_fake/state", json=state)
    assert response.status_code == 400 and response.json()["field"] == "clock.epoch_ms", response.text


def test_the_clock_still_takes_the_largest_valid_values() -> None:
    fake = make_fake(SERVICES[0])
    client = fake.client()
    assert client.post("/_fake/clock", json={"set_epoch_ms": MAX_EPOCH_MS - 10_000}).status_code == 200
    assert client.post("/_fake/clock", json={"advance_seconds": 10}).json()["epoch_ms"] == MAX_EPOCH_MS


# -- every numeric field of every control operation ------------------------------------------------
def numeric_fields(schema: Any, document: dict[str, Any], path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Paths of the integer and number properties of a request schema (nested objects included)."""
    if not isinstance(schema, dict):
        return
    if "$ref" in schema:
        target: Any = document
        for part in schema["$ref"].lstrip("#/").split("/"):
            target = target[part]
        yield from numeric_fields(target, document, path)
        return
    for key in ("oneOf", "anyOf", "allOf"):
        for option in schema.get(key, ()):
            yield from numeric_fields(option, document, path)
    if schema.get("type") in ("integer", "number"):
        yield path
    for name, child in (schema.get("properties") or {}).items():
        if len(path) < 3:
            yield from numeric_fields(child, document, (*path, name))


def control_number_cases(fake: Fake) -> list[tuple[str, str, tuple[str, ...], str]]:
    document = fake.openapi()
    cases = []
    for template, item in document["paths"].items():
        for method, operation in item.items():
            if not isinstance(operation, dict) or CONTROL_TAG not in operation.get("tags", ()):
                continue
            body = (operation.get("requestBody") or {}).get("content", {}).get("application/json", {})
            for field in sorted(set(numeric_fields(body.get("schema"), document))):
                if field:
                    cases.append((method.upper(), template, field, "body"))
            for parameter in operation.get("parameters", ()):
                if parameter.get("in") == "query" and parameter.get("schema", {}).get("type") in ("integer", "number"):
                    cases.append((method.upper(), template, (parameter["name"],), "query"))
    return cases


def nest(field: tuple[str, ...], value: Any) -> Any:
    for name in reversed(field):
        value = {name: value}
    return value


@pytest.mark.parametrize("service", SERVICES)
def test_no_huge_number_breaks_a_control_operation(service: str) -> None:
    fake = make_fake(service)
    client = fake.client()
    cases = control_number_cases(fake)
    assert cases, f"{service}: no numeric control input found"
    for method, template, field, where in cases:
        path = template.replace("{", "").replace("}", "")  # a path id that names nothing: still no 500
        for value in HUGE:
            if where == "query":
                response = client.request(method, path, params={field[0]: str(value)})
            else:
                response = client.request(method, path, json=nest(field, value))
            assert response.status_code < 500, (method, template, field, value, response.text[:300])
            if response.status_code >= 400:
                assert set(response.json()) >= {"error", "message"}, response.text[:300]
    for path in ("/_fake/clock", "/_fake/state", "/_fake/faults", "/_fake/journal"):
        assert client.get(path).status_code == 200
