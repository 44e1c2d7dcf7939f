"""The dashboard's generic parts in a real browser: the control token's sign-in, worlds, the
gateway's root, faults from the form, the journal's details and filters, a failing panel."""

from __future__ import annotations

from typing import Any

from fakes.kernel.gateway import GatewayApp
from fakes.member_export import MemberExportFake
from fakes.relay import RelayFake

from .conftest import PANELS_WITHIN_MS, SHOWN_WITHIN_MS, expect, loaded, open_dashboard

TOKEN = "ci-secret-token"
START = 1_767_603_600_000  # 2026-01-05T09:00:00Z, where a manual clock starts
UNAUTHORISED = "status of 401"  # the browser logs the login page's status: expected where it shows


def test_control_token_login_form_then_cookie(browser: Any) -> None:
    fake = MemberExportFake(control_token=TOKEN)
    with open_dashboard(browser, fake, expect_errors=(UNAUTHORISED,)) as board:
        page = board.page
        page.fill("input[name=token]", "wrong")
        page.click("button[type=submit]")
        expect(page.get_by_role("alert")).to_contain_text("not this fake's control token")
        page.fill("input[name=token]", TOKEN)
        page.click("button[type=submit]")
        loaded(board)
        assert page.url == f"{board.base}/_fake/ui"
        with board.http() as http:
            assert http.get("/nowhere").status_code == 404
            assert http.get("/_fake/journal").status_code == 401  # the cookie is the browser's alone
        board.shows('#journal-rows tr.entry:has(td:has-text("/nowhere"))')  # the page's calls pass
        page.get_by_role("button", name="+1 minute").click()
        expect(page.locator("#clock-now")).to_have_text("2026-01-05T09:01:00Z", timeout=SHOWN_WITHIN_MS)
        assert page.evaluate("document.cookie") == ""  # HttpOnly: no script reads it


def test_control_token_in_the_url_once(browser: Any) -> None:
    fake = MemberExportFake(control_token=TOKEN)
    with open_dashboard(browser, fake, page_path=f"/_fake/ui?token={TOKEN}") as board:
        loaded(board)
        assert board.page.url == f"{board.base}/_fake/ui"  # the token left the address bar
        expect(board.page.locator("#clock-now")).to_have_text("2026-01-05T09:00:00Z")


def test_worlds_listed_opened_and_deleted(browser: Any) -> None:
    fake = MemberExportFake()
    world = fake.world("job-7")
    world.create_member(name="Grace Hopper", region="FR")
    with open_dashboard(browser, fake) as board:
        page = board.page
        loaded(board)
        with board.http() as http:
            http.get("/_w/job-7/in-the-world")
            http.get("/in-the-default-world")
        row = board.shows('#worlds-here tr[data-world="job-7"]', timeout=PANELS_WITHIN_MS)
        row.query_selector("a").click()
        expect(page.locator("#world-badge")).to_have_text("world job-7", timeout=PANELS_WITHIN_MS)
        assert page.url == f"{board.base}/_w/job-7/_fake/ui"
        board.shows('#journal-rows tr.entry:has(td:has-text("/in-the-world"))')
        assert page.locator('#journal-rows td:has-text("/in-the-default-world")').count() == 0
        board.panel("Members").get_by_text("Grace Hopper").wait_for(timeout=PANELS_WITHIN_MS)
        page.get_by_role("link", name="The default world's dashboard").click()
        row = board.shows('#worlds-here tr[data-world="job-7"]', timeout=PANELS_WITHIN_MS)
        row.query_selector("button").click()
        expect(page.locator('#worlds-here tr[data-world="job-7"]')).to_have_count(0, timeout=SHOWN_WITHIN_MS)
        assert "job-7" not in fake.worlds
        page.fill("#world-id", "job-8")  # opening one by id (as any request to it, this creates it)
        page.get_by_role("button", name="Open").click()
        expect(page.locator("#world-badge")).to_have_text("world job-8", timeout=PANELS_WITHIN_MS)
        assert "job-8" in fake.worlds


def test_gateway_root_lists_every_dashboard(browser: Any) -> None:
    fakes = {"member-export": MemberExportFake(prefix="/member-export"), "relay": RelayFake(prefix="/relay")}
    with open_dashboard(browser, app=GatewayApp(fakes), page_path="/") as board:
        page = board.page
        links = page.locator("ul.services a")
        expect(links).to_have_count(2)
        page.get_by_role("link", name="relay").click()
        loaded(board)
        assert page.url == f"{board.base}/relay/_fake/ui"
        expect(page.locator("#service")).to_have_text("relay")
        fakes["relay"].create_team(name="Through the gateway")
        board.panel("Teams").get_by_text("Through the gateway").wait_for(timeout=PANELS_WITHIN_MS)
        page.goto(f"{board.base}/relay/_w/gw/_fake/ui")  # a world below the gateway's prefix
        expect(page.locator("#world-badge")).to_have_text("world gw", timeout=PANELS_WITHIN_MS)
        back = page.get_by_role("link", name="all fakes")  # the way back to the gateway's list
        expect(back).to_be_visible(timeout=PANELS_WITHIN_MS)
        back.click()
        expect(page.locator("ul.services a")).to_have_count(2)
        assert page.url == f"{board.base}/"


def test_a_fake_on_its_own_port_links_to_no_gateway(browser: Any) -> None:
    with open_dashboard(browser, MemberExportFake()) as board:
        loaded(board)
        expect(board.page.locator("#link-gateway")).to_be_hidden()


def test_reset_takes_two_clicks_and_keeps_the_verdicts_unless_asked(browser: Any) -> None:
    fake = MemberExportFake()
    with open_dashboard(browser, fake) as board:
        page = board.page
        loaded(board)
        with board.http() as http:
            http.get("/rest/memberChangeLogs", params={"q": "memberAndApplication"})  # no version header
        fake.advance(3600)
        board.shows('#verdict-list .verdict[data-rule="member-export/no-version-header"]')
        button = page.get_by_role("button", name="Reset this fake")
        button.click()
        expect(page.locator("#reset")).to_have_text("Click again to reset")
        assert fake.journal.total == 1 and fake.clock.now_ms() == START + 3_600_000  # one click resets nothing
        page.locator("#reset").click()
        expect(page.locator("#reset-note")).to_contain_text("verdicts kept", timeout=SHOWN_WITHIN_MS)
        expect(page.locator("#clock-now")).to_have_text("2026-01-05T09:00:00Z", timeout=SHOWN_WITHIN_MS)
        assert fake.journal_entries() == [] and fake.verdicts()
        page.check("#reset-verdicts")
        button.click()
        page.locator("#reset").click()
        expect(page.locator("#reset-note")).to_contain_text("verdicts forgotten", timeout=SHOWN_WITHIN_MS)
        expect(page.locator("#verdict-list")).to_contain_text("No client rule broken", timeout=SHOWN_WITHIN_MS)
        assert fake.verdicts() == []


def test_faults_added_from_the_form_and_removed(browser: Any) -> None:
    fake = MemberExportFake()
    with open_dashboard(browser, fake, expect_errors=("status of 400",)) as board:  # the refused fault
        page = board.page
        loaded(board)
        form = page.locator("#fault-form")
        form.locator("input[name=path]").fill("/flaky")
        form.locator("input[name=status]").fill("503")
        form.locator("input[name=times]").fill("2")
        form.get_by_role("button", name="Add fault").click()
        row = board.shows("#fault-rows tr")
        assert "answer 503" in row.inner_text() and "/flaky" in row.inner_text()
        with board.http() as http:
            assert http.get("/flaky").status_code == 503
        assert [f["path"] for f in fake.list_faults()] == ["/flaky"]
        form.locator("input[name=latency_ms]").fill("99999999")  # refused by the fake: its message shows
        form.get_by_role("button", name="Add fault").click()
        expect(page.locator("#fault-error")).to_contain_text("latency_ms", timeout=SHOWN_WITHIN_MS)
        page.locator("#fault-rows").get_by_role("button", name="remove").click()
        expect(page.locator("#fault-rows tr")).to_have_count(0, timeout=SHOWN_WITHIN_MS)
        assert fake.list_faults() == []


def test_journal_details_filters_and_verdict_links(browser: Any) -> None:
    fake = MemberExportFake()  # its journal keeps each request's and answer's headers and bodies
    member = fake.create_member(name="Ada Lovelace", region="DE")
    with open_dashboard(browser, fake) as board:
        page = board.page
        loaded(board)
        with board.http() as http:
            http.post("/with-body", json={"name": "Ada"})
            http.get("/rest/memberSnapshotData", params={"q": "criteria", "domain": "PROFILE"},
                     headers={"Authorization": f"Bearer {member['access_token']}"})
        page.locator('#journal-rows tr.entry:has(td:has-text("/with-body"))').click()
        details = board.shows("#journal-rows tr.details")
        text = details.inner_text()
        assert "content-type" in text and "application/json" in text and "Ada" in text and "body_truncated" in text
        assert "request" in text and "response" in text and "body_length" in text
        page.locator('#journal-rows tr.entry:has(td:has-text("/with-body"))').click()  # folds again
        expect(page.locator("#journal-rows tr.details")).to_have_count(0)

        page.select_option("#filter-method", "POST")
        expect(page.locator("#journal-rows tr.entry")).to_have_count(1)
        page.select_option("#filter-method", "")
        page.fill("#filter-status", "4xx")
        expect(page.locator("#journal-rows tr.entry")).to_have_count(2)  # the 404 and the 426
        page.fill("#filter-status", "426")
        page.fill("#filter-path", "/rest/*")
        expect(page.locator("#journal-rows tr.entry")).to_have_count(1)

        page.locator(".verdict .offence button").first.click()  # the offending request, in the journal
        expect(page.locator("#filter-path")).to_have_value("")
        expect(page.locator("#journal-rows tr.marked")).to_contain_text("/rest/memberSnapshotData")


def test_a_failing_panel_is_a_note_not_a_broken_page(browser: Any) -> None:
    fake = MemberExportFake()

    def broken() -> list[dict[str, Any]]:
        raise RuntimeError("the model moved")

    fake.dashboard_panels = broken  # type: ignore[method-assign]
    with open_dashboard(browser, fake) as board:
        loaded(board)
        note = board.shows("#panels section[data-kind=error]")
        assert "the model moved" in note.inner_text()
        expect(board.page.locator("#clock-now")).to_have_text("2026-01-05T09:00:00Z")
