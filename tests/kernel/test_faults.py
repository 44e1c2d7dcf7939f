from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from examples.notes import NotesFake


def test_fault_for_the_next_n_matching_requests(notes: NotesFake) -> None:
    client = notes.client()
    client.post("/notes", json={"text": "a"})
    fault = client.post("/_fake/faults", json={"method": "GET", "path": "/notes/*", "status": 503, "times": 2,
                                               "headers": {"Retry-After": "7"}, "body": {"oops": True}}).json()
    assert fault["id"] == "f1"
    first = client.get("/notes/n1")
    assert (first.status_code, first.headers["retry-after"], first.json()) == (503, "7", {"oops": True})
    assert client.get("/notes/n1").status_code == 503
    assert client.get("/notes/n1").status_code == 200  # used up: listed, spent, with what it did
    [spent] = client.get("/_fake/faults").json()["faults"]
    assert (spent["id"], spent["times"], spent["fired"], spent["spent"]) == ("f1", 0, 2, True)
    assert [e["status"] for e in notes.journal_entries(path="/notes/n1")] == [503, 503, 200]


def test_fault_matching_by_method_exact_path_and_glob(notes: NotesFake) -> None:
    client = notes.client()
    notes.add_fault(method="POST", path="/notes", status=429)
    assert client.get("/notes").status_code == 200
    assert client.post("/notes", json={"text": "x"}).status_code == 429
    notes.clear_faults()
    notes.add_fault(path="/no*", status=418, body="teapot")
    response = client.get("/notes")
    assert (response.status_code, response.text) == (418, "teapot")


def test_default_fault_body_is_the_service_error_shape(notes: NotesFake) -> None:
    notes.add_fault(path="/notes", status=500)
    body = notes.client().get("/notes").json()
    assert body == {"problem": "injected fault f1", "code": "injected_fault"}


def test_probability_uses_the_seeded_rng_so_runs_repeat() -> None:
    def statuses(seed: int) -> list[int]:
        fake = NotesFake(seed=seed)
        fake.add_fault(path="/notes", status=503, probability=0.3)
        client = fake.client()
        return [client.get("/notes").status_code for _ in range(200)]

    first = statuses(11)
    assert first == statuses(11)
    assert first != statuses(12)
    assert 30 < first.count(503) < 90  # about 30 %


def test_removing_faults(notes: NotesFake) -> None:
    client = notes.client()
    client.post("/_fake/faults", json={"path": "/a", "status": 500})
    client.post("/_fake/faults", json={"path": "/b", "status": 500})
    assert client.delete("/_fake/faults/f1").json() == {"deleted": "f1"}
    assert client.delete("/_fake/faults/f1").status_code == 404
    assert [f["id"] for f in client.get("/_fake/faults").json()["faults"]] == ["f2"]
    client.delete("/_fake/faults")
    assert notes.list_faults() == []


@pytest.mark.parametrize("bad", [{"status": 999}, {"probability": 2}, {"times": 0}, {"path": "/x"},
                                 {"status": "x"}, {"colour": "red", "status": 500}, {"latency_ms": -1}])
def test_invalid_faults_are_refused(notes: NotesFake, bad: dict[str, object]) -> None:
    response = notes.client().post("/_fake/faults", json=bad)
    assert response.status_code == 400 and response.json()["error"] == "invalid_fault"


def test_latency_delays_only_the_matching_request() -> None:
    fake = NotesFake()
    fake.add_fault(path="/notes/slow", latency_ms=300, status=200, body={"slow": True})

    async def scenario() -> tuple[float, float]:
        async with fake.async_client() as client:
            start = time.perf_counter()
            slow = asyncio.create_task(client.get("/notes/slow"))
            await asyncio.sleep(0.01)
            quick = await client.get("/notes")
            quick_done = time.perf_counter() - start
            assert quick.status_code == 200
            assert (await slow).json() == {"slow": True}
            return quick_done, time.perf_counter() - start

    quick_done, slow_done = asyncio.run(scenario())
    assert quick_done < 0.2 <= 0.3 <= slow_done + 0.01


def test_latency_only_fault_passes_through(notes: NotesFake) -> None:
    notes.add_fault(path="/notes", latency_ms=20)
    start = time.perf_counter()
    assert notes.client().get("/notes").status_code == 200
    assert time.perf_counter() - start >= 0.02


def test_drop_in_process_raises_the_socket_error(notes: NotesFake) -> None:
    notes.add_fault(path="/notes", drop=True, times=1)
    client = notes.client()
    with pytest.raises(httpx.RemoteProtocolError):
        client.get("/notes")
    assert client.get("/notes").status_code == 200


def test_drop_over_a_real_socket_cuts_the_connection(notes: NotesFake) -> None:
    notes.add_fault(path="/notes", drop=True, times=1)
    with notes.serve() as base_url:
        with pytest.raises(httpx.HTTPError):
            httpx.get(base_url + "/notes")
        assert httpx.get(base_url + "/notes").status_code == 200
