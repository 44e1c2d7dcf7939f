"""A query parameter's documented ``maxLength`` is the server's: one character more is refused with
the service's 400 (schemathesis's negative cases send exactly that; issue 33 found filings taking a
longer ``source_filing_type`` and ``/line-item-definitions/?search=``). Checked for every plain
string parameter of every public GET, whose value is otherwise free text."""

from __future__ import annotations

import re
from typing import Any

import pytest

from fakes import registry
from fakes.kernel.openapi import CONTROL_TAG
from tests.hardening.harness import make_fake


def _plain_bound(schema: dict[str, Any]) -> int | None:
    """The maxLength of a free-text string schema (or of the text branch of a lenient anyOf)."""
    branches = schema.get("anyOf", [schema])
    for branch in branches:
        if (branch.get("type") == "string" and branch.get("maxLength", 0) > 0
                and not {"pattern", "enum", "format"} & set(branch)):
            return int(branch["maxLength"])
    return None


def _cases(service: str) -> list[tuple[str, str, int]]:
    found = []
    for path, item in make_fake(service).openapi()["paths"].items():
        operation = item.get("get")
        if not isinstance(operation, dict) or CONTROL_TAG in operation.get("tags", ()):
            continue
        for parameter in [*item.get("parameters", ()), *operation.get("parameters", ())]:
            bound = _plain_bound(parameter.get("schema", {})) if parameter.get("in") == "query" else None
            if bound is not None:
                found.append((path, parameter["name"], bound))
    return found


@pytest.mark.parametrize("service", registry.service_names())
def test_one_character_past_a_documented_max_length_is_refused(service: str) -> None:
    fake = make_fake(service)
    client = fake.client()
    accepted = []
    for path, name, bound in _cases(service):
        target = re.sub(r"\{[^}]*\}", "1", path)
        answer = client.get(target, params={name: "a" * (bound + 1)}, headers=fake.auth_headers())
        if answer.status_code < 400:
            accepted.append(f"GET {path}?{name}= ({bound + 1} characters): {answer.status_code}")
    assert not accepted, "\n".join(accepted)
