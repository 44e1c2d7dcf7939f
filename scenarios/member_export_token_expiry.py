"""Member data export, token expiry: a token lives about a year, has no refresh token, and the
member must consent again to get a new one.

Against the fake the year passes on the virtual clock; against the real service (credential
``access_token``) the scenario checks what it can without waiting a year: the token works and an
unknown token is refused with 401 ``INVALID_ACCESS_TOKEN``.
"""

from __future__ import annotations

from typing import Any

from .runner import Run, Scenario

AUTHORIZATIONS = "/rest/memberAuthorizations"
YEAR_S = 365 * 86_400


def flow(run: Run) -> None:
    version_header = run.credentials.get("version_header", "Service-Version")
    version = run.credentials.get("version", "202312")
    created: dict[str, Any] = {}

    def make_member() -> str:
        created.update(run.control("POST", "/_fake/members", json={"region": "SE"}))
        return str(created["access_token"])

    token = run.credential("access_token", create=make_member)

    def finder(with_token: str) -> Any:
        return run.request("GET", AUTHORIZATIONS, params={"q": "memberAndApplication"},
                           headers={"Authorization": f"Bearer {with_token}", version_header: version})

    with run.step("a fresh token works"):
        answer = finder(token)
        run.check(answer.status_code == 200, "the token is accepted", answer.text)
        if run.is_fake:
            run.check(created["expires_in"] == YEAR_S, "expires_in is one year", created["expires_in"])
            run.check("refresh_token" not in created, "no refresh token is issued", sorted(created))

    with run.step("an unknown token is refused"):
        unknown = finder(token[:-4] + "XXXX")
        run.check(unknown.status_code == 401, "401", unknown.text)
        run.check(unknown.json().get("code") == "INVALID_ACCESS_TOKEN", "code INVALID_ACCESS_TOKEN", unknown.text)

    if not run.is_fake:
        return  # the rest needs a year of real time

    with run.step("the member consents; a day before the year is up the token still works"):
        run.control("POST", f"/_fake/members/{created['id']}/consent", json={})
        run.wait(YEAR_S - 86_400)
        answer = finder(token)
        run.check(answer.status_code == 200, "still valid after 364 days", answer.text)
        regulated_at = answer.json()["elements"][0]["regulatedAt"]

    with run.step("after a year the token has expired"):
        run.wait(86_400)
        expired = finder(token)
        run.check(expired.status_code == 401, "401 once the year is up", expired.text)
        run.check(expired.json().get("code") == "EXPIRED_ACCESS_TOKEN", "code EXPIRED_ACCESS_TOKEN", expired.text)

    with run.step("consenting again gives a new token; archiving carries on"):
        again = run.control("POST", f"/_fake/members/{created['id']}/consent", json={})
        run.check(again["access_token"] != token, "a different token", again["access_token"][:12])
        run.check("refresh_token" not in again, "still no refresh token", sorted(again))
        renewed = finder(again["access_token"])
        run.check(renewed.status_code == 200, "the new token works", renewed.text)
        run.check(renewed.json()["elements"][0]["regulatedAt"] == regulated_at,
                  "archiving was never interrupted (same regulatedAt)", renewed.text)
        run.check(finder(token).status_code == 401, "the old token stays expired")


SCENARIO = Scenario(name="member-export-token-expiry", service="member-export",
                    summary="a token lives a year without refresh token; re-consent issues a new one", flow=flow)
