"""Every fake publishes a valid OpenAPI 3.0 document (openapi-spec-validator, the reference checker):
no JSON Schema keyword that 3.0 lacks (``const``, ``patternProperties``, ``propertyNames``), no empty
``required``. The example service of CONTRIBUTING.md is held to the same, with and without a
control token and a mount prefix (both change the document)."""

from __future__ import annotations

from typing import Any

import pytest
from openapi_spec_validator import validate
from openapi_spec_validator.validation.validators import OpenAPIV30SpecValidator

from examples.notes import NotesFake
from fakes import registry
from fakes.kernel.fake import Fake
from tests.hardening.harness import make_fake

#: the version every document declares: 3.0.3, read by more tools than 3.1 and without 3.1's JSON Schema
#: 2020-12, under which 1.0 is an integer (schemathesis then sends 5.0 where the fakes take 5)
VERSION = "3.0.3"


def _errors(document: dict[str, Any]) -> list[str]:
    return [f"{'/'.join(map(str, error.path))}: {error.message[:300]}"
            for error in OpenAPIV30SpecValidator(document).iter_errors()]


def _fakes() -> list[tuple[str, Fake]]:
    found: list[tuple[str, Fake]] = [(service, make_fake(service)) for service in registry.service_names()]
    found += [("notes", NotesFake(seed=0)),
              ("notes with a token and a prefix", NotesFake(seed=0, control_token="t", prefix="/api/v1"))]
    return found


@pytest.mark.parametrize(("name", "fake"), _fakes(), ids=lambda value: value if isinstance(value, str) else "")
def test_the_document_is_valid_openapi_3_0(name: str, fake: Fake) -> None:
    document = fake.openapi()
    assert document["openapi"] == VERSION
    assert not _errors(document), "\n".join(_errors(document))
    validate(document)  # the library's own entry point agrees (it raises on the first error)


@pytest.mark.parametrize("service", registry.service_names())
def test_a_world_and_a_control_token_keep_it_valid(service: str) -> None:
    fake = make_fake(service, control_token="t", max_worlds=2)
    assert not _errors(fake.openapi())


def test_the_validator_would_see_a_3_1_construct() -> None:
    """What the issue found (``const`` in a 3.0.3 document) fails here: the check is not vacuous."""
    document = make_fake(registry.service_names()[0]).openapi()
    item = document["paths"]["/_fake/health"]["get"]["responses"]["200"]["content"]["application/json"]
    broken = {**document, "paths": {**document["paths"], "/_fake/health": {"get": {
        **document["paths"]["/_fake/health"]["get"], "responses": {"200": {
            "description": "OK", "content": {"application/json": {"schema": {
                **item["schema"], "properties": {"status": {"const": "ok"}}}}}}}}}}}
    assert _errors(broken)



def _nullable_enums_without_null(node: Any, where: str, found: list[str]) -> None:
    if isinstance(node, dict):
        if node.get("nullable") is True and isinstance(node.get("enum"), list) and None not in node["enum"]:
            found.append(where)
        for key, value in node.items():
            _nullable_enums_without_null(value, f"{where}/{key}", found)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            _nullable_enums_without_null(value, f"{where}/{index}", found)


@pytest.mark.parametrize("service", registry.service_names())
def test_a_nullable_enum_lists_null(service: str) -> None:
    """OpenAPI 3.0.3 lets an ``enum`` restrict ``nullable``: without null in it, null is invalid, and
    schemathesis sends it as a wrong value (issue 33: the relay's budget ``status: null``, which the
    relay takes, as treg does)."""
    found: list[str] = []
    _nullable_enums_without_null(make_fake(service).openapi(), "", found)
    assert not found, found


def test_the_relay_budget_takes_what_its_schema_says() -> None:
    fake = make_fake("relay")
    client = fake.client()
    schema = fake.openapi()["paths"]["/orgs/{org_id}/budgets/{dim}"]["put"]["requestBody"]["content"][
        "application/json"]["schema"]["properties"]["status"]
    assert None in schema["enum"] and schema["nullable"]
    for status, expected in ((None, 200), ("blocked", 200), (1, 422), (True, 422), ("x", 422), ([], 422)):
        answer = client.put("/orgs/1/budgets/cust", json={"status": status}, headers=fake.auth_headers())
        assert answer.status_code == expected, (status, answer.text)
