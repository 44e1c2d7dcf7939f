"""A stub before the model overrides a modelled endpoint (the route does not run, the model's state does
not change); one behind it answers only where the service has no route. The body a rule reads is handed
on to the route whole."""

from __future__ import annotations

from examples.notes import NotesFake


def test_an_override_answers_instead_of_the_model_which_does_not_change(notes: NotesFake) -> None:
    client = notes.client()
    before = notes.export_state()["model"]
    notes.stub("POST", "/notes", response={"status": 201, "json": {"id": "stubbed"}})
    answer = client.post("/notes", json={"text": "kept out"})
    assert (answer.status_code, answer.json()) == (201, {"id": "stubbed"})
    assert notes.export_state()["model"] == before
    assert client.get("/notes").json() == {"notes": []}


def test_an_override_of_one_answer_only(notes: NotesFake) -> None:
    client = notes.client()
    client.post("/notes", json={"text": "a"})
    notes.stub("GET", "/notes/{id}", query={"fail": "1"}, response={"status": 418})
    assert client.get("/notes/n1", params={"fail": "1"}).status_code == 418
    assert client.get("/notes/n1").json()["text"] == "a"  # every other answer is the model's


def test_behind_the_model_only_where_it_has_no_route(notes: NotesFake) -> None:
    client = notes.client()
    notes.stub(None, "/notes", place="behind", response={"status": 299})
    notes.stub("GET", "/admin/{anything}", place="behind", response={"json": {"admin": "{{request.path.anything}}"}})
    assert client.get("/notes").status_code == 200  # the model's route
    assert client.delete("/notes").status_code == 299  # no DELETE /notes: the stub
    assert client.get("/admin/users").json() == {"admin": "users"}
    assert client.get("/notes/n404").status_code == 404  # a modelled 404 (the route ran) stays the model's
    entries = notes.journal_entries(details=False)
    assert [entry.get("answered_by", {}).get("id") for entry in entries] == [None, "s1", "s2", None]


def test_a_body_read_for_a_rule_that_does_not_match_reaches_the_route_whole() -> None:
    notes = NotesFake(max_text=100_000)
    notes.stub("POST", "/notes", json={"tag": "final"}, response={"status": 299})
    client = notes.client()
    created = client.post("/notes", json={"text": "t" * 5000, "tag": "draft"})
    assert created.status_code == 201 and created.json()["text"] == "t" * 5000
    assert client.post("/notes", json={"text": "x", "tag": "final"}).status_code == 299
    [first, second] = notes.find_requests("POST", "/notes")
    assert '"tag":"draft"' in first["request"]["body"] and '"tag":"final"' in second["request"]["body"]


def test_a_streamed_body_read_for_a_rule_reaches_the_route_whole() -> None:
    notes = NotesFake(max_text=100_000)
    notes.stub("POST", "/notes", body_contains="never", response={"status": 299})

    def chunks():  # type: ignore[no-untyped-def]
        yield b'{"text": "'
        yield b"s" * 70_000
        yield b'"}'

    with notes.serve() as url:
        import httpx

        answer = httpx.post(url + "/notes", content=chunks(), headers={"content-type": "application/json"})
    assert answer.status_code == 201 and len(answer.json()["text"]) == 70_000


def test_no_rule_reads_a_body_it_does_not_need(notes: NotesFake) -> None:
    """Rules read a body only when one that could match needs it: the route then reads the stream
    itself (a cap of its own, a stream it reads as it comes)."""
    notes.stub("POST", "/other", json={"a": 1})  # a body rule, not for this path
    notes.stub("POST", "/notes", query={"x": "1"}, json={"a": 1})  # for this path, but its query fails first
    notes.add_fault(path="/notes", latency_ms=1, request={"query": {"x": "1"}})
    assert _first_read_by(notes, "/notes") == "the route"
    assert _first_read_by(notes, "/notes?x=1") == "a rule"  # the stub's criteria but its body's hold


def _first_read_by(notes: NotesFake, target: str) -> str:
    import asyncio

    path, _, query = target.partition("?")
    readers: list[str] = []

    async def call() -> None:
        sent = [{"type": "http.request", "body": b'{"text": "a"}', "more_body": False}]
        scope = {"type": "http", "method": "POST", "path": path, "raw_path": path.encode(), "root_path": "",
                 "query_string": query.encode(), "headers": [(b"content-type", b"application/json")],
                 "http_version": "1.1", "scheme": "http", "server": ("testserver", 80), "client": ("127.0.0.1", 1)}

        async def receive() -> dict[str, object]:
            readers.append("the route" if "route" in scope else "a rule")  # the router marks its match
            return sent.pop(0) if sent else {"type": "http.disconnect"}

        async def send(message: dict[str, object]) -> None:
            pass

        await notes.app(scope, receive, send)

    asyncio.run(call())
    return readers[0]
