"""LinkedIn's 3-legged OAuth on the fake: consent page, codes, the token endpoint, and how OAuth
consent and the DMA authorization call work together (docs/services/member-export.md, "OAuth")."""

from __future__ import annotations

import httpx
import pytest

from fakes.member_export import MemberExportFake

from .helpers import AUTHORIZATIONS, CHANGELOG, SNAPSHOT
from .oauth_helpers import (
    AUTHORIZATION,
    REDIRECT,
    SCOPE,
    auth_params,
    code_for,
    exchange,
    login,
    new_app,
    parse_consent,
    query_of,
)


def api(fake: MemberExportFake, client: httpx.Client, token: str, method: str, path: str,
        **params: str) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}", fake.settings.version_header: fake.settings.accepted_version}
    return client.request(method, path, params=params, headers=headers, json={} if method == "POST" else None)


def test_the_consent_page_names_the_application_and_scopes_and_offers_the_members(
        fake: MemberExportFake, client: httpx.Client) -> None:
    first, second = fake.create_member(name="Ada Lovelace"), fake.create_member(name="Alan Turing")
    app = new_app(fake, name="Archive & Co <App>")
    page = client.get(AUTHORIZATION, params=auth_params(app["client_id"]))
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "Archive &amp; Co &lt;App&gt;" in page.text  # escaped, never raw
    form = parse_consent(page.text)
    assert form.action == AUTHORIZATION
    assert form.members == [first["id"], second["id"]] and "Alan Turing" in page.text
    assert form.scopes == [SCOPE]
    assert form.hidden == {"response_type": "code", "client_id": app["client_id"], "redirect_uri": REDIRECT,
                           "scope": SCOPE, "state": "state-1"}
    assert set(form.decisions) == {"allow", "cancel", "cancel_login"}


def test_a_member_signed_in_through_the_control_plane_is_the_one_who_approves(
        fake: MemberExportFake, client: httpx.Client) -> None:
    fake.create_member()
    member = fake.create_member(name="Grace Hopper")
    app = new_app(fake)
    assert client.post("/_fake/oauth/sign-in", json={"member_id": member["id"]}).json() == {"signed_in": member["id"]}
    page = client.get(AUTHORIZATION, params=auth_params(app["client_id"]))
    form = parse_consent(page.text)
    assert form.members == [] and form.hidden["member_id"] == member["id"] and "Grace Hopper" in page.text
    answer = login(client, auth_params(app["client_id"]))
    token = exchange(client, app, query_of(answer.headers["location"])["code"]).json()["access_token"]
    assert fake.model.tokens[token].member_id == member["id"]
    assert client.post("/_fake/oauth/sign-in", json={"member_id": None}).json() == {"signed_in": None}
    assert client.post("/_fake/oauth/sign-in", json={"member_id": "nobody"}).status_code == 404


def test_approving_redirects_with_a_code_and_the_state_and_the_code_buys_a_working_token(
        fake: MemberExportFake, client: httpx.Client) -> None:
    member = fake.create_member(build_times={"PROFILE": 0})
    app = new_app(fake)
    answer = login(client, auth_params(app["client_id"], state="csrf-42"), member["id"])
    assert answer.status_code == 303
    assert answer.headers["location"].startswith(REDIRECT + "?")
    redirect = query_of(answer.headers["location"])
    assert redirect["state"] == "csrf-42" and redirect["code"].startswith("AQ")
    token = exchange(client, app, redirect["code"])
    assert token.status_code == 200 and token.headers["cache-control"] == "no-store"
    body = token.json()
    assert body == {"access_token": body["access_token"], "expires_in": 31_536_000, "scope": SCOPE}  # no refresh
    assert api(fake, client, body["access_token"], "GET", AUTHORIZATIONS, q="memberAndApplication").json()[
        "elements"] == []


def test_oauth_consent_alone_does_not_start_the_builds_the_authorization_call_does(
        fake: MemberExportFake, client: httpx.Client) -> None:
    member = fake.create_member(build_times={"PROFILE": 0})
    fake.act(member["id"], "post", text="before archiving")
    app = new_app(fake)
    token = exchange(client, app, code_for(client, app, member["id"])).json()["access_token"]
    assert api(fake, client, token, "GET", SNAPSHOT, q="criteria", domain="PROFILE").status_code == 404
    assert api(fake, client, token, "POST", AUTHORIZATIONS).status_code == 201
    record = api(fake, client, token, "GET", AUTHORIZATIONS, q="memberAndApplication").json()["elements"][0]
    assert record["memberComplianceAuthorizationKey"] == {"developerApplication": app["application"],
                                                          "member": member["urn"]}
    assert record["regulatedAt"] == fake.clock.now_ms()
    assert api(fake, client, token, "GET", SNAPSHOT, q="criteria", domain="PROFILE").status_code == 200
    fake.act(member["id"], "post", text="archived", delay_s=0)
    events = api(fake, client, token, "GET", CHANGELOG, q="memberAndApplication").json()["elements"]
    assert [e["activity"]["specificContent"]["com.linkedin.ugc.ShareContent"]["shareCommentary"]["text"]
            for e in events] == ["archived"]


def test_archive_on_consent_makes_the_token_exchange_start_archiving() -> None:
    fake = MemberExportFake(seed=3, archive_on_consent=True)
    member = fake.create_member(build_times={"PROFILE": 0})
    app = new_app(fake)
    with fake.client() as client:
        token = exchange(client, app, code_for(client, app, member["id"])).json()["access_token"]
        assert api(fake, client, token, "GET", SNAPSHOT, q="criteria", domain="PROFILE").status_code == 200
    assert fake.member_info(member["id"])["regulatedAt"] == fake.clock.now_ms()


@pytest.mark.parametrize(("decision", "error"), [("cancel", "user_cancelled_authorize"),
                                                 ("cancel_login", "user_cancelled_login")])
def test_cancelling_redirects_with_linkedins_error_and_the_state(
        fake: MemberExportFake, client: httpx.Client, decision: str, error: str) -> None:
    member = fake.create_member()
    app = new_app(fake)
    answer = login(client, auth_params(app["client_id"], state="s-9"), member["id"], decision)
    assert answer.status_code == 303
    redirect = query_of(answer.headers["location"])
    assert redirect["error"] == error and redirect["state"] == "s-9" and redirect["error_description"]
    assert "code" not in redirect and fake.model.codes.codes == {}


def test_a_signed_in_member_who_already_authorized_skips_the_page(fake: MemberExportFake,
                                                                 client: httpx.Client) -> None:
    member = fake.create_member()
    app = new_app(fake)
    fake.sign_in(member["id"])
    assert client.get(AUTHORIZATION, params=auth_params(app["client_id"])).status_code == 200  # first time: asked
    exchange(client, app, code_for(client, app, member["id"]))
    again = client.get(AUTHORIZATION, params=auth_params(app["client_id"], state="again"))
    assert again.status_code == 302
    assert query_of(again.headers["location"])["state"] == "again"
    assert exchange(client, app, query_of(again.headers["location"])["code"]).status_code == 200


def test_a_code_is_single_use_and_lives_thirty_minutes_of_virtual_time(fake: MemberExportFake,
                                                                      client: httpx.Client) -> None:
    member = fake.create_member()
    app = new_app(fake)
    code = code_for(client, app, member["id"])
    assert exchange(client, app, code).status_code == 200
    replay = exchange(client, app, code)
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_redirect_uri"
    late = code_for(client, app, member["id"])
    fake.advance(30 * 60 - 1)
    assert exchange(client, app, late).status_code == 200
    expired = code_for(client, app, member["id"])
    fake.advance(30 * 60)
    assert exchange(client, app, expired).json()["error"] == "invalid_redirect_uri"
    assert len([t for t in fake.model.tokens.values() if t.client_id]) == 2


def test_the_redirect_uri_must_be_the_one_of_the_authorization_request(fake: MemberExportFake,
                                                                       client: httpx.Client) -> None:
    member = fake.create_member()
    app = fake.register_application(redirect_uris=[REDIRECT, "https://app.example/other"])
    code = code_for(client, app, member["id"])
    mismatch = exchange(client, app, code, redirect_uri="https://app.example/other")
    assert mismatch.status_code == 400 and mismatch.json() == {
        "error": "invalid_redirect_uri",
        "error_description": mismatch.json()["error_description"]}
    assert "does not match authorization code" in mismatch.json()["error_description"]
    assert exchange(client, app, code).status_code == 200  # a refused attempt did not use the code up


def test_the_code_belongs_to_its_application(fake: MemberExportFake, client: httpx.Client) -> None:
    member = fake.create_member()
    mine, other = new_app(fake), new_app(fake, name="Other")
    code = code_for(client, mine, member["id"])
    assert exchange(client, other, code).json()["error"] == "invalid_redirect_uri"
    assert exchange(client, mine, code).status_code == 200


def test_requesting_other_scopes_invalidates_the_earlier_tokens(fake: MemberExportFake, client: httpx.Client) -> None:
    member = fake.create_member()
    app = new_app(fake, scopes=[SCOPE, "r_dma_portability_3rd_party"])
    first = exchange(client, app, code_for(client, app, member["id"])).json()["access_token"]
    same = exchange(client, app, code_for(client, app, member["id"])).json()["access_token"]
    assert api(fake, client, first, "GET", AUTHORIZATIONS, q="memberAndApplication").status_code == 200
    wider = exchange(client, app, code_for(client, app, member["id"], scope=f"{SCOPE} r_dma_portability_3rd_party"))
    assert wider.json()["scope"] == f"{SCOPE},r_dma_portability_3rd_party"
    for old in (first, same):
        refused = api(fake, client, old, "GET", AUTHORIZATIONS, q="memberAndApplication")
        assert refused.status_code == 401 and refused.json() == {
            "status": 401, "serviceErrorCode": 65601, "code": "REVOKED_ACCESS_TOKEN",
            "message": "The token used in the request has been revoked by the user"}
    assert api(fake, client, wider.json()["access_token"], "GET", AUTHORIZATIONS,
               q="memberAndApplication").status_code == 200


def test_the_control_plane_shortcut_gives_a_code_for_the_token_endpoint(fake: MemberExportFake,
                                                                        client: httpx.Client) -> None:
    member = fake.create_member()
    app = new_app(fake)
    answer = client.post("/_fake/oauth/authorize", json={"client_id": app["client_id"], "member_id": member["id"],
                                                        "state": "x"})
    assert answer.status_code == 201
    body = answer.json()
    assert body["redirect_uri"] == REDIRECT and query_of(body["location"]) == {"code": body["code"], "state": "x"}
    assert exchange(client, app, body["code"]).status_code == 200
    assert client.post("/_fake/oauth/authorize", json={"client_id": "nope", "member_id": member["id"]}
                       ).status_code == 404
    assert client.post("/_fake/oauth/authorize", json={"client_id": app["client_id"], "member_id": "nobody"}
                       ).status_code == 404
    bad_scope = client.post("/_fake/oauth/authorize", json={"client_id": app["client_id"], "member_id": member["id"],
                                                           "scope": "w_member_social"})
    assert bad_scope.status_code == 400 and "unauthorized_scope_error" in bad_scope.json()["message"]


def test_revoking_an_application_in_the_members_settings_ends_its_tokens(fake: MemberExportFake,
                                                                         client: httpx.Client) -> None:
    member = fake.create_member()
    mine, other = new_app(fake), new_app(fake, name="Other")
    token = exchange(client, mine, code_for(client, mine, member["id"])).json()["access_token"]
    kept = exchange(client, other, code_for(client, other, member["id"])).json()["access_token"]
    answer = client.post(f"/_fake/members/{member['id']}/revoke", json={"client_id": mine["client_id"]})
    assert answer.json() == {"member_id": member["id"], "client_id": mine["client_id"], "revoked": 1}
    assert api(fake, client, token, "GET", AUTHORIZATIONS, q="memberAndApplication").json()["code"] == (
        "REVOKED_ACCESS_TOKEN")
    assert api(fake, client, kept, "GET", AUTHORIZATIONS, q="memberAndApplication").status_code == 200


def test_applications_are_listed_and_checked(fake: MemberExportFake, client: httpx.Client) -> None:
    app = client.post("/_fake/applications", json={
        "name": "Mine", "redirect_uris": [REDIRECT], "client_id": "fixed-client", "client_secret": "s3cr3t",
        "products": ["Member Data Portability API (3rd Party)"]}).json()
    assert app["scopes"] == ["r_dma_portability_3rd_party"] and app["client_secret"] == "s3cr3t"
    assert app["application"].startswith("urn:li:developerApplication:")
    assert client.get("/_fake/applications/fixed-client").json() == app
    assert client.get("/_fake/applications").json() == {"applications": [app]}
    assert client.post("/_fake/applications", json={"redirect_uris": [REDIRECT], "client_id": "fixed-client"}
                       ).status_code == 409
    for bad in ({}, {"redirect_uris": []}, {"redirect_uris": ["/relative"]}, {"redirect_uris": ["https://a/#frag"]},
                {"redirect_uris": [REDIRECT], "products": ["Marketing"]}, {"redirect_uris": [REDIRECT], "x": 1},
                {"redirect_uris": [REDIRECT], "scopes": ["has space"]}, {"redirect_uris": [REDIRECT], "name": ""}):
        assert client.post("/_fake/applications", json=bad).status_code == 400, bad
    assert client.get("/_fake/applications/unknown").status_code == 404
