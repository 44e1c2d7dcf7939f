"""Run schemathesis against a fake's own OpenAPI document, in process through its ASGI app.

Every public operation gets hypothesis-generated requests (valid and invalid); the caller's
full-access credentials (``fake.auth_headers()``) are configured on the schema, so schemathesis
knows that a request it strips of them must be refused. Every response must pass schemathesis's
checks: no 5xx, status codes, content types, headers and bodies that the document declares,
invalid input rejected, valid input accepted. The shared control plane is exercised by the
kernel's own tests, so its tagged operations are left out unless asked for.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import positive_data_acceptance

from fakes.kernel.fake import Fake
from fakes.kernel.openapi import ACCEPTANCE_BEYOND_SCHEMA, CONTROL_TAG

#: called with each generated case and a drawn boolean, e.g. to point path ids at real records
CaseTweak = Callable[[Any, bool], None]


def load_schema(fake: Fake, *, with_control_plane: bool = False) -> Any:
    schema = schemathesis.openapi.from_asgi("/openapi.json", fake.app)
    schema.config.update(headers=fake.auth_headers())
    return schema if with_control_plane else schema.exclude(tag=CONTROL_TAG)


def operation_labels(fake: Fake, *, with_control_plane: bool = False) -> list[str]:
    return [op.ok().label for op in load_schema(fake, with_control_plane=with_control_plane).get_all_operations()]


def run_operation(fake: Fake, label: str, *, max_examples: int, tweak: CaseTweak | None = None,
                  with_control_plane: bool = False) -> int:
    """Hypothesis over one operation, valid and invalid cases; returns the number of cases sent."""
    schema = load_schema(fake, with_control_plane=with_control_plane)
    operation = next(op.ok() for op in schema.get_all_operations() if op.ok().label == label)
    strategy = st.one_of(operation.as_strategy(generation_mode=GenerationMode.POSITIVE),
                         operation.as_strategy(generation_mode=GenerationMode.NEGATIVE))
    sent = [0]
    # an operation that says why its acceptance goes beyond its schema (an upload that must be a JPEG,
    # say) is spared only the positive-data-acceptance check, as on the control plane
    excluded = [positive_data_acceptance] if ACCEPTANCE_BEYOND_SCHEMA in operation.definition.raw else []

    # FAKES_HYPOTHESIS_EXPLORE=1 draws new cases instead of CI's fixed, repeatable ones
    @settings(max_examples=max_examples, deadline=None, database=None,
              derandomize=not os.environ.get("FAKES_HYPOTHESIS_EXPLORE"),
              suppress_health_check=list(HealthCheck))
    @given(case=strategy, flag=st.booleans())
    def check(case: Any, flag: bool) -> None:
        if tweak is not None:
            tweak(case, flag)
        sent[0] += 1
        case.call_and_validate(excluded_checks=excluded)

    check()
    return sent[0]
