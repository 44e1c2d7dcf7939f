"""The virtual clock: the only source of time for every rule of every fake.

Three modes share one formula, ``now = base + (wall - wall_at_base) * rate``:

* ``manual`` - rate 0: time stands still until a test advances it (default in process);
* ``real``   - rate 1: wall time, plus whatever offset the control plane added;
* ``scaled`` - rate F: a 21-minute build takes 21 s with F=60 (demos, docker).

The clock never goes backwards; moving it back raises :class:`ClockError`. Nothing sleeps and
no thread fires transitions: models store instants and compare them with :meth:`Clock.now_ms`.
"""

from __future__ import annotations

import functools
import math
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

#: The manual clock's documented default start, 2026-01-05T09:00:00Z, so that two fakes with
#: one seed answer byte for byte the same.
DEFAULT_START_MS = 1_767_603_600_000

MODES = ("manual", "real", "scaled")

#: The last instant a clock may reach: 9999-12-31T23:59:59.999Z (ISO-8601's four-digit years and
#: ``datetime`` end there). Checked at the door (clock set and advance, a running clock stops there,
#: an imported clock); every service can represent and format it. An instant a service derives
#: from it (an expiry, a deletion date) may lie beyond: :func:`utc_datetime` and :func:`iso_ms`
#: format such an instant as this last one instead of failing.
MAX_EPOCH_MS = 253_402_300_799_999
#: The largest scale factor of a scaled clock (a year in about half a second of wall time).
MAX_SCALE = 1e8


class ClockError(ValueError):
    """A clock request that would move time backwards or is malformed."""


class ClockRangeError(ClockError):
    """A clock value that is not a finite number or leaves 1970..9999 (the control plane's 400)."""


def checked_epoch_ms(value: object, name: str = "epoch_ms") -> int:
    """An instant in whole milliseconds from 1970 to the end of year 9999, or ClockRangeError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ClockRangeError(f"{name} must be a number of milliseconds since 1970")
    # compared before any conversion: an integer of 400 digits is out of range, not an OverflowError
    if (isinstance(value, float) and not math.isfinite(value)) or not 0 <= value <= MAX_EPOCH_MS:
        raise ClockRangeError(f"{name} must be between 0 and {MAX_EPOCH_MS} (the end of year 9999)")
    return int(value)


def parse_clock_spec(spec: str) -> tuple[str, float]:
    """``"manual" | "real" | "scaled:60"`` -> (mode, rate)."""
    name, _, factor = spec.strip().partition(":")
    if name == "manual" and not factor:
        return "manual", 0.0
    if name == "real" and not factor:
        return "real", 1.0
    if name == "scaled":
        try:
            rate = float(factor or "1")
        except ValueError as exc:
            raise ClockError(f"bad scale factor in clock spec {spec!r}") from exc
        if not 0 < rate <= MAX_SCALE:  # also refuses nan and inf
            raise ClockError(f"a scaled clock needs a factor > 0 and <= {MAX_SCALE:g}")
        return "scaled", rate
    raise ClockError(f"unknown clock spec {spec!r}: use manual, real or scaled:FACTOR")


class Clock:
    """A forward-only clock; one per fake, or shared by several fakes started together."""

    # one per fake and world: no __dict__ each
    __slots__ = ("_base_ms", "_initial_ms", "_lock", "_wall", "_wall_at_base", "mode", "rate")

    def __init__(
        self,
        mode: str = "manual",
        *,
        scale: float | None = None,
        start_ms: int | None = None,
        wall: Callable[[], float] = time.time,
    ) -> None:
        if ":" in mode:
            mode, rate = parse_clock_spec(mode)
        elif mode in MODES:
            rate = {"manual": 0.0, "real": 1.0, "scaled": scale or 1.0}[mode]
        else:
            raise ClockError(f"unknown clock mode {mode!r}")
        if mode == "scaled" and scale is not None:
            rate = scale
        if not 0 <= rate <= MAX_SCALE:
            raise ClockError(f"a scaled clock needs a factor > 0 and <= {MAX_SCALE:g}")
        self.mode = mode
        self.rate = rate
        self._wall = wall
        self._lock = threading.Lock()
        if start_ms is None:
            start_ms = DEFAULT_START_MS if mode == "manual" else int(wall() * 1000)
        start_ms = checked_epoch_ms(start_ms, "start_ms")
        self._initial_ms = start_ms
        self._base_ms = float(start_ms)
        self._wall_at_base = wall()

    @classmethod
    def from_spec(cls, spec: str, *, start_ms: int | None = None) -> Clock:
        return cls(spec, start_ms=start_ms)

    @property
    def spec(self) -> str:
        return f"scaled:{self.rate:g}" if self.mode == "scaled" else self.mode

    # -- reading -----------------------------------------------------------------------------
    def now_ms(self) -> int:
        if self.rate == 0.0:
            return int(self._base_ms)
        # a running clock stops at the end of year 9999 rather than leave what ISO-8601 can write
        return min(MAX_EPOCH_MS, int(self._base_ms + (self._wall() - self._wall_at_base) * 1000 * self.rate))

    def now_s(self) -> float:
        return self.now_ms() / 1000

    def now(self) -> datetime:
        return utc_datetime(self.now_ms())

    def describe(self) -> dict[str, Any]:
        now_ms = self.now_ms()
        return {
            "now": iso_ms(now_ms),
            "epoch_ms": now_ms,
            "mode": self.mode,
            "scale": self.rate,
        }

    # -- moving ------------------------------------------------------------------------------
    def advance(self, seconds: float) -> int:
        """Move forward; a non-finite amount or one past year 9999 is refused and changes nothing."""
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or (
                isinstance(seconds, float) and not math.isfinite(seconds)):
            raise ClockRangeError("advance_seconds must be a finite number")
        if seconds < 0:
            raise ClockError("the clock never goes backwards: advance_seconds must be >= 0")
        if seconds > MAX_EPOCH_MS / 1000:
            raise ClockRangeError(f"advance_seconds must be at most {MAX_EPOCH_MS / 1000:g} (1970 to year 9999)")
        with self._lock:
            target = self.now_ms() + seconds * 1000
            if target > MAX_EPOCH_MS:  # a valid amount, but not from this instant: a conflict, like going back
                raise ClockError(f"advance_seconds would move the clock past the end of year 9999 "
                                 f"(at most {(MAX_EPOCH_MS - self.now_ms()) / 1000:.3f} s from now)")
            self._rebase(target)
        return self.now_ms()

    def set_ms(self, epoch_ms: int) -> int:
        epoch_ms = checked_epoch_ms(epoch_ms, "set_epoch_ms")
        with self._lock:
            if epoch_ms < self.now_ms():
                raise ClockError("the clock never goes backwards: set_epoch_ms is in the past")
            self._rebase(float(epoch_ms))
        return self.now_ms()

    def reset(self) -> None:
        """Where a clock made now with the same mode would be (the fake's reset uses it).

        A manual clock goes back to its start instant, so a reset test repeats exactly. A real or
        scaled clock restarts at the current wall time: every advance is undone, yet it is never
        put behind wall time (rewinding to its start would leave "real" time trailing the wall
        clock by however long the server has run)."""
        with self._lock:
            wall = self._wall()
            self._base_ms = float(self._initial_ms) if self.mode == "manual" else min(wall * 1000, MAX_EPOCH_MS)
            self._wall_at_base = wall

    def _rebase(self, virtual_ms: float) -> None:
        self._base_ms = virtual_ms
        self._wall_at_base = self._wall()

    # -- state -------------------------------------------------------------------------------
    def to_state(self) -> dict[str, Any]:
        return {"mode": self.mode, "scale": self.rate, "epoch_ms": self.now_ms(),
                "initial_ms": self._initial_ms}

    @staticmethod
    def check_state(state: object) -> dict[str, int]:
        """The instants of an exported clock state, validated (ClockRangeError names the field)."""
        if not isinstance(state, dict):
            raise ClockRangeError("clock must be an object with epoch_ms")
        checked = {"epoch_ms": checked_epoch_ms(state.get("epoch_ms"), "clock.epoch_ms")}
        if "initial_ms" in state:
            checked["initial_ms"] = checked_epoch_ms(state["initial_ms"], "clock.initial_ms")
        return checked

    def load_state(self, state: dict[str, Any]) -> None:
        checked = self.check_state(state)
        with self._lock:
            self._initial_ms = checked.get("initial_ms", self._initial_ms)
            self._rebase(float(checked["epoch_ms"]))


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
#: 0001-01-01T00:00:00Z, the first instant a datetime holds
MIN_DATETIME_MS = -62_135_596_800_000


def utc_datetime(epoch_ms: int) -> datetime:
    """The instant as an aware UTC datetime, exact to the millisecond (``fromtimestamp(ms / 1000)``
    goes through a float and shows ``...59.999`` as ``...59.998`` in year 9999), clamped to what a
    datetime holds (years 1 to 9999): a derived instant past the clock's last one is formatted as
    that one. Every service formats its instants through this (or :func:`iso_ms`)."""
    return _EPOCH + timedelta(milliseconds=min(max(int(epoch_ms), MIN_DATETIME_MS), MAX_EPOCH_MS))


@functools.lru_cache(maxsize=4096)  # answers repeat the same instants (a virtual clock stands still)
def iso_ms(epoch_ms: int) -> str:
    """ISO-8601 UTC with a ``Z``, millisecond precision dropped when zero (see :func:`utc_datetime`)."""
    moment = utc_datetime(epoch_ms)
    text = moment.isoformat(timespec="milliseconds" if moment.microsecond else "seconds")
    return text.replace("+00:00", "Z")
