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
VIEWPORT = {"width": 1400, "height": 900}
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


#: the widths the layout is checked and photographed at: a laptop's, and a small one's
WIDTHS = (1400, 1024)

#: every table cell of the page whose text breaks onto a new line between two letters or digits
#: ("de|let|e", "stand|ard", "1|2"): a cell may wrap at spaces and after punctuation, never inside a
#: word; and whether the page itself is wider than the window (a table must scroll in its card)
LAYOUT_PROBLEMS = """() => {
  const problems = [];
  for (const cell of document.querySelectorAll("table td, table th")) {
    if (!cell.getClientRects().length) continue;  // not shown
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent;
      let previous = null;
      for (let i = 0; i < text.length; i += 1) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const rect = range.getClientRects()[0];
        if (/\\s/.test(text[i])) {  // a space (collapsed or not) is where a line may end
          if (previous) previous.ch = " ";
          continue;
        }
        if (!rect || !rect.width) continue;
        if (previous && rect.top >= previous.bottom - 1 && /\\w/.test(previous.ch) && /\\w/.test(text[i])) {
          const table = cell.closest("section");
          problems.push(`${table ? table.dataset.title || table.id : "?"}: ${JSON.stringify(text)} breaks between `
            + `${JSON.stringify(text.slice(0, i))} and ${JSON.stringify(text.slice(i))}`);
          break;
        }
        previous = { ch: text[i], bottom: rect.bottom };
      }
    }
  }
  const width = document.documentElement.scrollWidth;
  if (width > window.innerWidth) problems.push(`the page is ${width} px wide in a ${window.innerWidth} px window`);
  return problems;
}"""

#: the average colour of an <img> drawn on a canvas, and how far its pixels spread: a black or empty
#: picture has a spread of 0
PICTURE_COLOURS = """img => {
  const canvas = document.createElement("canvas");
  canvas.width = img.naturalWidth;
  canvas.height = img.naturalHeight;
  const context = canvas.getContext("2d");
  context.drawImage(img, 0, 0);
  const data = context.getImageData(0, 0, canvas.width, canvas.height).data;
  let sum = 0, low = 255, high = 0;
  for (let i = 0; i < data.length; i += 4) {
    const grey = (data[i] + data[i + 1] + data[i + 2]) / 3;
    sum += grey; low = Math.min(low, grey); high = Math.max(high, grey);
  }
  return { mean: sum / (data.length / 4), spread: high - low };
}"""


def layout_checked(board: Dashboard, screenshots: Path, name: str) -> None:
    """At each of WIDTHS: no table cell wraps inside a word and the page fits its window; a
    full-page screenshot ``<name>-<width>.png`` is kept."""
    for width in WIDTHS:
        board.page.set_viewport_size({"width": width, "height": VIEWPORT["height"]})
        board.page.wait_for_timeout(200)  # the layout settles (no refresh needed: CSS only)
        board.page.screenshot(path=str(screenshots / f"{name}-{width}.png"), full_page=True)
        problems = board.page.evaluate(LAYOUT_PROBLEMS)
        assert not problems, f"at {width} px:\n" + "\n".join(problems)
    board.page.set_viewport_size(VIEWPORT)


def picture_shown(image: Any, timeout_ms: int = SHOWN_WITHIN_MS) -> bool:
    """Whether the ``<img>`` loaded and decoded a picture (its natural width) within the time."""
    deadline = time.monotonic() + timeout_ms / 1000
    while time.monotonic() < deadline:
        if image.evaluate("img => img.complete && img.naturalWidth > 0"):
            return True
        time.sleep(0.05)
    return False
