"""The dashboard's stubs panel and the journal's answered_by badges, in a real browser: a stub added
from the form answers, its row counts what it did, a fault with criteria from the form hits only
its request, and each answer a rule gave carries its badge."""

from __future__ import annotations

from typing import Any

from fakes.member_export import MemberExportFake

from .conftest import SHOWN_WITHIN_MS, expect, loaded, open_dashboard


def test_a_stub_from_the_form_answers_and_the_journal_says_so(browser: Any) -> None:
    fake = MemberExportFake()
    with open_dashboard(browser, fake, expect_errors=("status of 400",)) as board:
        page = board.page
        loaded(board)
        form = page.locator("#stub-form")
        _submit(form, "Add stub", path="/admin/users/{id}", status="203", body='{"id": "{{request.path.id}}"}')
        row = board.shows("#stub-rows tr")
        assert "/admin/users/{id}" in row.inner_text() and "203" in row.inner_text()
        with board.http() as http:
            answer = http.get("/admin/users/u7")
            assert (answer.status_code, answer.json()) == (203, {"id": "u7"})
        board.shows('#journal-rows tr.entry:has([data-answered-by="stub s1"])')
        expect(page.locator('#stub-rows tr[data-stub="s1"] td').nth(5)).to_have_text("1", timeout=SHOWN_WITHIN_MS)

        _submit(page.locator("#fault-form"), "Add fault", path="/paged", status="503",
                request='{"query": {"page": "2"}}')
        fault = board.shows("#fault-rows tr")
        assert 'query {"page":"2"}' in fault.inner_text()
        with board.http() as http:
            assert http.get("/paged", params={"page": "1"}).status_code == 404
            assert http.get("/paged", params={"page": "2"}).status_code == 503
        board.shows('#journal-rows tr.entry:has([data-answered-by="fault f1"])')

        _submit(form, "Add stub", request="not json")  # refused on the page, with why
        expect(page.locator("#stub-error")).to_contain_text("a JSON object of criteria", timeout=SHOWN_WITHIN_MS)
        _submit(form, "Add stub", request='{"query": {"q": {"matches": "(a+)+"}}}')  # refused by the fake
        expect(page.locator("#stub-error")).to_contain_text("request.query.q.matches", timeout=SHOWN_WITHIN_MS)
        page.locator("#stub-rows").get_by_role("button", name="remove").click()
        expect(page.locator("#stub-rows tr")).to_have_count(0, timeout=SHOWN_WITHIN_MS)
        assert fake.stubs() == []


def _submit(form: Any, button: str, **fields: str) -> None:
    for name, value in fields.items():
        form.locator(f"input[name={name}]").fill(value)
    form.get_by_role("button", name=button).click()
