"""One test per row of the seed's tables (part A), each through HTTP.

Sections follow the seed: what the service does, resources, states and transitions, endpoints
and rules, authentication, events, errors, limits, versioning; then the client-contract warnings.
"""

from __future__ import annotations

from html.parser import HTMLParser

import httpx
import pytest

from fakes.member_export import MemberExportFake
from fakes.member_export.domains import SERVED_DOMAINS

from .helpers import (
    AUTHORIZATIONS,
    DAY,
    HOUR,
    MINUTE,
    SNAPSHOT,
    assert_error_shape,
    new_member,
    warnings_of,
)

# -- what the service does -----------------------------------------------------------------------


def test_only_eu_eea_and_swiss_members_may_use_it(fake: MemberExportFake, client: httpx.Client) -> None:
    for region in ("DE", "NO", "CH"):
        member = new_member(fake, client, region=region)
        assert member.get(AUTHORIZATIONS, q="memberAndApplication").status_code == 200
    outsider = new_member(fake, client, region="US")
    assert outsider.created["eligible"] is False
    body = assert_error_shape(outsider.snapshot("PROFILE"), 403, "ACCESS_DENIED")
    assert "EU/EEA or Switzerland" in body["message"]
    assert_error_shape(outsider.consent_via_api(), 403, "ACCESS_DENIED")
    assert_error_shape(outsider.changelog(), 403, "ACCESS_DENIED")


def test_it_has_no_write_access(fake: MemberExportFake, client: httpx.Client) -> None:
    member = new_member(fake, client, consent=True)
    for method, path in [("POST", "/rest/messages"), ("POST", "/rest/invitations"), ("POST", SNAPSHOT),
                         ("PUT", SNAPSHOT), ("DELETE", AUTHORIZATIONS)]:
        response = client.request(method, path, json={"text": "hi"}, headers=member.headers)
        assert response.status_code in (404, 405)
        assert_error_shape(response, response.status_code)


def test_snapshot_data_is_built_only_after_consent(fake: MemberExportFake, client: httpx.Client) -> None:
    member = new_member(fake, client, build_times={"PROFILE": 0})
    fake.advance(30 * DAY)
    assert member.snapshot("PROFILE").status_code == 404
    assert member.consent_via_api().status_code == 201
    assert member.snapshot("PROFILE").status_code == 200


def test_connections_give_only_name_position_company_and_date(fake: MemberExportFake, client: httpx.Client) -> None:
    member = new_member(fake, client, consent=True, sizes={"CONNECTIONS": 25})
    fake.advance(21 * MINUTE)
    rows = [row for _, row in member.page_all("CONNECTIONS")]
    assert len(rows) == 25
    assert {tuple(row) for row in rows} == {("First Name", "Last Name", "URL", "Company", "Position",
                                             "Connected On")}
    assert len({row["URL"] for row in rows}) == 25  # every connection once


# -- resources and their fields -------------------------------------------------------------------


def test_connections_and_inbox_use_the_csv_export_column_names(fake: MemberExportFake, client: httpx.Client) -> None:
    member = new_member(fake, client, consent=True, sizes={"CONNECTIONS": 3, "INBOX": 3})
    fake.advance(HOUR)
    connection = member.snapshot("CONNECTIONS").json()["elements"][0]["snapshotData"][0]
    assert {"First Name", "Connected On", "URL"} <= set(connection)
    assert connection["URL"].startswith("https://www.linkedin.com/in/")
    message = member.snapshot("INBOX").json()["elements"][0]["snapshotData"][0]
    assert {"CONVERSATION ID", "FROM", "CONTENT"} <= set(message)
    assert message["CONVERSATION ID"].startswith("2-")


def test_about_sixty_domains_exist_and_articles_are_malformed_html(fake: MemberExportFake,
                                                                   client: httpx.Client) -> None:
    assert 55 <= len(SERVED_DOMAINS) + 1 <= 70
    member = new_member(fake, client, consent=True, sizes={"ARTICLES": 12},
                        build_times={"ARTICLES": 0})
    lines = [row["Line"] for _, row in member.page_all("ARTICLES")]
    assert len(lines) == 12 and not any(_well_formed(line) for line in lines)


def test_snapshot_envelope_total_is_unreliable(fake: MemberExportFake, client: httpx.Client) -> None:
    wrong = 0
    for size in (1, 9, 10, 11, 35):
        member = new_member(fake, client, consent=True, sizes={"SKILLS": size}, build_times={"SKILLS": 0})
        page = member.snapshot("SKILLS").json()
        assert set(page["paging"]) == {"start", "count", "links", "total"}
        pages = -(-size // fake.settings.page_size)
        wrong += page["paging"]["total"] != pages
    assert wrong == 5  # never the real page count: clients must page until the 404


def test_changelog_events_have_unique_ids_and_messages_carry_urns_not_names(fake: MemberExportFake,
                                                                           client: httpx.Client) -> None:
    member = new_member(fake, client, consent=True, sizes={"CONNECTIONS": 5})
    for action in ("send_message", "receive_message", "comment", "react", "post", "invite"):
        assert client.post(f"/_fake/members/{member.id}/actions",
                           json={"action": action, "delay_s": 0}).status_code == 201
    fake.advance(1)  # events of one instant get distinct processedAt milliseconds
    events = member.changelog(count=50).json()["elements"]
    assert len(events) == 6 and len({e["id"] for e in events}) == 6
    inbound = next(e for e in events if e["resourceName"] == "messages" and e["actor"] != e["owner"])
    activity = inbound["activity"]
    assert activity["thread"].startswith("urn:li:messagingThread:2-")
    assert activity["author"].startswith("urn:li:person:") and activity["owner"] == member.urn
    contact_names = {f"{row['First Name']} {row['Last Name']}" for row in
                     [r for _, r in _built(fake, member, "CONNECTIONS")]}
    assert not any(name in str(inbound) for name in contact_names)


def test_authorization_record_reports_archiving_and_since_when(fake: MemberExportFake, client: httpx.Client) -> None:
    member = new_member(fake, client)
    fake.advance(90)
    consented_at = fake.clock.now_ms()
    member.consent_via_api()
    record = member.get(AUTHORIZATIONS, q="memberAndApplication").json()["elements"][0]
    assert record["regulatedAt"] == consented_at
    assert record["memberComplianceScopes"] == ["DMA"]
    assert record["memberComplianceAuthorizationKey"]["member"] == member.urn


# -- states and transitions -----------------------------------------------------------------------


def test_consent_starts_archiving_and_builds_from_that_moment(fake: MemberExportFake, client: httpx.Client) -> None:
    member = new_member(fake, client)
    assert member.get(AUTHORIZATIONS, q="memberAndApplication").json()["elements"] == []
    before = client.post(f"/_fake/members/{member.id}/actions", json={"action": "post"}).json()
    assert before["event"] is None  # no archiving before consent
    fake.advance(60)
    assert member.consent_via_api().status_code == 201
    after = client.post(f"/_fake/members/{member.id}/actions", json={"action": "post", "delay_s": 0}).json()
    events = member.changelog().json()["elements"]
    assert [e["id"] for e in events] == [after["event"]["id"]]


@pytest.mark.parametrize(("domain", "build_s"), [
    ("PROFILE", 21 * MINUTE), ("CONNECTIONS", 21 * MINUTE), ("INBOX", HOUR),
    ("ALL_COMMENTS", 25 * HOUR), ("ALL_LIKES", 25 * HOUR), ("MEMBER_SHARE_INFO", 25 * HOUR),
])
def test_builds_complete_after_the_observed_times(fake: MemberExportFake, client: httpx.Client,
                                                  domain: str, build_s: int) -> None:
    member = new_member(fake, client, consent=True, sizes={domain: 3})
    fake.advance(build_s - 1)
    assert member.snapshot(domain).status_code == 404
    fake.advance(1)
    assert member.snapshot(domain).status_code == 200


def test_snapshot_of_a_domain_being_built_answers_404_no_data_found(fake: MemberExportFake,
                                                                    client: httpx.Client) -> None:
    member = new_member(fake, client, consent=True)
    body = assert_error_shape(member.snapshot("INBOX"), 404)
    assert body["message"] == "No data found for this memberId"


def test_snapshot_with_start_within_the_data_returns_a_page(fake: MemberExportFake, client: httpx.Client) -> None:
    member = new_member(fake, client, consent=True, sizes={"INBOX": 25})
    fake.advance(HOUR)
    page = member.snapshot("INBOX", 2).json()
    assert page["paging"]["start"] == 2 and page["paging"]["count"] == 10
    assert page["elements"][0]["snapshotDomain"] == "INBOX"
    assert len(page["elements"][0]["snapshotData"]) == 5
    assert [link["rel"] for link in page["paging"]["links"]] == ["prev", "next"]


def test_start_beyond_the_last_page_answers_404_as_the_end_signal(fake: MemberExportFake,
                                                                  client: httpx.Client) -> None:
    member = new_member(fake, client, consent=True, sizes={"INBOX": 20})
    fake.advance(HOUR)
    assert member.snapshot("INBOX", 1).status_code == 200
    body = assert_error_shape(member.snapshot("INBOX", 2), 404)
    assert body["message"].startswith("No data found")


def test_token_expires_after_about_a_year_and_consent_gives_a_new_one(fake: MemberExportFake,
                                                                      client: httpx.Client) -> None:
    member = new_member(fake, client, consent=True)
    assert member.created["expires_in"] == 31_536_000 and "refresh_token" not in member.created
    fake.advance(365 * DAY - 1)
    assert member.get(AUTHORIZATIONS, q="memberAndApplication").status_code == 200
    fake.advance(1)
    assert_error_shape(member.get(AUTHORIZATIONS, q="memberAndApplication"), 401, "EXPIRED_ACCESS_TOKEN")
    again = client.post(f"/_fake/members/{member.id}/consent", json={}).json()
    assert "refresh_token" not in again
    member.token = again["access_token"]
    assert member.get(AUTHORIZATIONS, q="memberAndApplication").status_code == 200


# -- endpoints and rules --------------------------------------------------------------------------


def test_snapshot_endpoint_takes_q_domain_and_start(fake: MemberExportFake, client: httpx.Client) -> None:
    member = new_member(fake, client, consent=True)
    fake.advance(21 * MINUTE)
    page = member.snapshot("PROFILE", 0).json()
    assert page["elements"][0]["snapshotData"][0]["First Name"] == member.created["name"].split()[0]


def test_snapshot_without_domain_pages_through_all_built_domains(fake: MemberExportFake,
                                                                 client: httpx.Client) -> None:
    member = new_member(fake, client, consent=True)
    fake.advance(2 * DAY)
    rows = member.page_all(None)
    expected = client.get(f"/_fake/members/{member.id}").json()["records"]
    counted: dict[str, int] = {}
    for domain, _ in rows:
        counted[domain] = counted.get(domain, 0) + 1
    assert counted == {domain: count for domain, count in expected.items() if count}


def test_changelog_endpoint_returns_events_after_start_time(fake: MemberExportFake, client: httpx.Client) -> None:
    member = new_member(fake, client, consent=True)
    first = _act(client, member.id, "comment")
    fake.advance(600)
    second = _act(client, member.id, "react")
    fake.advance(600)
    answer = member.changelog(start_time=second["capturedAt"]).json()
    assert [e["id"] for e in answer["elements"]] == [second["id"]]
    assert answer["paging"] == {"start": 0, "count": 10, "links": []}
    everything = member.changelog(start_time=first["capturedAt"]).json()["elements"]
    assert [e["id"] for e in everything] == [first["id"], second["id"]]  # oldest first


def test_authorization_get_reports_and_post_starts_archiving(fake: MemberExportFake, client: httpx.Client) -> None:
    member = new_member(fake, client)
    response = client.post(AUTHORIZATIONS, json={}, headers=member.headers)
    assert response.status_code == 201 and response.content == b""
    assert member.consent_via_api().status_code == 201  # idempotent
    assert len(member.get(AUTHORIZATIONS, q="memberAndApplication").json()["elements"]) == 1


def test_rule_paging_until_404_yields_exactly_the_members_records(fake: MemberExportFake,
                                                                  client: httpx.Client) -> None:
    member = new_member(fake, client, consent=True, sizes={"INBOX": 137})
    fake.advance(HOUR)
    rows = [row for _, row in member.page_all("INBOX")]
    assert len(rows) == 137
    assert len({(r["CONVERSATION ID"], r["DATE"], r["CONTENT"]) for r in rows}) == 137


def test_rule_start_time_is_inclusive_so_the_last_event_returns(fake: MemberExportFake,
                                                                client: httpx.Client) -> None:
    member = new_member(fake, client, consent=True)
    _act(client, member.id, "post")
    fake.advance(HOUR)
    latest = member.changelog().json()["elements"][-1]
    again = member.changelog(start_time=latest["processedAt"]).json()["elements"]
    assert [e["id"] for e in again] == [latest["id"]]  # same event again: de-duplicate on id


def test_rule_post_authorization_body_is_an_empty_json_object(fake: MemberExportFake, client: httpx.Client) -> None:
    member = new_member(fake, client)
    refused = client.post(AUTHORIZATIONS, content=b"[]", headers=member.headers)
    assert_error_shape(refused, 400)
    assert_error_shape(client.post(AUTHORIZATIONS, content=b"{", headers=member.headers), 400)


# -- authentication -------------------------------------------------------------------------------


def test_bearer_token_with_the_portability_scope_is_required(fake: MemberExportFake, client: httpx.Client) -> None:
    member = new_member(fake, client, consent=True)
    assert member.created["scope"] == "r_dma_portability_self_serve"
    version = {fake.settings.version_header: "202312"}
    params = {"q": "memberAndApplication"}
    assert_error_shape(client.get(AUTHORIZATIONS, params=params, headers=version), 401, "INVALID_ACCESS_TOKEN")
    unknown = client.get(AUTHORIZATIONS, params=params, headers={**version, "Authorization": "Bearer nope"})
    assert_error_shape(unknown, 401, "INVALID_ACCESS_TOKEN")
    narrow = client.post("/_fake/tokens", json={"member_id": member.id, "scope": "r_liteprofile"}).json()
    wrong_scope = client.get(AUTHORIZATIONS, params=params,
                             headers={**version, "Authorization": f"Bearer {narrow['access_token']}"})
    assert_error_shape(wrong_scope, 403, "ACCESS_DENIED")


# -- events ---------------------------------------------------------------------------------------


def test_a_message_reply_appears_in_the_changelog_within_hours(fake: MemberExportFake, client: httpx.Client) -> None:
    member = new_member(fake, client, consent=True)
    reply = client.post(f"/_fake/members/{member.id}/actions", json={"action": "receive_message"}).json()
    assert reply["visible_at"] - reply["event"]["capturedAt"] == fake.settings.reply_delay_s * 1000
    assert member.changelog().json()["elements"] == []
    fake.advance(fake.settings.reply_delay_s)
    assert [e["id"] for e in member.changelog().json()["elements"]] == [reply["event"]["id"]]


# -- errors ---------------------------------------------------------------------------------------


def test_events_domain_answers_400_not_supported(fake: MemberExportFake, client: httpx.Client) -> None:
    member = new_member(fake, client, consent=True)
    fake.advance(30 * DAY)
    body = assert_error_shape(member.snapshot("EVENTS"), 400)
    assert "not supported" in body["message"]


@pytest.mark.parametrize("params", [
    {"q": "criteria", "domain": "profile"}, {"q": "criteria", "domain": "NOPE"}, {"q": "criteria", "domain": ""},
    {"q": "finder"}, {"domain": "PROFILE"}, {"q": "criteria", "start": "x"}, {"q": "criteria", "start": "-1"},
    {"q": "criteria", "start": "1.5"}, {"q": "criteria", "bogus": "1"},
])
def test_bad_snapshot_input_is_400_in_the_service_shape(fake: MemberExportFake, client: httpx.Client,
                                                        params: dict[str, str]) -> None:
    member = new_member(fake, client, consent=True)
    fake.advance(30 * DAY)
    assert_error_shape(client.get(SNAPSHOT, params=params, headers=member.headers), 400)


# -- limits ---------------------------------------------------------------------------------------


def test_at_most_50_events_per_call(fake: MemberExportFake, client: httpx.Client) -> None:
    member = new_member(fake, client, consent=True)
    for _ in range(60):
        _act(client, member.id, "react")
    fake.advance(1)
    assert len(member.changelog(count=50).json()["elements"]) == 50
    for count in (0, 51, -1):
        body = assert_error_shape(member.changelog(count=count), 400)
        assert "recommended count is 10" in body["message"]


def test_look_back_is_at_most_28_days(fake: MemberExportFake, client: httpx.Client) -> None:
    member = new_member(fake, client, consent=True)
    old = _act(client, member.id, "post")
    fake.advance(20 * DAY)
    recent = _act(client, member.id, "post")
    fake.advance(10 * DAY)
    answer = member.changelog(start_time=0)
    assert answer.status_code == 200  # clamped, not refused
    assert [e["id"] for e in answer.json()["elements"]] == [recent["id"]]
    assert old["id"] != recent["id"]


def test_events_are_retained_28_days(fake: MemberExportFake, client: httpx.Client) -> None:
    member = new_member(fake, client, consent=True)
    event = _act(client, member.id, "comment")
    fake.advance(28 * DAY - 10)
    assert [e["id"] for e in member.changelog().json()["elements"]] == [event["id"]]
    fake.advance(10)
    assert member.changelog().json()["elements"] == []


def test_invitations_hold_only_the_last_six_months(fake: MemberExportFake, client: httpx.Client) -> None:
    member = new_member(fake, client, consent=True, sizes={"INVITATIONS": 40})
    fake.advance(HOUR)
    assert len(member.page_all("INVITATIONS")) == 40  # generated over the last 180 days
    fake.advance(90 * DAY)
    remaining = len(member.page_all("INVITATIONS"))
    assert 5 < remaining < 40
    fake.advance(100 * DAY)
    assert member.page_all("INVITATIONS") == []


# -- versioning -----------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [None, "202401", "", "202312 "])
def test_version_header_absent_or_other_value_is_426(fake: MemberExportFake, client: httpx.Client,
                                                     value: str | None) -> None:
    member = new_member(fake, client, consent=True)
    headers = {"Authorization": f"Bearer {member.token}"}
    if value is not None:
        headers[fake.settings.version_header] = value
    response = client.get(AUTHORIZATIONS, params={"q": "memberAndApplication"}, headers=headers)
    assert_error_shape(response, 426, "NONEXISTENT_VERSION")


def test_version_header_name_is_a_setting() -> None:
    fake = MemberExportFake(version_header="LinkedIn-Version")
    with fake.client() as client:
        member = new_member(fake, client)
        assert member.get(AUTHORIZATIONS, q="memberAndApplication").status_code == 200
        old_name = client.get(AUTHORIZATIONS, params={"q": "memberAndApplication"},
                              headers={"Authorization": f"Bearer {member.token}", "Service-Version": "202312"})
        assert_error_shape(old_name, 426, "NONEXISTENT_VERSION")


# -- client rules: verdicts, also listed in the journal --------------------------------------------


def test_journal_warns_about_careless_clients(fake: MemberExportFake, client: httpx.Client) -> None:
    member = new_member(fake, client, consent=True, sizes={"SKILLS": 5}, build_times={"SKILLS": 0})
    client.get(AUTHORIZATIONS, params={"q": "memberAndApplication"})
    assert member.snapshot("SKILLS", 1).status_code == 404
    assert member.snapshot("SKILLS", 2).status_code == 404
    member.changelog()
    fake.advance(60)
    member.changelog()
    fake.advance(HOUR)
    member.changelog(start_time=0)
    found = warnings_of(fake)
    assert len(found) == 4, found
    assert found[0].startswith("member-export/no-version-header: no Service-Version header")
    assert found[1].startswith("member-export/paging-past-404: start=2 requested after start=1 answered 404")
    assert found[2].startswith("member-export/polling-too-fast: changelog polled 60 s after the previous poll")
    assert found[3].startswith("member-export/changelog-start-too-old: startTime 0 is older than 28 days")
    assert [v["id"] for v in fake.verdicts()] == [entry.split(":")[0] for entry in found]


def test_draining_a_full_changelog_page_is_not_polling_too_often(fake: MemberExportFake,
                                                                 client: httpx.Client) -> None:
    member = new_member(fake, client, consent=True)
    for _ in range(3):
        _act(client, member.id, "react")
    fake.advance(HOUR)
    first = member.changelog(count=2).json()["elements"]
    member.changelog(start_time=first[-1]["processedAt"], count=2)
    assert warnings_of(fake) == []


# -- helpers --------------------------------------------------------------------------------------


class _TagBalance(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.broken = False

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag not in ("br", "img", "hr"):
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.open or self.open.pop() != tag:
            self.broken = True


def _well_formed(line: str) -> bool:
    parser = _TagBalance()
    parser.feed(line)
    return not parser.broken and not parser.open and line.count('"') % 2 == 0 and not line.endswith("<")


def _act(client: httpx.Client, member_id: str, action: str) -> dict[str, object]:
    response = client.post(f"/_fake/members/{member_id}/actions", json={"action": action, "delay_s": 0})
    assert response.status_code == 201, response.text
    event: dict[str, object] = response.json()["event"]
    return event


def _built(fake: MemberExportFake, member: object, domain: str) -> list[tuple[str, dict[str, str]]]:
    fake.advance(2 * DAY)
    return member.page_all(domain)  # type: ignore[attr-defined, no-any-return]
