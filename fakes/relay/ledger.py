"""A team's ledger: its last ``LEDGER_ROWS`` balance movements, oldest first.

Compact for the reason the call records are (docs/benchmark.md, "Objects kept per request"): the
numbers of a row sit in flat arrays, its kind and endpoint in a pair shared by every row with the
same pair; a billed call keeps one object, its call id. Rows become dicts only when read.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from typing import Any

LEDGER_ROWS = 5_000
MAX_SHARED_PAIRS = 4096
#: amounts and balances a ledger keeps (far beyond any balance the control plane accepts)
MAX_AMOUNT = 2**62
FIELDS = ("epoch_ms", "kind", "call_id", "endpoint_id", "amount_micro", "balance_micro")
#: (epoch_ms, kind, call_id, endpoint_id, amount_micro, balance_micro)
LedgerRow = tuple[int, str, "str | None", "str | None", int, int]

_SHARED: dict[tuple[str, str | None], tuple[str, str | None]] = {}


class Ledger:
    def __init__(self, limit: int = LEDGER_ROWS) -> None:
        self.limit = limit
        self._at = array("q")
        self._amount = array("q")
        self._balance = array("q")
        self._call: list[str | None] = []
        self._what: list[tuple[str, str | None]] = []  # (kind, endpoint_id), shared
        self._next = 0  # once full: the slot of the oldest row, overwritten next

    def add(self, epoch_ms: int, kind: str, call_id: str | None, endpoint_id: str | None, amount_micro: int,
            balance_micro: int) -> None:
        if not (-MAX_AMOUNT < amount_micro < MAX_AMOUNT and -MAX_AMOUNT < balance_micro < MAX_AMOUNT):
            raise ValueError(f"a ledger keeps amounts and balances under {MAX_AMOUNT} micro-USD")
        self.put(epoch_ms, shared_pair(kind, endpoint_id), call_id, amount_micro, balance_micro)

    def put(self, epoch_ms: int, what: tuple[str, str | None], call_id: str | None, amount_micro: int,
            balance_micro: int) -> None:
        """:meth:`add` of a row whose (kind, endpoint) pair is already shared and whose amounts are
        known to be in range (a charge: at most the balance it is taken from)."""
        if len(self._at) < self.limit:
            self._at.append(epoch_ms)
            self._amount.append(amount_micro)
            self._balance.append(balance_micro)
            self._call.append(call_id)
            self._what.append(what)
            return
        slot = self._next
        self._at[slot] = epoch_ms
        self._amount[slot] = amount_micro
        self._balance[slot] = balance_micro
        self._call[slot] = call_id
        self._what[slot] = what
        self._next = (slot + 1) % self.limit

    def __len__(self) -> int:
        return len(self._at)

    def __iter__(self) -> Iterator[LedgerRow]:
        """The rows as tuples, oldest first."""
        count = len(self._at)
        order = range(self._next, self._next + count) if count == self.limit else range(count)
        return iter([self._tuple(index % self.limit) for index in order])

    def _tuple(self, slot: int) -> LedgerRow:
        kind, endpoint_id = self._what[slot]
        return self._at[slot], kind, self._call[slot], endpoint_id, self._amount[slot], self._balance[slot]

    def _slot(self, back: int) -> int:
        """The slot of the row ``back`` rows before the newest (0: the newest)."""
        count = len(self._at)
        return (self._next - 1 - back) % self.limit if count == self.limit else count - 1 - back

    def _row(self, slot: int) -> dict[str, Any]:
        return dict(zip(FIELDS, self._tuple(slot), strict=True))

    def newest(self, offset: int, limit: int) -> list[dict[str, Any]]:
        """``limit`` rows as dicts, newest first, after skipping the ``offset`` newest: only those
        rows are made (a page of a full ledger reads 20 rows, not 5,000)."""
        return [self._row(self._slot(back)) for back in range(max(0, offset), min(len(self._at), offset + limit))]

    def of_call(self, call_id: str) -> list[dict[str, Any]]:
        """The rows of one call id as dicts, oldest first; the others are skipped by ``list.index``
        without a row made for them."""
        calls, found, start = self._call, [], 0
        while True:
            try:
                start = calls.index(call_id, start) + 1
            except ValueError:
                break
            found.append(start - 1)
        if len(self._at) == self.limit:  # a full ring: the oldest row is in slot _next
            found.sort(key=lambda slot: (slot - self._next) % self.limit)
        return [self._row(slot) for slot in found]

    def spent_since(self, since_ms: int, kinds: tuple[str, ...] = ("call",)) -> int:
        """Micro-USD the rows of these kinds took at or after ``since_ms`` (walking back from the newest)."""
        spent = 0
        for back in range(len(self._at)):
            slot = self._slot(back)
            if self._at[slot] < since_ms:
                break
            if self._what[slot][0] in kinds and self._amount[slot] < 0:
                spent -= self._amount[slot]
        return spent

    def dicts(self) -> list[dict[str, Any]]:
        return [dict(zip(FIELDS, row, strict=True)) for row in self]


def shared_pair(kind: str, endpoint_id: str | None) -> tuple[str, str | None]:
    """The one (kind, endpoint) pair every ledger row with these texts refers to."""
    pair = (kind, endpoint_id)
    what = _SHARED.get(pair)
    if what is None:
        if len(_SHARED) >= MAX_SHARED_PAIRS:
            _SHARED.clear()
        what = _SHARED[pair] = pair
    return what
