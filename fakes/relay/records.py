"""The relay's call records: the calls among the last ``MAX_CALL_RECORDS`` call ids.

Kept compact, because every answered call writes one and a served fake pays for each object it
keeps per request in every later request (docs/benchmark.md, "Objects kept per request"): the
numbers of a record sit in flat arrays and its texts (endpoint, provider, credential, team, which
are the catalogue's and the team's own strings, and ``who``: a tuple the caller's membership
shares between its calls) in lists, all in the slot of its call id's sequence number; nothing is
created per record. The slots grow on use (an idle model keeps none) up to the limit, then are
reused as a ring. A record becomes a dict only when read (``GET /calls``, the state export).
Records whose id is not of this model's form (imported state) are kept apart, likewise bounded.
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterator
from collections.abc import Set as AbstractSet
from typing import Any, TypeVar

from fakes.kernel.clock import MAX_EPOCH_MS
from fakes.kernel.statecheck import StateReader, check_text, refuse

from .calltally import DAY_MS, CallTally, DayTally
from .ledger import MAX_AMOUNT

MAX_CALL_RECORDS = 20_000
#: renderings of records a listing keeps (rendered_of_team): a few pages of the largest listing
RENDERINGS_KEPT = 1_000
T = TypeVar("T")
_SEQ_DIGITS = 10  # call ids are "call_<prefix><10 hex digits of the sequence number>"
CREDENTIALS = ("own_tool", "secret", "relay_key")
TIERS = {"own_tool": "tool", "secret": "credential", "relay_key": "platform"}

#: who made a call: (user e-mail, client, tags or None, method); one tuple per membership and method
#: on the planned path, shared by all its calls
Who = tuple[str, str, "dict[str, str] | None", str]
NOBODY: Who = ("", "", None, "GET")
#: (endpoint_id, provider, credential, team_id, routed_id, replay_of, who)
Texts = tuple["str | None", "str | None", "str | None", str, "str | None", "str | None", Who]
#: an imported record: (texts, status, cost_micro, epoch_ms)
_Other = tuple[Texts, int, int, int]
RECORD_FIELDS = ("call_id", "endpoint_id", "provider", "credential", "status", "cost_micro", "billed", "replayed",
                 "replay_of", "team_id", "epoch_ms", "routed_id", "user_email", "client", "tags", "method")


class CallRecords:
    """Call id -> record, bounded; a dict-like read side (``get``, ``values``, ``len``, ``in``)."""

    def __init__(self, id_prefix: str, limit: int = MAX_CALL_RECORDS) -> None:
        self.id_prefix = id_prefix  # what precedes the hex sequence number in this model's call ids
        self.limit = limit
        self._seq = array("q")  # per slot: the sequence number it holds (0: none)
        self._status = array("q")
        self._cost = array("q")
        self._at = array("q")
        self._endpoint: list[str | None] = []
        self._provider: list[str | None] = []
        self._credential: list[str | None] = []
        self._team: list[str] = []
        self._routed: list[str | None] = []
        self._replay_of: list[str | None] = []
        self._who: list[Who] = []
        self._newest = 0  # highest sequence number recorded
        self._count = 0  # filled slots
        self._tally = CallTally()  # the counts of the records in the window (calltally.py)
        self._other: OrderedDict[str, _Other] = OrderedDict()
        # slot -> (sequence number, rendering) of rendered_of_team; dropped when the slot is written
        self._renderings: dict[int, tuple[int, Any]] = {}
        self._renderer: Callable[[dict[str, Any]], Any] | None = None

    def _seq_of(self, call_id: str) -> int:
        """The sequence number of one of this model's call ids, else 0."""
        prefix = self.id_prefix
        if len(call_id) != len(prefix) + _SEQ_DIGITS or not call_id.startswith(prefix):
            return 0
        digits = call_id[len(prefix):]
        # exactly the form this model writes: lower-case hex digits ("0x", "_", signs and upper case
        # are refused: int() would read them, and two ids must never name one record)
        if not (digits.isascii() and digits.isalnum()) or "x" in digits or digits != digits.lower():
            return 0
        try:
            return int(digits, 16)
        except ValueError:
            return 0

    def call_id(self, seq: int) -> str:
        return f"{self.id_prefix}{seq:0{_SEQ_DIGITS}x}"

    def add(self, call_id: str, endpoint_id: str | None, provider: str | None, credential: str | None, status: int,
            cost_micro: int, team_id: str, epoch_ms: int, routed_id: str | None = None,
            replay_of: str | None = None, who: Who = NOBODY) -> None:
        seq = self._seq_of(call_id)
        if seq <= 0:
            self._other[call_id] = ((endpoint_id, provider, credential, team_id, routed_id, replay_of, who), status,
                                    cost_micro, epoch_ms)
            if len(self._other) > self.limit:
                self._other.popitem(last=False)
            return
        self.put(seq, endpoint_id, provider, credential, team_id, status, cost_micro, epoch_ms, who)
        slot = seq % self.limit
        if self._seq[slot] == seq:
            self._routed[slot] = routed_id
            self._replay_of[slot] = replay_of
            if self._renderings:
                self._renderings.pop(slot, None)

    def _grow(self, slot: int) -> None:
        """Make room for ``slot`` (doubling, so a run of calls grows the arrays a few times)."""
        size = min(self.limit, max(slot + 1, 2 * len(self._seq), 4))  # a world's few calls: a few slots
        more = size - len(self._seq)
        zeros = bytes(8 * more)
        for numbers in (self._seq, self._status, self._cost, self._at):
            numbers.frombytes(zeros)
        for texts in (self._endpoint, self._provider, self._credential, self._routed, self._replay_of):
            texts.extend([None] * more)
        self._team.extend([""] * more)
        self._who.extend([NOBODY] * more)

    def put(self, seq: int, endpoint_id: str | None, provider: str | None, credential: str | None, team_id: str,
            status: int, cost_micro: int, epoch_ms: int, who: Who = NOBODY) -> None:
        """The record of this model's call number ``seq`` (not routed, not a replay): :meth:`add`
        without reading the number back from the call id (a planned call has it at hand)."""
        limit = self.limit
        slot = seq % limit
        if slot >= len(self._seq):
            self._grow(slot)
        held = self._seq[slot]
        if held > seq:
            return  # a call that outlived limit later calls: its slot is taken, it has fallen off
        if held and held == seq - limit and seq == self._newest + 1:
            # the window full, the next call pushes out the oldest record, its slot's: when that was the
            # same caller's call of the same endpoint that day, the counts stay (CallTally.renew) and so
            # do the slot's team, caller, endpoint and provider
            who_held = self._who[slot]
            if ((who_held is who or who_held == who) and self._team[slot] == team_id
                    and self._endpoint[slot] == endpoint_id and self._provider[slot] == provider
                    and self._at[slot] // DAY_MS == epoch_ms // DAY_MS
                    and self._tally.renew(team_id, who[0], who[1], endpoint_id, self._cost[slot], cost_micro,
                                          epoch_ms)):
                if self._renderings:
                    self._renderings.pop(slot, None)
                self._newest = self._seq[slot] = seq
                self._status[slot] = status
                self._cost[slot] = cost_micro
                self._at[slot] = epoch_ms
                self._credential[slot] = credential
                self._routed[slot] = self._replay_of[slot] = None
                return
        if seq > self._newest:
            if seq > limit:
                self._advance(seq)
            else:  # the window still starts at call 1: no record falls out of it
                self._newest = seq
        if self._renderings:
            self._renderings.pop(slot, None)
        if held == 0:
            self._count += 1
        elif held > self._newest - limit:  # still counted: its counts go with it
            self._untally(slot)
        self._seq[slot] = seq
        self._status[slot] = status
        self._cost[slot] = cost_micro
        self._at[slot] = epoch_ms
        self._endpoint[slot] = endpoint_id
        self._provider[slot] = provider
        self._credential[slot] = credential
        self._team[slot] = team_id
        self._who[slot] = who
        self._routed[slot] = self._replay_of[slot] = None
        if seq > self._newest - limit:
            self._tally.add(seq, team_id, who[0], who[1], endpoint_id, provider, cost_micro, epoch_ms)

    def _advance(self, newest: int) -> None:
        """``newest`` is the highest call number now: the records it pushes out of the window lose
        their counts (their slots may not be taken yet: a call number need not leave a record)."""
        old_start = max(1, self._newest - self.limit + 1)
        new_start = max(1, newest - self.limit + 1)
        size = len(self._seq)
        for seq in range(old_start, min(new_start, self._newest + 1)):  # at most limit of them
            slot = seq % self.limit
            if slot < size and self._seq[slot] == seq:
                self._untally(slot)
        self._newest = newest

    def _untally(self, slot: int) -> None:
        who = self._who[slot]
        self._tally.remove(self._team[slot], who[0], who[1], self._endpoint[slot], self._provider[slot],
                           self._cost[slot], self._at[slot])

    def _slot(self, call_id: str) -> int | None:
        seq = self._seq_of(call_id)
        if seq <= 0 or seq <= self._newest - self.limit:
            return None
        slot = seq % self.limit
        return slot if slot < len(self._seq) and self._seq[slot] == seq else None

    def get(self, call_id: str, default: Any = None) -> Any:
        """The record as a dict, or ``default``."""
        slot = self._slot(call_id)
        if slot is not None:
            return self._record(call_id, slot)
        other = self._other.get(call_id)
        return default if other is None else _record(call_id, *other)

    def _texts(self, slot: int) -> Texts:
        return (self._endpoint[slot], self._provider[slot], self._credential[slot], self._team[slot],
                self._routed[slot], self._replay_of[slot], self._who[slot])

    def _record(self, call_id: str, slot: int) -> dict[str, Any]:
        return _record(call_id, self._texts(slot), self._status[slot], self._cost[slot], self._at[slot])

    def _own_slots(self, newest_first: bool = False) -> Iterator[tuple[int, int]]:
        """(sequence number, slot) of this model's own records, oldest first (or newest first)."""
        seqs = range(max(1, self._newest - self.limit + 1), self._newest + 1)
        size = len(self._seq)
        for seq in (reversed(seqs) if newest_first else seqs):
            slot = seq % self.limit
            if slot < size and self._seq[slot] == seq:
                yield seq, slot

    def values(self) -> Iterator[dict[str, Any]]:
        """Every record, oldest first (imported ones before this model's own)."""
        others = [_record(call_id, *row) for call_id, row in self._other.items()]
        own = [self._record(self.call_id(seq), slot) for seq, slot in self._own_slots()]
        return iter(others + own)

    def of_team(self, team_id: str, limit: int, *, before_seq: int | None = None, since_ms: int = 0,
                user_email: str | None = None) -> list[dict[str, Any]]:
        """The team's newest records first (its own calls, then imported ones), at most ``limit``."""
        return self.rendered_of_team(team_id, limit, _as_is, before_seq=before_seq, since_ms=since_ms,
                                     user_email=user_email, keep=False)

    def rendered_of_team(self, team_id: str, limit: int, render: Callable[[dict[str, Any]], T], *,
                         before_seq: int | None = None, since_ms: int = 0, user_email: str | None = None,
                         keep: bool = True) -> list[T]:
        """:meth:`of_team`'s records, each as ``render`` (a function of the record alone) makes it
        from the record's dict. An own record's rendering is kept until its slot is written again
        (at most ``RENDERINGS_KEPT`` of them, for the last ``render`` asked): a listing asked again
        and again, as a dashboard polls it, renders only the calls made since."""
        rows: list[T] = []
        kept = self._renderings
        if keep and self._renderer is not render:
            kept.clear()
            self._renderer = render
        for seq, slot in self._own_slots(newest_first=True):
            if len(rows) >= limit:
                return rows
            if (self._team[slot] != team_id or (before_seq is not None and seq >= before_seq)
                    or self._at[slot] < since_ms or (user_email is not None and self._who[slot][0] != user_email)):
                continue
            held = kept.get(slot) if keep else None
            if held is not None and held[0] == seq:
                rows.append(held[1])
                continue
            rendered = render({"seq": seq, **self._record(self.call_id(seq), slot)})
            if keep:
                if len(kept) >= RENDERINGS_KEPT:
                    kept.clear()  # bounded: a listing past it renders afresh, none is wrong
                kept[slot] = (seq, rendered)
            rows.append(rendered)
        for call_id, row in reversed(self._other.items()):
            if len(rows) >= limit:
                break
            texts = row[0]
            if texts[3] == team_id and row[3] >= since_ms and (user_email is None or texts[6][0] == user_email):
                rows.append(render({"seq": None, **_record(call_id, *row)}))
        return rows

    def receipts(self, endpoint_ids: AbstractSet[str]) -> dict[str, tuple[int, int]]:
        """endpoint id -> (calls recorded, micro-USD charged) for those of ``endpoint_ids`` called."""
        counted = self._tally.endpoints
        found = {endpoint: list(counted[endpoint]) for endpoint in endpoint_ids if endpoint in counted}
        for texts, _status, cost, _at in self._other.values():
            endpoint = texts[0]
            if endpoint is not None and endpoint in endpoint_ids:
                total = found.setdefault(endpoint, [0, 0])
                total[0] += 1
                total[1] += cost
        return {k: (v[0], v[1]) for k, v in found.items()}

    def team_days(self, team_id: str, since_ms: int = 0) -> list[tuple[int, DayTally]]:
        """(UTC day, its counts) of the team's own records at or after ``since_ms``, oldest first:
        what the usage views count (imported records: :meth:`scan_imported`)."""
        days: list[tuple[int, DayTally]] = []
        first_day = since_ms // DAY_MS
        if since_ms % DAY_MS:  # the first day only from since_ms on: counted from its records
            partial = self._tally.day(team_id, first_day)
            if partial is not None:
                days.append((first_day, self._part_of_day(team_id, partial.first_seq, since_ms,
                                                          (first_day + 1) * DAY_MS)))
        days.extend(self._tally.whole_days(team_id, since_ms))
        return days

    def _part_of_day(self, team_id: str, first_seq: int, since_ms: int, end_ms: int) -> DayTally:
        tally = DayTally()
        size = len(self._seq)
        for seq in range(max(first_seq, self._newest - self.limit + 1, 1), self._newest + 1):
            slot = seq % self.limit
            if slot >= size or self._seq[slot] != seq:
                continue
            at = self._at[slot]
            if at >= end_ms:
                break  # records are in the order of their times
            if at >= since_ms and self._team[slot] == team_id:
                who = self._who[slot]
                tally.add(who[0], who[1], self._endpoint[slot] or self._provider[slot] or "-", at)
        return tally

    def scan_imported(self, team_id: str, since_ms: int = 0) -> Iterator[tuple[str, str, str, int]]:
        """(user e-mail, client, endpoint id or provider or "-", epoch ms) of the team's imported
        records at or after ``since_ms``, newest first."""
        for texts, _status, _cost, when in reversed(self._other.values()):
            if texts[3] == team_id and when >= since_ms:
                yield texts[6][0], texts[6][1], texts[0] or texts[1] or "-", when

    def count_since(self, team_id: str, since_ms: int, user_email: str | None = None) -> int:
        """The team's (or one member's) calls made on this model at or after ``since_ms``."""
        count = 0
        for _day, tally in self.team_days(team_id, since_ms):  # this model's own (imported ones not)
            count += tally.count if user_email is None else tally.emails.get(user_email, 0)
        return count

    def count_trial(self, team_id: str, provider: str, since_ms: int, paid: set[str] | None = None) -> int:
        """The team's 2xx calls of ``provider`` on the relay's key at or after ``since_ms`` (a trial
        pool's allowance: only its paid endpoints when ``paid`` names them)."""
        count = 0
        for _seq, slot in self._own_slots(newest_first=True):
            if self._at[slot] < since_ms:
                break
            if (self._team[slot] == team_id and self._provider[slot] == provider
                    and self._credential[slot] == "relay_key" and 200 <= self._status[slot] < 300
                    and (paid is None or self._endpoint[slot] in paid)):
                count += 1
        return count

    @property
    def newest(self) -> int:
        """The highest call number among this model's own records (0: none)."""
        return self._newest

    def __len__(self) -> int:
        return self._count + len(self._other)

    def __contains__(self, call_id: object) -> bool:
        return isinstance(call_id, str) and (self._slot(call_id) is not None or call_id in self._other)

    def load(self, read: StateReader) -> None:
        """A record as :meth:`values` exports it (the state's ``calls``), each field checked."""
        read.only(RECORD_FIELDS)
        call_id = read.text("call_id", min_length=1, max_length=200)
        texts = [read.text(name, max_length=500, nullable=True) if read.has(name) else None
                 for name in ("endpoint_id", "provider", "routed_id", "replay_of")]
        credential = read.choice("credential", (*CREDENTIALS, None)) if read.has("credential") else None
        status = read.integer("status", minimum=100, maximum=599)
        cost = read.integer("cost_micro", minimum=0, maximum=MAX_AMOUNT - 1)
        at = read.integer("epoch_ms", minimum=0, maximum=MAX_EPOCH_MS)
        team_id = read.text("team_id", min_length=1, max_length=200)
        for name in ("billed", "replayed"):
            if read.has(name):
                read.boolean(name)
        who = read_who(read) if read.has("user_email") else NOBODY
        endpoint_id, provider, routed_id, replay_of = texts
        self.add(call_id, endpoint_id, provider, credential, status, cost, team_id, at, routed_id, replay_of, who)


def read_who(read: StateReader) -> Who:
    email = read.text("user_email", max_length=320)
    client = read.text("client", max_length=64) if read.has("client") else ""
    method = read.choice("method", ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")) \
        if read.has("method") else "GET"
    tags = None
    if read.has("tags") and read.raw("tags") is not None:
        raw = read.mapping("tags")
        if len(raw) > 5:
            refuse(read.where("tags"), "holds more than 5 tags")
        tags = {check_text(k, read.where("tags"), min_length=1, max_length=32):
                check_text(v, read.where(f"tags.{k}"), min_length=1, max_length=128) for k, v in raw.items()}
    return (email, client, tags, method)


def _record(call_id: str, texts: Texts, status: int, cost: int, epoch_ms: int) -> dict[str, Any]:
    endpoint_id, provider, credential, team_id, routed_id, replay_of, who = texts
    record: dict[str, Any] = {"call_id": call_id, "endpoint_id": endpoint_id, "provider": provider,
                              "credential": credential, "status": status, "cost_micro": cost, "billed": cost > 0,
                              "replayed": replay_of is not None}
    if replay_of is not None:
        record["replay_of"] = replay_of
    record["team_id"], record["epoch_ms"] = team_id, epoch_ms
    if routed_id is not None:
        record["routed_id"] = routed_id
    if who is not NOBODY:
        record["user_email"], record["client"], record["tags"], record["method"] = who
    return record


def _as_is(record: dict[str, Any]) -> dict[str, Any]:
    return record
