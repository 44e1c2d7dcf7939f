"""Daily limits per application and per member (settings: LinkedIn publishes no number), 429 in
LinkedIn's shape, counted per resource, reset at midnight UTC of the virtual clock; snapshot count."""

from __future__ import annotations

from typing import Any

import httpx

from fakes.member_export import MemberExportFake

from .helpers import AUTHORIZATIONS, CHANGELOG, SNAPSHOT
from .oauth_helpers import new_app

MEMBER_LIMIT_BODY = {"status": 429, "serviceErrorCode": 101, "code": "TOO_MANY_REQUESTS",
                     "message": "Resource level throttle MEMBER DAY limit for calls to this resource is reached."}


def call(fake: MemberExportFake, client: httpx.Client, token: str, path: str = CHANGELOG) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}", fake.settings.version_header: fake.settings.accepted_version}
    params: dict[str, Any] = {"q": "criteria" if path == SNAPSHOT else "memberAndApplication"}
    return client.get(path, params=params, headers=headers)


def test_no_limit_by_default(fake: MemberExportFake, client: httpx.Client) -> None:
    token = fake.create_member()["access_token"]
    assert all(call(fake, client, token, AUTHORIZATIONS).status_code == 200 for _ in range(300))


def test_the_member_limit_is_per_resource_and_resets_at_midnight_utc() -> None:
    fake = MemberExportFake(seed=2, member_daily_limit=3)  # the clock starts 2026-01-05T09:00Z
    with fake.client() as client:
        token = fake.create_member()["access_token"]
        assert [call(fake, client, token).status_code for _ in range(4)] == [200, 200, 200, 429]
        assert call(fake, client, token).json() == MEMBER_LIMIT_BODY
        assert call(fake, client, token, AUTHORIZATIONS).status_code == 200  # another resource
        assert call(fake, client, fake.create_member()["access_token"]).status_code == 200  # another member
        fake.advance(15 * 3600 - 1)  # 23:59:59 the same day
        assert call(fake, client, token).status_code == 429
        fake.advance(1)  # midnight UTC
        assert call(fake, client, token).status_code == 200


def test_the_application_limit_counts_every_member_of_the_application() -> None:
    fake = MemberExportFake(seed=2, application_daily_limit=2)
    app = new_app(fake)
    with fake.client() as client:
        one, two = (fake.issue_token(fake.create_member()["id"], client_id=app["client_id"])["access_token"]
                    for _ in range(2))
        assert call(fake, client, one).status_code == 200
        assert call(fake, client, two).status_code == 200
        refused = call(fake, client, one)
        assert refused.status_code == 429 and "APPLICATION DAY" in refused.json()["message"]
        assert call(fake, client, fake.create_member()["access_token"]).status_code == 200  # another application


def test_calling_again_after_a_429_breaks_a_client_rule_and_is_not_counted() -> None:
    fake = MemberExportFake(seed=2, member_daily_limit=1)
    with fake.client() as client:
        token = fake.create_member()["access_token"]
        call(fake, client, token)
        call(fake, client, token)
        assert fake.verdicts() == []
        call(fake, client, token)
        assert [v["id"] for v in fake.verdicts()] == ["member-export/called-after-daily-limit"]
    assert list(fake.model.limits.members.values()) == [1]


def test_the_counts_survive_export_and_import() -> None:
    fake = MemberExportFake(seed=2, member_daily_limit=2)
    token = fake.create_member()["access_token"]
    with fake.client() as client:
        call(fake, client, token)
    twin = MemberExportFake(seed=2, member_daily_limit=2)
    twin.import_state(fake.export_state())
    with twin.client() as client:
        assert [call(twin, client, token).status_code for _ in range(2)] == [200, 429]


def test_bad_limit_counts_in_a_state_are_refused() -> None:
    fake = MemberExportFake(seed=2, member_daily_limit=2)
    token = fake.create_member()["access_token"]
    with fake.client() as client:
        call(fake, client, token)
    state = fake.export_state()
    key = next(iter(state["model"]["limits"]["members"]))
    state["model"]["limits"]["members"][key] = -1
    with fake.client() as client:
        assert client.put("/_fake/state", json=state).status_code == 400


def test_a_snapshot_request_may_carry_count_as_the_apis_own_next_links_do(fake: MemberExportFake,
                                                                           client: httpx.Client) -> None:
    member = fake.create_member(build_times={"CONNECTIONS": 0}, sizes={"CONNECTIONS": 25})
    fake.consent(member["id"])
    headers = {"Authorization": f"Bearer {member['access_token']}",
               fake.settings.version_header: fake.settings.accepted_version}
    plain = client.get(SNAPSHOT, params={"q": "criteria", "domain": "CONNECTIONS", "start": 1}, headers=headers)
    counted = client.get(SNAPSHOT, params={"q": "criteria", "domain": "CONNECTIONS", "start": 1, "count": 10},
                         headers=headers)
    assert counted.status_code == 200 and counted.json() == plain.json()
    assert client.get(SNAPSHOT, params={"q": "criteria", "count": "ten"}, headers=headers).status_code == 400
