"""member-export/stopped-at-total: a client that stops paging where paging.total said the data ends
(before the 404) is judged when it shows what it did next, or when the verdicts are read; a client
that pages to the 404 never is (fakes/member_export/paging.py)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from fakes import create_fake
from fakes.member_export import MemberExportFake

SNAPSHOT = "/rest/memberSnapshotData"
CHANGELOG = "/rest/memberChangeLogs"
RULE = "member-export/stopped-at-total"
# with seed 0, the member below and page size 10: CONNECTIONS has 10 pages and reports total 9 (one
# page short), INBOX 10 pages and total 8 (two short)
SIZES = {"CONNECTIONS": 95, "INBOX": 95}


@pytest.fixture
def fake() -> MemberExportFake:
    fake: MemberExportFake = create_fake("member-export")
    return fake


@pytest.fixture
def client(fake: MemberExportFake) -> httpx.Client:
    member = fake.create_member(region="DE", sizes=SIZES)
    fake.consent(member["id"])
    fake.advance(3 * 86400)
    return fake.client(headers={"Authorization": f"Bearer {member['access_token']}", "Service-Version": "202312"})


def page(client: httpx.Client, domain: str, start: int) -> httpx.Response:
    return client.get(SNAPSHOT, params={"q": "criteria", "domain": domain, "start": start})


def page_by_total(client: httpx.Client, domain: str) -> int:
    """The careless client: pages until start reaches paging.total; returns the rows it read."""
    rows, start, total = 0, 0, 1
    while start < total:
        answer = page(client, domain, start).json()
        rows += len(answer["elements"][0]["snapshotData"])
        total = answer["paging"]["total"]
        start += 1
    return rows


def page_to_404(client: httpx.Client, domain: str) -> int:
    rows, start = 0, 0
    while (answer := page(client, domain, start)).status_code == 200:
        rows += len(answer.json()["elements"][0]["snapshotData"])
        start += 1
    return rows


def counts(fake: MemberExportFake) -> dict[str, int]:
    return {v["id"]: v["count"] for v in fake.verdicts()}


def test_stopping_at_total_is_judged_when_the_client_moves_on_to_the_changelog(
        fake: MemberExportFake, client: httpx.Client) -> None:
    assert page_by_total(client, "CONNECTIONS") == 90 and page_by_total(client, "INBOX") == 80  # 5 + 15 rows lost
    assert fake.verdict_log.total() == 0  # pages of other domains judge nothing (a client may page several)
    client.get(CHANGELOG, params={"q": "memberAndApplication"})
    entry = fake.journal_entries()[-1]
    assert entry["path"] == CHANGELOG and len(entry["warnings"]) == 2
    assert entry["warnings"][0] == (
        f"{RULE}: stopped paging CONNECTIONS after start=8, the last page paging.total=9 promised, then polled "
        "the changelog; 1 more page had data (start=9..9): page until the 404")
    assert "stopped paging INBOX after start=7, the last page paging.total=8 promised" in entry["warnings"][1]
    assert counts(fake) == {RULE: 2}
    [verdict] = fake.verdicts("warning")
    assert verdict["first"]["path"] == CHANGELOG and verdict["first"]["seq"] == entry["seq"]


def test_a_client_paging_to_the_404_is_never_judged(fake: MemberExportFake, client: httpx.Client) -> None:
    assert page_to_404(client, "CONNECTIONS") == 95 and page_to_404(client, "INBOX") == 95
    client.get(CHANGELOG, params={"q": "memberAndApplication"})
    page(client, "CONNECTIONS", 0)
    assert counts(fake) == {}


def test_a_stop_with_nothing_after_it_is_judged_when_the_verdicts_are_read_once(
        fake: MemberExportFake, client: httpx.Client) -> None:
    page_by_total(client, "CONNECTIONS")
    before = fake.export_state()
    assert counts(fake) == {RULE: 1}
    [verdict] = fake.verdicts()
    assert verdict["first"]["query"] == "q=criteria&domain=CONNECTIONS&start=8" and verdict["first"]["status"] == 200
    assert "and nothing after it yet" in verdict["first"]["detail"]
    assert counts(fake) == {RULE: 1} and fake.export_state() == before  # reading judges once and changes nothing
    client.get(CHANGELOG, params={"q": "memberAndApplication"})  # the same stop, judged already
    assert counts(fake) == {RULE: 1}
    assert fake.client().get("/_fake/verdicts").json()["offences"] == 1


def test_a_new_sequence_judges_the_stop_a_retry_or_the_next_page_does_not(
        fake: MemberExportFake, client: httpx.Client) -> None:
    page_by_total(client, "CONNECTIONS")
    page(client, "CONNECTIONS", 8)  # the same page again: a retry
    page(client, "INBOX", 0)  # another domain
    assert fake.verdict_log.total() == 0
    page(client, "CONNECTIONS", 0)  # starts over
    assert fake.journal_entries()[-1]["warnings"][0].startswith(f"{RULE}: stopped paging CONNECTIONS after start=8")
    page_by_total(client, "CONNECTIONS")  # and again, served as before (the noted page is never cached)
    assert page(client, "CONNECTIONS", 9).status_code == 200  # now it pages on: the note is cleared
    assert page(client, "CONNECTIONS", 10).status_code == 404
    assert counts(fake) == {RULE: 1}


def test_the_note_is_state_and_survives_an_export(fake: MemberExportFake, client: httpx.Client) -> None:
    page_by_total(client, "INBOX")
    state = fake.export_state()
    [member] = state["model"]["members"]
    assert member["stopped_at"] == {"INBOX": [7, 8, 10, fake.clock.now_ms()]}
    twin: Any = create_fake("member-export", clock="manual")
    twin.import_state(state)
    token = next(iter(state["model"]["tokens"]))
    twin.client(headers={"Authorization": f"Bearer {token}", "Service-Version": "202312"}).get(
        CHANGELOG, params={"q": "memberAndApplication"})
    assert {v["id"]: v["count"] for v in twin.verdicts()} == {RULE: 1}
    member["stopped_at"] = {"INBOX": [9, 8, 10, 0]}
    with pytest.raises(Exception, match=r"stopped_at.INBOX holds start 9 of 10 pages"):
        create_fake("member-export", clock="manual").import_state(state)
