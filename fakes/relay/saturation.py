"""Saturation on the virtual clock: too many calls in flight, too many started in one clock
second, or the control-plane switch. A saturated relay answers 503 and bills nothing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fakes.kernel.clock import MAX_EPOCH_MS
from fakes.kernel.statecheck import StateReader

#: thresholds and Retry-After seconds (the control plane's bodies take the same range)
MAX_SATURATION = 10**9


@dataclass
class Saturation:
    max_in_flight: int
    max_per_second: int
    retry_after_s: int
    forced: bool = False
    in_flight: int = 0
    _second: int = -1
    _started: int = 0

    def admit(self, now_ms: int) -> str | None:
        """Count a new call in, or say why the relay is saturated (the call is then not counted)."""
        second = now_ms // 1000
        if second != self._second:
            self._second, self._started = second, 0
        if self.forced:
            return "the relay is saturated (switched on through the control plane)"
        if self.max_in_flight and self.in_flight >= self.max_in_flight:
            return f"the relay is saturated: {self.in_flight} calls in flight (at most {self.max_in_flight})"
        if self.max_per_second and self._started >= self.max_per_second:
            return f"the relay is saturated: {self._started} calls this second (at most {self.max_per_second})"
        self._started += 1
        self.in_flight += 1
        return None

    def admit_instant(self, now_ms: int) -> str | None:
        """:meth:`admit` and :meth:`release` of a call answered at once (nothing else runs meanwhile,
        so it is never among the calls in flight of another call)."""
        second = now_ms // 1000
        if second != self._second:
            self._second, self._started = second, 0
        if self.forced or (self.max_in_flight and self.in_flight >= self.max_in_flight) or (
                self.max_per_second and self._started >= self.max_per_second):
            return self.admit(now_ms)  # the refusal, worded once
        self._started += 1
        return None

    def release(self) -> None:
        self.in_flight = max(0, self.in_flight - 1)

    def update(self, body: dict[str, Any]) -> None:
        """Changes already checked (the control plane's schema, or :meth:`load`)."""
        if "saturated" in body:
            self.forced = bool(body["saturated"])
        for name in ("max_in_flight", "max_per_second", "retry_after_s"):
            if name in body:
                setattr(self, name, int(body[name]))

    def describe(self) -> dict[str, Any]:
        return {"saturated": self.forced, "max_in_flight": self.max_in_flight, "max_per_second": self.max_per_second,
                "retry_after_s": self.retry_after_s, "in_flight": self.in_flight}

    def to_state(self) -> dict[str, Any]:
        """The switch, thresholds and the current clock second's count (a restored copy refuses the
        same next call); calls in flight are not exported (they do not survive an import)."""
        return {**self.describe(), "second": self._second, "started": self._started}

    def load(self, read: StateReader) -> None:
        read.only(("saturated", "max_in_flight", "max_per_second", "retry_after_s", "in_flight", "second", "started"))
        self.forced = read.boolean("saturated")
        for name in ("max_in_flight", "max_per_second", "retry_after_s"):
            setattr(self, name, read.integer(name, minimum=0, maximum=MAX_SATURATION))
        if read.has("in_flight"):
            read.integer("in_flight", minimum=0, maximum=MAX_SATURATION)
        if read.has("second"):
            self._second = read.integer("second", minimum=-1, maximum=MAX_EPOCH_MS // 1000)
            self._started = read.integer("started", minimum=0, maximum=MAX_SATURATION)
