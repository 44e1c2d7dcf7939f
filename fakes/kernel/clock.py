"""The virtual clock: the only source of time for every rule of every fake.

Three modes share one formula, ``now = base + (wall - wall_at_base) * rate``:

* ``manual`` - rate 0: time stands still until a test advances it (default in process);
* ``real``   - rate 1: wall time, plus whatever offset the control plane added;
* ``scaled`` - rate F: a 21-minute build takes 21 s with F=60 (demos, docker).

The clock never goes backwards; moving it back raises :class:`ClockError`. Nothing sleeps and
no thread fires transitions: models store instants and compare them with :meth:`Clock.now_ms`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

#: The manual clock's documented default start, 2026-01-05T09:00:00Z, so that two fakes with
#: one seed answer byte for byte the same.
DEFAULT_START_MS = 1_767_603_600_000

MODES = ("manual", "real", "scaled")


class ClockError(ValueError):
    """A clock request that would move time backwards or is malformed."""


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
        if not rate > 0:
            raise ClockError("a scaled clock needs a factor > 0")
        return "scaled", rate
    raise ClockError(f"unknown clock spec {spec!r}: use manual, real or scaled:FACTOR")


class Clock:
    """A forward-only clock; one per fake, or shared by several fakes started together."""

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
        self.mode = mode
        self.rate = rate
        self._wall = wall
        self._lock = threading.Lock()
        if start_ms is None:
            start_ms = DEFAULT_START_MS if mode == "manual" else int(wall() * 1000)
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
        return int(self._base_ms + (self._wall() - self._wall_at_base) * 1000 * self.rate)

    def now_s(self) -> float:
        return self.now_ms() / 1000

    def now(self) -> datetime:
        return datetime.fromtimestamp(self.now_ms() / 1000, tz=UTC)

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
        if seconds < 0:
            raise ClockError("the clock never goes backwards: advance_seconds must be >= 0")
        with self._lock:
            self._rebase(self.now_ms() + seconds * 1000)
        return self.now_ms()

    def set_ms(self, epoch_ms: int) -> int:
        with self._lock:
            if epoch_ms < self.now_ms():
                raise ClockError("the clock never goes backwards: set_epoch_ms is in the past")
            self._rebase(float(epoch_ms))
        return self.now_ms()

    def reset(self) -> None:
        """Back to the instant the clock started at (used by the fake's reset)."""
        with self._lock:
            self._base_ms = float(self._initial_ms)
            self._wall_at_base = self._wall()

    def _rebase(self, virtual_ms: float) -> None:
        self._base_ms = virtual_ms
        self._wall_at_base = self._wall()

    # -- state -------------------------------------------------------------------------------
    def to_state(self) -> dict[str, Any]:
        return {"mode": self.mode, "scale": self.rate, "epoch_ms": self.now_ms(),
                "initial_ms": self._initial_ms}

    def load_state(self, state: dict[str, Any]) -> None:
        with self._lock:
            self._initial_ms = int(state.get("initial_ms", self._initial_ms))
            self._rebase(float(state["epoch_ms"]))


def iso_ms(epoch_ms: int) -> str:
    """ISO-8601 UTC with a ``Z``, millisecond precision dropped when zero."""
    moment = datetime.fromtimestamp(epoch_ms / 1000, tz=UTC)
    text = moment.isoformat(timespec="milliseconds" if epoch_ms % 1000 else "seconds")
    return text.replace("+00:00", "Z")
