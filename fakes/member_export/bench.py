"""The benchmark's requests for every public operation of the member export fake.

``python -m scenarios bench --parts operations --only member-export --no-kernel`` times each one;
tests/contract/test_bench_operations.py checks that every documented operation has one and that
each answers as expected (twice: an operation must work again). State is made once, through the
fake's own methods: a registered application, a member who signed in to it, an authorization code
and a token of the application. Single-use things are re-armed before each timed request.
"""

from __future__ import annotations

from typing import Protocol
from urllib.parse import urlencode

from fakes.kernel.benchops import BenchOperation

from .domains import DOMAINS
from .served import ControlledMemberExport

REDIRECT = "http://localhost:8765/callback"
FORM = {"content-type": "application/x-www-form-urlencoded"}


class BenchedMemberExport(ControlledMemberExport, Protocol):
    """The control plane as Python and a ready member's headers (:class:`~fakes.member_export.MemberExportFake`)."""

    def auth_headers(self) -> dict[str, str]: ...


def bench_operations(fake: BenchedMemberExport) -> list[BenchOperation]:
    settings = fake.settings
    fake.auth_headers()  # the ready member the REST operations read as
    member = fake.create_member(name="Bench Member", region="DE", build_times=dict.fromkeys(DOMAINS, 0))
    app = fake.register_application(name="Bench App", redirect_uris=[REDIRECT], refresh_tokens=True)
    client = {"client_id": app["client_id"], "client_secret": app["client_secret"]}
    request = {"response_type": "code", "client_id": app["client_id"], "redirect_uri": REDIRECT,
               "scope": settings.scope, "state": "bench"}
    code = fake.authorize(app["client_id"], member["id"])["code"]
    token = fake.issue_token(member["id"], client_id=app["client_id"])["access_token"]
    # a refresh token to exchange again and again (its lifetime is fixed, it is never used up)
    refresh = fake.model.exchange({"grant_type": "authorization_code", "code": fake.authorize(
        app["client_id"], member["id"])["code"], "redirect_uri": REDIRECT, **client})["refresh_token"]

    def rearm_code() -> dict[str, str]:
        """The code exchanged by the timed request becomes unused and fresh again."""
        issued = fake.model.codes.codes[code]
        issued.used, issued.expires_ms = False, fake.clock.now_ms() + settings.authorization_code_lifetime_s * 1000
        return {}

    def form(fields: dict[str, str]) -> bytes:
        return urlencode(fields).encode()

    return [
        BenchOperation("authorization (consent page)", "GET", f"/oauth/v2/authorization?{urlencode(request)}",
                       auth=False),
        BenchOperation("authorization (allow)", "POST", "/oauth/v2/authorization", auth=False, headers=FORM,
                       content=form({**request, "member_id": member["id"], "decision": "allow"}), expect=(303,)),
        BenchOperation("accessToken (authorization_code)", "POST", "/oauth/v2/accessToken", auth=False, headers=FORM,
                       content=form({"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT,
                                     **client}), prepare=rearm_code),
        BenchOperation("accessToken (refresh_token)", "POST", "/oauth/v2/accessToken", auth=False, headers=FORM,
                       content=form({"grant_type": "refresh_token", "refresh_token": refresh, **client})),
        BenchOperation("introspectToken", "POST", "/oauth/v2/introspectToken", auth=False, headers=FORM,
                       content=form({"token": token, **client})),
        BenchOperation("memberSnapshotData (one domain)", "GET",
                       "/rest/memberSnapshotData?q=criteria&domain=INBOX&start=0"),
        BenchOperation("memberSnapshotData (all domains)", "GET", "/rest/memberSnapshotData?q=criteria&start=3"),
        BenchOperation("memberChangeLogs", "GET", "/rest/memberChangeLogs?q=memberAndApplication&count=10"),
        BenchOperation("memberAuthorizations (finder)", "GET", "/rest/memberAuthorizations?q=memberAndApplication"),
        BenchOperation("memberAuthorizations (create)", "POST", "/rest/memberAuthorizations", json={},
                       expect=(201,)),
    ]
