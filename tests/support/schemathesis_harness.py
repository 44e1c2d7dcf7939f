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

import jsonschema
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis.config import SchemathesisConfig
from schemathesis.generation import GenerationMode
from schemathesis.generation.hypothesis.builder import HypothesisTestConfig, HypothesisTestMode, create_test
from schemathesis.specs.openapi.checks import negative_data_rejection, positive_data_acceptance

from fakes.kernel.fake import Fake
from fakes.kernel.openapi import ACCEPTANCE_BEYOND_SCHEMA, BEYOND_SCHEMA_FIELDS, CONTROL_TAG

#: called with each generated case and a drawn boolean, e.g. to point path ids at real records
CaseTweak = Callable[[Any, bool], None]


def checks_excluded(operation: Any, case: Any, positive: bool) -> list[Any]:
    """The checks a case of ``operation`` is spared: positive data acceptance where the operation says
    why a schema-valid request may be refused (``ACCEPTANCE_BEYOND_SCHEMA``). When it names the body
    fields the reason is about (``BEYOND_SCHEMA_FIELDS``), a positive case loses those fields instead
    (changed in place) and must then be accepted: the reason excuses nothing else."""
    if not positive and _form_text_is_valid(operation, case):
        return [negative_data_rejection]
    raw = operation.definition.raw
    if ACCEPTANCE_BEYOND_SCHEMA not in raw:
        return []
    fields = raw.get(BEYOND_SCHEMA_FIELDS)
    if not (fields and positive and isinstance(case.body, dict)):
        return [positive_data_acceptance]
    for dotted in fields:
        _drop(case.body, dotted.split("."))
    return []


def _form_text_is_valid(operation: Any, case: Any) -> bool:
    """Whether a negative case's form body is valid once sent: a form carries only text, so a number
    or boolean given for a text field arrives as the text of it (``link=1.5`` is the string "1.5"),
    and the server is right to accept it. Only the body's types are judged so; anything else that
    makes the case invalid (a parameter, a header, a missing field) leaves it negative."""
    if case.media_type not in ("multipart/form-data", "application/x-www-form-urlencoded") \
            or not isinstance(case.body, dict):
        return False
    schema = next((body.definition.get("schema") for body in operation.body if body.media_type == case.media_type),
                  None)
    if schema is None or case.meta is None:
        return False
    if any(getattr(location, "value", location) != "body" and info.mode is GenerationMode.NEGATIVE
           for location, info in case.meta.components.items()):
        return False  # a query, path or header value is what makes it invalid
    sent = {name: _as_form_text(value) for name, value in case.body.items()}
    return jsonschema.Draft4Validator(schema).is_valid(sent)


def _as_form_text(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.decode("latin-1")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value) if isinstance(value, float) else str(value)
    return value


def _drop(value: Any, names: list[str]) -> None:
    if isinstance(value, list):
        for item in value:
            _drop(item, names)
    elif isinstance(value, dict):
        if len(names) == 1:
            value.pop(names[0], None)
        else:
            _drop(value.get(names[0]), names[1:])


def load_schema(fake: Fake, *, with_control_plane: bool = False) -> Any:
    # schemathesis's defaults, not the repository's schemathesis.toml (for `st run`): what an operation
    # is spared is decided here, per case (checks_excluded)
    schema = schemathesis.openapi.from_asgi("/openapi.json", fake.app, config=SchemathesisConfig())
    schema.config.update(headers=fake.auth_headers())
    return schema if with_control_plane else schema.exclude(tag=CONTROL_TAG)


def operation_labels(fake: Fake, *, with_control_plane: bool = False) -> list[str]:
    return [op.ok().label for op in load_schema(fake, with_control_plane=with_control_plane).get_all_operations()]


def run_operation(fake: Fake, label: str, *, max_examples: int, tweak: CaseTweak | None = None,
                  with_control_plane: bool = False) -> int:
    """Hypothesis over one operation, valid and invalid cases; returns the number of cases sent."""
    schema = load_schema(fake, with_control_plane=with_control_plane)
    operation = next(op.ok() for op in schema.get_all_operations() if op.ok().label == label)
    strategy = st.one_of(operation.as_strategy(generation_mode=GenerationMode.POSITIVE).map(lambda c: (c, True)),
                         operation.as_strategy(generation_mode=GenerationMode.NEGATIVE).map(lambda c: (c, False)))
    sent = [0]

    # FAKES_HYPOTHESIS_EXPLORE=1 draws new cases instead of CI's fixed, repeatable ones
    @settings(max_examples=max_examples, deadline=None, database=None,
              derandomize=not os.environ.get("FAKES_HYPOTHESIS_EXPLORE"),
              suppress_health_check=list(HealthCheck))
    @given(drawn=strategy, flag=st.booleans())
    def check(drawn: tuple[Any, bool], flag: bool) -> None:
        case, positive = drawn
        if tweak is not None:
            tweak(case, flag)
        sent[0] += 1
        # an operation that says why its acceptance goes beyond its schema (an upload that must be a
        # JPEG, say) is spared the positive-data-acceptance check, as on the control plane
        case.call_and_validate(excluded_checks=checks_excluded(operation, case, positive))

    check()
    return sent[0]


def run_coverage(operation: Any) -> int:
    """Schemathesis's coverage phase on one operation, as ``st run`` runs it before fuzzing: a fixed
    set of cases (each boundary of each schema, valid and not: the longest string, a missing required
    field, an undeclared method), every one checked with all checks (but as :func:`checks_excluded`
    says). Deterministic, no drawing; returns the number of cases sent."""
    sent = [0]

    def check(case: Any) -> None:
        sent[0] += 1
        positive = case.meta is None or case.meta.generation.mode is GenerationMode.POSITIVE
        case.call_and_validate(excluded_checks=checks_excluded(operation, case, positive))

    test = create_test(operation=operation, test_func=check, config=HypothesisTestConfig(
        project=operation.schema.config, modes=[HypothesisTestMode.COVERAGE],
        settings=settings(phases=[Phase.explicit], deadline=None, database=None,
                          suppress_health_check=list(HealthCheck))))
    test()
    return sent[0]
