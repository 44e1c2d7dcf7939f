"""One member's changelog: events kept in cursor order, 28-day retention, inclusive queries.

The documented cursor is "the latest ``processedAt`` of the previous answer, inclusive". Events
are therefore filtered, ordered and retained on one time field (``processedAt`` by default) and
that field is unique per member: were 51 events to share one instant, a client asking for 50 at a
time could never get past them.
"""

from __future__ import annotations

import bisect
from typing import Any

Event = dict[str, Any]
TIME_FIELDS = ("processedAt", "capturedAt")


class Changelog:
    def __init__(self, time_field: str = "processedAt") -> None:
        if time_field not in TIME_FIELDS:
            raise ValueError(f"changelog_time_field must be one of {TIME_FIELDS}, not {time_field!r}")
        self.time_field = time_field
        self.events: list[Event] = []           # ordered by (time field, id)
        self._keys: list[tuple[int, int]] = []  # the same order, for bisect
        self._times: set[int] = set()

    def __len__(self) -> int:
        return len(self.events)

    def free_instant(self, wanted_ms: int) -> int:
        """The first instant at or after ``wanted_ms`` no event of this member uses yet."""
        while wanted_ms in self._times:
            wanted_ms += 1
        return wanted_ms

    def add(self, event: Event) -> None:
        key = (int(event[self.time_field]), int(event["id"]))
        at = bisect.bisect(self._keys, key)
        self._keys.insert(at, key)
        self.events.insert(at, event)
        self._times.add(key[0])

    def prune(self, floor_ms: int) -> None:
        """Forget events older than the retention window (they can never be asked for again)."""
        cut = bisect.bisect_left(self._keys, (floor_ms, -1))
        if cut:
            for key in self._keys[:cut]:
                self._times.discard(key[0])
            del self._keys[:cut]
            del self.events[:cut]

    def query(self, start_ms: int, now_ms: int, count: int) -> list[Event]:
        """Events with time field >= ``start_ms`` already processed at ``now_ms``, oldest first."""
        found: list[Event] = []
        at = bisect.bisect_left(self._keys, (start_ms, -1))
        for event in self.events[at:]:
            if self.time_field == "processedAt" and event["processedAt"] > now_ms:
                break  # ordered by processedAt: everything after is in the future too
            if event["processedAt"] <= now_ms:
                found.append(event)
                if len(found) == count:
                    break
        return found

    def to_state(self) -> list[Event]:
        return self.events

    def load_state(self, events: list[Event]) -> None:
        for event in events:
            self.add(event)


def message_activity(
    *, owner: str, author: str, thread_urn: str, message_urn: str, text: str, at_ms: int,
    members: list[str],
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(activity, processedActivity) of a message: thread and person URNs, never names."""
    activity = {
        "owner": owner,
        "author": author,
        "thread": thread_urn,
        "createdAt": at_ms,
        "deliveredAt": at_ms,
        "content": {"format": "TEXT", "fallback": text, "formatVersion": 1, "content": {"string": text}},
        "attachments": [],
        "$URN": message_urn,
    }
    processed = {**activity, "thread~": {"owner": owner, "membership": [{"identity": m} for m in members]}}
    return activity, processed
