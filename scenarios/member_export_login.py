"""Member data export, from login to changelog: the path a real integration takes.

The app sends the member to the OAuth consent page, the member allows it, the app exchanges the
code for a token (single use: a replay is refused), introspects it, makes the DMA authorization
call that starts archiving, and reads what the member does next from the changelog (posts and
their edits and deletion, a comment, a reaction, an invitation, a profile edit) and from the
snapshot. A cancelled consent comes back as ``error=user_cancelled_authorize``.

Against the fake everything is made through the control plane (an application, a member) and
time passes on the virtual clock. Against the real service (base URL https://api.linkedin.com,
credentials ``access_token`` from your own login and ``version_header=LinkedIn-Version``) the
consent itself cannot be automated: the scenario makes the authorization call and checks the
changelog's shapes; with ``client_id``, ``client_secret`` and ``oauth_base_url``
(https://www.linkedin.com, where LinkedIn serves OAuth) it introspects the token too.
"""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .runner import Run, Scenario

AUTHORIZATION = "/oauth/v2/authorization"
ACCESS_TOKEN = "/oauth/v2/accessToken"
INTROSPECT = "/oauth/v2/introspectToken"
AUTHORIZATIONS = "/rest/memberAuthorizations"
CHANGELOG = "/rest/memberChangeLogs"
SNAPSHOT = "/rest/memberSnapshotData"
REDIRECT = "http://localhost:8765/callback"  # never contacted: the app reads the redirect's query
SCOPE = "r_dma_portability_self_serve"
YEAR_S = 365 * 86_400


class _HiddenFields(HTMLParser):
    """The consent form's hidden fields, read as a test without a browser reads them."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = {name: value or "" for name, value in attrs}
        if tag == "input" and attr.get("type") == "hidden":
            self.fields[attr["name"]] = attr.get("value", "")


def _query(location: str) -> dict[str, str]:
    return {name: values[0] for name, values in parse_qs(urlsplit(location).query).items()}


def introspect(run: Run, url: str, token: str, client_id: str, client_secret: str) -> None:
    with run.step("the app introspects its token"):
        details = run.request("POST", url, data={"token": token, "client_id": client_id,
                                                 "client_secret": client_secret})
        run.check(details.status_code == 200, "introspection answers", details.text)
        info = details.json()
        run.check(info.get("active") is True and info.get("status") == "active", "the token is active", info)
        run.check(info.get("auth_type") == "3L" and info.get("expires_at", 0) > info.get("created_at", 0),
                  "a 3-legged member token with its lifetime in epoch seconds", info)


def flow(run: Run) -> None:
    version_header = run.credentials.get("version_header", "Service-Version")
    version = run.credentials.get("version", "202312")
    app: dict[str, Any] = {}
    member: dict[str, Any] = {}

    def register() -> str:
        app.update(run.control("POST", "/_fake/applications", json={
            "name": "Login Scenario App", "redirect_uris": [REDIRECT],
            "products": ["Member Data Portability API (Member)"]}))
        member.update(run.control("POST", "/_fake/members", json={
            "name": "Ada Lovelace", "region": "IE", "build_times": {"PROFILE": 0, "MEMBER_SHARE_INFO": 0},
            "sizes": {"MEMBER_SHARE_INFO": 0}}))
        return str(app["client_id"])

    if run.is_fake:
        with run.step("the app is registered (client id, secret, redirect URL) and a member exists"):
            run.credential("client_id", create=register)
            run.credential("client_secret", create=lambda: str(app["client_secret"]))
    client_id, client_secret = run.credentials.get("client_id", ""), run.credentials.get("client_secret", "")
    oauth_base = run.credentials.get("oauth_base_url", "").rstrip("/")  # real: www.linkedin.com
    request = {"response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT, "scope": SCOPE}

    def consent(decision: str, state: str) -> dict[str, str]:
        page = run.request("GET", AUTHORIZATION, params={**request, "state": state})
        run.check(page.status_code == 200 and "text/html" in page.headers.get("content-type", ""),
                  "the consent page is HTML", page.status_code)
        form = _HiddenFields()
        form.feed(page.text)
        run.check(form.fields.get("state") == state and form.fields.get("scope") == SCOPE,
                  "the form carries the request back", form.fields)
        answer = run.request("POST", AUTHORIZATION, data={**form.fields, "member_id": member["id"],
                                                         "decision": decision})
        location = answer.headers.get("location", "")
        run.check(answer.status_code == 303 and location.startswith(REDIRECT), "redirected to the app", location)
        redirect = _query(location)
        run.check(redirect.get("state") == state, "the state comes back unchanged", redirect)
        return redirect

    if run.is_fake:
        with run.step("a member who cancels sends the app user_cancelled_authorize"):
            cancelled = consent("cancel", "state-cancel")
            run.check(cancelled.get("error") == "user_cancelled_authorize" and "code" not in cancelled,
                      "error=user_cancelled_authorize, no code", cancelled)

        with run.step("the member allows the app: a code, exchanged once for a token"):
            code = consent("allow", "state-allow")["code"]
            form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT,
                    "client_id": client_id, "client_secret": client_secret}
            exchanged = run.request("POST", ACCESS_TOKEN, data=form)
            run.check(exchanged.status_code == 200, "the code buys a token", exchanged.text)
            body = exchanged.json()
            run.check(body.get("expires_in") == YEAR_S and "refresh_token" not in body,
                      "about a year, no refresh token (the seed)", body)
            run.credentials["access_token"] = body["access_token"]
            replayed = run.request("POST", ACCESS_TOKEN, data=form)
            run.check(replayed.status_code == 400 and replayed.json().get("error") == "invalid_redirect_uri",
                      "a replayed code is refused", replayed.text)
    token = run.credential("access_token")
    headers = {"Authorization": f"Bearer {token}", version_header: version}

    if run.is_fake or (oauth_base and client_id and client_secret):
        introspect(run, oauth_base + INTROSPECT, token, client_id, client_secret)

    with run.step("the DMA authorization call starts archiving"):
        started = run.request("POST", AUTHORIZATIONS, json={}, headers=headers)
        run.check(200 <= started.status_code < 300, "POST {} succeeds", started.text)
        record = run.request("GET", AUTHORIZATIONS, params={"q": "memberAndApplication"}, headers=headers)
        elements = record.json().get("elements") or []
        run.check(len(elements) == 1 and isinstance(elements[0].get("regulatedAt"), int),
                  "archiving is on, with regulatedAt", record.text)
        start_time = int(elements[0]["regulatedAt"])
        if run.is_fake:
            key = elements[0]["memberComplianceAuthorizationKey"]
            run.check(key.get("developerApplication") == app["application"], "the record names this app", key)

    expected: list[tuple[str, str, str | None]] = []
    if run.is_fake:
        with run.step("the member posts, edits, comments, reacts, invites and edits the profile (fake only)"):
            actions = f"/_fake/members/{member['id']}/actions"
            post = run.control("POST", actions, json={"action": "post", "text": "Joining the archive."})
            run.control("POST", actions, json={"action": "edit_post", "item": post["item"],
                                               "text": "Joining the archive today."})
            run.control("POST", actions, json={"action": "comment", "text": "Nice to see this."})
            run.control("POST", actions, json={"action": "react", "reaction": "PRAISE"})
            run.control("POST", actions, json={"action": "invite", "message": "Let us connect."})
            run.control("POST", actions, json={"action": "edit_profile", "headline": "Archivist"})
            second = run.control("POST", actions, json={"action": "post", "text": "A second thought."})
            run.control("POST", actions, json={"action": "delete_post", "item": second["item"]})
            expected = [("ugcPosts", "CREATE", None), ("ugcPosts", "UPDATE", None),
                        ("socialActions/comments", "CREATE", None), ("socialActions/likes", "CREATE", None),
                        ("invitations", "ACTION", "verifyAndCreate"), ("people", "PARTIAL_UPDATE", None),
                        ("ugcPosts", "CREATE", None), ("ugcPosts", "DELETE", None)]
            run.wait(60)  # processing takes seconds

    with run.step("the changelog tells the app what happened since consent"):
        page = run.request("GET", CHANGELOG, params={"q": "memberAndApplication", "startTime": start_time,
                                                    "count": 50}, headers=headers)
        run.check(page.status_code == 200, "the changelog answers", page.text)
        events = page.json().get("elements") or []
        for event in events:
            run.check({"id", "capturedAt", "processedAt", "resourceName", "method", "actor", "owner",
                       "activity"} <= set(event), "each event carries the documented fields", sorted(event))
            run.check(("methodName" in event) == (event["method"] == "ACTION"), "methodName only for ACTION",
                      event.get("method"))
            if event["method"] == "DELETE":
                run.check(event["activity"] == {}, "a deletion carries an empty activity", event["activity"])
        if run.is_fake:
            seen = [(e["resourceName"], e["method"], e.get("methodName")) for e in events]
            run.check(seen == expected, "every action, in order, as LinkedIn names it", seen)

    if run.is_fake:
        with run.step("the snapshot shows the edited profile and the remaining post"):
            profile = run.request("GET", SNAPSHOT, params={"q": "criteria", "domain": "PROFILE"}, headers=headers)
            row = profile.json()["elements"][0]["snapshotData"][0]
            run.check(row.get("Headline") == "Archivist", "the profile row has the new headline", row)
            posts = run.request("GET", SNAPSHOT, params={"q": "criteria", "domain": "MEMBER_SHARE_INFO"},
                                headers=headers)
            texts = [r["ShareCommentary"] for r in posts.json()["elements"][0]["snapshotData"]]
            run.check("Joining the archive today." in texts and "A second thought." not in texts,
                      "the edit shows and the deleted post is gone", texts[-3:])


SCENARIO = Scenario(name="member-export-login", service="member-export",
                    summary="OAuth consent, code exchange, introspection, DMA authorization, then the changelog",
                    flow=flow)
