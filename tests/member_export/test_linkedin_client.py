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


def test_official_auth_client_walks_the_whole_login_against_a_live_fake() -> None:
    """AuthClient builds the member auth URL, the page is approved with a plain HTTP client (as a
    browser would), the code is exchanged, the token introspected and refreshed, and RestliClient
    uses it: only the base URLs changed (fakes.member_export.official_client.linkedin_client_at)."""
    import requests

    from fakes.member_export.official_client import linkedin_client_at

    from .oauth_helpers import REDIRECT, parse_consent, query_of

    auth_module = pytest.importorskip("linkedin_api.clients.auth.client")
    fake = MemberExportFake(seed=12, version_header="LinkedIn-Version")
    member = fake.create_member(build_times={"PROFILE": 0})
    app = fake.register_application(redirect_uris=[REDIRECT], name="Official Client App", refresh_tokens=True)
    with fake.serve() as base_url, linkedin_client_at(base_url):
        auth = auth_module.AuthClient(app["client_id"], app["client_secret"], REDIRECT)
        url = auth.generate_member_auth_url(scopes=["r_dma_portability_self_serve"], state="from-the-client")
        assert url.startswith(base_url + "/oauth/v2/authorization?")
        page = requests.get(url, timeout=10)
        form = parse_consent(page.text)
        approved = requests.post(base_url + form.action, data={**form.hidden, "member_id": member["id"],
                                                               "decision": "allow"},
                                 allow_redirects=False, timeout=10)
        redirect = query_of(approved.headers["location"])
        assert redirect["state"] == "from-the-client"

        token = auth.exchange_auth_code_for_access_token(redirect["code"])
        assert token.status_code == 200 and token.expires_in == 31_536_000
        assert token.scope == "r_dma_portability_self_serve" and token.refresh_token
        replayed = auth.exchange_auth_code_for_access_token(redirect["code"])
        assert replayed.status_code == 400

        details = auth.introspect_access_token(token.access_token)
        assert (details.active, details.status, details.auth_type, details.client_id) == (
            True, "active", "3L", app["client_id"])
        refreshed = auth.exchange_refresh_token_for_access_token(token.refresh_token)
        assert refreshed.status_code == 200 and refreshed.access_token != token.access_token

        client = restli.RestliClient()
        assert client.create(resource_path="/memberAuthorizations", entity={}, access_token=token.access_token,
                             version_string="202312").status_code == 201
        profile = client.finder(resource_path="/memberSnapshotData", finder_name="criteria",
                                query_params={"domain": "PROFILE"}, access_token=refreshed.access_token,
                                version_string="202312")
        assert profile.status_code == 200 and profile.elements[0]["snapshotDomain"] == "PROFILE"
    assert constants.OAUTH_BASE_URL == "https://www.linkedin.com/oauth/v2"  # restored after the block
