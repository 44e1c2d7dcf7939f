"""One headless Debian chromium per test session, driven by Playwright (never its browser download)
from a thread of its own (see remote.py).

The browser tests skip, saying why, where Playwright or /usr/bin/chromium is missing (.ci/run
installs chromium with apt where it can). Screenshots go to FAKES_SCREENSHOT_DIR (default: a
temporary directory of the session), one per service: CI keeps them as artefacts.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

try:
    from playwright.async_api import async_playwright
except ImportError:  # the browser fixture skips, saying so
    async_playwright = None

from fakes.kernel.fake import Fake
from fakes.kernel.server import ServerThread

from .remote import LoopThread, Remote, expect

__all__ = ["expect"]

CHROMIUM = os.environ.get("FAKES_CHROMIUM", "/usr/bin/chromium")
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SCREENSHOT_ENV = "FAKES_SCREENSHOT_DIR"
VIEWPORT = {"width": 1280, "height": 900}
#: how long the page may take to show what changed: it polls every second (journal, clock,
#: verdicts) or every other second (panels, faults, worlds)
SHOWN_WITHIN_MS = 2500
PANELS_WITHIN_MS = 4000
#: a browser that has not started by then will not (a busy machine starts it in a second or two)
LAUNCH_TIMEOUT_MS = 60_000


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if async_playwright is None:
        pytest.skip("playwright is not installed (it is in the test extra: pip install -e '.[test]')")
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"no chromium at {CHROMIUM} (Debian: apt-get install chromium; .ci/run does where apt works; "
                    "FAKES_CHROMIUM names another)")
    runner = LoopThread()
    playwright = runner.run(lambda: async_playwright().start())
    try:
        try:
            launched = runner.run(lambda: playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS,
                                                                      timeout=LAUNCH_TIMEOUT_MS))
        except Exception as exc:
            pytest.skip(f"chromium at {CHROMIUM} does not start headless: {exc}")
        try:
            yield Remote(launched, runner)
        finally:
            runner.run(launched.close)
    finally:
        runner.run(playwright.stop)
        runner.stop()


@pytest.fixture(scope="session")
def screenshot_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    chosen = os.environ.get(SCREENSHOT_ENV)
    folder = Path(chosen) if chosen else Path(tempfile.mkdtemp(prefix="fakes-dashboard-"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@dataclass
class Dashboard:
    """An open dashboard page of a served fake, and what its console said."""

    page: Any
    base: str  # the served fake's base URL (prefix included), whose /_fake/ui the page shows
    errors: list[str] = field(default_factory=list)

    def http(self) -> httpx.Client:
        return httpx.Client(base_url=self.base, timeout=10)

    def shows(self, selector: str, timeout: int = SHOWN_WITHIN_MS) -> Any:
        return self.page.wait_for_selector(selector, timeout=timeout)

    def panel(self, title: str) -> Any:
        return self.page.locator(f'#panels section[data-title="{title}"]')


@contextmanager
def open_dashboard(browser: Any, fake: Fake | None = None, *, app: Any = None, page_path: str = "/_fake/ui",
                   expect_errors: tuple[str, ...] = ()) -> Iterator[Dashboard]:
    """Serve ``fake`` (or any ASGI ``app``) on a free port and open its dashboard; on the way out the
    console must have logged no error (but those containing one of ``expect_errors``)."""
    served = app if app is not None else fake.app if fake is not None else None
    assert served is not None
    prefix = fake.prefix if fake is not None and app is None else ""
    with ServerThread([(served, "127.0.0.1", 0)]) as ((host, port),):
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        board = Dashboard(page, f"http://{host}:{port}{prefix}")
        page.on("console", lambda message: board.errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: board.errors.append(f"uncaught: {error}"))
        try:
            if page_path:
                page.goto(board.base + page_path)
            yield board
        finally:
            context.close()  # before the server stops: its polling would log refused connections
        unexpected = [text for text in board.errors if not any(known in text for known in expect_errors)]
        assert not unexpected, f"the browser console logged errors: {unexpected}"


def loaded(board: Dashboard) -> None:
    """Wait until the page drew its first refresh (the service's name comes with the panels).

    Waits use locators, not ``wait_for_function``: a string predicate is evaluated with ``eval``,
    which the page's Content-Security-Policy forbids (rightly)."""
    expect(board.page.locator("#service")).not_to_have_text("…", timeout=PANELS_WITHIN_MS)


def picture_shown(image: Any, timeout_ms: int = SHOWN_WITHIN_MS) -> bool:
    """Whether the ``<img>`` loaded and decoded a picture (its natural width) within the time."""
    deadline = time.monotonic() + timeout_ms / 1000
    while time.monotonic() < deadline:
        if image.evaluate("img => img.complete && img.naturalWidth > 0"):
            return True
        time.sleep(0.05)
    return False
