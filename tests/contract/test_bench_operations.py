"""Every public operation of every service has a benchmark operation, and each one works.

The benchmark's ``operations`` part (``python -m scenarios bench --parts operations``) times what
``Fake.bench_operations()`` lists; these tests keep that list whole (every method and path of the
service's OpenAPI document, control plane aside) and working (each answers an expected status on
the service's test settings), so the timing table never silently loses an operation.
"""

from __future__ import annotations

import pytest

from fakes import registry
from fakes.kernel.fake import Fake
from scenarios.bench.operations import send

#: services whose bench_operations() are still being written (each is removed when its list is whole;
#: xfail is strict, so a service that becomes whole fails here until it is taken off)
PENDING: set[str] = set()

HTTP_METHODS = {"get", "put", "post", "delete", "patch", "head", "options"}


def _fake(service: str) -> Fake:
    cls = registry.fake_class(service)
    return cls(seed=0, **cls.settings_for_tests())


def _marks(service: str) -> list[pytest.MarkDecorator]:
    if service in PENDING:
        return [pytest.mark.xfail(reason=f"{service}: bench_operations() not yet whole", strict=True)]
    return []


SERVICES = [pytest.param(name, marks=_marks(name)) for name in registry.service_names()]


def documented_operations(fake: Fake) -> set[tuple[str, str]]:
    paths = fake.openapi_document().get("paths", {})
    return {(method.upper(), path) for path, item in paths.items() if not path.startswith("/_fake")
            for method in item if method in HTTP_METHODS}


@pytest.mark.parametrize("service", SERVICES)
def test_every_documented_operation_has_a_bench_operation(service: str) -> None:
    fake = _fake(service)
    listed = {(op.method.upper(), op.path_template) for op in fake.bench_operations()}
    missing = sorted(documented_operations(fake) - listed)
    assert not missing, f"{service}: no bench operation for {missing}"


@pytest.mark.parametrize("service", SERVICES)
def test_each_bench_operation_answers_as_expected(service: str) -> None:
    fake = _fake(service)
    operations = fake.bench_operations()
    assert operations, f"{service} lists no bench operation"
    wrong = []
    with fake.client() as client:
        auth = dict(fake.auth_headers())
        for operation in operations:
            for _ in range(2):  # twice: an operation must work again (what the benchmark does)
                status, _seconds, _cpu = send(client, auth, operation)
                if status not in operation.expect:
                    wrong.append(f"{operation.name}: {status} (expected {operation.expect})")
    assert not wrong, f"{service}: " + "; ".join(wrong)
