"""The model and the data generator without HTTP: purity, sizes, builds, changelog, state."""

from __future__ import annotations

import json
import time

import pytest

from fakes.kernel.clock import Clock
from fakes.kernel.errors import ServiceError
from fakes.kernel.settings import SettingsError
from fakes.member_export.action_plan import RESOURCE_NAMES
from fakes.member_export.actions import DETAILS
from fakes.member_export.changelog import Changelog
from fakes.member_export.data import DataGenerator, MemberSeed, record_time_ms
from fakes.member_export.domains import ACTION_DOMAINS, CATALOGUE, DOMAINS, SERVED_DOMAINS
from fakes.member_export.model import MemberExportModel
from fakes.member_export.settings import MemberExportSettings

DAY_MS = 86_400_000


def make_model(seed: int = 1, **settings: object) -> tuple[MemberExportModel, Clock]:
    clock = Clock("manual")
    return MemberExportModel(clock, MemberExportSettings(**settings), seed), clock  # type: ignore[arg-type]


def test_a_record_is_a_pure_function_of_seed_member_domain_and_index() -> None:
    one, _ = make_model(seed=3)
    two, _ = make_model(seed=3)
    other, _ = make_model(seed=4)
    a, b, c = (m.members[m.create_member()["id"]] for m in (one, two, other))
    assert a.id == b.id != c.id
    for spec in CATALOGUE:
        for index in (0, 1, 7):
            assert one.gen.record(a.view, spec.name, index) == two.gen.record(b.view, spec.name, index)
    assert one.gen.record(a.view, "INBOX", 3) == one.gen.record(a.view, "INBOX", 3)  # no hidden state


def test_every_domain_row_has_exactly_its_columns() -> None:
    model, _ = make_model()
    member = model.members[model.create_member()["id"]]
    for spec in CATALOGUE:
        row = model.gen.record(member.view, spec.name, 0)
        assert list(row) == [column for column, _ in spec.columns]
        assert all(isinstance(value, str) for value in row.values())


def test_action_rows_have_the_columns_of_their_domain() -> None:
    model, _ = make_model()
    member_id = model.create_member()["id"]
    model.consent(member_id)
    for action in DETAILS:  # in order: an edit or deletion finds what an earlier action made
        done = model.act(member_id, action, {})
        if done["domain"] is None:  # a resource without a snapshot domain of its own
            assert done["record"] is None and done["event"]["resourceName"] in RESOURCE_NAMES
            continue
        assert done["domain"] in ACTION_DOMAINS
        columns = [column for column, _ in DOMAINS[done["domain"]].columns]
        if action == "edit_profile":  # the edited fields only
            assert set(done["record"]) <= set(columns)
        else:
            assert list(done["record"]) == columns


def test_a_huge_inbox_pages_without_being_built() -> None:
    model, _ = make_model()
    member_id = model.create_member(sizes={"INBOX": 100_000}, build_times={"INBOX": 0})["id"]
    model.consent(member_id)
    member = model.members[member_id]
    started = time.perf_counter()
    last = model.snapshot(member, "INBOX", 9_999, [])
    assert len(last.records) == 10
    with pytest.raises(ServiceError) as end:
        model.snapshot(member, "INBOX", 10_000, [])
    assert end.value.status == 404
    assert time.perf_counter() - started < 0.5


def test_generated_records_are_newest_first_and_before_the_member_existed() -> None:
    model, _ = make_model()
    member = model.members[model.create_member(sizes={"CONNECTIONS": 50})["id"]]
    times = [record_time_ms(member.view, "CONNECTIONS", i) for i in range(50)]
    assert times == sorted(times, reverse=True) and len(set(times)) == 50
    assert times[0] < member.created_ms


def test_invitation_cutoff_counts_a_prefix() -> None:
    gen = DataGenerator("en_US")
    me = gen.person(0, "me")
    member = MemberSeed(0, "m", me, 10 * 365 * DAY_MS, {"INVITATIONS": 30}, 5)
    cutoff = member.anchor_ms - 90 * DAY_MS
    kept = gen.newer_than(member, "INVITATIONS", cutoff)
    assert all(record_time_ms(member, "INVITATIONS", i) >= cutoff for i in range(kept))
    assert all(record_time_ms(member, "INVITATIONS", i) < cutoff for i in range(kept, 30))


def test_sizes_and_build_times_resolve_member_then_settings_then_defaults() -> None:
    model, _ = make_model(sizes={"SKILLS": 3, "INBOX": 4}, build_times={"INBOX": 10})
    created = model.create_member(sizes={"INBOX": 5}, build_times={"PROFILE": 1.5})
    assert created["sizes"]["INBOX"] == 5 and created["sizes"]["SKILLS"] == 3
    assert created["build_times"]["INBOX"] == 10 and created["build_times"]["PROFILE"] == 1.5
    assert created["build_times"]["ALL_LIKES"] == 25 * 3600
    low, high = DOMAINS["CONNECTIONS"].size_range
    assert low <= created["sizes"]["CONNECTIONS"] <= high


@pytest.mark.parametrize("body", [
    {"region": "Germany"}, {"region": 3}, {"name": ""}, {"sizes": {"NOPE": 1}}, {"sizes": {"INBOX": -1}},
    {"sizes": {"INBOX": 1.5}}, {"sizes": []}, {"build_times": {"INBOX": "1h"}}, {"build_times": {"INBOX": True}},
])
def test_bad_member_bodies_are_refused(body: dict[str, object]) -> None:
    model, _ = make_model()
    with pytest.raises(ServiceError) as refused:
        model.create_member(**body)
    assert refused.value.status == 400


@pytest.mark.parametrize(("action", "details"), [
    ("fly", {}), (None, {}), ("send_message", {"contact": 10**9}), ("send_message", {"contact": -1}),
    ("comment", {"text": 5}), ("react", {"reaction": "LOVE"}), ("post", {"delay_s": -1}),
    ("invite", {"text": "x"}), ("comment", {"post_urn": "http://x"}),
])
def test_bad_actions_are_refused(action: object, details: dict[str, object]) -> None:
    model, _ = make_model()
    member_id = model.create_member()["id"]
    with pytest.raises(ServiceError) as refused:
        model.act(member_id, action, details)
    assert refused.value.status == 400


def test_a_contact_the_member_lacks_is_a_404() -> None:
    model, _ = make_model()
    member_id = model.create_member(sizes={"CONNECTIONS": 3})["id"]
    assert model.act(member_id, "send_message", {"contact": 2})["domain"] == "INBOX"
    with pytest.raises(ServiceError) as missing:
        model.act(member_id, "send_message", {"contact": 3})
    assert missing.value.status == 404


def test_changelog_times_are_unique_per_member_so_paging_always_progresses() -> None:
    log = Changelog()
    instants = []
    for number in range(5):
        instant = log.free_instant(1000)
        log.add({"id": number, "processedAt": instant, "capturedAt": 1000})
        instants.append(instant)
    assert instants == [1000, 1001, 1002, 1003, 1004]
    assert [e["id"] for e in log.query(1002, 2000, 10)] == [2, 3, 4]
    assert [e["id"] for e in log.query(0, 1001, 10)] == [0, 1]  # not yet processed after 1001
    log.prune(1003)
    assert len(log) == 2 and log.free_instant(1000) == 1000


def test_captured_at_mode_filters_and_keeps_on_captured_at() -> None:
    model, clock = make_model(changelog_time_field="capturedAt")
    member_id = model.create_member()["id"]
    model.consent(member_id)
    late = model.act(member_id, "receive_message", {"delay_s": 7200})["event"]
    clock.advance(60)
    soon = model.act(member_id, "post", {"delay_s": 0})["event"]
    member = model.members[member_id]
    assert [e["id"] for e in model.changelog(member, None, 10, [])] == [soon["id"]]
    clock.advance(7200)
    assert [e["id"] for e in model.changelog(member, None, 10, [])] == [late["id"], soon["id"]]


def test_state_round_trips_through_json_losslessly() -> None:
    model, clock = make_model(seed=5)
    member_id = model.create_member(region="FR", name="Zoé Ñúñez", sizes={"INBOX": 30})["id"]
    model.consent(member_id)
    for action in DETAILS:
        model.act(member_id, action, {})
        clock.advance(30)
    member = model.members[member_id]
    model.changelog(member, 0, 3, [])
    with pytest.raises(ServiceError):
        model.snapshot(member, "PROFILE", 5, [])
    state = json.loads(json.dumps(model.to_state()))
    copy, _ = make_model(seed=5)
    copy.clock = clock
    copy.load_state(state)
    assert copy.to_state() == model.to_state()
    clock.advance(2 * DAY_MS / 1000)
    for domain in SERVED_DOMAINS:
        try:
            page = model.snapshot(model.members[member_id], domain, 0, [])
        except ServiceError as err:
            assert err.status == 404
            continue
        assert copy.snapshot(copy.members[member_id], domain, 0, []) == page
    assert copy.act(member_id, "post", {}) == model.act(member_id, "post", {})


@pytest.mark.parametrize("bad", [{"page_size": 0}, {"sizes": {"FOO": 1}}, {"build_times": {"INBOX": "1h"}},
                                 {"changelog_default_count": 60}, {"changelog_time_field": "createdAt"}])
def test_settings_that_would_fail_later_are_refused_at_once(bad: dict[str, object]) -> None:
    with pytest.raises(SettingsError):
        MemberExportSettings(**bad)  # type: ignore[arg-type]
