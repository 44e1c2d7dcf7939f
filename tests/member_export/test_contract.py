"""Schemathesis on this fake's own OpenAPI document, control-plane additions included.

tests/contract runs the public operations for every fake; here the service's control-plane
operations (members, consent, actions, tokens) get the same treatment, and the public ones run
once more with the credentials configured on the schema (so schemathesis knows which headers
the caller supplies). Path parameters point at a real member half of the time.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakes.member_export import MemberExportFake
from tests.support.schemathesis_harness import operation_labels, run_operation

EXAMPLES = 40
OWN_CONTROL_PATHS = ("/_fake/members", "/_fake/tokens")


def _labels() -> list[str]:
    labels = operation_labels(MemberExportFake(seed=0), with_control_plane=True)
    return [label for label in labels
            if label.split(" ", 1)[1].startswith(("/rest/", *OWN_CONTROL_PATHS))]


@pytest.mark.parametrize("label", _labels())
def test_operation_keeps_its_documented_contract(label: str) -> None:
    fake = MemberExportFake(seed=0)
    member_id = fake.create_member(sizes={"CONNECTIONS": 3})["id"]

    def point_at_the_member(case: Any, known_member: bool) -> None:
        if known_member and case.path_parameters and "member_id" in case.path_parameters:
            case.path_parameters["member_id"] = member_id

    sent = run_operation(fake, label, max_examples=EXAMPLES, tweak=point_at_the_member, with_control_plane=True)
    assert sent >= 1


def test_documented_statuses_of_the_public_api_are_all_reachable() -> None:
    fake = MemberExportFake(seed=0)
    document = fake.openapi()
    documented = {(path, method, status) for path, item in document["paths"].items() if path.startswith("/rest/")
                  for method, op in item.items() for status in op["responses"]}
    reached = {(path, method, status) for path, method, status in _reach_every_status(fake)}
    reached |= _reach_the_daily_limit()
    assert documented == reached


def _reach_the_daily_limit() -> set[tuple[str, str, str]]:
    """429 on each operation once its daily limit (a setting) is spent."""
    fake = MemberExportFake(seed=0, member_daily_limit=1)
    member = fake.create_member(build_times={"PROFILE": 0})
    fake.consent(member["id"])
    headers = {fake.settings.version_header: fake.settings.accepted_version,
               "Authorization": f"Bearer {member['access_token']}"}
    seen = set()
    calls = [("/rest/memberSnapshotData", "get", {"q": "criteria", "domain": "PROFILE"}),
             ("/rest/memberChangeLogs", "get", {"q": "memberAndApplication"}),
             ("/rest/memberAuthorizations", "get", {"q": "memberAndApplication"}),
             ("/rest/memberAuthorizations", "post", {})]
    with fake.client() as client:
        for path, method, params in calls:
            for _ in range(2):
                answer = client.request(method.upper(), path, params=params, headers=headers,
                                        json={} if method == "post" else None)
            seen.add((path, method, str(answer.status_code)))
    return seen


def _reach_every_status(fake: MemberExportFake) -> set[tuple[str, str, str]]:
    """Drive each public operation into each documented answer once."""
    seen: set[tuple[str, str, str]] = set()
    ready = fake.create_member(build_times={"PROFILE": 0})
    fake.consent(ready["id"])
    fresh = fake.create_member()
    outsider = fake.create_member(region="US")
    expired = fake.issue_token(ready["id"], expires_in=0)
    version = {fake.settings.version_header: fake.settings.accepted_version}

    def auth(token: str) -> dict[str, str]:
        return {**version, "Authorization": f"Bearer {token}"}

    good = {"/rest/memberSnapshotData": {"q": "criteria", "domain": "PROFILE"},
            "/rest/memberChangeLogs": {"q": "memberAndApplication"},
            "/rest/memberAuthorizations": {"q": "memberAndApplication"}}
    with fake.client() as client:
        for path, params in good.items():
            methods = ["get", "post"] if path.endswith("Authorizations") else ["get"]
            for method in methods:
                query = params if method == "get" else {}
                attempts = [
                    (auth(ready["access_token"]), query),
                    (auth(ready["access_token"]), {**query, "bogus": "1"}),
                    (auth(expired["access_token"]), query),
                    (auth(outsider["access_token"]), query),
                    ({"Authorization": f"Bearer {ready['access_token']}"}, query),
                    (auth(fresh["access_token"]), query),  # not consented: 404 for a snapshot
                    (auth(ready["access_token"]), {**query, "start": "99"}),
                ]
                for headers, sent in attempts:
                    response = client.request(method.upper(), path, params=sent, headers=headers,
                                              json={} if method == "post" else None)
                    seen.add((path, method, str(response.status_code)))
    return seen
