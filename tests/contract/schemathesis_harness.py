"""Run schemathesis against a fake's own OpenAPI document, in process through its ASGI app.

Every public operation gets hypothesis-generated requests (valid and invalid), sent with the
fake's ``auth_headers()``; every response must pass schemathesis's checks: no 5xx, status
codes, content types, headers and bodies that the document declares. The control plane is
exercised by the kernel's own tests, so its tagged operations are left out here.
"""

from __future__ import annotations

from typing import Any

import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.generation import GenerationMode

from fakes.kernel.fake import Fake
from fakes.kernel.openapi import CONTROL_TAG


def load_schema(fake: Fake) -> Any:
    schema = schemathesis.openapi.from_asgi("/openapi.json", fake.app)
    # The caller's credentials are configured on the schema, so schemathesis knows a request it
    # strips of them must be refused (rather than re-adding them to a "negative" case).
    schema.config.update(headers=fake.auth_headers())
    return schema.exclude(tag=CONTROL_TAG)


def operation_labels(fake: Fake) -> list[str]:
    return [op.ok().label for op in load_schema(fake).get_all_operations()]


def run_operation(fake: Fake, label: str, *, max_examples: int, seed: int = 0) -> int:
    """Hypothesis over one operation; returns the number of cases sent."""
    schema = load_schema(fake)
    operation = next(op.ok() for op in schema.get_all_operations() if op.ok().label == label)
    strategy = st.one_of(operation.as_strategy(generation_mode=GenerationMode.POSITIVE),
                         operation.as_strategy(generation_mode=GenerationMode.NEGATIVE))
    sent = [0]

    @settings(max_examples=max_examples, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(case=strategy)
    def check(case: Any) -> None:
        sent[0] += 1
        case.call_and_validate()

    check()
    return sent[0]
