"""Running counts of the relay's own call records, kept as records come and go.

The usage, members, agents, workflows and ``/usage/me`` views and the daily cap count a team's
records; read from the records themselves they cost a pass over every record kept (20,000), on
every such request. :class:`CallTally` keeps, per team and UTC day, the calls by member, by member
and client (with the latest call's time) and by endpoint label, and per endpoint the calls and what
they were charged: :class:`~fakes.relay.records.CallRecords` adds a record's counts when it keeps it
and takes them away when the record falls off, so a view reads a few days' counts instead.
Imported records (``CallRecords._other``) are not counted here; the views read those themselves.
"""

from __future__ import annotations

from collections.abc import Iterator

DAY_MS = 86_400_000


class DayTally:
    """One team's calls on one UTC day (of the records kept)."""

    __slots__ = ("count", "emails", "first_seq", "labels", "who")

    def __init__(self, first_seq: int = 0) -> None:
        self.count = 0
        self.emails: dict[str, int] = {}
        self.who: dict[tuple[str, str], list[int]] = {}  # (e-mail, client) -> [calls, latest epoch ms]
        self.labels: dict[str, int] = {}  # endpoint id, else provider, else "-"
        self.first_seq = first_seq  # the day's oldest call number (a day's records are consecutive)

    def add(self, email: str, client: str, label: str, at: int) -> None:
        self.count += 1
        self.emails[email] = self.emails.get(email, 0) + 1
        row = self.who.get((email, client))
        if row is None:
            self.who[(email, client)] = [1, at]
        else:
            row[0] += 1
            if at > row[1]:
                row[1] = at
        self.labels[label] = self.labels.get(label, 0) + 1

    def remove(self, email: str, client: str, label: str) -> None:
        """A record of this day went: it fell off (the oldest of its member and client), or its call
        was recorded again (by the same caller, at the same time or later), so the latest stays."""
        self.count -= 1
        _decrement(self.emails, email)
        row = self.who[(email, client)]
        row[0] -= 1
        if not row[0]:
            del self.who[(email, client)]
        _decrement(self.labels, label)


def _decrement(counts: dict[str, int], key: str) -> None:
    left = counts[key] - 1
    if left:
        counts[key] = left
    else:
        del counts[key]


class CallTally:
    """Per team and day (:class:`DayTally`), and per endpoint (calls, micro-USD charged)."""

    __slots__ = ("days", "endpoints")

    def __init__(self) -> None:
        self.days: dict[str, dict[int, DayTally]] = {}
        self.endpoints: dict[str, list[int]] = {}

    def add(self, seq: int, team_id: str, email: str, client: str, endpoint: str | None, provider: str | None,
            cost: int, at: int) -> None:
        days = self.days.get(team_id)
        if days is None:
            days = self.days[team_id] = {}
        day = at // DAY_MS
        tally = days.get(day)
        if tally is None:
            tally = days[day] = DayTally(seq)
        tally.add(email, client, endpoint or provider or "-", at)
        if endpoint is not None:
            row = self.endpoints.get(endpoint)
            if row is None:
                self.endpoints[endpoint] = [1, cost]
            else:
                row[0] += 1
                row[1] += cost

    def renew(self, team_id: str, email: str, client: str, endpoint: str | None, old_cost: int, cost: int,
              at: int) -> bool:
        """:meth:`remove` of a record, then :meth:`add` of one by the same member and client, of the
        same team, endpoint and provider, on the same day, in one step: every count stays, the latest
        time and the endpoint's charge move. False (nothing changed) when the removed record was its
        member and client's only one that day (their row would go and come back): remove, then add.
        The steady state of a busy relay: each call's record pushes out the oldest, the same call."""
        row = self.days[team_id][at // DAY_MS].who[(email, client)]
        if row[0] < 2:
            return False
        if at > row[1]:
            row[1] = at
        if endpoint is not None and cost != old_cost:
            self.endpoints[endpoint][1] += cost - old_cost
        return True

    def remove(self, team_id: str, email: str, client: str, endpoint: str | None, provider: str | None,
               cost: int, at: int) -> None:
        days = self.days[team_id]
        day = at // DAY_MS
        tally = days[day]
        tally.remove(email, client, endpoint or provider or "-")
        if not tally.count:
            del days[day]
            if not days:
                del self.days[team_id]
        if endpoint is not None:
            row = self.endpoints[endpoint]
            row[0] -= 1
            row[1] -= cost
            if not row[0]:
                del self.endpoints[endpoint]

    def whole_days(self, team_id: str, since_ms: int) -> Iterator[tuple[int, DayTally]]:
        """(day, tally) of the team's days that begin at or after ``since_ms``, oldest first."""
        first = -(-since_ms // DAY_MS)  # the first day starting at or after since_ms
        days = self.days.get(team_id, {})
        for day in sorted(days):
            if day >= first:
                yield day, days[day]

    def day(self, team_id: str, day: int) -> DayTally | None:
        return self.days.get(team_id, {}).get(day)
