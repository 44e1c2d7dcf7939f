"""Each service's dashboard in a real browser: a request the test makes shows in the journal, the
clock's advance button moves GET /_fake/clock, a broken rule shows under verdicts, an entity the
test creates shows in the service's own panel, and the console stays clean. At a laptop's width
(1,400 px) and a small one (1,024 px) no table cell wraps inside a word and the page fits the
window; a screenshot of each goes to FAKES_SCREENSHOT_DIR (``<service>-<width>.png``)."""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from fakes import registry
from fakes.kernel.fake import Fake

from .conftest import (
    PANELS_WITHIN_MS,
    PICTURE_COLOURS,
    SHOWN_WITHIN_MS,
    Dashboard,
    expect,
    layout_checked,
    loaded,
    open_dashboard,
    picture_shown,
)

CLIP = Path(__file__).resolve().parents[1] / "video" / "media" / "clip_2s_240p.mp4"


@dataclass
class Expected:
    """What the service's exercise did: the panel and the text an entity shows there, the path of a
    request it sent, and the rule one of its requests broke."""

    panel: str
    entity: str
    request_path: str
    rule: str


def member_export(fake: Any, http: httpx.Client) -> Expected:
    member = fake.create_member(name="Ada Lovelace", region="DE")
    token = fake.consent(member["id"])["access_token"]
    http.get("/rest/memberSnapshotData", params={"q": "criteria", "domain": "PROFILE"},
             headers={"Authorization": f"Bearer {token}"})  # no version header: a broken rule (426)
    return Expected("Members", "Ada Lovelace", "/rest/memberSnapshotData", "member-export/no-version-header")


def filings(fake: Any, http: httpx.Client) -> Expected:
    assert http.post("/_fake/companies", json={"name": "Dashboard Test AG", "country_code": "DE"}).status_code == 201
    key = fake.create_key("standard")
    http.get("/filings/", params={"min_confidence": "0.5"}, headers={"X-API-Key": key})  # a filter not modelled
    return Expected("Companies added", "Dashboard Test AG", "/filings/", "filings/unsupported-filter")


def enrichment(fake: Any, http: httpx.Client) -> Expected:
    key = fake.create_account("sub_299")["api_key"]
    headers = {"Authorization": f"Bearer {key}"}
    http.get("/v1/company/employee-count", params={"website": "stripe.com"}, headers=headers)
    http.get("/v1/company/employee-count", params={"website": "stripe.com", "use_cache": "never"}, headers=headers)
    return Expected("Accounts", key, "/v1/company/employee-count", "enrichment/paid-twice-in-cache-window")


def relay(fake: Any, http: httpx.Client) -> Expected:
    team = fake.create_team(name="Growth team")
    headers = {fake.model.h.token: team["token"]}
    assert http.get("/call/firmdata.companies.enrich", params={"domain": "northwind.com"},
                    headers=headers).status_code == 200  # billed: in the ledger and the recent calls
    http.post("/call/jobsignal.alerts.create", params={"domain": "northwind.com"},
              content=b"DELETE FROM leads WHERE id = 3", headers=headers)
    return Expected("Teams", "Growth team", "/call/jobsignal.alerts.create", "relay/sql-or-html-body-without-base64")


def video(fake: Any, http: httpx.Client) -> Expected:
    key = fake.create_project()[f"{fake.settings.environment}_key"]
    auth = {"Authorization": "Basic " + base64.b64encode(f"{key}:".encode()).decode()}
    created = http.post("/videos", json={"title": "Launch clip"}, headers=auth).json()
    uploaded = http.post(f"/videos/{created['videoId']}/source", headers=auth,
                         files={"file": ("clip.mp4", CLIP.read_bytes(), "video/mp4")})
    assert uploaded.status_code == 201, uploaded.text
    fake.advance(600)  # ingested and encoded: the thumbnail is served
    for _ in range(2):  # polled again at once: a broken rule
        http.get(f"/videos/{created['videoId']}/status", headers=auth)
    return Expected("Videos", "Launch clip", f"/videos/{created['videoId']}/status", "video/status-tight-polling")


EXERCISES: dict[str, Callable[[Any, httpx.Client], Expected]] = {
    "member-export": member_export, "filings": filings, "enrichment": enrichment, "relay": relay, "video": video}


def test_every_registered_service_is_exercised() -> None:
    assert set(EXERCISES) == set(registry.service_names())


def make(service: str) -> Fake:
    cls = registry.fake_class(service)
    return cls(seed=0, **cls.settings_for_tests())


def clock_ms(board: Dashboard) -> int:
    with board.http() as http:
        return int(http.get("/_fake/clock").json()["epoch_ms"])


@pytest.mark.parametrize("service", sorted(EXERCISES))
def test_dashboard_shows_what_the_service_saw(browser: Any, screenshot_dir: Path, service: str) -> None:
    fake = make(service)
    fake.world("nightly-job-4711")  # the worlds table: ids, clocks, wall times and buttons
    fake.world("a-world-with-a-rather-long-identifier")
    fake.add_fault(method="GET", path="/never/called/by/this/test/*", status=503, times=3)
    with open_dashboard(browser, fake) as board:
        loaded(board)
        page = board.page
        with board.http() as http:
            expected = EXERCISES[service](fake, http)

        # the journal: the request is there within a second or two, without a reload
        board.shows(f'#journal-rows tr.entry:has(td:has-text("{expected.request_path}"))')
        # the verdicts: the broken rule, its severity, rule text, source and offending request
        verdict = board.shows(f'#verdict-list .verdict[data-rule="{expected.rule}"]')
        assert expected.request_path in verdict.inner_text() and "source:" in verdict.inner_text()
        # the service's own panel: the entity the test created
        panel = board.panel(expected.panel)
        panel.get_by_text(expected.entity, exact=True).first.wait_for(timeout=PANELS_WITHIN_MS)
        if service == "relay":  # the billed call, in the ledger and among the recent calls
            for title in ("Ledger", "Recent calls"):
                board.panel(title).get_by_text("firmdata.companies.enrich").first.wait_for(timeout=PANELS_WITHIN_MS)
        if service == "video":  # a real thumbnail: the JPEG the fake serves, decoded by the browser
            thumbnail = panel.locator("img.thumb").first
            thumbnail.wait_for(timeout=PANELS_WITHIN_MS)
            assert picture_shown(thumbnail)
            colours = thumbnail.evaluate(PICTURE_COLOURS)
            assert colours["spread"] > 100 and colours["mean"] > 40, f"the thumbnail is a blank picture: {colours}"
        # the clock: the button moves GET /_fake/clock, and the page shows the new time
        before = clock_ms(board)
        page.get_by_role("button", name="+1 hour").click()
        expect(page.locator("#clock-mode")).to_contain_text(str(before + 3_600_000), timeout=SHOWN_WITHIN_MS)
        assert clock_ms(board) == before + 3_600_000
        page.wait_for_timeout(300)  # the refresh that followed the click drew everything
        layout_checked(board, screenshot_dir, service)
