"""The request journal: a bounded ring of what clients sent and were answered, with client-contract
warnings.

Kept compact because every request of every fake writes to it: numbers in flat arrays, the
(method, path, query) of a request shared with earlier identical requests, no dict per request.
Entries become dicts when read. (A served fake that kept a dict, its strings and its numbers per
request paid for it in every later request: see docs/benchmark.md, "Objects kept per request".)

Each entry also keeps the request's headers and body and the answer's headers and body
(:class:`~fakes.kernel.exchange.Exchange`: raw, by reference, each body cut to ``body_bytes``).
Everything an entry keeps counts against the journal's byte budget (``total_bytes``): its method,
path, query and warnings (a path or query past :data:`MAX_KEPT_TEXT` characters is cut, and the
entry says so), headers and bodies. Consecutive entries that keep the very same headers and bodies
(a client repeating a request and answered the same, a cached page: settled into one tuple, see
:class:`~fakes.kernel.exchange.Settled`) hold them once, and they count once, with the newest of
those entries: a fake answering a 52 KB page kept a thousand entries of it in the memory of one,
yet counted each, and dropped an entry's details on every request. Past the budget the oldest
entries lose their headers and bodies (they keep method, path, query, status and time), then, if
that is not enough, the oldest entries go; the newest always stays. All journals of the process
together keep within the pool's budget as well (fakes/kernel/journalpool.py,
``--journal-total-bytes``). Credentials are redacted when read (``redactor``; None shows them as
sent). Slots grow with use, up to ``size``, then are reused as a ring: a fake (or a world) that
received few requests holds a journal of that few (an empty world, none at all); a cleared journal
holds none again.
"""

from __future__ import annotations

import fnmatch
import os
from array import array
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from starlette.types import Receive, Scope, Send

from .clock import iso_ms
from .exchange import COST, DEFAULT_BODY_BYTES, ENTRY_COST, Exchange, Kept, Settled, describe
from .journalpool import POOL
from .redaction import Redactor

DEFAULT_JOURNAL_SIZE = 1000
#: what one journal keeps at most: entries, their headers and bodies (its oldest go first)
DEFAULT_JOURNAL_BYTES = 2 * 1024 * 1024
#: distinct (method, path, query) kept shared; past that the table starts over
MAX_SHARED_REQUESTS = 4096
#: longer paths and queries are kept by their entry alone: the shared table stays small whatever
#: clients send (at most MAX_SHARED_REQUESTS of these)
MAX_SHARED_TEXT = 1024
#: the longest path, query and warning an entry keeps; a longer one is cut there (and marked)
MAX_KEPT_TEXT = 8192
#: the largest byte setting (per body, per journal)
MAX_JOURNAL_BYTES = 2**40
_NO_WARNINGS: tuple[str, ...] = ()
#: the headers and bodies of an entry that the byte budget dropped
DROPPED = "dropped"
GLOB_CHARACTERS = "*?["
ENV_BODY_BYTES = "FAKES_JOURNAL_BODY_BYTES"
ENV_JOURNAL_BYTES = "FAKES_JOURNAL_BYTES"
ENV_KEEP_SECRETS = "FAKES_JOURNAL_KEEP_SECRETS"
_GONE = ("", "", "")


class Cut(str):
    """A path, query or warning longer than :data:`MAX_KEPT_TEXT`, cut there; ``length``: its own."""

    length: int

    @classmethod
    def of(cls, text: str) -> Cut:
        cut = cls(text[:MAX_KEPT_TEXT])
        cut.length = len(text)
        return cut


class Record(NamedTuple):
    """One kept entry as stored (read by :mod:`fakes.kernel.verify` without building dicts)."""

    seq: int
    method: str
    path: str
    query: str
    status: int
    epoch_ms: int
    warnings: tuple[str, ...]
    exchange: Kept | str | None  # None: none kept; DROPPED: dropped by the byte budget
    #: (kind, id[, effect]) of the fault or stub rule that answered it (None: the model did)
    answered_by: tuple[str, ...] | None = None


class Journal:
    """Oldest-first record of requests; the oldest entries fall off past ``size`` (and past the
    byte budget, see the module).

    Its slots grow with use, up to ``size``, then are reused as a ring: a fake (or a world) that
    received few requests holds a journal of that few (an empty world, none at all)."""

    def __init__(self, size: int = DEFAULT_JOURNAL_SIZE, *, body_bytes: int = DEFAULT_BODY_BYTES,
                 total_bytes: int = DEFAULT_JOURNAL_BYTES, redactor: Redactor | None = None) -> None:
        if size < 1:
            raise ValueError("journal size must be >= 1")
        self.size = size
        self.body_bytes = check_bytes(body_bytes, "journal body bytes")
        self.total_bytes = check_bytes(total_bytes, "journal bytes")
        #: shows credentials redacted when entries are read; None: as sent
        self.redactor = redactor
        self.total = 0  # every request ever recorded, including those that fell off; the last seq
        self._cleared = 0  # entries up to this seq were cleared (or dropped by the byte budget)
        self._base = 1  # the seq of slot 0 (the first request after the last clear)
        self.kept_bytes = 0  # what the kept entries cost: at most total_bytes (0: headers and bodies off)
        self._shed_from = 1  # no entry before this seq holds headers and bodies
        self._pending: int | None = None  # a shed the pool asked for from another thread
        self._limit = self.total_bytes or MAX_JOURNAL_BYTES << 8  # past it: _over (0: no budget of its own)
        self._settled: Settled | None = None  # what settles exchanges (made with the first entry)
        self._empty()

    def _empty(self) -> None:
        # per slot, slot = (seq - _base) % size; the slots exist once a request used them
        self._seq = array("q")  # the seq a slot holds
        self._at = array("q")
        self._status = array("q")
        self._cost = array("q")  # what the slot's entry counts against the budgets (0: not kept)
        self._request: list[tuple[str, str, str]] = []
        self._warnings: list[tuple[str, ...]] = []
        self._exchange: list[Kept | str | None] = []
        self._shared: dict[tuple[str, str, str], tuple[str, str, str]] | None = None
        #: seq -> (kind, id[, effect]) of the entries a fault or stub rule answered (most have none)
        self._answered: dict[int, tuple[str, ...]] = {}

    @property
    def keeps_details(self) -> bool:
        return self.total_bytes > 0

    def exchange(self, scope: Scope, receive: Receive, send: Send, cap: int) -> Exchange:
        """The recorder of one request: wraps its ``receive`` (holding the body to ``cap``, or its
        route's own cap: fakes/kernel/limits.py) and ``send``; hand it to :meth:`add`."""
        return Exchange(scope, receive, send, cap, self.total_bytes > 0, self.body_bytes)

    def add(self, method: str, path: str, query: str, status: int, epoch_ms: int,
            warnings: tuple[str, ...] = _NO_WARNINGS, exchange: Exchange | None = None,
            answered_by: tuple[str, ...] | None = None) -> int:
        """Record one request (with what :meth:`exchange` kept of it, and the rule that answered
        it if one did); its seq (1, 2, ...)."""
        self.total = seq = self.total + 1
        length = len(path) + len(query)
        if length > MAX_KEPT_TEXT:
            if len(path) > MAX_KEPT_TEXT:
                path = Cut.of(path)
            if len(query) > MAX_KEPT_TEXT:
                query = Cut.of(query)
            length = len(path) + len(query)
        if answered_by is not None:
            self._answered[seq] = answered_by
        request = (method, path, query)
        table = self._shared
        if table is None:
            table = self._shared = {}
            self._settled = Settled(self.body_bytes)
            POOL.join(self)  # counted with every journal of the process from now on
        shared = table.get(request)
        if shared is None:
            shared = request
            if length <= MAX_SHARED_TEXT:
                if len(table) >= MAX_SHARED_REQUESTS:
                    table.clear()
                table[request] = request
        cost = ENTRY_COST + length
        if warnings:
            if max(map(len, warnings)) > MAX_KEPT_TEXT:
                warnings = tuple(w if len(w) <= MAX_KEPT_TEXT else Cut.of(w) for w in warnings)
            cost += sum(map(len, warnings))
        kept = None
        index = seq - self._base
        moved = 0
        if exchange is not None and exchange.details:
            settled = self._settled
            last = settled.kept  # type: ignore[union-attr]
            kept = settled.settle(exchange, method == "HEAD")  # type: ignore[union-attr]
            details = kept[COST]
            cost += details
            if kept is last and index:  # the same as the exchange before: counted with the newest entry
                before = (index - 1) % self.size
                if self._exchange[before] is kept:
                    moved = details
                    self._cost[before] -= moved
        if index < self.size:  # a new slot
            self._request.append(shared)
            self._seq.append(seq)
            self._at.append(epoch_ms)
            self._status.append(status)
            self._cost.append(cost)
            self._warnings.append(warnings)
            self._exchange.append(kept)
            grown = cost - moved
        else:
            slot = index % self.size
            grown = cost - moved - self._cost[slot]  # the entry it replaces falls off (0 if already dropped)
            if self._answered:
                self._answered.pop(self._seq[slot], None)
            self._request[slot] = shared
            self._seq[slot] = seq
            self._at[slot] = epoch_ms
            self._status[slot] = status
            self._cost[slot] = cost
            self._warnings[slot] = warnings
            self._exchange[slot] = kept
        self.kept_bytes += grown
        pool = POOL
        pool.kept += grown
        if self.kept_bytes > self._limit or pool.kept > pool.total_bytes:
            self._over()
        return seq

    def _over(self) -> None:
        """Past this journal's budget, a shed the pool asked for, or past the pool's budget."""
        if self._pending is not None:
            self.shed_to(self._pending)
        elif self.kept_bytes > self.total_bytes > 0:
            self.shed_to(self.total_bytes - (self.total_bytes >> 3))
        if POOL.kept > POOL.total_bytes:
            POOL.over(self)

    def shed_to(self, target: int) -> None:
        """Give back until the kept entries cost at most ``target``: the oldest entries' headers
        and bodies first, then the oldest entries; the newest stays. (Down to 7/8 of the budget,
        not just under it: a full journal then sheds every few requests, not on every one.)"""
        self._pending = None
        self._limit = self.total_bytes or MAX_JOURNAL_BYTES << 8
        before = kept = self.kept_bytes
        first = max(self._cleared, self.total - len(self._seq)) + 1
        seq = max(self._shed_from, first)
        exchanges, seqs, costs = self._exchange, self._seq, self._cost
        base, size, last = self._base, self.size, self.total
        while kept > target and seq <= last:  # _slot inlined: a shed walks an entry per request
            slot = (seq - base) % size
            held = exchanges[slot]
            if held.__class__ is tuple and seqs[slot] == seq:
                # kept by the next entry too: counted with the newest that keeps it (nothing freed yet)
                cost = 0 if seq < last and exchanges[(seq + 1 - base) % size] is held else held[COST]
                costs[slot] -= cost
                kept -= cost
                exchanges[slot] = DROPPED
            seq += 1
        self.kept_bytes = kept
        self._shed_from = seq
        seq = first
        while self.kept_bytes > target and seq < self.total:  # the entries themselves, oldest first
            self._drop(seq)
            seq += 1
        POOL.kept -= before - self.kept_bytes  # (not handed back to the system: the next entries reuse it)

    def shed_later(self, target: int) -> None:
        """The pool, from another thread: shed to ``target`` at the next request."""
        self._pending = target if self._pending is None else min(self._pending, target)
        self._limit = -1  # the next add sheds

    def _slot(self, seq: int) -> int:
        return (seq - self._base) % self.size

    def _drop(self, seq: int) -> None:
        slot = self._slot(seq)
        if self._seq[slot] == seq:
            self.kept_bytes -= self._cost[slot]
            self._cost[slot] = 0
            self._request[slot] = _GONE
            self._warnings[slot] = _NO_WARNINGS
            self._exchange[slot] = None
        self._cleared = max(self._cleared, seq)

    def record(self, entry: dict[str, Any]) -> None:
        """Record an entry given as a dict (``method``, ``path``, ``query``, ``status``, ``epoch_ms``,
        ``warnings``); sets its ``seq``."""
        entry["seq"] = self.add(entry["method"], entry["path"], entry["query"], entry["status"], entry["epoch_ms"],
                                tuple(entry.get("warnings") or ()))

    def clear(self) -> None:
        """Forget every entry (their memory goes now; the seq goes on)."""
        self._cleared = self.total
        self._base = self.total + 1
        self._shed_from = self._base
        freed, self.kept_bytes = self.kept_bytes, 0
        POOL.kept -= freed
        if self._shared is not None:
            self._empty()
            self._shared = {}  # still counted with the pool's journals
        if self._settled is not None:
            self._settled.forget()
        self._answered = {}
        POOL.freed(freed)

    def release(self) -> None:
        """:meth:`clear`, when the journal's fake is let go (a deleted world): its memory goes
        back now, not once the collector finds the fake."""
        self.clear()
        self._shared = None
        self._settled = None

    def __len__(self) -> int:
        return min(self.total - self._cleared, self.size)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.entries())

    def _kept(self) -> Iterator[int]:
        """Slots of the kept entries, oldest first."""
        for seq in range(max(self._cleared, self.total - self.size) + 1, self.total + 1):
            slot = self._slot(seq)
            if self._seq[slot] == seq:
                yield slot

    def records(self) -> Iterator[Record]:
        """The kept entries as stored, oldest first."""
        answered = self._answered
        for slot in self._kept():
            method, path, query = self._request[slot]
            seq = self._seq[slot]
            yield Record(seq, method, path, query, self._status[slot], self._at[slot],
                         self._warnings[slot], self._exchange[slot], answered.get(seq) if answered else None)

    def entry(self, record: Record, *, details: bool = True) -> dict[str, Any]:
        """A record as the journal shows it (a new dict): the time as ISO-8601 ``time`` beside its
        ``epoch_ms``; with ``details`` the ``request`` and ``response`` headers and bodies kept
        (credentials redacted unless the journal keeps them), or ``details_dropped``."""
        redactor = self.redactor
        query = redactor.query(record.query) if redactor is not None and record.query else record.query
        entry: dict[str, Any] = {
            "method": record.method, "path": record.path, "query": query, "status": record.status,
            "epoch_ms": record.epoch_ms, "warnings": list(record.warnings), "seq": record.seq,
            "time": iso_ms(record.epoch_ms)}
        for name in ("path", "query"):
            text = getattr(record, name)
            if type(text) is Cut:  # cut at MAX_KEPT_TEXT: how long it was
                entry[f"{name}_length"] = text.length
                entry[f"{name}_truncated"] = True
        if record.answered_by is not None:
            entry["answered_by"] = answerer(record.answered_by)
        if details and record.exchange is not None:
            if isinstance(record.exchange, tuple):
                entry.update(describe(record.exchange, redactor))
            else:
                entry["details_dropped"] = True  # the byte budget (--journal-bytes) needed the room
        return entry

    def entries(
        self, *, method: str | None = None, path: str | None = None, warnings_only: bool = False,
        limit: int | None = None, details: bool = True,
    ) -> list[dict[str, Any]]:
        """Entries (new dicts, oldest first) filtered by method, path (exact, or a glob such as
        ``/rest/*``) and whether they carry warnings; ``limit``: the last N of them."""
        return [self.entry(record, details=details) for record in
                self.select(self.records(), method=method, path=path, warnings_only=warnings_only, limit=limit)]

    @staticmethod
    def select(records: Iterable[Record], *, method: str | None = None, path: str | None = None,
               warnings_only: bool = False, limit: int | None = None) -> list[Record]:
        """The ``records`` of :meth:`entries`' filters."""
        wanted_method = method.upper() if method is not None else None
        glob = path is not None and any(ch in path for ch in GLOB_CHARACTERS)
        found = [
            record for record in records
            if (wanted_method is None or record.method == wanted_method)
            and (path is None or record.path == path or (glob and fnmatch.fnmatchcase(record.path, path)))
            and (not warnings_only or record.warnings)
        ]
        return found[-limit:] if limit else found

    def warnings(self) -> list[str]:
        return [w for slot in self._kept() for w in self._warnings[slot]]


def answerer(tag: tuple[str, ...]) -> dict[str, str]:
    """``{"kind": "fault", "id": "f1", "effect": "status"}`` of a rule's tag (kind, id[, effect])."""
    shown = {"kind": tag[0], "id": tag[1]}
    if len(tag) > 2:
        shown["effect"] = tag[2]
    return shown


def check_bytes(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_JOURNAL_BYTES:
        raise ValueError(f"{name} must be a whole number of bytes from 0 to {MAX_JOURNAL_BYTES}, got {value!r}")
    return value


def journal_settings(body_bytes: int | None, total_bytes: int | None,
                     keep_secrets: bool | None) -> tuple[int, int, bool]:
    """A fake's journal settings: each keyword argument, else its environment variable
    (``FAKES_JOURNAL_BODY_BYTES``, ``FAKES_JOURNAL_BYTES``, ``FAKES_JOURNAL_KEEP_SECRETS``), else
    the default. A bad variable is a ValueError naming it. The budget of every journal together
    (FAKES_JOURNAL_TOTAL_BYTES) is read again too (fakes/kernel/journalpool.py)."""
    POOL.from_env()
    return (_bytes_setting(body_bytes, ENV_BODY_BYTES, DEFAULT_BODY_BYTES, "journal_body_bytes"),
            _bytes_setting(total_bytes, ENV_JOURNAL_BYTES, DEFAULT_JOURNAL_BYTES, "journal_bytes"),
            keep_secrets if keep_secrets is not None else parse_switch(os.environ.get(ENV_KEEP_SECRETS, ""),
                                                                       ENV_KEEP_SECRETS))


def _bytes_setting(value: int | None, env: str, default: int, name: str) -> int:
    if value is not None:
        return check_bytes(value, name)
    raw = os.environ.get(env)
    if not raw:
        return default
    from .http import InvalidInteger, ascii_int

    try:
        return check_bytes(ascii_int(raw), env)
    except InvalidInteger:
        raise ValueError(f"{env} must be a whole number of bytes, got {raw!r}") from None


SWITCH_ON = ("1", "true", "yes", "on")
SWITCH_OFF = ("", "0", "false", "no", "off")


def parse_switch(raw: str, name: str) -> bool:
    """An on/off environment variable: 1/true/yes/on or 0/false/no/off (empty: off)."""
    text = raw.strip().lower()
    if text in SWITCH_ON:
        return True
    if text in SWITCH_OFF:
        return False
    raise ValueError(f"{name} must be one of {', '.join(SWITCH_ON)} or {', '.join(v for v in SWITCH_OFF if v)}, "
                     f"got {raw!r}")
