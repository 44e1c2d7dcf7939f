"""The running counts of the call records (fakes/relay/calltally.py) always equal a count of the
records themselves: records added, put again, pushed out of the ring, call numbers skipped."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fakes.relay.calltally import DAY_MS, CallTally
from fakes.relay.records import CallRecords

TEAMS = ("t1", "t2")
EMAILS = ("a@x.io", "b@x.io", "c@x.io")
CLIENTS = ("", "cli", "claude")
ENDPOINTS = (None, "p.search", "p.enrich")


def records_counted(records: CallRecords, team: str, since: int) -> tuple[Counter, Counter, Counter, dict, int]:
    """What the views counted before the tallies: a pass over every record in the window."""
    emails: Counter = Counter()
    labels: Counter = Counter()
    days: Counter = Counter()
    latest: dict = {}
    total = 0
    for _seq, slot in records._own_slots():
        at = records._at[slot]
        if records._team[slot] != team or at < since:
            continue
        email, client = records._who[slot][0], records._who[slot][1]
        emails[email] += 1
        labels[records._endpoint[slot] or records._provider[slot] or "-"] += 1
        days[at // DAY_MS] += 1
        latest[(email, client)] = max(latest.get((email, client), 0), at)
        total += 1
    return emails, labels, days, latest, total


def tallied(records: CallRecords, team: str, since: int) -> tuple[Counter, Counter, Counter, dict, int]:
    emails: Counter = Counter()
    labels: Counter = Counter()
    days: Counter = Counter()
    latest: dict = {}
    for day, tally in records.team_days(team, since):
        emails.update(tally.emails)
        labels.update(tally.labels)
        days[day] += tally.count
        for key, (_calls, at) in tally.who.items():
            latest[key] = max(latest.get(key, 0), at)
    return emails, labels, days, latest, sum(days.values())


calls = st.lists(st.tuples(
    st.integers(0, 3),  # how far the call number moves (0: the same call put again)
    st.sampled_from(TEAMS), st.sampled_from(EMAILS), st.sampled_from(CLIENTS), st.sampled_from(ENDPOINTS),
    st.integers(0, 500), st.integers(0, DAY_MS // 2)), max_size=60)


@settings(max_examples=150, deadline=None, database=None, derandomize=True)
@given(calls=calls, limit=st.integers(1, 12), since=st.integers(0, 4 * DAY_MS))
def test_the_counts_equal_a_pass_over_the_records(calls: list, limit: int, since: int) -> None:
    records = CallRecords("call_test", limit=limit)
    seq, at, caller = 0, 0, ("t1", "a@x.io", "")
    for step, team, email, client, endpoint, cost, later in calls:
        seq, at = max(seq + step, 1), at + later  # times move with the call numbers
        if step == 0 and seq > 1:  # a call recorded again (its answer came): same caller, its new outcome
            team, email, client = caller
        caller = (team, email, client)
        records.put(seq, endpoint, "p", "relay_key", team, 200, cost, at, (email, client, None, "GET"))
        for team_id in TEAMS:
            assert tallied(records, team_id, since) == records_counted(records, team_id, since)
            counted = records_counted(records, team_id, since)
            assert records.count_since(team_id, since, "a@x.io") == counted[0]["a@x.io"]
        receipts = records.receipts({"p.search", "p.enrich"})
        expected: dict[str, list[int]] = {}
        for _seq, slot in records._own_slots():
            if records._endpoint[slot] is not None:
                row = expected.setdefault(records._endpoint[slot], [0, 0])
                row[0] += 1
                row[1] += records._cost[slot]
        assert receipts == {k: (v[0], v[1]) for k, v in expected.items()}


#: mostly the same call again and again (a busy client), as the served relay sees it: the window
#: full, each record pushes out the oldest, most often the same caller's call of the same endpoint
steady_calls = st.lists(st.tuples(
    st.sampled_from((1, 1, 1, 1, 2, 0)),
    st.sampled_from(("t1", "t1", "t1", "t2")), st.sampled_from(("a@x.io", "a@x.io", "b@x.io")),
    st.sampled_from(("cli", "cli", "")), st.sampled_from(("p.search", "p.search", None)),
    st.sampled_from((5, 5, 7)), st.sampled_from((0, 0, 1000, DAY_MS // 3))), max_size=80)


@settings(max_examples=150, deadline=None, database=None, derandomize=True)
@given(calls=steady_calls, limit=st.integers(1, 6), since=st.integers(0, 2 * DAY_MS))
def test_the_counts_equal_a_pass_over_the_records_when_calls_repeat(calls: list, limit: int, since: int) -> None:
    test_the_counts_equal_a_pass_over_the_records.hypothesis.inner_test(calls, limit, since)  # type: ignore[attr-defined]


def test_a_repeated_call_pushing_out_its_like_keeps_the_counts_without_adding_them_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    records = CallRecords("call_test", limit=4)
    who = ("a@x.io", "cli", None, "GET")
    for seq in range(1, 5):
        records.put(seq, "p.search", "p", "relay_key", "t1", 200, 5, 1000 + seq, who)
    added: list[tuple] = []
    original_add = CallTally.add
    monkeypatch.setattr(CallTally, "add", lambda *args: added.append(args) or original_add(*args))
    for seq in range(5, 12):
        records.put(seq, "p.search", "p", "relay_key", "t1", 200, 7, 1000 + seq, who)
    assert added == [], "the window's counts were renewed in place"
    day = records.team_days("t1")[0][1]
    assert (day.count, day.emails, day.who, day.labels) == (4, {"a@x.io": 4}, {("a@x.io", "cli"): [4, 1011]},
                                                          {"p.search": 4})
    assert records.receipts({"p.search"}) == {"p.search": (4, 28)}  # the four kept, at 7 each
    records.put(12, "p.enrich", "p", "relay_key", "t1", 200, 3, 1012, who)  # another endpoint: added
    assert len(added) == 1 and records.receipts({"p.search", "p.enrich"}) == {"p.search": (3, 21),
                                                                                 "p.enrich": (1, 3)}
