"""Every control-plane operation, over HTTP and as Python, on the kernel's test fake."""

from __future__ import annotations

import json

import pytest

from examples.notes import NotesFake
from fakes.kernel.clock import DEFAULT_START_MS


def test_health(notes: NotesFake) -> None:
    assert notes.client().get("/_fake/health").json() == {"service": "notes", "status": "ok"}


def test_delayed_transition_is_evaluated_lazily_from_the_clock(notes: NotesFake) -> None:
    client = notes.client()
    created = client.post("/notes", json={"text": "hello"}).json()
    assert created["status"] == "building"
    client.post("/_fake/clock", json={"advance_seconds": 59.999})
    assert client.get("/notes/n1").json()["status"] == "building"
    notes.advance(0.001)  # the Python face moves the same clock
    assert client.get("/notes/n1").json()["status"] == "ready"


def test_clock_over_http(notes: NotesFake) -> None:
    client = notes.client()
    clock = client.get("/_fake/clock").json()
    assert clock == {"now": "2026-01-05T09:00:00Z", "epoch_ms": DEFAULT_START_MS, "mode": "manual", "scale": 0.0}
    moved = client.post("/_fake/clock", json={"set_epoch_ms": DEFAULT_START_MS + 5000}).json()
    assert moved["epoch_ms"] == DEFAULT_START_MS + 5000
    back = client.post("/_fake/clock", json={"set_epoch_ms": DEFAULT_START_MS})
    assert back.status_code == 409 and back.json()["error"] == "clock_backwards"
    assert client.post("/_fake/clock", json={"advance_seconds": -1}).status_code == 409
    assert client.post("/_fake/clock", json={"advance_seconds": "x"}).status_code == 400
    assert client.post("/_fake/clock", json={}).status_code == 400
    assert client.post("/_fake/clock", content=b"{nope").status_code == 400
    assert notes.clock.now_ms() == DEFAULT_START_MS + 5000


def test_reset_restores_the_seeded_state_and_clock(notes: NotesFake) -> None:
    client = notes.client()
    client.post("/notes", json={"text": "a"})
    client.post("/_fake/clock", json={"advance_seconds": 600})
    client.post("/_fake/faults", json={"path": "/x", "status": 500})
    assert client.post("/_fake/reset").status_code == 200
    assert client.get("/notes").json() == {"notes": []}
    assert notes.clock.now_ms() == DEFAULT_START_MS
    assert notes.list_faults() == []
    notes.model.create("b")
    notes.reset()  # Python face
    assert notes.model.notes == {}


def test_journal_records_requests_with_warnings_and_can_be_cleared(notes: NotesFake) -> None:
    client = notes.client()
    client.post("/notes", json={"text": "a"})
    client.get("/notes", params={"old": "1"})
    client.get("/missing")
    entries = client.get("/_fake/journal").json()["entries"]
    assert [(e["method"], e["path"], e["status"]) for e in entries] == [
        ("POST", "/notes", 201), ("GET", "/notes", 200), ("GET", "/missing", 404)]
    assert entries[1]["query"] == "old=1"
    assert entries[1]["warnings"] == ["notes/old-parameter: old=1 sent"]
    assert entries[0]["time"] == "2026-01-05T09:00:00Z"
    assert client.get("/_fake/journal", params={"warnings": "1"}).json()["entries"] == [entries[1]]
    assert client.get("/_fake/journal", params={"method": "POST"}).json()["entries"] == [entries[0]]
    assert notes.journal.warnings() == ["notes/old-parameter: old=1 sent"]
    client.delete("/_fake/journal")
    assert notes.journal_entries() == []


def test_journal_is_a_bounded_ring() -> None:
    fake = NotesFake(journal_size=5)
    client = fake.client()
    for _ in range(12):
        client.get("/notes")
    body = client.get("/_fake/journal").json()
    assert len(body["entries"]) == 5 and body["size"] == 5 and body["total"] == 12
    assert [e["seq"] for e in body["entries"]] == [8, 9, 10, 11, 12]


def test_state_round_trip_is_lossless(notes: NotesFake) -> None:
    client = notes.client()
    client.post("/notes", json={"text": "a"})
    client.post("/_fake/clock", json={"advance_seconds": 30})
    client.post("/_fake/faults", json={"path": "/notes/n9", "status": 418, "times": 2})
    exported = client.get("/_fake/state").json()
    json.dumps(exported)  # plain JSON
    fresh = NotesFake(seed=7)
    assert fresh.client().put("/_fake/state", json=exported).json() == {"imported": True}
    probes = ["/notes", "/notes/n1", "/notes/n9", "/notes/n9", "/notes/n9"]
    for fake in (notes, fresh):
        fake.advance(30)
    assert [fresh.client().get(p).json() for p in probes] == [client.get(p).json() for p in probes]
    assert fresh.export_state() == notes.export_state()


def test_state_import_refuses_foreign_or_broken_state_and_keeps_the_old(notes: NotesFake) -> None:
    client = notes.client()
    client.post("/notes", json={"text": "keep me"})
    state = notes.export_state()
    for bad in ({**state, "service": "filings"}, {**state, "model": {"nope": 1}}, [1, 2], {**state, "seed": 99},
                {**state, "clock": {"epoch_ms": 5, "initial_ms": "x"}}, {**state, "clock": [1]},
                {**state, "faults": {"rules": [{"colour": "red"}]}}):
        response = client.put("/_fake/state", json=bad)
        assert response.status_code == 400, bad
        assert response.json()["error"] == "invalid_state"
    assert client.get("/notes/n1").json()["text"] == "keep me"


def test_service_control_additions_live_under_the_prefix(notes: NotesFake) -> None:
    client = notes.client()
    assert client.post("/_fake/notes", json={"text": "seeded"}).status_code == 201
    assert client.get("/notes/n1").json()["text"] == "seeded"
    assert client.get("/_fake/nothing").json()["error"] == "not_found"


def test_control_token_guards_every_control_call() -> None:
    fake = NotesFake(control_token="s3cret")
    client = fake.client()
    for method, path in [("GET", "/_fake/health"), ("POST", "/_fake/reset"), ("GET", "/_fake/state"),
                         ("POST", "/_fake/notes")]:
        assert client.request(method, path).status_code == 401
    authed = fake.client(headers={"Authorization": "Bearer s3cret"})
    assert authed.get("/_fake/health").status_code == 200
    assert client.get("/notes").status_code == 200  # the public API is not guarded


def test_service_errors_use_the_service_shape_never_a_500(notes: NotesFake) -> None:
    client = notes.client()
    assert client.get("/nowhere").json() == {"problem": "no such resource: /nowhere", "code": "not_found"}
    wrong = client.put("/notes")
    assert wrong.status_code == 405 and wrong.json()["code"] == "method_not_allowed"
    assert client.post("/notes", content=b"{").status_code == 400
    assert client.post("/notes", json=[1]).status_code == 400
    assert client.get("/notes", params={"limit": "ten"}).json()["code"] == "invalid_parameter"
    assert client.get("/notes", params={"limit": "0"}).status_code == 400
    for sloppy in ("1_0", " 5", "5 ", "+5", "\u0663"):
        assert client.get("/notes", params={"limit": sloppy}).status_code == 400, sloppy
    assert client.post("/notes", content=b"  ").status_code == 400


def test_unexpected_exceptions_become_the_service_shape(notes: NotesFake, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(note_id: str) -> None:
        raise RuntimeError("bug")

    monkeypatch.setattr(notes.model, "view", boom)
    response = notes.client().get("/notes/n1")
    assert response.status_code == 500 and response.json()["code"] == "internal"


def test_prefix_mounting(notes: NotesFake) -> None:
    fake = NotesFake(prefix="/api/v1")
    client = fake.client()
    assert str(client.base_url) == "http://testserver/api/v1/"
    assert client.post("/notes", json={"text": "x"}).status_code == 201
    assert fake.client(base_url="http://testserver").get("/notes").status_code == 404
    assert client.get("/_fake/health").status_code == 200
    assert fake.client(base_url="http://testserver").get("/_fake/health").status_code == 200
    assert fake.journal_entries()[0]["path"] == "/notes"
    assert fake.openapi()["servers"] == [{"url": "/api/v1"}]


def test_openapi_includes_the_control_plane(notes: NotesFake) -> None:
    document = notes.client().get("/openapi.json").json()
    assert document["openapi"].startswith("3.")
    assert {"/notes", "/_fake/health", "/_fake/clock", "/_fake/faults", "/_fake/state"} <= set(document["paths"])


def test_same_seed_same_answers() -> None:
    def run(fake: NotesFake) -> list[bytes]:
        client = fake.client()
        client.post("/_fake/faults", json={"path": "/notes", "status": 503, "probability": 0.5})
        return [client.get("/notes").content for _ in range(20)]

    assert run(NotesFake(seed=3)) == run(NotesFake(seed=3))


def test_two_fakes_in_one_process_are_independent() -> None:
    first, second = NotesFake(), NotesFake()
    first.client().post("/notes", json={"text": "only here"})
    first.advance(100)
    assert second.client().get("/notes").json() == {"notes": []}
    assert second.clock.now_ms() == DEFAULT_START_MS


def test_reset_does_not_rewind_a_shared_clock() -> None:
    from fakes.kernel.clock import Clock

    shared = Clock("manual")
    first, second = NotesFake(clock=shared), NotesFake(clock=shared)
    shared.advance(3600)
    first.reset()
    assert second.clock.now_ms() == DEFAULT_START_MS + 3_600_000


def test_fast_and_standard_json_encoders_give_the_same_bytes() -> None:
    import json

    from fakes.kernel.http import dumps

    sample = {"a": [1, 2.5, None, True], "ü": "é ✓", "nested": {"x": ""}, "big": 2**60, "neg": -0.125}
    assert dumps(sample) == json.dumps(sample, ensure_ascii=False, separators=(",", ":")).encode()


@pytest.mark.parametrize("query", [b"", b"a=1&b=x", b"a=1&a=2", b"flag&x=", b"&&a=1&", b"a=%20b&c=d+e", b"q=%ZZ",
                                   b"k=v=w", b"=v"])
def test_fast_query_parsing_equals_starlettes(query: bytes) -> None:
    from starlette.datastructures import QueryParams
    from starlette.requests import Request

    from fakes.kernel.http import parse_query

    request = Request({"type": "http", "query_string": query, "headers": []})
    assert list(parse_query(request).multi_items()) == list(QueryParams(query).multi_items())
    assert request.query_params is parse_query(request)


def test_state_import_into_a_real_clock_fake_restores_the_exported_instant() -> None:
    source = NotesFake(clock="real")
    source.client().post("/notes", json={"text": "a"})
    exported = source.export_state()
    target = NotesFake(clock="real")
    target.advance(3600)  # ahead of the export
    target.import_state(exported)
    assert abs(target.clock.now_ms() - exported["clock"]["epoch_ms"]) < 5_000
    assert target.client().get("/notes/n1").json()["text"] == "a"
