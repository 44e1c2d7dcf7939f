"""Rendered snapshot pages are answered again as bytes only while they cannot change.

Each test counts the model's snapshot calls: a cached answer skips the model, a stale one must not.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakes.kernel.errors import ServiceError
from fakes.kernel.http import dumps
from fakes.member_export import MemberExportFake
from fakes.member_export.domains import DOMAINS
from fakes.member_export.routes import snapshot_body

from .helpers import HOUR, MINUTE, SNAPSHOT


class Counted:
    """Counts the model's snapshot computations (a cache hit makes none)."""

    def __init__(self, fake: MemberExportFake) -> None:
        self.calls = 0
        self.fake = fake
        self._wrap()

    def _wrap(self) -> None:
        model = self.fake.model
        original = model.snapshot

        def counting(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return original(*args, **kwargs)

        model.snapshot = counting  # type: ignore[method-assign]


def ready(fake: MemberExportFake, **sizes: int) -> tuple[str, dict[str, str]]:
    member = fake.create_member(region="DE", sizes=sizes or None, build_times=dict.fromkeys(DOMAINS, 0))
    token = fake.consent(member["id"])["access_token"]
    return member["id"], {"Authorization": f"Bearer {token}", "Service-Version": "202312"}


def test_a_repeated_page_is_the_same_bytes_and_headers_without_the_model() -> None:
    fake = MemberExportFake(seed=3)
    member_id, headers = ready(fake, INBOX=25)
    counted = Counted(fake)
    with fake.client(headers=headers) as client:
        first = client.get(SNAPSHOT, params={"q": "criteria", "domain": "INBOX", "start": 1})
        again = client.get(SNAPSHOT, params={"q": "criteria", "domain": "INBOX", "start": 1})
    assert first.status_code == again.status_code == 200
    assert again.content == first.content
    assert list(again.headers.items()) == list(first.headers.items())
    assert first.headers["content-type"] == "application/json"
    assert counted.calls == 1
    member = fake.model.members[member_id]
    page = fake.model.snapshot(member, "INBOX", 1, [])
    assert first.content == dumps(snapshot_body(page, "INBOX", ""))  # what the uncached path renders


def test_an_action_changes_the_next_answer() -> None:
    fake = MemberExportFake(seed=3)
    member_id, headers = ready(fake, INBOX=5)
    counted = Counted(fake)
    with fake.client(headers=headers) as client:
        before = client.get(SNAPSHOT, params={"q": "criteria", "domain": "INBOX", "start": 0}).json()
        fake.act(member_id, "receive_message", text="cache me not")
        after = client.get(SNAPSHOT, params={"q": "criteria", "domain": "INBOX", "start": 0}).json()
    rows_before = before["elements"][0]["snapshotData"]
    rows_after = after["elements"][0]["snapshotData"]
    assert len(rows_after) == len(rows_before) + 1
    assert rows_after[-1]["CONTENT"] == "cache me not"
    assert counted.calls == 2


def test_the_all_domains_view_changes_when_another_domain_finishes_its_build() -> None:
    fake = MemberExportFake(seed=3)
    member = fake.create_member(region="DE", sizes={"CONNECTIONS": 3, "INBOX": 3},
                                build_times={**dict.fromkeys(DOMAINS, 100 * HOUR), "PROFILE": 0, "INBOX": HOUR})
    token = fake.consent(member["id"])["access_token"]
    headers = {"Authorization": f"Bearer {token}", "Service-Version": "202312"}
    with fake.client(headers=headers) as client:
        early = client.get(SNAPSHOT, params={"q": "criteria", "start": 0})
        assert client.get(SNAPSHOT, params={"q": "criteria", "start": 0}).content == early.content
        fake.advance(HOUR)
        late = client.get(SNAPSHOT, params={"q": "criteria", "start": 0})
    assert early.status_code == late.status_code == 200
    assert late.json()["paging"]["total"] != early.json()["paging"]["total"]


@pytest.mark.parametrize("domain", ["INVITATIONS", None], ids=["invitations", "all-domains"])
def test_invitations_are_kept_until_their_oldest_visible_record_leaves_the_window(domain: str | None) -> None:
    """INVITATIONS shows the last six months: its pages (and the all-domains view's, which count
    its pages) read the same until its oldest visible record leaves the window, and are worked out
    again from that instant on."""
    fake = MemberExportFake(seed=3)
    member_id, headers = ready(fake, INVITATIONS=40, INBOX=3)
    member = fake.model.members[member_id]
    params = {"q": "criteria", "start": 0, **({"domain": domain} if domain else {})}
    counted = Counted(fake)

    def fresh() -> bytes:
        return dumps(snapshot_body(fake.model.snapshot(member, domain, 0, []), domain, ""))

    with fake.client(headers=headers) as client:
        first = client.get(SNAPSHOT, params=params)
        assert client.get(SNAPSHOT, params=params).content == first.content
        assert counted.calls == 1
        until = fake.model.invitations_until(member, fake.model.clock.now_ms())
        fake.set_time_ms(until - 1)  # the last instant the oldest one shows: still the kept page
        assert client.get(SNAPSHOT, params=params).content == first.content == fresh()
        assert counted.calls == 2  # fresh() only
        visible = fake.model.visible_records(member, "INVITATIONS", until - 1)
        fake.set_time_ms(until)
        later = client.get(SNAPSHOT, params=params)
        assert counted.calls == 3  # worked out again
        assert later.status_code == 200 and later.content == fresh()
        assert fake.model.visible_records(member, "INVITATIONS", until) == visible - 1
        assert fake.model.invitations_until(member, until) > until


def test_no_visible_invitation_keeps_the_page_until_a_new_one() -> None:
    fake = MemberExportFake(seed=3)
    _, headers = ready(fake, INVITATIONS=0, INBOX=3)
    counted = Counted(fake)
    with fake.client(headers=headers) as client:
        first = client.get(SNAPSHOT, params={"q": "criteria"})
        fake.advance(10 * 24 * HOUR)  # within the token's life
        assert client.get(SNAPSHOT, params={"q": "criteria"}).content == first.content
    assert counted.calls == 1


def test_an_expired_token_is_refused_even_for_a_kept_page() -> None:
    fake = MemberExportFake(seed=3)
    member_id, headers = ready(fake, INBOX=5)
    short = fake.issue_token(member_id, expires_in=60)["access_token"]
    headers = {**headers, "Authorization": f"Bearer {short}"}
    with fake.client(headers=headers) as client:
        assert client.get(SNAPSHOT, params={"q": "criteria", "domain": "INBOX"}).status_code == 200
        fake.advance(2 * MINUTE)
        refused = client.get(SNAPSHOT, params={"q": "criteria", "domain": "INBOX"})
    assert refused.status_code == 401


@pytest.mark.parametrize("how", ["reset", "import"])
def test_reset_and_import_never_answer_from_the_old_state(how: str) -> None:
    fake = MemberExportFake(seed=3)
    _, headers = ready(fake, INBOX=5)
    params = {"q": "criteria", "domain": "INBOX"}
    with fake.client(headers=headers) as client:
        assert client.get(SNAPSHOT, params=params).status_code == 200
        if how == "reset":
            fake.reset()
        else:
            fake.import_state(MemberExportFake(seed=3).export_state())
        assert client.get(SNAPSHOT, params=params).status_code == 401  # the token is gone with the state


def test_paging_past_the_404_is_still_seen_after_kept_pages() -> None:
    fake = MemberExportFake(seed=3)
    _, headers = ready(fake, INBOX=15)
    with fake.client(headers=headers) as client:
        for start in (0, 1, 0, 1):
            assert client.get(SNAPSHOT, params={"q": "criteria", "domain": "INBOX", "start": start}).status_code == 200
        assert client.get(SNAPSHOT, params={"q": "criteria", "domain": "INBOX", "start": 2}).status_code == 404
        # a kept page before the end still answers, and paging on past the 404 is still flagged
        assert client.get(SNAPSHOT, params={"q": "criteria", "domain": "INBOX", "start": 1}).status_code == 200
        assert client.get(SNAPSHOT, params={"q": "criteria", "domain": "INBOX", "start": 3}).status_code == 404
    last = fake.journal_entries()[-1]
    assert last["status"] == 404
    assert fake.verdicts() or last["warnings"], "paging past the 404 is reported"


def test_an_invitation_sent_by_an_action_leaves_the_window_in_its_turn() -> None:
    fake = MemberExportFake(seed=3)
    member_id, _ = ready(fake, INVITATIONS=0, INBOX=3)
    member = fake.model.members[member_id]
    sent_at = fake.model.clock.now_ms()
    fake.act(member_id, "invite", message="let us connect")
    window = fake.settings.invitation_history_days * 24 * HOUR * 1000
    assert fake.model.invitations_until(member, sent_at) == sent_at + window + 1
    assert fake.model.visible_records(member, "INVITATIONS", sent_at + window) == 1
    assert fake.model.visible_records(member, "INVITATIONS", sent_at + window + 1) == 0


@pytest.mark.parametrize("query", ["q=criteria&domain=INBOX&start=many", "q=criteria&start=0&start=1",
                                   "q=wrong&start=0", "q=criteria&page=2"])
def test_a_refused_query_is_refused_again_the_same_way_after_the_callers_checks(query: str) -> None:
    """A query's parameters are judged once per query string (fakes/kernel/querymemo.py): the same
    400 every time, journaled each time, and only once the token is good (a wrong one is a 401)."""
    fake = MemberExportFake(seed=3)
    _, headers = ready(fake)
    with fake.client() as client:
        answers = [client.get(f"{SNAPSHOT}?{query}", headers=headers) for _ in range(3)]
        wrong_key = client.get(f"{SNAPSHOT}?{query}", headers={**headers, "Authorization": "Bearer nope"})
        statuses = [entry["status"] for entry in client.get("/_fake/journal").json()["entries"]]
    assert [answer.status_code for answer in answers] == [400, 400, 400]
    assert all(answer.content == answers[0].content for answer in answers)
    assert wrong_key.status_code == 401
    assert statuses == [400, 400, 400, 401]
    from fakes.member_export.routes import snapshot_query

    kept, refusal = snapshot_query._results[query.encode()]  # judged once, answered again from the memo
    assert not kept and isinstance(refusal, ServiceError) and refusal.status == 400


def test_a_changelog_query_is_parsed_once_and_read_with_each_poll() -> None:
    """The changelog's parameters come from the memo; its polls still move with the member."""
    fake = MemberExportFake(seed=3)
    member, headers = ready(fake)
    with fake.client() as client:
        empty = client.get("/rest/memberChangeLogs?q=memberAndApplication&count=10", headers=headers)
        fake.act(member, "comment", text="first")
        fake.clock.advance(MINUTE * 10)
        later = client.get("/rest/memberChangeLogs?q=memberAndApplication&count=10", headers=headers)
        refused = [client.get("/rest/memberChangeLogs?q=memberAndApplication&count=ten", headers=headers)
                   for _ in range(2)]
    assert empty.status_code == later.status_code == 200
    assert len(later.json()["elements"]) == len(empty.json()["elements"]) + 1
    assert [answer.status_code for answer in refused] == [400, 400] and refused[0].content == refused[1].content
