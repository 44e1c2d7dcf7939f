"""Token introspection, programmatic refresh tokens, and the OAuth state in exports and worlds."""

from __future__ import annotations

import copy
from typing import Any

import httpx
import pytest

from fakes.kernel.statecheck import StateError
from fakes.member_export import MemberExportFake

from .helpers import AUTHORIZATIONS, DAY
from .oauth_helpers import ACCESS_TOKEN, SCOPE, code_for, exchange, introspect, new_app


def test_introspection_reports_an_active_token_in_epoch_seconds(fake: MemberExportFake, client: httpx.Client) -> None:
    member = fake.create_member()
    app = new_app(fake)
    approved_at = fake.clock.now_ms() // 1000
    code = code_for(client, app, member["id"])
    fake.advance(120)  # the exchange comes two minutes after the approval
    token = exchange(client, app, code).json()["access_token"]
    answer = introspect(client, app, token)
    assert answer.status_code == 200
    now = fake.clock.now_ms() // 1000
    assert answer.json() == {"active": True, "client_id": app["client_id"], "authorized_at": approved_at,
                             "created_at": now, "status": "active", "expires_at": now + 31_536_000,
                             "scope": SCOPE, "auth_type": "3L"}


def test_introspection_of_expired_and_revoked_tokens(fake: MemberExportFake, client: httpx.Client) -> None:
    member = fake.create_member()
    app = new_app(fake)
    revoked = exchange(client, app, code_for(client, app, member["id"])).json()["access_token"]
    fake.revoke(member["id"], app["client_id"])
    expiring = fake.issue_token(member["id"], client_id=app["client_id"], expires_in=60)["access_token"]
    assert introspect(client, app, revoked).json()["status"] == "revoked"
    assert introspect(client, app, revoked).json()["active"] is False
    fake.advance(60)
    expired = introspect(client, app, expiring).json()
    assert expired["active"] is False and expired["status"] == "expired"
    assert expired["expires_at"] <= fake.clock.now_ms() // 1000


def test_introspection_of_another_applications_token_says_only_inactive(fake: MemberExportFake,
                                                                        client: httpx.Client) -> None:
    member = fake.create_member()
    mine, other = new_app(fake), new_app(fake, name="Other")
    token = exchange(client, mine, code_for(client, mine, member["id"])).json()["access_token"]
    assert introspect(client, other, token).json() == {"active": False}
    assert introspect(client, other, member["access_token"]).json() == {"active": False}  # the built-in app's


@pytest.mark.parametrize(("changes", "status", "error"), [
    ({"token": "AQunknown"}, 400, "invalid_request"),
    ({"token": ""}, 400, "invalid_request"),
    ({"client_id": "nope"}, 400, "invalid_client_id"),
    ({"client_secret": "wrong"}, 401, "invalid_client"),
])
def test_introspection_refusals(fake: MemberExportFake, client: httpx.Client, changes: dict[str, str], status: int,
                                error: str) -> None:
    member = fake.create_member()
    app = new_app(fake)
    token = exchange(client, app, code_for(client, app, member["id"])).json()["access_token"]
    answer = introspect(client, app, token, **changes)
    assert answer.status_code == status and answer.json()["error"] == error


def _refresh(client: httpx.Client, app: dict[str, Any], refresh_token: str) -> httpx.Response:
    return client.post(ACCESS_TOKEN, data={"grant_type": "refresh_token", "refresh_token": refresh_token,
                                           "client_id": app["client_id"], "client_secret": app["client_secret"]})


def test_refresh_tokens_only_where_enabled_and_their_lifetime_is_fixed_at_authorization() -> None:
    fake = MemberExportFake(seed=5, refresh_tokens=True)
    member = fake.create_member()
    app, plain = new_app(fake), new_app(fake, name="Plain", refresh_tokens=False)
    with fake.client() as client:
        assert "refresh_token" not in exchange(client, plain, code_for(client, plain, member["id"])).json()
        first = exchange(client, app, code_for(client, app, member["id"])).json()
        assert first["refresh_token_expires_in"] == 365 * DAY
        fake.advance(59 * DAY)
        refreshed = _refresh(client, app, first["refresh_token"])
        assert refreshed.status_code == 200
        body = refreshed.json()
        assert body["refresh_token"] == first["refresh_token"] and body["refresh_token_expires_in"] == 306 * DAY
        assert body["access_token"] != first["access_token"] and body["expires_in"] == 31_536_000
        version = {fake.settings.version_header: fake.settings.accepted_version}
        for token in (first["access_token"], body["access_token"]):  # the earlier one stays valid
            assert client.get(AUTHORIZATIONS, params={"q": "memberAndApplication"},
                              headers={**version, "Authorization": f"Bearer {token}"}).status_code == 200
        assert introspect(client, app, body["access_token"]).json()["authorized_at"] == fake.clock.now_ms() // 1000 - (
            59 * DAY)
        fake.advance(306 * DAY)
        expired = _refresh(client, app, first["refresh_token"])
        assert expired.status_code == 400 and expired.json() == {
            "error": "invalid_request",
            "error_description": "The provided authorization grant or refresh token is invalid, expired or revoked"}


def test_refresh_tokens_are_refused_for_other_apps_unknown_or_revoked() -> None:
    fake = MemberExportFake(seed=5)
    member = fake.create_member()
    app, other = new_app(fake, refresh_tokens=True), new_app(fake, name="Other", refresh_tokens=True)
    with fake.client() as client:
        first = exchange(client, app, code_for(client, app, member["id"])).json()
        before = len(fake.model.tokens)
        for refresh_app, value in ((other, first["refresh_token"]), (app, "AQnope"), (app, first["access_token"])):
            assert _refresh(client, refresh_app, value).json()["error"] == "invalid_request"
        missing = client.post(ACCESS_TOKEN, data={"grant_type": "refresh_token", "client_id": app["client_id"],
                                                  "client_secret": app["client_secret"]})
        assert missing.json()["error_description"] == 'A required parameter "refresh_token" is missing'
        fake.revoke(member["id"], app["client_id"])
        assert _refresh(client, app, first["refresh_token"]).status_code == 400
        assert len(fake.model.tokens) == before


def test_the_oauth_state_survives_export_and_import_mid_flow(fake: MemberExportFake, client: httpx.Client) -> None:
    member = fake.create_member()
    app = new_app(fake, refresh_tokens=True)
    fake.sign_in(member["id"])
    pending = code_for(client, app, member["id"])
    state = fake.export_state()
    twin = MemberExportFake(seed=7)
    twin.import_state(state)
    assert twin.export_state() == state
    with twin.client() as other:
        token = exchange(other, app, pending).json()
        assert introspect(other, app, token["access_token"]).json()["active"] is True
        assert _refresh(other, app, token["refresh_token"]).status_code == 200
    assert twin.model.signed_in == member["id"]
    # the original still holds its own unused code: the twin's exchange changed only the twin
    assert exchange(client, app, pending).status_code == 200


def _edit(state: dict[str, Any], path: list[Any], value: Any) -> dict[str, Any]:
    changed = copy.deepcopy(state)
    target = changed["model"]
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return changed


def test_imported_oauth_state_is_checked(fake: MemberExportFake, client: httpx.Client) -> None:
    member = fake.create_member()
    app = new_app(fake)
    code = code_for(client, app, member["id"])
    token = exchange(client, app, code).json()["access_token"]
    code_for(client, app, member["id"])
    state = fake.export_state()
    pending = next(value for value, item in state["model"]["codes"].items() if not item["used"])
    bad_states = [
        (_edit(state, ["tokens", token, "client_id"], "ghost"), "client_id"),
        (_edit(state, ["codes", pending, "member_id"], "nobody"), "member_id"),
        (_edit(state, ["codes", pending, "expires_ms"], "soon"), "expires_ms"),
        (_edit(state, ["signed_in"], "nobody"), "signed_in"),
        (_edit(state, ["applications", 0, "redirect_uris"], ["not a url"]), "redirect_uris"),
        (_edit(state, ["applications", 0, "client_secret"], ""), "client_secret"),
        (_edit(state, ["applications"], [state["model"]["applications"][0]] * 2), "repeats"),
        (_edit(state, ["counters", "codes"], -1), "codes"),
    ]
    for bad, field in bad_states:
        with pytest.raises(StateError) as refused:
            fake.import_state(bad)
        assert field in str(refused.value) or field in getattr(refused.value, "extra", {}).get("field", "")
    assert fake.export_state() == state


def test_a_state_exported_before_oauth_still_imports(fake: MemberExportFake) -> None:
    fake.create_member()
    state = fake.export_state()
    for name in ("applications", "codes", "refresh_tokens", "signed_in"):
        del state["model"][name]
    for name in ("applications", "codes", "refresh_tokens"):
        del state["model"]["counters"][name]
    for token in state["model"]["tokens"].values():
        for name in ("client_id", "authorized_ms", "revoked"):
            del token[name]
    fake.import_state(state)
    assert fake.model.applications == {} and fake.model.counters["codes"] == 0


def test_each_world_has_its_own_applications(fake: MemberExportFake, client: httpx.Client) -> None:
    one, two = "/_w/job-1", "/_w/job-2"
    created = client.post(f"{one}/_fake/applications", json={"redirect_uris": ["http://localhost:1/cb"],
                                                              "client_id": "world-app"})
    assert created.status_code == 201
    assert client.get(f"{one}/_fake/applications/world-app").status_code == 200
    assert client.get(f"{two}/_fake/applications/world-app").status_code == 404
    assert fake.model.applications == {}
    member = client.post(f"{one}/_fake/members", json={}).json()
    page = client.get(f"{one}/oauth/v2/authorization", params={
        "response_type": "code", "client_id": "world-app", "redirect_uri": "http://localhost:1/cb", "scope": SCOPE})
    assert page.status_code == 200 and f'action="{one}/oauth/v2/authorization"' in page.text
    assert member["id"] in page.text
