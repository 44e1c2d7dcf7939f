"""The official ``linkedin-api-client`` reads a snapshot page and the changelog from the fake.

The client hard-codes https://api.linkedin.com/rest and sends ``LinkedIn-Version``; the test
points its base URL constant at a live fake and sets the fake's ``version_header`` to match.
"""

from __future__ import annotations

import pytest

from fakes.member_export import MemberExportFake

restli = pytest.importorskip("linkedin_api.clients.restli.client")
constants = pytest.importorskip("linkedin_api.common.constants")


def test_official_client_reads_a_snapshot_page_and_the_changelog(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = MemberExportFake(seed=11, version_header="LinkedIn-Version")
    created = fake.create_member(sizes={"CONNECTIONS": 12})
    token = fake.consent(created["id"])["access_token"]
    fake.act(created["id"], "send_message", text="hello from the fake", delay_s=0)
    fake.advance(21 * 60)
    with fake.serve() as base_url:
        monkeypatch.setattr(constants, "VERSIONED_BASE_URL", base_url + "/rest")
        client = restli.RestliClient()
        page = client.finder(resource_path="/memberSnapshotData", finder_name="criteria",
                             query_params={"domain": "CONNECTIONS", "start": 1}, access_token=token,
                             version_string="202312")
        assert page.status_code == 200
        assert page.paging.start == 1 and page.paging.count == 10
        rows = page.elements[0]["snapshotData"]
        assert page.elements[0]["snapshotDomain"] == "CONNECTIONS" and len(rows) == 2
        assert {"First Name", "Last Name", "URL", "Connected On"} <= set(rows[0])

        changes = client.finder(resource_path="/memberChangeLogs", finder_name="memberAndApplication",
                                query_params={"count": 10}, access_token=token, version_string="202312")
        assert [e["resourceName"] for e in changes.elements] == ["messages"]

        created_auth = client.create(resource_path="/memberAuthorizations", entity={}, access_token=token,
                                     version_string="202312")
        assert created_auth.status_code == 201

        unversioned = client.finder(resource_path="/memberSnapshotData", finder_name="criteria",
                                    query_params={"domain": "CONNECTIONS"}, access_token=token,
                                    version_string="202401")
        assert unversioned.status_code == 426
