"""Schemathesis with all its checks on every control-plane operation of every registered service:
the shared /_fake/ operations and each service's own, as its OpenAPI document declares them.

The one check left out, and only where an operation says why (``x-acceptance-beyond-schema``, see
fakes/kernel/openapi.py): positive data acceptance. ``PUT /_fake/state`` is valid only as a whole
(the seed, the settings, references between records), which no JSON schema can say; the invariant
harness imports real states with one field broken instead (test_invariants.py). Where the reason
names the body fields it is about (``x-beyond-schema-fields``: a fault's headers, an ISIN), schema-valid
bodies without those fields must still be accepted (tests/support/schemathesis_harness.py).
More cases: FAKES_CONTROL_EXAMPLES=N, or FAKES_HYPOTHESIS_EXPLORE=1 for new ones."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.generation import GenerationMode

from examples.notes import NotesFake
from fakes import registry
from fakes.kernel.dashboard.openapi import dashboard_paths
from fakes.kernel.fake import Fake
from fakes.kernel.openapi import CONTROL_TAG, control_paths
from fakes.kernel.worlds import world_openapi_paths
from tests.support.schemathesis_harness import checks_excluded, run_coverage

from .harness import CONTROL_EXAMPLES, EXPLORE, PHASES, load_schema, make_fake, operations

#: the kernel's control operations whose answers no service shapes (faults, journal, stubs, verdicts,
#: worlds, the dashboard's page and assets); the clock, health, reset, state and the dashboard's panels
#: and images run each model's own code, so every service keeps those
SHARED_KERNEL_PATHS = frozenset({*control_paths(), *dashboard_paths(), *world_openapi_paths()}) - {
    "/_fake/clock", "/_fake/health", "/_fake/reset", "/_fake/state", "/_fake/ui/panels", "/_fake/ui/image"}


def _cases() -> list[tuple[str, str]]:
    """Every service's own control operations; each of the kernel's (the same code in every fake)
    through one service, in turn, so every service serves some of them and none runs twice."""
    found = []
    kernel_turn: dict[str, int] = {}
    for index, service in enumerate(registry.service_names()):
        try:
            schema = load_schema(make_fake(service))
        except Exception:  # a service being written that does not import yet: its own tests say why
            continue
        for operation in operations(schema, control=True):
            if operation.path in SHARED_KERNEL_PATHS:
                turn = kernel_turn.setdefault(operation.label, len(kernel_turn))
                if turn % len(registry.service_names()) != index:
                    continue
            found.append((service, operation.label))
    return found


@pytest.mark.parametrize(("service", "label"), _cases())
def test_control_operation_keeps_its_documented_contract(service: str, label: str) -> None:
    fake = make_fake(service)
    schema = load_schema(fake)
    operation = next(op for op in operations(schema, control=True) if op.label == label)

    @settings(max_examples=CONTROL_EXAMPLES, deadline=None, database=None, derandomize=not EXPLORE,
              suppress_health_check=list(HealthCheck), phases=PHASES)
    @given(drawn=st.one_of(
        operation.as_strategy(generation_mode=GenerationMode.POSITIVE).map(lambda case: (case, True)),
        operation.as_strategy(generation_mode=GenerationMode.NEGATIVE).map(lambda case: (case, False))))
    def run(drawn: tuple[Any, bool]) -> None:
        case, positive = drawn
        case.call_and_validate(excluded_checks=checks_excluded(operation, case, positive))

    run()


# -- the classes of issue 23, item 13, checked for every operation, not left to the draw ------------
SHORTHANDS = re.compile(r"(?<!\\)(?:\\\\)*\\[sSdDwWbB]")


def _schemas(value: Any) -> Any:
    if isinstance(value, dict):
        yield value
        for child in value.values():
            yield from _schemas(child)
    elif isinstance(value, list):
        for child in value:
            yield from _schemas(child)


@pytest.mark.parametrize("service", registry.service_names())
def test_patterns_mean_the_same_to_python_and_to_json_schema(service: str) -> None:
    """\\s, \\d, \\w and \\b match more in Python's re (Unicode digits, \\x1c-\\x1f) than in JSON
    Schema's ECMA-262 regexes: a server checking with Python would refuse what its document allows."""
    document = make_fake(service).openapi()
    found = sorted({schema["pattern"] for schema in _schemas(document)
                    if isinstance(schema.get("pattern"), str) and SHORTHANDS.search(schema["pattern"])})
    assert not found, f"spell these classes out: {found}"


@pytest.mark.parametrize("service", registry.service_names())
def test_a_required_control_body_is_enforced(service: str) -> None:
    fake = make_fake(service)
    client = fake.client()
    checked = 0
    for path, item in fake.openapi()["paths"].items():
        for method, operation in item.items():
            if (not isinstance(operation, dict) or CONTROL_TAG not in operation.get("tags", ())
                    or not (operation.get("requestBody") or {}).get("required")):
                continue
            target = re.sub(r"\{[^}]*\}", "x", path)
            for headers in ({}, {"content-type": "application/json"}):
                answer = client.request(method.upper(), target, headers=headers)
                assert 400 <= answer.status_code < 500, (method, path, answer.status_code, answer.text[:200])
            checked += 1
    assert checked >= 3  # the kernel's clock, faults and state at least


def test_the_state_import_documents_what_it_takes() -> None:
    fake = make_fake(registry.service_names()[0])
    schema = fake.openapi()["paths"]["/_fake/state"]["put"]["requestBody"]["content"]["application/json"]["schema"]
    assert set(schema["required"]) == {"service", "format", "seed", "clock", "model"}
    assert schema["properties"]["service"]["enum"] == [fake.name]
    assert schema["properties"]["seed"]["enum"] == [fake.seed]
    refused = fake.client().put("/_fake/state", json={})
    assert refused.status_code == 400  # what the document says: {} lacks every required field


def test_fault_header_values_are_printable_latin_1_as_documented() -> None:
    fake = make_fake(registry.service_names()[0])
    client = fake.client()
    for value in ("a\u0084b", "a\u009fb", "a\x7fb", "a\x01b"):  # C1, DEL, C0 controls
        assert client.post("/_fake/faults", json={"status": 500, "headers": {"X-A": value}}).status_code == 400
    assert client.post("/_fake/faults", json={"status": 500, "path": "/x", "headers": {"X-A": "caf\u00e9\u00a0"}}
                       ).status_code == 201


def test_fault_bodies_take_integers_of_any_size_as_documented() -> None:
    fake = make_fake(registry.service_names()[0])
    client = fake.client()
    assert client.post("/_fake/faults", json={"status": 500, "path": "/big", "body": {"n": 2**70}}).status_code == 201
    assert client.get("/big").json() == {"n": 2**70}
    twin = make_fake(registry.service_names()[0])
    assert twin.client().put("/_fake/state", content=client.get("/_fake/state").content).status_code == 200
    assert twin.client().get("/big").json() == {"n": 2**70}


# -- issue 32, item 6: what the control planes' schemas say is what their servers check ----------------
def _model_schema(fake: Fake) -> dict[str, Any]:
    put = fake.openapi()["paths"]["/_fake/state"]["put"]
    return put["requestBody"]["content"]["application/json"]["schema"]["properties"]["model"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("service", [*registry.service_names(), "notes"])
def test_the_state_schema_names_the_model_fields_the_import_requires(service: str) -> None:
    """``model: {}`` was schema-valid and refused ("model.counters is missing"): the schema names every
    field of the model (no others) and requires exactly those an import cannot do without."""
    fake = NotesFake(seed=0) if service == "notes" else make_fake(service)
    exported = fake.export_state()
    schema = _model_schema(fake)
    assert set(schema["properties"]) == set(exported["model"]) and schema["additionalProperties"] is False
    needed = set()
    for name in exported["model"]:
        without = copy.deepcopy(exported)
        del without["model"][name]
        answer = fake.client().put("/_fake/state", json=without)
        assert answer.status_code in (200, 400), answer.text
        if answer.status_code == 400:
            assert answer.json()["field"] == f"model.{name}"
            needed.add(name)
    assert set(schema.get("required", ())) == needed
    with_extra = copy.deepcopy(exported)
    with_extra["model"]["not_a_field"] = 1
    assert fake.client().put("/_fake/state", json=with_extra).status_code == 400  # as additionalProperties says


@pytest.mark.parametrize("service", registry.service_names())
def test_the_dashboard_image_takes_a_path_as_long_as_documented(service: str) -> None:
    """A 2,000-character ``path`` (the documented maxLength) was refused as too long: the server
    counted the leading / it adds."""
    fake = make_fake(service)
    parameter = fake.openapi()["paths"]["/_fake/ui/image"]["get"]["parameters"][0]
    longest = parameter["schema"]["maxLength"]
    assert fake.client().get("/_fake/ui/image", params={"path": "0" * longest}).status_code == 404  # no picture
    assert fake.client().get("/_fake/ui/image", params={"path": "0" * (longest + 1)}).status_code == 400


# -- schemathesis's coverage phase (what `st run --checks all` runs first) on every control operation --
#: the kernel's operations, the same code in every fake: covered once, through the first service
KERNEL_PATHS = frozenset({*control_paths(), *dashboard_paths(), *world_openapi_paths()})


def _coverage_cases() -> list[tuple[str, str]]:
    found = []
    for index, service in enumerate(registry.service_names()):
        schema = load_schema(make_fake(service))
        found += [(service, operation.label) for operation in operations(schema, control=True)
                  if index == 0 or operation.path not in KERNEL_PATHS]
    return found


@pytest.mark.parametrize(("service", "label"), _coverage_cases())
def test_control_operation_passes_the_coverage_phase(service: str, label: str) -> None:
    """Issue 32, item 6: the boundary cases (``name: ""``, a 2,000-character path, ``model: {}``, a
    company that does not exist) are what `st run` found refused; fuzzing alone seldom draws them."""
    schema = load_schema(make_fake(service))
    operation = next(op for op in operations(schema, control=True) if op.label == label)
    assert run_coverage(operation) >= 1


@pytest.mark.parametrize(("service", "create", "path", "body"), [
    ("relay", ("/_fake/teams", {}), "/_fake/teams/{id}/tools", {"provider": "nope", "key": "k"}),
    ("relay", ("/_fake/teams", {}), "/_fake/teams/{id}/secrets", {"provider": "nope", "secret": "s"}),
    ("member-export", ("/_fake/members", {}), "/_fake/members/{id}/revoke", {"client_id": "nope"}),
])
def test_a_missing_record_named_in_the_body_of_an_existing_target_is_a_409(
        service: str, create: tuple[str, dict[str, Any]], path: str, body: dict[str, Any]) -> None:
    """A 404 there says the path's record (just created) is gone: schemathesis's stateful phase
    reported it so (`ensure_resource_availability`). The path's own record missing stays a 404."""
    fake = make_fake(service)
    client = fake.client()
    created = client.post(create[0], json=create[1]).json()
    record = created.get("team_id") or created["id"]
    answer = client.post(path.format(id=record), json=body)
    assert answer.status_code == 409 and "nope" in answer.json()["message"], answer.text
    assert client.post(path.format(id="no-such-record"), json=body).status_code == 404
