"""The relay's call records: the calls among the last ``MAX_CALL_RECORDS`` call ids.

Kept compact, because every answered call writes one and a served fake pays for each object it
keeps per request in every later request (docs/benchmark.md, "Objects kept per request"): the
numbers of a record sit in flat arrays and its texts (endpoint, provider, credential, team, which
are the catalogue's and the team's own strings) in lists, all in the slot of its call id's sequence
number; nothing is created per record. A record becomes a dict only when read (``GET
/calls/{id}``, the state export, the receipts).
Records whose id is not of this model's form (imported state) are kept apart, likewise bounded.
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

MAX_CALL_RECORDS = 20_000
_SEQ_DIGITS = 10  # call ids are "call_<prefix><10 hex digits of the sequence number>"

#: (endpoint_id, provider, credential, team_id, routed_id, replay_of)
Texts = tuple["str | None", "str | None", "str | None", str, "str | None", "str | None"]
#: an imported record: (texts, status, cost_micro, epoch_ms)
_Other = tuple[Texts, int, int, int]


class CallRecords:
    """Call id -> record, bounded; a dict-like read side (``get``, ``values``, ``len``, ``in``)."""

    def __init__(self, id_prefix: str, limit: int = MAX_CALL_RECORDS) -> None:
        self.id_prefix = id_prefix  # what precedes the hex sequence number in this model's call ids
        self.limit = limit
        self._seq = array("q", bytes(8 * limit))  # per slot: the sequence number it holds (0: none)
        self._status = array("q", bytes(8 * limit))
        self._cost = array("q", bytes(8 * limit))
        self._at = array("q", bytes(8 * limit))
        self._endpoint: list[str | None] = [None] * limit
        self._provider: list[str | None] = [None] * limit
        self._credential: list[str | None] = [None] * limit
        self._team: list[str] = [""] * limit
        self._routed: list[str | None] = [None] * limit
        self._replay_of: list[str | None] = [None] * limit
        self._newest = 0  # highest sequence number recorded
        self._count = 0  # filled slots
        self._other: OrderedDict[str, _Other] = OrderedDict()

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

    def add(self, call_id: str, endpoint_id: str | None, provider: str | None, credential: str | None, status: int,
            cost_micro: int, team_id: str, epoch_ms: int, routed_id: str | None = None,
            replay_of: str | None = None) -> None:
        seq = self._seq_of(call_id)
        if seq <= 0:
            self._other[call_id] = ((endpoint_id, provider, credential, team_id, routed_id, replay_of), status,
                                    cost_micro, epoch_ms)
            if len(self._other) > self.limit:
                self._other.popitem(last=False)
            return
        self.put(seq, endpoint_id, provider, credential, team_id, status, cost_micro, epoch_ms)
        slot = seq % self.limit
        if self._seq[slot] == seq:
            self._routed[slot] = routed_id
            self._replay_of[slot] = replay_of

    def put(self, seq: int, endpoint_id: str | None, provider: str | None, credential: str | None, team_id: str,
            status: int, cost_micro: int, epoch_ms: int) -> None:
        """The record of this model's call number ``seq`` (not routed, not a replay): :meth:`add`
        without reading the number back from the call id (a planned call has it at hand)."""
        slot = seq % self.limit
        held = self._seq[slot]
        if held > seq:
            return  # a call that outlived limit later calls: its slot is taken, it has fallen off
        if held == 0:
            self._count += 1
        self._seq[slot] = seq
        self._status[slot] = status
        self._cost[slot] = cost_micro
        self._at[slot] = epoch_ms
        self._endpoint[slot] = endpoint_id
        self._provider[slot] = provider
        self._credential[slot] = credential
        self._team[slot] = team_id
        self._routed[slot] = self._replay_of[slot] = None
        if seq > self._newest:
            self._newest = seq

    def _slot(self, call_id: str) -> int | None:
        seq = self._seq_of(call_id)
        if seq <= 0 or seq <= self._newest - self.limit:
            return None
        slot = seq % self.limit
        return slot if self._seq[slot] == seq else None

    def get(self, call_id: str, default: Any = None) -> Any:
        """The record as a dict, or ``default``."""
        slot = self._slot(call_id)
        if slot is not None:
            return self._record(call_id, slot)
        other = self._other.get(call_id)
        return default if other is None else _record(call_id, *other)

    def _record(self, call_id: str, slot: int) -> dict[str, Any]:
        texts = (self._endpoint[slot], self._provider[slot], self._credential[slot], self._team[slot],
                 self._routed[slot], self._replay_of[slot])
        return _record(call_id, texts, self._status[slot], self._cost[slot], self._at[slot])

    def values(self) -> Iterator[dict[str, Any]]:
        """Every record, oldest first (imported ones before this model's own)."""
        others = [_record(call_id, *row) for call_id, row in self._other.items()]
        own = []
        for seq in range(max(1, self._newest - self.limit + 1), self._newest + 1):
            slot = seq % self.limit
            if self._seq[slot] == seq:
                own.append(self._record(f"{self.id_prefix}{seq:0{_SEQ_DIGITS}x}", slot))
        return iter(others + own)

    @property
    def newest(self) -> int:
        """The highest call number among this model's own records (0: none)."""
        return self._newest

    def __len__(self) -> int:
        return self._count + len(self._other)

    def __contains__(self, call_id: object) -> bool:
        return isinstance(call_id, str) and (self._slot(call_id) is not None or call_id in self._other)

    def load(self, record: Any) -> None:
        """A record as :meth:`values` exports it (the state's ``calls``); ``ValueError`` when malformed."""
        if not isinstance(record, dict) or not isinstance(record.get("call_id"), str):
            raise ValueError("each call record needs a call_id")
        status, cost, at = record.get("status", 0), record.get("cost_micro", 0), record.get("epoch_ms", 0)
        if not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**63 for v in (status, cost, at)):
            raise ValueError("a call record's status, cost_micro and epoch_ms are non-negative integers")
        texts = [record.get(name) for name in ("endpoint_id", "provider", "credential", "routed_id", "replay_of")]
        if not all(v is None or isinstance(v, str) for v in texts):
            raise ValueError("a call record's endpoint_id, provider, credential, routed_id and replay_of are "
                             "strings or null")
        endpoint_id, provider, credential, routed_id, replay_of = texts
        self.add(record["call_id"], endpoint_id, provider, credential, status, cost, str(record.get("team_id", "")),
                 at, routed_id, replay_of)


def _record(call_id: str, texts: Texts, status: int, cost: int, epoch_ms: int) -> dict[str, Any]:
    endpoint_id, provider, credential, team_id, routed_id, replay_of = texts
    record: dict[str, Any] = {"call_id": call_id, "endpoint_id": endpoint_id, "provider": provider,
                              "credential": credential, "status": status, "cost_micro": cost, "billed": cost > 0,
                              "replayed": replay_of is not None}
    if replay_of is not None:
        record["replay_of"] = replay_of
    record["team_id"], record["epoch_ms"] = team_id, epoch_ms
    if routed_id is not None:
        record["routed_id"] = routed_id
    return record
