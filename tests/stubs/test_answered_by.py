"""Every journal entry a fault or stub answered says so: in the journal's JSON, as a criterion of the
verification API (Python and HTTP), and on the dashboard."""

from __future__ import annotations

from examples.notes import NotesFake


def _traffic(notes: NotesFake) -> None:
    notes.stub("GET", "/admin", response={"status": 200})
    notes.add_fault(path="/notes", status=503, times=1)
    notes.add_fault(path="/slow", latency_ms=1)
    client = notes.client()
    client.get("/notes")   # the fault f1
    client.get("/notes")   # the model (f1 spent)
    client.get("/admin")   # the stub s1
    client.get("/slow")    # f2 waited, the model answered (404)


def test_the_journal_names_what_answered(notes: NotesFake) -> None:
    _traffic(notes)
    entries = notes.client().get("/_fake/journal", params={"details": "0"}).json()["entries"]
    assert [entry.get("answered_by") for entry in entries] == [
        {"kind": "fault", "id": "f1", "effect": "status"}, None, {"kind": "stub", "id": "s1"},
        {"kind": "fault", "id": "f2", "effect": "latency"}]


def test_answered_by_is_a_criterion_of_the_verification_api(notes: NotesFake) -> None:
    _traffic(notes)
    assert [e["path"] for e in notes.find_requests(answered_by="fault")] == ["/notes", "/slow"]
    assert notes.count_requests(answered_by="stub") == 1
    assert notes.count_requests(answered_by={"kind": "stub", "id": "s1"}) == 1
    assert notes.count_requests(answered_by={"kind": "fault", "id": "f9"}) == 0
    assert [e["path"] for e in notes.find_requests(answered_by="model")] == ["/notes"]
    notes.assert_requested("GET", "/notes", answered_by="model", times=1)
    found = notes.client().post("/_fake/journal/find", json={"answered_by": {"kind": "fault", "id": "f1"}}).json()
    assert found["count"] == 1 and found["entries"][0]["answered_by"]["id"] == "f1"
    bad = notes.client().post("/_fake/journal/find", json={"answered_by": "someone"})
    assert bad.status_code == 400 and bad.json()["field"] == "answered_by"


def test_a_near_miss_names_what_answered(notes: NotesFake) -> None:
    _traffic(notes)
    try:
        notes.assert_requested("GET", "/admin", answered_by="fault")
    except AssertionError as failure:
        assert "answered_by: expected fault, got stub s1" in str(failure)
    else:
        raise AssertionError("expected a failure")


def test_answered_by_falls_off_with_its_entry() -> None:
    notes = NotesFake(journal_size=2)
    notes.stub("GET", "/s", response={"status": 200})
    client = notes.client()
    client.get("/s")
    client.get("/notes")
    client.get("/notes")
    assert [entry.get("answered_by") for entry in notes.journal_entries()] == [None, None]
    assert notes.journal._answered == {}
    client.get("/s")
    notes.clear_journal()
    assert notes.journal._answered == {}


def test_the_dashboard_shows_it(notes: NotesFake) -> None:
    from fakes.kernel.dashboard import assets

    script = assets.read("app.js").decode()
    assert "entry.answered_by" in script and "data-answered-by" in script
    page = assets.read("index.html").decode()
    assert 'id="stub-form"' in page and 'id="stub-rows"' in page
