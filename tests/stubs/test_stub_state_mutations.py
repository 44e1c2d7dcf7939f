"""Every field of the stubs' and faults' part of an exported state, mutated (wrong type, null, out of
range, missing): refused with a 400 naming a field, or the fake goes on answering without a 5xx and
exports what imports again (the invariant harness of tests/hardening, on a state rich in rules)."""

from __future__ import annotations

from typing import Any

from examples.notes import NotesFake
from tests.hardening.mutations import judge, mutations
from tests.hardening.realistic import Recorded

REQUESTS = (
    Recorded("GET", "/admin/users/u1?page=2", (("x-api-key", "k1"),), b""),
    Recorded("POST", "/orders", (("content-type", "application/json"),), b'{"tag": "final", "n": 2}'),
    Recorded("GET", "/seq", (), b""),
    Recorded("POST", "/flow", (), b""),
    Recorded("DELETE", "/notes", (), b""),
    Recorded("GET", "/notes", (), b""),
    Recorded("GET", "/reports/r7/1", (), b""),
)


def _driven() -> dict[str, Any]:
    fake = NotesFake(seed=2)
    fake.stub("GET", "/admin/users/{id}", query={"page": "2"}, headers={"X-Api-Key": "k1"}, priority=2,
              name="admin", response={"status": 200, "headers": {"X-Id": "{{request.path.id}}"},
                                      "json": {"id": "{{request.path.id}}", "at": "{{now + 1h | epoch_ms}}"}})
    fake.stub("POST", "/orders", json={"tag": "final"}, times=3,
              response={"status": 201, "body": "{{request.body.n}} ordered", "latency_ms": 1})
    fake.stub("GET", "/seq", responses=[{"status": 202}, {"status": 200, "json": [1, "{{now}}"]}], cycle=True)
    fake.stub("POST", "/flow", scenario="flow", requires_state="Started", new_state="done", templates=False,
              response={"body": "{{kept}}"})
    fake.stub(None, "/notes", place="behind", response={"status": 299})
    fake.stub(None, {"matches": "/reports/r[0-9]+/[0-9]+"}, url={"contains": "/r"}, response={"status": 204})
    fake.add_fault(method="GET", path="/notes", status=429, times=1, request={"query": {"page": "9"},
                                                                              "json_equals": {"a": 1}})
    client = fake.client()
    for request in REQUESTS:
        request.send(client)
    return fake.export_state()


def test_every_field_of_the_rules_is_refused_or_served() -> None:
    state = _driven()
    assert state["stubs"]["scenarios"] == {"flow": "done"}
    chosen = [m for m in mutations((state,), every_field=True) if m.path[0] in ("stubs", "faults")]
    assert len(chosen) > 300
    failures = []
    for mutation in chosen:
        problem = judge(lambda: NotesFake(seed=2), mutation, (state,), REQUESTS)
        if problem is not None:
            failures.append(f"{mutation.where} = {mutation.kind} ({str(mutation.value)[:40]}): {problem}")
    assert not failures, f"{len(failures)} mutations mishandled:\n" + "\n".join(failures[:25])
