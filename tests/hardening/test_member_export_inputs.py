"""Issue 12 on member-export: surrogates (2), subtly wrong states (3), tokens after a reset (9),
one-word names (11). Each bad input is refused with a 400 and leaves the fake answering."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from fakes.member_export import MemberExportFake

SURROGATE = b'"\\ud800"'


def ready(fake: MemberExportFake) -> tuple[dict[str, str], str]:
    headers = fake.auth_headers()
    member_id = fake.model.tokens[headers["Authorization"].split()[1]].member_id
    fake.act(member_id, "send_message", text="hello")
    return headers, member_id


def public_answers(fake: MemberExportFake, headers: dict[str, str]) -> list[int]:
    client = fake.client(headers=headers)
    return [client.get(path).status_code for path in (
        "/rest/memberSnapshotData?q=criteria", "/rest/memberSnapshotData?q=criteria&domain=INBOX",
        "/rest/memberChangeLogs?q=memberAndApplication", "/rest/memberAuthorizations?q=memberAndApplication")]


# -- 2. lone surrogates ------------------------------------------------------------------------------
@pytest.mark.parametrize(("path", "template"), [
    ("/_fake/members", b'{"name": %s}'),
    ("/_fake/members", b'{"region": %s}'),
    ("/_fake/tokens", b'{"member_id": "MEMBER", "scope": %s}'),
    ("/_fake/members/MEMBER/actions", b'{"action": "post", "text": %s}'),
    ("/_fake/members/MEMBER/actions", b'{"action": "send_message", %s: "x"}'),
    ("/_fake/members/MEMBER/consent", b'{"expires_in": 5, "x": [1, {"y": %s}]}'),
])
def test_lone_surrogates_are_refused_at_the_door(path: str, template: bytes) -> None:
    fake = MemberExportFake(seed=1)
    headers, member_id = ready(fake)
    before = fake.export_state()
    response = fake.client().post(path.replace("MEMBER", member_id), content=template % SURROGATE,
                                  headers={"content-type": "application/json"})
    assert response.status_code == 400, response.text
    assert "surrogate" in response.json()["message"]
    assert fake.export_state() == before
    assert all(status < 500 for status in public_answers(fake, headers))


def test_the_public_api_refuses_surrogates_in_its_own_shape() -> None:
    fake = MemberExportFake(seed=1)
    headers, _ = ready(fake)
    response = fake.client(headers=headers).post("/rest/memberAuthorizations", content=b'{"a": "\\udfff"}',
                                                 headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert set(response.json()) >= {"status", "serviceErrorCode", "message"}


# -- 3. states that are JSON but wrong --------------------------------------------------------------
Edit = Callable[[dict[str, Any]], None]


def _member(state: dict[str, Any]) -> dict[str, Any]:
    member: dict[str, Any] = state["model"]["members"][0]
    return member


def _token(state: dict[str, Any]) -> dict[str, Any]:
    token: dict[str, Any] = next(iter(state["model"]["tokens"].values()))
    return token


BAD_STATES: list[tuple[str, Edit, str]] = [
    ("regulated_at is text", lambda s: _member(s).update(regulated_at="yesterday"), "regulated_at"),
    ("a domain missing in sizes", lambda s: _member(s)["sizes"].pop("INBOX"), "sizes.INBOX"),
    ("null build time", lambda s: _member(s)["build_times"].update(INBOX=None), "build_times.INBOX"),
    ("token of an unknown member", lambda s: _token(s).update(member_id="nobody"), "member_id"),
    ("expires_ms is text", lambda s: _token(s).update(expires_ms="never"), "expires_ms"),
    ("fault latency is text", lambda s: s["faults"]["rules"].append(
        {"id": "f9", "latency_ms": "x", "status": 500}), "latency_ms"),
    ("counter is negative", lambda s: s["model"]["counters"].update(tokens=-1), "counters.tokens"),
    ("counter beyond 64 bits", lambda s: s["model"]["counters"].update(tokens=2**70), "counters"),
    ("event without processedAt", lambda s: _member(s)["events"][0].pop("processedAt"), "processedAt"),
    ("appended row not text", lambda s: _member(s)["appended"]["INBOX"][0]["row"].update(FROM=5), "FROM"),
    ("region lower case", lambda s: _member(s).update(region="de"), "region"),
    ("name not text", lambda s: _member(s)["me"].update(first=["x"]), "first"),
    ("clock past 9999", lambda s: s["clock"].update(epoch_ms=10**15), "clock"),
    ("clock NaN-like text", lambda s: s["clock"].update(epoch_ms="NaN"), "clock"),
    ("settings differ", lambda s: s["settings"].update(page_size=3), "settings.page_size"),
    ("unknown setting", lambda s: s["settings"].update(colour="red"), "settings.colour"),
    ("epoch negative", lambda s: s.update(epoch=-1), "epoch"),
    ("members not a list", lambda s: s["model"].update(members={}), "members"),
    ("two members, one id", lambda s: s["model"]["members"].append(copy.deepcopy(_member(s))), "members[1].id"),
    ("seed is a bool", lambda s: s.update(seed=True), "seed"),
]


@pytest.mark.parametrize(("label", "edit", "field"), BAD_STATES, ids=[b[0] for b in BAD_STATES])
def test_a_wrong_state_is_refused_whole_naming_the_field(label: str, edit: Edit, field: str) -> None:
    source = MemberExportFake(seed=1)
    _, member_id = ready(source)
    source.consent(member_id)
    source.act(member_id, "post", text="archived")
    state = copy.deepcopy(source.export_state())
    edit(state)
    target = MemberExportFake(seed=1)
    target_headers, _ = ready(target)
    before = target.export_state()
    response = target.client().put("/_fake/state", json=state)
    assert response.status_code == 400, (label, response.text)
    answer = response.json()
    if answer["error"] == "invalid_json":  # refused by the kernel's JSON reader already
        assert field in answer["message"], answer
    else:
        assert answer["error"] == "invalid_state" and field in answer["field"], answer
    assert target.export_state() == before
    assert all(status < 500 for status in public_answers(target, target_headers))


def test_a_state_without_settings_is_taken_as_is() -> None:
    source = MemberExportFake(seed=1)
    ready(source)
    state = source.export_state()
    del state["settings"]
    target = MemberExportFake(seed=1)
    assert target.client().put("/_fake/state", json=state).status_code == 200
    assert target.export_state()["model"] == source.export_state()["model"]


def test_a_state_imports_into_a_fake_with_the_same_settings() -> None:
    source = MemberExportFake(seed=1, page_size=3)
    headers, _ = ready(source)
    target = MemberExportFake(seed=1, page_size=3)
    assert target.client().put("/_fake/state", json=source.export_state()).status_code == 200
    assert public_answers(target, headers) == public_answers(source, headers)


# -- 9. tokens after a reset ------------------------------------------------------------------------
def test_tokens_issued_after_a_reset_never_repeat_earlier_ones() -> None:
    fake = MemberExportFake(seed=4)
    before = {fake.create_member()["access_token"] for _ in range(3)}
    fake.client().post("/_fake/reset")
    after = {fake.create_member()["access_token"] for _ in range(3)}
    assert not before & after
    old_token = next(iter(before))
    response = fake.client(headers={"Authorization": f"Bearer {old_token}", "Service-Version": "202312"}).get(
        "/rest/memberAuthorizations?q=memberAndApplication")
    assert response.status_code == 401  # not silently another member
    fake.reset()
    assert not {fake.create_member()["access_token"] for _ in range(3)} & (before | after)


def test_two_fresh_fakes_with_one_seed_issue_the_same_tokens() -> None:
    first, second = MemberExportFake(seed=4), MemberExportFake(seed=4)
    assert [first.create_member()["access_token"] for _ in range(3)] == [
        second.create_member()["access_token"] for _ in range(3)]
    first.reset()
    second.reset()
    assert first.create_member()["access_token"] == second.create_member()["access_token"]


def test_an_imported_state_goes_on_issuing_the_exporters_tokens_and_a_reset_after_it_is_new() -> None:
    source = MemberExportFake(seed=4)
    source.reset()
    source.reset()
    member = source.create_member()["id"]
    target = MemberExportFake(seed=4)
    issued_by_target = target.create_member()["access_token"]
    target.import_state(source.export_state())
    assert target.issue_token(member)["access_token"] == source.issue_token(member)["access_token"]
    target.reset()
    fresh = target.create_member()["access_token"]
    assert fresh != issued_by_target and fresh not in source.model.tokens


# -- 11. names ---------------------------------------------------------------------------------------
def test_a_one_word_name_has_no_trailing_space() -> None:
    fake = MemberExportFake(seed=2)
    created = fake.create_member(name="Cher")
    assert created["name"] == "Cher"
    assert fake.member_info(created["id"])["name"] == "Cher"
    assert fake.create_member(name="Ada Lovelace")["name"] == "Ada Lovelace"


# -- 4. query integers through the kernel parser, in the service's own 400 ------------------------------
@pytest.mark.parametrize("query", ["start=", "start=%C2%B2", "start=%D9%A3", "start=1_0", "start=+1",
                                   "start=" + "9" * 50, "count=", "startTime=%C2%B2"])
def test_query_integers_are_ascii_digits_only(query: str) -> None:
    fake = MemberExportFake(seed=1)
    headers, _ = ready(fake)
    path = ("/rest/memberSnapshotData?q=criteria&" if query.startswith("start=")
            else "/rest/memberChangeLogs?q=memberAndApplication&") + query
    response = fake.client(headers=headers).get(path)
    assert response.status_code == 400, response.text
    assert response.json()["serviceErrorCode"] == 100 and "query parameter" in response.json()["message"]
