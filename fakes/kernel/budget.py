"""Budgets of work: how many steps a search may take before it stops (fakes/kernel/criteria.py).

A step is about a byte's work (a byte of JSON parsed or redacted); a look at one value from
Python costs :data:`STEP_CALL`, indexing one item :data:`STEP_ITEM`. Counting steps, not
seconds, makes a search refused on one machine refused on every one.
"""

from __future__ import annotations

import sys

#: what looking at one criterion, one JSON value or one candidate costs, in steps (a few Python
#: calls cost what parsing a kilobyte of JSON does); an entry costs two, a query or form field one
STEP_CALL = 1024
#: what indexing one item of a body's array costs, in steps
STEP_ITEM = 192


class BudgetSpent(Exception):
    """Matching needed more steps than its :class:`Budget` allows."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"more than {limit} steps")
        self.limit = limit


class Budget:
    """Steps one search may take (None: no limit); :meth:`spend` raises :class:`BudgetSpent` past it."""

    __slots__ = ("left", "limit")

    def __init__(self, limit: int | None = None) -> None:
        self.limit = sys.maxsize if limit is None else limit
        self.left = self.limit

    def spend(self, steps: int) -> None:
        self.left -= steps
        if self.left < 0:
            raise BudgetSpent(self.limit)

    @property
    def spent(self) -> int:
        return self.limit - self.left

