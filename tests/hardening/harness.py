"""The kernel's invariant harness: generic over every registered service (fakes/registry.py).

A hypothesis-drawn sequence of control-plane calls, valid and invalid - the kernel's own (clock,
faults, journal, reset, state imports of real exported states with one field broken) and every
control operation the service documents (drawn by schemathesis from its OpenAPI document) - must
leave the fake whole:

* every public operation still answers without a 5xx (but the ones the service documents as
  deliberate, :meth:`Fake.deliberate_5xx`: a saturation switch turned on, an upstream's own error);
* the state exported afterwards imports into a fresh fake, which then answers every public
  operation exactly as the original does (status and body) and exports the same state.

A new service gets this by being registered; nothing here names a service.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable
from typing import Any

import httpx
import schemathesis
from hypothesis import Phase
from hypothesis import strategies as st
from schemathesis.config import SchemathesisConfig
from schemathesis.generation import GenerationMode

from fakes import registry
from fakes.kernel.fake import Fake
from fakes.kernel.openapi import CONTROL_TAG, control_paths

#: FAKES_HYPOTHESIS_EXPLORE=1 draws new cases each run (CI's are fixed); FAKES_INVARIANT_EXAMPLES sets how many
EXPLORE = bool(os.environ.get("FAKES_HYPOTHESIS_EXPLORE"))
INVARIANT_EXAMPLES = int(os.environ.get("FAKES_INVARIANT_EXAMPLES", "200" if EXPLORE else "6"))
CONTROL_EXAMPLES = int(os.environ.get("FAKES_CONTROL_EXAMPLES", "200" if EXPLORE else "20"))
MAX_STEPS = 6
#: CI reports the first failing case as drawn (shrinking one can take minutes); exploring shrinks it
PHASES = list(Phase) if EXPLORE else [Phase.explicit, Phase.reuse, Phase.generate]


def make_fake(service: str, **kwargs: Any) -> Fake:
    """A registered service's fake with the settings the generic suites use (small catalogues)."""
    cls = registry.fake_class(service)
    settings_for_tests = getattr(cls, "settings_for_tests", None)
    settings = settings_for_tests() if settings_for_tests is not None else {}
    return cls(seed=0, **{**settings, **kwargs})


def load_schema(fake: Fake) -> Any:
    # schemathesis's defaults, not the repository's schemathesis.toml (it is for `st run`; the suite
    # spares what a document marks itself, more narrowly: tests/support/schemathesis_harness.py)
    return schemathesis.openapi.from_asgi("/openapi.json", fake.app, config=SchemathesisConfig())


def operations(schema: Any, *, control: bool) -> list[Any]:
    found = []
    for result in schema.get_all_operations():
        operation = result.ok()
        is_control = CONTROL_TAG in (operation.definition.raw.get("tags") or ())
        if is_control == control:
            found.append(operation)
    return found


# -- requests --------------------------------------------------------------------------------------
Request = tuple[str, str, dict[str, Any]]  # (method, path + query, httpx keyword arguments)


def as_request(case: Any) -> Request:
    """A schemathesis case as arguments for ``fake.client().request`` (so it can go to two fakes)."""
    kwargs = case.as_transport_kwargs(base_url="http://testserver")
    url = str(httpx.URL(kwargs["url"]).raw_path, "ascii")
    headers = {name: value for name, value in (kwargs.get("headers") or {}).items()
               if name.lower() not in ("x-schemathesis-testcaseid", "user-agent")}
    extra: dict[str, Any] = {"headers": headers, "params": kwargs.get("params") or None}
    if "json" in kwargs:
        extra["content"] = json.dumps(kwargs["json"]).encode()
    elif kwargs.get("data") is not None:
        data = kwargs["data"]
        extra["content" if isinstance(data, (bytes, str)) else "data"] = data
    if kwargs.get("files"):
        extra["files"] = kwargs["files"]
    return case.method.upper(), url, extra


def send(fake: Fake, request: Request, headers: dict[str, str] | None = None) -> httpx.Response:
    method, url, extra = request
    extra = {**extra, "headers": {**(extra.get("headers") or {}), **(headers or {})}}
    if "json" in extra:  # as Python writes it: drawn NaN/Infinity go out (httpx refuses to send them)
        extra["content"] = json.dumps(extra.pop("json")).encode()
        extra["headers"] = {"content-type": "application/json", **extra["headers"]}
    with fake.client() as client:
        return client.request(method, url, **extra)


# -- the kernel's own control calls, valid and invalid ---------------------------------------------
JSON_LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(["", "x", "\u00e9", "NaN", "-1", "9" * 30]),
    st.text(max_size=8))
JSON_VALUES = st.recursive(JSON_LEAVES, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)), max_leaves=6)
RAW_BODIES = st.sampled_from([b'{"x": "\\ud800"}', b"NaN", b'{"a": Infinity}', b"[" * 300 + b"]" * 300,
                              b'{"advance_seconds": 1e400}', b"\xff\xfe", b"", b"{"])

FAULT_SPECS = st.fixed_dictionaries({}, optional={
    "method": st.sampled_from(["GET", "get", "POST", "*", "G T", 5]),
    "path": st.sampled_from(["*", "/*", "/_fake/*", "", "/x"]),
    "status": st.one_of(st.none(), st.integers(min_value=0, max_value=700), st.sampled_from([1e400, "500", 500.5])),
    "headers": st.one_of(st.none(), st.dictionaries(st.sampled_from(["X-A", "X B", "Content-Length", ""]),
                                                    st.sampled_from(["1", "a\r\nb", "", 5]), max_size=2)),
    "body": JSON_VALUES,
    "latency_ms": st.one_of(st.none(), st.sampled_from([0, 1, -1, 1e12, "x", 0.5])),
    "times": st.one_of(st.none(), st.sampled_from([0, 1, 2, 1.5, 10**30, True])),
    "probability": st.one_of(st.none(), st.sampled_from([0, 0.5, 1, 2, -0.1])),
    "drop": st.sampled_from([False, "no", None, 1]),
})


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += _paths(child, (*prefix, index))
    return found


def broken_state(draw: Callable[..., Any], state: dict[str, Any]) -> dict[str, Any]:
    """An exported state with one field replaced, deleted or added."""
    state = copy.deepcopy(state)
    paths = _paths(state)
    if not paths:
        return state
    path = draw(st.sampled_from(paths))
    parent: Any = state
    for step in path[:-1]:
        parent = parent[step]
    how = draw(st.sampled_from(["replace", "replace", "delete", "add"]))
    if how == "replace" or (how == "delete" and isinstance(parent, list)):
        parent[path[-1]] = draw(JSON_VALUES)
    elif how == "delete":
        del parent[path[-1]]
    elif isinstance(parent, dict):
        parent[draw(st.text(max_size=6))] = draw(JSON_VALUES)
    else:
        parent.append(draw(JSON_VALUES))
    return state


def kernel_call(draw: Callable[..., Any], fake: Fake) -> Request:
    """One of the kernel's control calls, drawn, valid or not."""
    kind = draw(st.sampled_from(["advance", "set", "fault", "fault_raw", "journal", "reset", "clear_faults",
                                 "import_broken", "import_broken", "import_same", "import_junk", "raw"]))
    if kind == "advance":
        amount = draw(st.one_of(st.floats(min_value=0, max_value=1e7), st.sampled_from([-1, 1e308, 3e11, "1"])))
        return "POST", "/_fake/clock", {"json": {"advance_seconds": amount}}
    if kind == "set":
        return "POST", "/_fake/clock", {"json": {"set_epoch_ms": draw(st.integers(min_value=-1, max_value=2**62))}}
    if kind == "fault":
        return "POST", "/_fake/faults", {"json": draw(FAULT_SPECS)}
    if kind == "fault_raw":
        return "POST", "/_fake/faults", {"content": draw(RAW_BODIES), "headers": {"content-type": "application/json"}}
    if kind == "journal":
        return "GET", f"/_fake/journal?limit={draw(st.sampled_from(['5', '', '%C2%B2', '-1', '0']))}", {}
    if kind == "reset":
        return "POST", "/_fake/reset", {}
    if kind == "clear_faults":
        return "DELETE", "/_fake/faults", {}
    if kind == "import_same":
        return "PUT", "/_fake/state", {"json": fake.export_state()}
    if kind == "import_junk":
        return "PUT", "/_fake/state", {"json": draw(JSON_VALUES)}
    if kind == "raw":
        path = draw(st.sampled_from(["/_fake/state", "/_fake/clock", "/_fake/faults"]))
        method = "PUT" if path == "/_fake/state" else "POST"
        return method, path, {"content": draw(RAW_BODIES), "headers": {"content-type": "application/json"}}
    return "PUT", "/_fake/state", {"json": broken_state(draw, fake.export_state())}


class Plan:
    """What the harness draws from for one service, built once per process: schemathesis strategies
    of the service's own control operations (the kernel's are :func:`kernel_call`'s) and of every
    public operation. Requests drawn from them are sent to any fake of the service."""

    def __init__(self, service: str) -> None:
        schema = load_schema(make_fake(service))
        kernel_paths = {*control_paths(), "/_fake/verdicts", "/_fake/worlds", "/_fake/worlds/{world_id}"}
        self.control = [_strategies(op) for op in operations(schema, control=True) if op.path not in kernel_paths]
        self.public = [op.as_strategy(generation_mode=GenerationMode.POSITIVE).map(as_request)
                       for op in operations(schema, control=False)]


def _strategies(operation: Any) -> st.SearchStrategy[Request]:
    return st.one_of(operation.as_strategy(generation_mode=GenerationMode.POSITIVE),
                     operation.as_strategy(generation_mode=GenerationMode.NEGATIVE)).map(as_request)


_plans: dict[str, Plan] = {}


def plan_for(service: str) -> Plan:
    if service not in _plans:
        _plans[service] = Plan(service)
    return _plans[service]


# -- the invariant ---------------------------------------------------------------------------------
def public_requests(draw: Callable[..., Any], fake: Fake, plan: Plan) -> list[Request]:
    """One drawn, schema-valid request per public operation, plus the service's sample request."""
    requests = [draw(strategy) for strategy in plan.public]
    method, target = fake.sample_request()
    requests.append((method, target, {}))
    return requests


def check_invariant(service: str, data: Any) -> None:
    plan = plan_for(service)
    fake = make_fake(service)
    steps = data.draw(st.integers(min_value=1, max_value=MAX_STEPS), label="steps")
    for _ in range(steps):
        own = plan.control and data.draw(st.booleans(), label="the service's own control call")
        drawn = data.draw(st.one_of(plan.control)) if own else kernel_call(data.draw, fake)
        response = send(fake, drawn)
        assert response.status_code < 500, (drawn[:2], response.status_code, response.text[:500])
    fake.clear_faults()  # a fault answers 5xx on purpose; the fake itself must not
    headers = fake.auth_headers()  # may create what it needs: before the export, so both fakes hold it
    exported = fake.export_state()
    json.dumps(exported)
    twin = make_fake(service)
    imported = send(twin, ("PUT", "/_fake/state", {"content": json.dumps(exported).encode(),
                                                  "headers": {"content-type": "application/json"}}))
    assert imported.status_code == 200, imported.text[:1000]
    assert twin.export_state() == exported
    for request in public_requests(data.draw, fake, plan):
        original, copied = send(fake, request, headers), send(twin, request, headers)
        label = f"{request[0]} {request[1]}"
        assert original.status_code < 500 or fake.deliberate_5xx(
            original.status_code, original.headers, original.content), (label, original.status_code,
                                                                        original.text[:500])
        assert (copied.status_code, copied.content) == (original.status_code, original.content), label
