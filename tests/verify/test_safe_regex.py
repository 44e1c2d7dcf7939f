"""A journal criterion's regex cannot freeze the fake: patterns that backtrack without bound are
refused with a 400 naming the criterion, and a matching one runs on bounded values. Before this,
`{"query": {"x": {"matches": "(a|aa)*c"}}}` against a 3,000-character query value held the event
loop (and every client of the server) for good."""

from __future__ import annotations

import time

import pytest

from examples.notes import NotesFake
from fakes.kernel.saferegex import MAX_SUBJECT, UnsafeRegex, compile_guarded, fullmatch_bounded


@pytest.mark.parametrize("pattern", ["(a|aa)*c", "(a+)+$", "(x+x+)+y", "(?P<w>a+)(?P=w)b", ".*.*.*x",
                                     "a{0,1000}a{0,1000}a{0,1000}b", "(\\d+,)*x", "x" * 501])
def test_patterns_that_can_backtrack_without_bound_are_refused(pattern: str) -> None:
    with pytest.raises(UnsafeRegex):
        compile_guarded(pattern)


@pytest.mark.parametrize("pattern", ["Bearer .*", "application/json(;.*)?", "[a-z0-9]+@northwind\\.com",
                                     "(foo|bar)", "(ab)*", "v[0-9]{1,3}", ".*token.*"])
def test_the_patterns_people_write_are_kept(pattern: str) -> None:
    assert compile_guarded(pattern).pattern == pattern


def test_a_kept_pattern_is_fast_on_the_longest_value_it_reads_and_never_reads_a_longer_one() -> None:
    worst = compile_guarded(".*.*x")  # two unbounded repeats: n squared at most
    started = time.perf_counter()
    assert not fullmatch_bounded(worst, "a" * MAX_SUBJECT)
    assert time.perf_counter() - started < 0.5
    assert fullmatch_bounded(compile_guarded("a+"), "a" * MAX_SUBJECT)
    assert not fullmatch_bounded(compile_guarded("a+"), "a" * (MAX_SUBJECT + 1))


def test_over_http_the_fake_refuses_the_pattern_and_keeps_answering() -> None:
    fake = NotesFake(seed=3)
    with fake.client() as client:
        client.get("/notes", params={"x": "a" * 3000})
        started = time.perf_counter()
        refused = client.post("/_fake/journal/find", json={"query": {"x": {"matches": "(a|aa)*c"}}})
        assert refused.status_code == 400 and refused.json()["field"] == "query.x.matches"
        assert "exponential" in refused.json()["message"]
        found = client.post("/_fake/journal/find", json={"query": {"x": {"matches": "a.*a"}}})
        assert found.status_code == 200 and found.json()["count"] == 0  # 3,000 characters: past the bound
        assert time.perf_counter() - started < 2
        assert client.get("/_fake/health").status_code == 200
