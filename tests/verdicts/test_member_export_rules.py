"""Each member-export client rule fires on a client that breaks it, and only then."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from fakes.member_export import MemberExportFake
from tests.member_export.helpers import AUTHORIZATIONS, DAY, HOUR, Member, new_member


@pytest.fixture
def fake() -> MemberExportFake:
    return MemberExportFake(seed=3)


@pytest.fixture
def client(fake: MemberExportFake) -> Iterator[httpx.Client]:
    with fake.client() as client:
        yield client


def broken(fake: MemberExportFake) -> dict[str, int]:
    return {v["id"]: v["count"] for v in fake.verdicts()}


def ready_member(fake: MemberExportFake, client: httpx.Client, **sizes: int) -> Member:
    return new_member(fake, client, consent=True, sizes=sizes or {"SKILLS": 25},
                      build_times=dict.fromkeys(sizes or {"SKILLS": 25}, 0))


def test_no_version_header(fake: MemberExportFake, client: httpx.Client) -> None:
    member = ready_member(fake, client)
    assert client.get(AUTHORIZATIONS, params={"q": "memberAndApplication"},
                      headers={"Authorization": f"Bearer {member.token}"}).status_code == 426
    assert broken(fake) == {"member-export/no-version-header": 1}
    wrong = client.get(AUTHORIZATIONS, params={"q": "memberAndApplication"},
                       headers={**member.headers, "Service-Version": "202401"})
    assert wrong.status_code == 426 and broken(fake) == {"member-export/no-version-header": 1}


def test_documented_paging_breaks_no_rule(fake: MemberExportFake, client: httpx.Client) -> None:
    member = ready_member(fake, client)
    assert len(member.page_all("SKILLS")) == 25
    assert len(member.page_all("SKILLS")) == 25  # a second full sync from start=0 is fine
    assert len(member.page_all(None)) > 0
    assert fake.verdicts() == []


def test_paging_past_404_and_relying_on_total(fake: MemberExportFake, client: httpx.Client) -> None:
    member = ready_member(fake, client, SKILLS=25)  # 3 pages
    total = member.snapshot("SKILLS", 0).json()["paging"]["total"]
    for start in range(max(total, 4) + 1):  # a client that pages by total and ignores the 404
        member.snapshot("SKILLS", start)
    verdicts = {v["id"]: v for v in fake.verdicts()}
    past = verdicts["member-export/paging-past-404"]
    assert past["severity"] == "error" and past["count"] == max(total, 4) + 1 - 4
    assert "start=4&" in past["first"]["query"] and "after start=3 answered 404" in past["first"]["detail"]
    if total > 4:  # the reported total promised pages past the 404: the client followed it
        assert verdicts["member-export/relying-on-total"]["count"] == total - 4
    else:
        assert "member-export/relying-on-total" not in verdicts


def test_relying_on_total_fires_for_a_total_over_the_truth() -> None:
    """Find a member whose total is over-reported (the skew is seeded) and page to that total."""
    for seed in range(20):
        fake = MemberExportFake(seed=seed)
        with fake.client() as client:
            member = ready_member(fake, client, SKILLS=25)
            total = member.snapshot("SKILLS", 0).json()["paging"]["total"]
            if total <= 4:
                continue
            for start in range(total):
                member.snapshot("SKILLS", start)
            ids = broken(fake)
            assert ids["member-export/relying-on-total"] == total - 4
            assert ids["member-export/paging-past-404"] == total - 4
            return
    pytest.fail("no seed over-reports total")


def test_new_data_moves_the_end_so_paging_on_is_fine(fake: MemberExportFake, client: httpx.Client) -> None:
    member = ready_member(fake, client, ALL_LIKES=10)
    assert member.snapshot("ALL_LIKES", 1).status_code == 404
    client.post(f"/_fake/members/{member.id}/actions", json={"action": "react"})
    assert member.snapshot("ALL_LIKES", 1).status_code == 200  # the 11th like: the end moved
    assert member.snapshot("ALL_LIKES", 2).status_code == 404
    assert fake.verdicts() == []


def test_changelog_start_too_old(fake: MemberExportFake, client: httpx.Client) -> None:
    member = ready_member(fake, client)
    fake.advance(30 * DAY)
    assert member.changelog(start_time=fake.clock.now_ms() - 29 * DAY * 1000).status_code == 200
    verdict, = fake.verdicts()
    assert verdict["id"] == "member-export/changelog-start-too-old" and verdict["severity"] == "error"
    fake.advance(HOUR)
    member.changelog(start_time=fake.clock.now_ms() - 27 * DAY * 1000)
    assert broken(fake) == {"member-export/changelog-start-too-old": 1}


def test_polling_too_fast(fake: MemberExportFake, client: httpx.Client) -> None:
    member = ready_member(fake, client)
    member.changelog()
    fake.advance(10 * 60)
    member.changelog()
    fake.advance(HOUR)
    member.changelog()
    assert broken(fake) == {"member-export/polling-too-fast": 1}
    assert "polled 600 s after the previous poll" in fake.verdicts()[0]["first"]["detail"]


def test_repolling_an_identical_window(fake: MemberExportFake, client: httpx.Client) -> None:
    member = ready_member(fake, client)
    for _ in range(3):
        client.post(f"/_fake/members/{member.id}/actions", json={"action": "react"})
    fake.advance(HOUR)
    since = member.changelog(count=2).json()["elements"]
    cursor = since[-1]["processedAt"]
    member.changelog(start_time=cursor, count=2)  # drains on with the cursor: fine
    member.changelog(start_time=cursor, count=2)  # the same full window again: stuck
    assert broken(fake) == {"member-export/repolling-identical-window": 1}


def test_count_one_livelock_is_a_repolled_window(fake: MemberExportFake, client: httpx.Client) -> None:
    member = ready_member(fake, client)
    for _ in range(2):
        client.post(f"/_fake/members/{member.id}/actions", json={"action": "react"})
    fake.advance(HOUR)
    cursor = member.changelog(count=1).json()["elements"][0]["processedAt"]
    for _ in range(3):  # the inclusive cursor returns the same single event forever
        events = member.changelog(start_time=cursor, count=1).json()["elements"]
        cursor = events[0]["processedAt"]
    assert broken(fake) == {"member-export/repolling-identical-window": 2}


def test_documented_polling_breaks_no_rule(fake: MemberExportFake, client: httpx.Client) -> None:
    member = ready_member(fake, client)
    for _ in range(5):
        client.post(f"/_fake/members/{member.id}/actions", json={"action": "react"})
    fake.advance(HOUR)
    cursor, seen = fake.clock.now_ms() - 2 * HOUR * 1000, set()
    for _ in range(3):  # hourly polls, draining full pages at once, cursor = latest processedAt
        while True:
            events = member.changelog(start_time=cursor, count=2).json()["elements"]
            seen.update(e["id"] for e in events)
            if events:
                cursor = events[-1]["processedAt"]
            if len(events) < 2:
                break
        fake.advance(HOUR)
    assert len(seen) == 5
    assert fake.verdicts() == []
