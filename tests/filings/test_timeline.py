"""Release times: business hours only, strictly increasing in the index, invertible."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from fakes.filings.catalogue.timeline import Timeline, business_at_or_after, business_at_or_before, wall_from_business

instants = st.integers(946_000_000, 1_900_000_000)


@given(st.integers(0, 10**9))
def test_business_seconds_fall_on_weekdays_between_6_and_21_utc(bt: int) -> None:
    moment = dt.datetime.fromtimestamp(wall_from_business(bt), tz=dt.UTC)
    assert moment.weekday() < 5 and 6 <= moment.hour < 21
    assert wall_from_business(bt + 1) > wall_from_business(bt)


@given(instants)
def test_inverses_bracket_any_instant(wall: int) -> None:
    after, before = business_at_or_after(wall), business_at_or_before(wall)
    assert wall_from_business(after) >= wall > wall_from_business(after - 1)
    assert wall_from_business(before) <= wall < wall_from_business(before + 1)


@given(st.integers(-5000, 5000), st.integers(1, 40), st.integers(0, 99), instants)
def test_count_released_by_matches_enumeration(start: int, gap: int, seed: int, wall: int) -> None:
    timeline = Timeline(business_at_or_after(1_700_000_000) + start, gap, seed)
    times = [timeline.release_s(i) for i in range(300)]
    assert times == sorted(set(times))  # strictly increasing in the index
    wall = min(max(wall, times[0] - 100), times[-1])
    assert timeline.count_released_by(wall) == sum(t <= wall for t in times)
    assert timeline.count_released_before(wall) == sum(t < wall for t in times)
