"""Issue 12, item 10: the OpenAPI documents say what the server does."""

from __future__ import annotations

import pytest

from fakes import registry
from fakes.kernel.openapi import CONTROL_SCHEME, CONTROL_TAG

from .harness import make_fake


def control_operations(document: dict[str, object]) -> list[dict[str, object]]:
    paths = document["paths"]
    assert isinstance(paths, dict)
    return [op for item in paths.values() for op in item.values()
            if isinstance(op, dict) and CONTROL_TAG in op.get("tags", ())]


@pytest.mark.parametrize("service", registry.service_names())
def test_control_operations_never_inherit_the_services_security(service: str) -> None:
    operations = control_operations(make_fake(service).openapi())
    assert operations and all(op["security"] == [] for op in operations)


def test_with_a_control_token_the_control_plane_declares_it() -> None:
    document = make_fake("filings", control_token="s3cret").openapi()
    assert document["components"]["securitySchemes"][CONTROL_SCHEME]["scheme"] == "bearer"
    assert all(op["security"] == [{CONTROL_SCHEME: []}] for op in control_operations(document))
    assert document["security"] == [{"ApiKeyAuth": []}]  # the service's own operations keep theirs


def test_a_fault_as_answered_matches_its_schema() -> None:
    fake = make_fake("member-export", max_fault_latency_ms=1234)
    schema = fake.openapi()["paths"]["/_fake/faults"]["post"]
    answered = fake.client().post("/_fake/faults", json={"latency_ms": 5}).json()
    assert answered["status"] is None and answered["times"] is None  # null, as documented
    out = schema["responses"]["201"]["content"]["application/json"]["schema"]
    assert out["properties"]["status"]["nullable"] and out["properties"]["times"]["nullable"]
    assert set(out["required"]) == set(answered)
    body = schema["requestBody"]["content"]["application/json"]["schema"]
    assert body["properties"]["latency_ms"]["maximum"] == 1234
    assert body["properties"]["status"]["minimum"] == 200
