"""Small client-side helpers shared by the member export tests: what a careful client does."""

from __future__ import annotations

from typing import Any

import httpx

from fakes.member_export import MemberExportFake

SNAPSHOT = "/rest/memberSnapshotData"
CHANGELOG = "/rest/memberChangeLogs"
AUTHORIZATIONS = "/rest/memberAuthorizations"
MINUTE = 60
HOUR = 3600
DAY = 86_400


class Member:
    """One member of a fake, seen through HTTP with its bearer token."""

    def __init__(self, fake: MemberExportFake, client: httpx.Client, created: dict[str, Any]) -> None:
        self.fake = fake
        self.client = client
        self.id: str = created["id"]
        self.urn: str = created["urn"]
        self.token: str = created["access_token"]
        self.created = created

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}",
                self.fake.settings.version_header: self.fake.settings.accepted_version}

    def get(self, path: str, **params: Any) -> httpx.Response:
        return self.client.get(path, params=params, headers=self.headers)

    def snapshot(self, domain: str | None = None, start: int = 0) -> httpx.Response:
        params: dict[str, Any] = {"q": "criteria", "start": start}
        if domain is not None:
            params["domain"] = domain
        return self.get(SNAPSHOT, **params)

    def changelog(self, start_time: int | None = None, count: int | None = None) -> httpx.Response:
        params: dict[str, Any] = {"q": "memberAndApplication"}
        if start_time is not None:
            params["startTime"] = start_time
        if count is not None:
            params["count"] = count
        return self.get(CHANGELOG, **params)

    def consent_via_api(self) -> httpx.Response:
        return self.client.post(AUTHORIZATIONS, json={}, headers=self.headers)

    def page_all(self, domain: str | None) -> list[tuple[str, dict[str, str]]]:
        """Documented rule 1: start = 0, 1, 2, ... until 404 'No data found'; (domain, row) pairs."""
        rows: list[tuple[str, dict[str, str]]] = []
        start = 0
        while True:
            response = self.snapshot(domain, start)
            if response.status_code == 404:
                assert "No data found" in response.json()["message"]
                return rows
            assert response.status_code == 200, response.text
            element = response.json()["elements"][0]
            rows.extend((element["snapshotDomain"], row) for row in element["snapshotData"])
            start += 1


def new_member(fake: MemberExportFake, client: httpx.Client, *, consent: bool = False,
               **body: Any) -> Member:
    created = client.post("/_fake/members", json=body)
    assert created.status_code == 201, created.text
    member = Member(fake, client, created.json())
    if consent:
        consented = client.post(f"/_fake/members/{member.id}/consent", json={})
        assert consented.status_code == 200, consented.text
        member.token = consented.json()["access_token"]
    return member


def assert_error_shape(response: httpx.Response, status: int, code: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["status"] == status
    assert isinstance(body["serviceErrorCode"], int)
    assert isinstance(body["message"], str) and body["message"]
    assert set(body) <= {"status", "serviceErrorCode", "code", "message"}
    if code is not None:
        assert body["code"] == code
    return body


def warnings_of(fake: MemberExportFake) -> list[str]:
    return [text for entry in fake.journal for text in entry["warnings"]]
