"""Request verification: find and count journal entries by what the client sent, and say which
entries came closest when none matched (the near misses, with the criterion each one failed).

The criteria and how one request is matched are :mod:`fakes.kernel.criteria` (re-exported here).
Criteria read the request as the client sent it, except credentials, which match only whole
(see there); what is shown (entries, near misses) is redacted as the journal shows it. Python:
``fake.find_requests(...)``, ``fake.count_requests(...)``, ``fake.assert_requested(..., times=1)``;
HTTP: ``POST /_fake/journal/find`` (and ``GET /_fake/journal``'s filters), where a search has a
budget of :data:`FIND_BUDGET` steps and runs on a worker thread (:func:`off_loop`), so that the
event loop goes on answering every other client meanwhile. See docs/testing.md, "Verifying requests".
"""

from __future__ import annotations

import asyncio
import heapq
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from .budget import STEP_CALL, Budget, BudgetSpent
from .criteria import (
    MAX_CRITERION_TEXT,
    MAX_FRAGMENT_VALUES,
    MAX_MATCHERS,
    Failure,
    Matcher,
    PatternError,
    RequestPattern,
    Sent,
)
from .exchange import COST
from .fragments import json_mismatch
from .journal import DROPPED, Journal, Record
from .redaction import Redactor

__all__ = [
    "FIND_BUDGET",
    "MAX_CRITERION_TEXT",
    "MAX_FRAGMENT_VALUES",
    "MAX_MATCHERS",
    "Budget",
    "BudgetSpent",
    "Failure",
    "Matcher",
    "PatternError",
    "RequestPattern",
    "Search",
    "Sent",
    "assert_requested",
    "find_budget",
    "json_mismatch",
    "off_loop",
    "search",
]

#: the closest entries shown when nothing matched
NEAR_MISSES = 3
#: the matching entries shown when there were too many
SHOWN_MATCHES = 5
#: the steps (about a byte's work each: fakes/kernel/criteria.py) one search over HTTP may take,
#: answering included: a tenth of a second's work or so, several times what reading every body of
#: a full journal costs at the default --journal-bytes; a journal allowed more gets
#: :data:`STEPS_PER_KEPT_BYTE` per byte of its --journal-bytes (:func:`find_budget`)
FIND_BUDGET = 20_000_000
STEPS_PER_KEPT_BYTE = 8
T = TypeVar("T")


def sent(record: Record) -> Sent:
    """A journal entry as the criteria read it."""
    return Sent.of_kept(record.method, record.path, record.query, record.status, record.exchange,
                        missing(record.exchange), record.answered_by)


def missing(exchange: Any) -> str:
    if exchange == DROPPED:
        return "its headers and body were dropped to keep the journal within --journal-bytes"
    return "the journal kept no headers and body for it"


@dataclass
class Search:
    """What a pattern found in a journal: the matching records and, when none, the closest ones."""

    pattern: RequestPattern
    matches: list[Record]
    near_misses: list[tuple[Record, list[Failure]]]
    kept: int

    @property
    def count(self) -> int:
        return len(self.matches)


def search(journal: Journal, pattern: RequestPattern, *, near_misses: int = NEAR_MISSES,
           budget: Budget | None = None, records: Iterable[Record] | None = None) -> Search:
    """Every kept entry matching ``pattern``, oldest first; the closest ``near_misses`` if none.
    ``records``: these (a snapshot of the journal's) instead of the journal's now; ``budget``:
    :class:`BudgetSpent` past it (None: no limit).

    Each entry is judged up to its first failed criterion. When none matched, the newest entries
    are judged on every criterion, newest first, with half of what is left of the budget (all of
    them unless that runs out): the closest are those that failed the fewest criteria, then those
    whose method and path held, then the newest."""
    redactor = journal.redactor
    budget = budget or Budget()
    kept = list(journal.records() if records is None else records)
    matches: list[Record] = []
    for record in kept:
        if not pattern.failures(sent(record), redactor, budget, first_only=True):
            matches.append(record)
    closest: list[tuple[Record, list[Failure]]] = []
    if not matches and near_misses:
        closest = _near_misses(kept, pattern, redactor, budget, near_misses)
    return Search(pattern, matches, closest, len(kept))


def _near_misses(kept: list[Record], pattern: RequestPattern, redactor: Redactor | None, budget: Budget,
                 wanted: int) -> list[tuple[Record, list[Failure]]]:
    share = Budget(budget.left // 2)
    judged: list[tuple[tuple[int, int, int], Record, list[Failure]]] = []
    try:
        for record in reversed(kept):
            failed = pattern.failures(sent(record), redactor, share)
            where = sum(1 for f in failed if f.criterion in ("method", "path"))
            judged.append(((len(failed), where, -record.seq), record, failed))
    except BudgetSpent:
        pass  # the closest of the newest entries it could judge
    budget.spend(share.spent)
    return [(record, failed) for _, record, failed in heapq.nsmallest(wanted, judged, key=lambda item: item[0])]


def find(journal: Journal, pattern: RequestPattern, *, details: bool = True) -> list[dict[str, Any]]:
    return [journal.entry(record, details=details) for record in search(journal, pattern, near_misses=0).matches]


def shown(journal: Journal, records: Iterable[Record], details: bool, budget: Budget) -> list[dict[str, Any]]:
    """The entries of ``records`` as the journal shows them, each charged to ``budget`` (showing
    an entry redacts its headers and bodies: about a step per byte)."""
    entries = []
    for record in records:
        exchange = record.exchange
        budget.spend(STEP_CALL + (exchange[COST] if details and isinstance(exchange, tuple) else 0))
        entries.append(journal.entry(record, details=details))
    return entries


def find_budget(journal: Journal) -> Budget:
    """The budget of one search of ``journal`` over HTTP."""
    return Budget(max(FIND_BUDGET, STEPS_PER_KEPT_BYTE * journal.total_bytes))


_WORKER: ThreadPoolExecutor | None = None


async def off_loop(work: Callable[[], T]) -> T:
    """``work()`` on the kernel's search thread (one for the process: searches run one at a time),
    while the event loop goes on serving. ``work`` must read only what no request changes
    meanwhile: a snapshot of the journal's records (immutable tuples), its redactor."""
    global _WORKER
    if _WORKER is None:
        _WORKER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="fakes-search")
    return await asyncio.get_running_loop().run_in_executor(_WORKER, work)


def spent_message(limit: int, kept: int) -> str:
    """Why a search over HTTP was refused (the 422 of ``POST /_fake/journal/find``)."""
    return (f"this search needs more than the {limit} steps one search may take (about a byte's work "
            f"each) over the {kept} entries the journal keeps: narrow it with method, path or status (checked "
            "first, they make the costly criteria run on fewer entries), ask for fewer entries (limit, "
            "details=false), or clear the journal (DELETE /_fake/journal)")


def near_miss_dicts(journal: Journal, found: Search) -> list[dict[str, Any]]:
    return [{"entry": journal.entry(record, details=False), "failed": [f.to_dict() for f in failures]}
            for record, failures in found.near_misses]


def describe_record(journal: Journal, record: Record) -> str:
    entry = journal.entry(record, details=False)
    query = f"?{entry['query']}" if entry["query"] else ""
    return f"#{record.seq} {record.method} {record.path}{query} -> {record.status} at {entry['time']}"


def verification_report(journal: Journal, found: Search, expectation: str) -> str:
    """Why an assertion failed: what was expected, what was found, and the closest entries."""
    head = (f"contract-fakes: expected {expectation} matching {found.pattern.describe()}; found {found.count} "
            f"among the {found.kept} request{'' if found.kept == 1 else 's'} the journal keeps")
    lines = [head]
    if found.matches:
        lines.append("matching:")
        lines += [f"  {describe_record(journal, record)}" for record in found.matches[-SHOWN_MATCHES:]]
        if found.count > SHOWN_MATCHES:
            lines.append(f"  (and {found.count - SHOWN_MATCHES} earlier)")
    elif found.near_misses:
        lines.append("the closest (near misses):")
        for record, failures in found.near_misses:
            lines.append(f"  {describe_record(journal, record)}")
            lines += [f"      {f.criterion}: {f.why}" for f in failures]
    else:
        lines.append("the journal keeps no request (cleared, or none was sent)")
    return "\n".join(lines)


def expectation(times: int | None) -> str:
    if times is None:
        return "at least one request"
    return f"exactly {times} request{'' if times == 1 else 's'}"


def check_times(times: Any) -> int | None:
    if times is None:
        return None
    if isinstance(times, bool) or not isinstance(times, int) or times < 0:
        raise PatternError("times", "must be a whole number >= 0 (or None: at least once)")
    return times


def assert_requested(journal: Journal, pattern: RequestPattern, times: int | None) -> list[dict[str, Any]]:
    """The matching entries; AssertionError with the near misses unless their number is ``times``
    (None: at least one)."""
    __tracebackhide__ = True  # pytest shows the test's line, not this one
    found = search(journal, pattern)
    if (found.count >= 1) if times is None else (found.count == times):
        return [journal.entry(record) for record in found.matches]
    raise AssertionError(verification_report(journal, found, expectation(times)))
