"""What every journal of the process keeps, together, within one budget (``--journal-total-bytes``).

Each journal (a fake's, each world's) keeps at most its ``--journal-bytes``; a server holding a
thousand worlds of five fakes could still hold thousands of them. The pool counts what they all
keep and, past ``total_bytes``, makes the largest ones shed (their oldest entries' headers and
bodies first, then their oldest entries) until the whole is back under seven eighths of the
budget: the journals that hold the most give the most back, the newest entry of each stays.

A journal is only changed by the thread that serves its fake (one event loop in ``fakes serve``);
one served by another thread (tests serving several fakes, each on its own thread) is asked to
shed at its next request instead. Memory a journal gives back (a deleted world's, a cleared
journal's) is handed back to the system once enough has been freed (glibc's ``malloc_trim``:
freed memory otherwise stays with the process, and deleting worlds gave nothing back).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import threading
import weakref
from typing import Any, Protocol

#: what all journals of the process keep at most, unless FAKES_JOURNAL_TOTAL_BYTES or
#: ``set_total_bytes`` (``fakes serve --journal-total-bytes``) says otherwise
DEFAULT_TOTAL_BYTES = 256 * 1024 * 1024
ENV_TOTAL_BYTES = "FAKES_JOURNAL_TOTAL_BYTES"
#: freed bytes after which the process hands free memory back to the system
TRIM_AFTER_BYTES = 16 * 1024 * 1024


class PooledJournal(Protocol):
    """What the pool reads and asks of a journal."""

    @property
    def kept_bytes(self) -> int: ...

    def shed_to(self, target: int) -> None: ...

    def shed_later(self, target: int) -> None: ...


class JournalPool:
    """The journals of the process and what they keep together (see the module)."""

    def __init__(self) -> None:
        self.kept = 0  # kept bytes of every journal; recounted whenever the pool sheds
        self.total_bytes = DEFAULT_TOTAL_BYTES
        self._explicit = False  # set by set_total_bytes (the command line): the environment is not read
        self._journals: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()  # journal -> thread
        self._freed = 0
        self._lock = threading.Lock()

    def set_total_bytes(self, value: int | None) -> None:
        """The budget of every journal together (None: FAKES_JOURNAL_TOTAL_BYTES or the default again)."""
        self._explicit = value is not None
        self.total_bytes = DEFAULT_TOTAL_BYTES if value is None else value
        if value is None:
            self.from_env()

    def from_env(self) -> None:
        """Read FAKES_JOURNAL_TOTAL_BYTES again (each new fake does), unless the command line set the
        budget; a bad value is a ValueError naming the variable."""
        if not self._explicit:
            self.total_bytes = total_bytes_from_env()

    def join(self, journal: PooledJournal) -> None:
        """``journal`` keeps something now (it is counted from here on, by the calling thread)."""
        with self._lock:
            self._journals[journal] = threading.get_ident()

    def over(self, adding: PooledJournal) -> None:
        """The journals keep more than the budget: the largest shed (see the module)."""
        with self._lock:
            journals = list(self._journals.items())
        self.kept = sum(journal.kept_bytes for journal, _ in journals)
        target = self.total_bytes - (self.total_bytes >> 3)
        excess = self.kept - target
        if excess <= 0:
            return
        level = water_level(sorted((journal.kept_bytes for journal, _ in journals), reverse=True), excess)
        here = threading.get_ident()
        for journal, thread in journals:
            if journal.kept_bytes > level:
                if thread == here or journal is adding:
                    journal.shed_to(level)
                else:
                    journal.shed_later(level)

    def freed(self, size: int) -> None:
        """``size`` bytes a journal let go of: past :data:`TRIM_AFTER_BYTES` of them, trim."""
        self._freed += size
        if self._freed >= TRIM_AFTER_BYTES:
            self._freed = 0
            trim()


def water_level(sizes: list[int], excess: int) -> int:
    """The level above which cutting every size (largest first, ``sizes`` descending) frees
    ``excess`` in all."""
    freed = 0
    for count, size in enumerate(sizes, start=1):
        following = sizes[count] if count < len(sizes) else 0
        step = (size - following) * count
        if freed + step >= excess:
            return max(0, size - (excess - freed + count - 1) // count)
        freed += step
    return 0


def total_bytes_from_env() -> int:
    raw = os.environ.get(ENV_TOTAL_BYTES)
    if not raw:
        return DEFAULT_TOTAL_BYTES
    from .http import InvalidInteger, ascii_int

    try:
        value = ascii_int(raw.strip(), minimum=0, maximum=2**40)
    except InvalidInteger:
        raise ValueError(f"{ENV_TOTAL_BYTES} must be a whole number of bytes from 0 to {2**40}, "
                         f"got {raw!r}") from None
    return value or 2**62  # 0: no budget for all journals together


def trim() -> None:
    """Hand the memory the process freed back to the system (glibc; elsewhere nothing)."""
    malloc_trim = _malloc_trim()
    if malloc_trim is not None:
        malloc_trim(0)


_TRIM: list[Any] = []


def _malloc_trim() -> Any:
    if not _TRIM:
        found = None
        with contextlib.suppress(OSError, AttributeError, TypeError):
            name = ctypes.util.find_library("c")
            found = ctypes.CDLL(name).malloc_trim if name else None
        _TRIM.append(found)
    return _TRIM[0]


POOL = JournalPool()


def set_total_bytes(value: int | None) -> None:
    """``fakes serve --journal-total-bytes N`` (0: no budget for all journals together)."""
    POOL.set_total_bytes(None if value is None else value or 2**62)
