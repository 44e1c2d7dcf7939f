"""Daily call limits of the REST resources, per application and per member of an application.

LinkedIn's "Rate Limiting" page (learn.microsoft.com, LinkedIn shared API guide): every endpoint
has an application limit and a member limit per day, they reset at midnight UTC, a throttled call
answers 429, and the numbers are not published (the developer portal's Analytics tab shows them
per app). So the limits are settings (0: none, the default) and the day is the virtual clock's UTC
day. A refused call is not counted. The 429 body is LinkedIn's, with the limit that was reached in
the message ("Resource level throttle APPLICATION DAY limit ...", as public captures show).
"""

from __future__ import annotations

from typing import Any

from fakes.kernel.errors import ServiceError
from fakes.kernel.statecheck import StateReader, check_integer, check_text
from fakes.kernel.verdicts import Broken

from .data import DAY_MS
from .members import SERVICE_ERROR_THROTTLED
from .rules import CALLED_AFTER_DAILY_LIMIT

MAX_COUNT = 2**40


def throttled(kind: str) -> ServiceError:
    return ServiceError(429, f"Resource level throttle {kind} DAY limit for calls to this resource is reached.",
                        code="TOO_MANY_REQUESTS", service_error_code=SERVICE_ERROR_THROTTLED)


class DailyLimits:
    """Today's calls per (resource, application) and per (resource, application, member)."""

    def __init__(self) -> None:
        self.day = 0
        self.applications: dict[str, int] = {}
        self.members: dict[str, int] = {}
        self.refused: set[str] = set()  # keys refused today (a client that keeps calling breaks a rule)

    def count(self, resource: str, application: str, member_id: str, now_ms: int, *, member_limit: int,
              application_limit: int, broken: Broken) -> None:
        """Count one call, or raise the 429 of the first limit it would pass."""
        day = now_ms // DAY_MS
        if day != self.day:  # midnight UTC passed: every counter starts again
            self.day, self.applications, self.members, self.refused = day, {}, {}, set()
        app_key = f"{resource}|{application}"
        member_key = f"{app_key}|{member_id}"
        for key, counts, limit, kind in ((app_key, self.applications, application_limit, "APPLICATION"),
                                         (member_key, self.members, member_limit, "MEMBER")):
            if limit and counts.get(key, 0) >= limit:
                if key in self.refused:
                    broken.append((CALLED_AFTER_DAILY_LIMIT, f"{resource}: called again after a 429 for the {kind} "
                                                             "DAY limit; it resets at midnight UTC"))
                self.refused.add(key)
                raise throttled(kind)
        self.applications[app_key] = self.applications.get(app_key, 0) + 1
        self.members[member_key] = self.members.get(member_key, 0) + 1

    def to_state(self) -> dict[str, Any]:
        return {"day": self.day, "applications": self.applications, "members": self.members,
                "refused": sorted(self.refused)}

    def load_state(self, read: StateReader) -> None:
        read.only(("day", "applications", "members", "refused"))
        self.day = read.integer("day", minimum=0, maximum=2**40)
        for name in ("applications", "members"):
            counts = read.object(name)
            checked = {check_text(key, counts.path, min_length=1, max_length=500):
                       check_integer(value, counts.where(key), minimum=0, maximum=MAX_COUNT)
                       for key, value in counts.value.items()}
            setattr(self, name, checked)
        self.refused = {check_text(key, read.where("refused"), min_length=1, max_length=500)
                        for key in read.array("refused")}
