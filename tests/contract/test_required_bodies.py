"""A public operation whose JSON body the document marks required refuses a request without one
(4xx in the service's shape), as schemathesis's negative cases expect: issue 33 found video's
``POST /players`` and ``POST /upload-tokens`` creating with defaults instead. ``{}`` is a body."""

from __future__ import annotations

import re

import pytest

from fakes import registry
from fakes.kernel.openapi import CONTROL_TAG
from tests.hardening.harness import make_fake


@pytest.mark.parametrize("service", registry.service_names())
def test_a_required_json_body_cannot_be_left_out(service: str) -> None:
    fake = make_fake(service)
    client = fake.client()
    accepted, checked = [], 0
    for path, item in fake.openapi()["paths"].items():
        for method, operation in item.items():
            body = operation.get("requestBody") if isinstance(operation, dict) else None
            if (not body or not body.get("required") or "application/json" not in body.get("content", {})
                    or CONTROL_TAG in operation.get("tags", ())):
                continue
            target = re.sub(r"\{[^}]*\}", "1", path)
            for headers in ({}, {"content-type": "application/json"}):
                answer = client.request(method.upper(), target, headers={**fake.auth_headers(), **headers})
                if not 400 <= answer.status_code < 500:
                    accepted.append(f"{method.upper()} {path} {headers}: {answer.status_code} {answer.text[:120]}")
            checked += 1
    assert not accepted, "\n".join(accepted)
    assert checked or service in ("member-export",), f"{service} documents no required JSON body"
