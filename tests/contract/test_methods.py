"""Every path of every document answers a method it does not declare with a 405 whose ``Allow``
names exactly the methods it declares (HEAD beside GET), as schemathesis's coverage phase checks
(``unsupported_method``, and ``allow_header_conformance`` on OPTIONS). As OpenAPI matches paths, a
concrete path owns its requests: ``DELETE /connections/token`` is not ``DELETE /connections/{id}``."""

from __future__ import annotations

import re

import pytest

from fakes import registry
from tests.hardening.harness import make_fake

METHODS = ("GET", "PUT", "POST", "DELETE", "PATCH", "OPTIONS")
OPERATIONS = frozenset(method.lower() for method in METHODS) | {"head", "trace"}


def _fill(path: str, item: dict[str, object]) -> str:
    """The path with each parameter as a value of its type (1, or a word)."""
    kinds: dict[str, str] = {}
    for operation in item.values():
        if isinstance(operation, dict):
            for parameter in operation.get("parameters", ()):
                if parameter.get("in") == "path":
                    kinds[parameter["name"]] = parameter.get("schema", {}).get("type", "string")
    return re.sub(r"\{([^}]*)\}", lambda m: "1" if kinds.get(m.group(1)) == "integer" else "a1", path)


@pytest.mark.parametrize("service", registry.service_names())
def test_an_undeclared_method_is_a_405_naming_the_declared_ones(service: str) -> None:
    fake = make_fake(service)
    client = fake.client()
    wrong = []
    for path, item in fake.openapi()["paths"].items():
        declared = {method.upper() for method in item if method in OPERATIONS}
        target = _fill(path, item)
        for method in METHODS:
            if method in declared:
                continue
            answer = client.request(method, target, headers=fake.auth_headers())
            allow = {m.strip() for m in answer.headers.get("allow", "").split(",") if m.strip()}
            if answer.status_code == 404 and "{" in path:
                continue  # as schemathesis sees it: routing may look the resource up first (none is "a1")
            if answer.status_code != 405 or allow - {"HEAD", "OPTIONS"} != declared:
                wrong.append(f"{method} {target} ({path}): {answer.status_code} Allow: {sorted(allow)}")
    assert not wrong, "\n".join(wrong)
