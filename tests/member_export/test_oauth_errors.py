"""Bad input on the OAuth endpoints: LinkedIn's error page or ``{"error", "error_description"}``,
never a redirect to an untrusted URL, never a token that should not exist, never a state change."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from fakes.member_export import MemberExportFake

from .oauth_helpers import ACCESS_TOKEN, AUTHORIZATION, INTROSPECT, REDIRECT, auth_params, code_for, exchange, new_app

FORM = {"content-type": "application/x-www-form-urlencoded"}


@pytest.fixture
def app(fake: MemberExportFake) -> dict[str, Any]:
    return new_app(fake)


@pytest.fixture
def member(fake: MemberExportFake) -> dict[str, Any]:
    return fake.create_member()


def page_error(answer: httpx.Response) -> str:
    """The error key of the error page (and that it is one, not a redirect)."""
    assert "location" not in answer.headers
    assert answer.headers["content-type"].startswith("text/html")
    assert 'data-page="error"' in answer.text
    return answer.text.split('data-error="', 1)[1].split('"', 1)[0]


@pytest.mark.parametrize(("change", "status", "error"), [
    ({"client_id": "unknown"}, 401, "invalid_client_id"),
    ({"client_id": ""}, 400, "invalid_request"),
    ({"redirect_uri": "https://evil.example/callback"}, 401, "invalid_redirect_uri"),
    ({"redirect_uri": "http://localhost:8765/callback/deeper"}, 401, "invalid_redirect_uri"),
    ({"redirect_uri": REDIRECT + "#fragment"}, 401, "invalid_redirect_uri"),
    ({"redirect_uri": ""}, 400, "invalid_request"),
    ({"response_type": "token"}, 400, "unsupported_response_type"),
    ({"state": "s" * 2001}, 400, "invalid_request"),
    ({"scope": "x" * 5000}, 400, "invalid_request"),
])
def test_requests_the_client_or_redirect_of_which_cannot_be_trusted_get_the_error_page(
        fake: MemberExportFake, client: httpx.Client, app: dict[str, Any], change: dict[str, str], status: int,
        error: str) -> None:
    params = {**auth_params(app["client_id"]), **change}
    answer = client.get(AUTHORIZATION, params=params)
    assert answer.status_code == status
    assert page_error(answer) == error


def test_a_repeated_parameter_and_a_missing_one_get_the_error_page(client: httpx.Client,
                                                                   app: dict[str, Any]) -> None:
    repeated = client.get(AUTHORIZATION + f"?client_id={app['client_id']}&client_id=x&response_type=code")
    assert repeated.status_code == 400 and page_error(repeated) == "invalid_request"
    missing = client.get(AUTHORIZATION, params={"client_id": app["client_id"], "response_type": "code"})
    assert missing.status_code == 400 and page_error(missing) == "invalid_request"


def test_the_registered_redirect_matches_whatever_its_query(client: httpx.Client, app: dict[str, Any]) -> None:
    answer = client.get(AUTHORIZATION, params=auth_params(app["client_id"], redirect_uri=REDIRECT + "?tab=2"))
    assert answer.status_code == 200


@pytest.mark.parametrize(("scope", "error", "description"), [
    ("w_member_social", "unauthorized_scope_error", "Scope &quot;w_member_social&quot; is not authorized"),
    ("", "invalid_request", 'A required parameter "scope" is missing'),
])
def test_a_wrong_scope_is_answered_by_a_redirect_with_the_state(client: httpx.Client, app: dict[str, Any],
                                                                 scope: str, error: str, description: str) -> None:
    answer = client.get(AUTHORIZATION, params=auth_params(app["client_id"], scope=scope, state="st"))
    assert answer.status_code == 302
    location = httpx.URL(answer.headers["location"])
    assert str(location).startswith(REDIRECT)
    assert location.params["error"] == error and location.params["state"] == "st"
    assert location.params["error_description"].startswith(description)


def test_the_consent_form_refuses_a_missing_member_and_an_unknown_decision(
        fake: MemberExportFake, client: httpx.Client, app: dict[str, Any], member: dict[str, Any]) -> None:
    form = {**auth_params(app["client_id"]), "decision": "allow"}
    assert page_error(client.post(AUTHORIZATION, data=form)) == "invalid_request"
    assert page_error(client.post(AUTHORIZATION, data={**form, "member_id": "nobody"})) == "invalid_request"
    assert page_error(client.post(AUTHORIZATION, data={**form, "member_id": member["id"], "decision": "maybe"})) == (
        "invalid_request")
    tampered = client.post(AUTHORIZATION, data={**form, "member_id": member["id"], "redirect_uri": "https://x.y/"})
    assert tampered.status_code == 401 and page_error(tampered) == "invalid_redirect_uri"
    assert page_error(client.post(AUTHORIZATION, content=b"{}", headers={"content-type": "application/json"})) == (
        "invalid_request")
    assert fake.model.codes.codes == {}
    no_decision = client.post(AUTHORIZATION, data={**auth_params(app["client_id"]), "member_id": member["id"]})
    assert no_decision.status_code == 200 and 'id="consent"' in no_decision.text


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH"])
def test_other_methods_on_the_authorization_page_are_405_pages(client: httpx.Client, method: str) -> None:
    answer = client.request(method, AUTHORIZATION)
    assert answer.status_code == 405 and answer.headers["allow"] == "GET, POST"
    assert page_error(answer) == "method_not_allowed"


def _token_form(app: dict[str, Any], issued: str, **changes: str | None) -> dict[str, str]:
    form = {"grant_type": "authorization_code", "code": issued, "client_id": app["client_id"],
            "client_secret": app["client_secret"], "redirect_uri": REDIRECT, **changes}
    return {name: value for name, value in form.items() if value is not None}


@pytest.mark.parametrize(("changes", "status", "error", "description"), [
    ({"grant_type": None}, 400, "invalid_request", 'A required parameter "grant_type" is missing'),
    ({"client_id": None}, 400, "invalid_request", 'A required parameter "client_id" is missing'),
    ({"client_secret": None}, 400, "invalid_request", 'A required parameter "client_secret" is missing'),
    ({"code": None}, 400, "invalid_request", 'A required parameter "code" is missing'),
    ({"redirect_uri": None}, 400, "invalid_request", 'A required parameter "redirect_uri" is missing'),
    ({"grant_type": "password"}, 400, "unsupported_grant_type", "The grant type password is not supported"),
    ({"grant_type": "client_credentials"}, 401, "access_denied",
     "This application is not allowed to create application tokens"),
    ({"client_id": "nope"}, 400, "invalid_client_id", 'The passed in client_id is invalid "nope"'),
    ({"client_secret": "wrong"}, 401, "invalid_client", "Client authentication failed"),
    ({"code": "AQnever-issued"}, 401, "invalid_request",
     "Unable to retrieve access token: authorization code not found"),
    ({"redirect_uri": "http://localhost:8765/other"}, 400, "invalid_redirect_uri",
     "Unable to retrieve access token: appid/redirect uri/code verifier does not match authorization code."),
])
def test_the_token_endpoint_answers_linkedins_errors_and_keeps_the_code(
        fake: MemberExportFake, client: httpx.Client, app: dict[str, Any], member: dict[str, Any],
        changes: dict[str, str | None], status: int, error: str, description: str) -> None:
    code = code_for(client, app, member["id"])
    before = fake.export_state()
    answer = client.post(ACCESS_TOKEN, data=_token_form(app, code, **changes))
    assert answer.status_code == status
    assert answer.json()["error"] == error and answer.json()["error_description"].startswith(description)
    assert set(answer.json()) == {"error", "error_description"}
    assert fake.export_state() == before  # no token, the code still unused
    assert exchange(client, app, code).status_code == 200


@pytest.mark.parametrize(("content", "headers", "description"), [
    (b'{"grant_type": "authorization_code"}', {"content-type": "application/json"}, "must be application/x-www"),
    (b"grant_type=authorization_code", {}, "must be application/x-www"),
    (b"grant_type=%ff%fe", FORM, "not a valid UTF-8 form"),
    (b"grant_type=\xff", FORM, "not a valid UTF-8 form"),
    (b"grant_type=a&grant_type=b", FORM, "is repeated"),
    (b"code=" + b"x" * 5000, FORM, "longer than 4000"),
    (b"x=" + b"y" * 20_000, FORM, "larger than 16384 bytes"),
])
@pytest.mark.parametrize("path", [ACCESS_TOKEN, INTROSPECT])
def test_malformed_forms_are_invalid_requests(fake: MemberExportFake, client: httpx.Client, path: str,
                                              content: bytes, headers: dict[str, str], description: str) -> None:
    before = fake.export_state()
    answer = client.post(path, content=content, headers=headers)
    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid_request" and description in answer.json()["error_description"]
    assert fake.export_state() == before


@pytest.mark.parametrize("path", [ACCESS_TOKEN, INTROSPECT, AUTHORIZATION])
def test_a_body_past_the_fakes_cap_is_refused_before_it_is_read(client: httpx.Client, path: str) -> None:
    answer = client.post(path, content=b"x=" + b"y" * (1024 * 1024), headers=FORM)
    assert answer.status_code == 413 and answer.headers["connection"] == "close"
    if path == AUTHORIZATION:
        assert page_error(answer) == "invalid_request"
    else:
        assert answer.json()["error"] == "invalid_request" and "larger than" in answer.json()["error_description"]


@pytest.mark.parametrize("path", [ACCESS_TOKEN, INTROSPECT])
@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE"])
def test_wrong_methods_get_405_in_the_oauth_shape(client: httpx.Client, path: str, method: str) -> None:
    answer = client.request(method, path)
    assert answer.status_code == 405 and answer.headers["allow"] == "POST"
    assert answer.json()["error"] == "invalid_request" and set(answer.json()) == {"error", "error_description"}


def test_unknown_fields_are_ignored(fake: MemberExportFake, client: httpx.Client, app: dict[str, Any],
                                    member: dict[str, Any]) -> None:
    code = code_for(client, app, member["id"])
    form = {**_token_form(app, code), "code_verifier": "ignored", "extra": "x"}
    assert client.post(ACCESS_TOKEN, data=form).status_code == 200
