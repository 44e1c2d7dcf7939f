"""A client that stops paging where ``paging.total`` said the data ends, not at the 404.

``total`` is deliberately wrong (2 pages short to 3 pages over). A client that trusts it and stops
after the page ``total`` promised as the last one, while later pages still hold data, silently
loses those rows: it never sees the 404 that ends paging. Whether it stopped is only known later,
so the fake notes such a page and judges it when the client shows what it did next:

* **noted**: a snapshot page answered 200 for a domain (or the all-domains view) at ``start=s``
  where ``s + 1 >= total`` as that page reported it, and the data has more pages than ``s + 1``
  (a client paging by ``total`` asks for nothing after ``s``). Kept per member and domain in the
  member's state (``stopped_at``: start, total, pages, instant), so export and import keep it.
* **cleared**: the next page of that domain (``start=s+1``) is asked for: the client pages on.
  The same page asked for again (a retry) keeps the note.
* **judged** (``member-export/stopped-at-total``, a warning): the same domain asked for at any
  other ``start`` (a new paging sequence), the member's changelog polled (the sync moved on), or
  the fake's verdicts read (``fake.verdicts()``, ``GET /_fake/verdicts``, strict mode, the summary
  of ``fakes serve``) while the note stands. Each note is judged once.

Snapshot pages of other domains judge nothing: a client may page several domains at once.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fakes.kernel.verdicts import Broken

from .members import Member
from .rules import STOPPED_AT_TOTAL

SNAPSHOT_PATH = "/rest/memberSnapshotData"
#: (member id, domain key, start, instant) of notes judged already (not state: verdicts are not either)
Judged = set[tuple[str, str, int, int]]


def before_page(member: Member, key: str, start: int, judged: Judged, broken: Broken) -> None:
    """A snapshot request of ``key`` at ``start``: clears or judges the note of that domain."""
    note = member.stopped_at.get(key)
    if note is None or start == note[0]:
        return
    del member.stopped_at[key]
    if start != note[0] + 1:
        _judge(member, key, note, judged, broken, f"then asked for start={start}")


def after_page(member: Member, key: str, start: int, total: int, pages: int, now: int) -> None:
    """A page answered 200 with ``total`` reported and ``pages`` really there: note it if a client
    paging by ``total`` would stop after it while data remains."""
    if start + 1 >= total and start + 1 < pages:
        member.stopped_at[key] = (start, total, pages, now)
    else:
        member.stopped_at.pop(key, None)


def moved_on(member: Member, judged: Judged, broken: Broken, what: str) -> None:
    """The member's client did something else (``what``): every note of the member is judged."""
    for key, note in list(member.stopped_at.items()):
        del member.stopped_at[key]
        _judge(member, key, note, judged, broken, what)


def _judge(member: Member, key: str, note: tuple[int, int, int, int], judged: Judged, broken: Broken,
           then: str) -> None:
    mark = (member.id, key, note[0], note[3])
    if mark not in judged:
        judged.add(mark)
        broken.append((STOPPED_AT_TOTAL, detail(key, note, then)))


def detail(key: str, note: tuple[int, int, int, int], then: str) -> str:
    start, total, pages, _ = note
    what = "all domains" if key == "*" else key
    more = pages - start - 1
    return (f"stopped paging {what} after start={start}, the last page paging.total={total} promised, {then}; "
            f"{more} more page{'' if more == 1 else 's'} had data (start={start + 1}..{pages - 1}): "
            "page until the 404")


def pending(members: Iterator[Member], judged: Judged) -> list[tuple[str, dict[str, Any]]]:
    """The notes not judged yet, judged now (a read of the verdicts): (detail, offending request)."""
    found = []
    for member in members:
        for key, note in member.stopped_at.items():
            mark = (member.id, key, note[0], note[3])
            if mark in judged:
                continue
            judged.add(mark)
            query = f"q=criteria&domain={key}&start={note[0]}" if key != "*" else f"q=criteria&start={note[0]}"
            found.append((detail(key, note, "and nothing after it yet"),
                          {"method": "GET", "path": SNAPSHOT_PATH, "query": query, "status": 200,
                           "epoch_ms": note[3]}))
    return found
