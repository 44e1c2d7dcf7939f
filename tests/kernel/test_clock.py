from __future__ import annotations

import pytest

from fakes.kernel.clock import DEFAULT_START_MS, Clock, ClockError, iso_ms, parse_clock_spec


class FakeWall:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_manual_clock_starts_at_the_documented_instant_and_stands_still() -> None:
    wall = FakeWall()
    clock = Clock("manual", wall=wall)
    assert clock.now_ms() == DEFAULT_START_MS
    assert iso_ms(clock.now_ms()) == "2026-01-05T09:00:00Z"
    wall.now += 3600
    assert clock.now_ms() == DEFAULT_START_MS


def test_manual_clock_advances_and_sets_forward_only() -> None:
    clock = Clock("manual", start_ms=0)
    assert clock.advance(1.5) == 1500
    assert clock.set_ms(10_000) == 10_000
    with pytest.raises(ClockError):
        clock.set_ms(9_999)
    with pytest.raises(ClockError):
        clock.advance(-1)
    assert clock.now_ms() == 10_000


def test_real_clock_follows_wall_time_plus_an_offset() -> None:
    wall = FakeWall()
    clock = Clock("real", wall=wall)
    assert clock.now_ms() == 1_000_000
    wall.now += 2
    assert clock.now_ms() == 1_002_000
    clock.advance(60)
    wall.now += 1
    assert clock.now_ms() == 1_063_000


def test_scaled_clock_runs_faster_and_can_be_advanced() -> None:
    wall = FakeWall()
    clock = Clock("scaled:60", wall=wall, start_ms=0)
    wall.now += 21
    assert clock.now_ms() == 21 * 60 * 1000  # a 21-minute build takes 21 s
    clock.advance(3600)
    assert clock.now_ms() == (21 * 60 + 3600) * 1000
    assert clock.describe()["mode"] == "scaled" and clock.describe()["scale"] == 60


def test_reset_returns_to_the_start_and_state_round_trips() -> None:
    clock = Clock("manual")
    clock.advance(100)
    state = clock.to_state()
    other = Clock("manual")
    other.load_state(state)
    assert other.now_ms() == clock.now_ms()
    clock.reset()
    assert clock.now_ms() == DEFAULT_START_MS


@pytest.mark.parametrize("spec", ["", "fast", "scaled:0", "scaled:x", "manual:3"])
def test_bad_clock_specs_are_refused(spec: str) -> None:
    with pytest.raises(ClockError):
        parse_clock_spec(spec)


def test_describe_reports_iso_and_epoch() -> None:
    clock = Clock("manual", start_ms=1_500)
    assert clock.describe() == {"now": "1970-01-01T00:00:01.500Z", "epoch_ms": 1500, "mode": "manual", "scale": 0.0}


@pytest.mark.parametrize(("spec", "rate"), [("real", 1), ("scaled:60", 60)])
def test_reset_of_a_running_clock_restarts_at_wall_time(spec: str, rate: int) -> None:
    wall = FakeWall()
    clock = Clock(spec, wall=wall)
    wall.now += 3600  # the server has run for an hour
    clock.advance(365 * 86_400)  # and a test moved its clock a year ahead
    clock.reset()
    assert clock.now_ms() == wall.now * 1000  # neither a year ahead nor an hour behind the wall
    wall.now += 2
    assert clock.now_ms() == (wall.now - 2) * 1000 + 2000 * rate  # and it runs on at its rate


def test_reset_over_http_never_puts_a_real_clock_behind_wall_time() -> None:
    import time

    from examples.notes import NotesFake

    fake = NotesFake(clock="real", start_ms=int(time.time() * 1000) - 3_600_000)  # as if started an hour ago
    with fake.client() as client:
        client.post("/_fake/clock", json={"advance_seconds": 86_400})
        before_ms = time.time() * 1000
        after_reset = client.post("/_fake/reset").json()["clock"]["epoch_ms"]
    assert before_ms - 1 <= after_reset <= time.time() * 1000 + 1


def test_a_fake_takes_the_start_of_its_own_clock() -> None:
    from examples.notes import NotesFake

    fake = NotesFake(start_ms=DEFAULT_START_MS + 86_400_000)  # create_fake(name, start_ms=...) passes it on
    assert fake.clock.now_ms() == DEFAULT_START_MS + 86_400_000
    fake.advance(60)
    fake.reset()
    assert fake.clock.now_ms() == DEFAULT_START_MS + 86_400_000
