"""Issue 12, item 8: a stop while requests wait in a latency fault is clean: the waiting requests
answer the service's own 503 body, the server exits at once, and nothing prints a traceback."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable

import httpx

from fakes.kernel.fake import Fake
from fakes.member_export import MemberExportFake
from tests.support.serving import clean_env, fakes_command, free_port, running


def _request_in_background(url: str, answers: list[httpx.Response | BaseException]) -> threading.Thread:
    def go() -> None:
        try:
            answers.append(httpx.get(url, timeout=30))
        except BaseException as exc:  # recorded for the assertion below
            answers.append(exc)

    thread = threading.Thread(target=go)
    thread.start()
    return thread


def _wait_until(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_sigterm_during_a_latency_fault_answers_in_the_service_shape_and_exits_cleanly() -> None:
    port = free_port()
    argv = [fakes_command(), "serve", "--only", "member-export", "--port", str(port)]
    with running(argv, clean_env()) as server:
        server.wait_banner()
        base = f"http://127.0.0.1:{port}"
        server.wait_until_up([base + "/_fake/health"])
        assert httpx.post(base + "/_fake/faults", json={"path": "/rest/*", "latency_ms": 30_000}).status_code == 201
        answers: list[httpx.Response | BaseException] = []
        thread = _request_in_background(base + "/rest/memberSnapshotData?q=criteria", answers)
        _wait_until(lambda: httpx.get(base + "/_fake/faults").json()["faults"][0]["fired"] == 1)  # it waits
        code, seconds = server.terminate(signal.SIGTERM)
        thread.join(10)
        assert seconds < 2, server.describe()
        assert code in (0, 143), server.describe()
        assert "Traceback" not in server.stderr and "CancelledError" not in server.stderr, server.describe()
    answer = answers[0]
    assert isinstance(answer, httpx.Response), answer
    assert answer.status_code == 503
    body = answer.json()
    assert body["status"] == 503 and "serviceErrorCode" in body  # member-export's own error shape


def test_stopping_a_served_fake_ends_latency_waits_at_once() -> None:
    fake: Fake = MemberExportFake()
    fake.add_fault(path="/slow", latency_ms=30_000)
    answers: list[httpx.Response | BaseException] = []
    with fake.serve() as url:
        thread = _request_in_background(url + "/slow", answers)
        _wait_until(lambda: fake.faults.rules[0].fired == 1)  # the request waits in the fault
        started = time.monotonic()
    # the 503 says the stop ended the wait (the grace period's cut would leave no answer at all);
    # the time, generous for a busy machine, that it did not sit out the fault's 30 s
    assert time.monotonic() - started < 10
    thread.join(30)
    assert answers and isinstance(answers[0], httpx.Response) and answers[0].status_code == 503
    # the same fake serves again afterwards, faults and all
    fake.clear_faults()
    fake.add_fault(path="/slow", latency_ms=1, status=418)
    with fake.serve() as url:
        assert httpx.get(url + "/slow").status_code == 418
