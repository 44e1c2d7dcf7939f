"""Consecutive entries that keep the same headers and bodies (a client repeating a request and
answered the same, a cached page) hold one settled tuple, counted once, with the newest of them
(fakes/kernel/journal.py, fakes/kernel/exchange.py ``Settled``): a fake answering a 52 KB page kept
a thousand entries of it in the memory of one, yet counted each, so that its byte budget dropped
an entry's details on every request."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fakes.kernel import journalpool
from fakes.kernel.exchange import COST, ENTRY_COST, Exchange
from fakes.kernel.journal import DROPPED, Journal

PAGE = bytes(range(256)) * 200  # 51,200 bytes: cut to the journal's body limit, the same cut each time


async def _receive() -> dict[str, Any]:
    return {"type": "http.request", "body": b"", "more_body": False}


async def _send(message: dict[str, Any]) -> None:
    return None


def exchange(journal: Journal, body: bytes, header: bytes = b"h") -> Exchange:
    """What the journal's exchange holds once a GET was answered ``body``."""
    recorded = journal.exchange({"method": "GET", "headers": [(b"host", header)]}, _receive, _send, 1 << 20)
    recorded.status = 200
    recorded.response_headers = [(b"content-type", b"application/json")]
    recorded.response_body = body
    recorded.response_length = len(body)
    return recorded


def check_counts(journal: Journal) -> None:
    """Each entry counts its own bytes, and the details it keeps unless the next entry keeps the
    very same (then the newest of them counts them); the journal counts what its entries count."""
    slots = list(journal._kept())
    for position, slot in enumerate(slots):
        _, path, query = journal._request[slot]
        own = ENTRY_COST + len(path) + len(query) + sum(map(len, journal._warnings[slot]))
        held = journal._exchange[slot]
        after = journal._exchange[slots[position + 1]] if position + 1 < len(slots) else None
        details = held[COST] if isinstance(held, tuple) and after is not held else 0
        assert journal._cost[slot] == own + details, (position, journal._cost[slot], own, details)
    assert journal.kept_bytes == sum(journal._cost[slot] for slot in slots)


def test_a_page_sent_again_is_kept_and_counted_once_and_no_details_are_dropped() -> None:
    journal = Journal(100)  # the default 2 MiB budget: a hundred 16 KiB cuts counted each would not fit
    for n in range(350):
        # the same page; every other time an equal copy (another object with the same bytes)
        journal.add("GET", "/filings/", "", 200, 0, (), exchange(journal, PAGE if n % 2 else bytes(bytearray(PAGE))))
    check_counts(journal)
    kept = {id(record.exchange) for record in journal.records()}
    assert len(kept) == 1  # one tuple for the hundred entries
    assert journal.kept_bytes < 100 * ENTRY_COST + 2 * journal.body_bytes
    entries = journal.entries()
    assert len(entries) == 100 and not any(e.get("details_dropped") for e in entries)
    assert all(e["response"]["body_length"] == len(PAGE) and e["response"]["body_truncated"] for e in entries)
    journal.clear()
    assert journal.kept_bytes == 0


def test_shared_details_go_with_the_last_entry_that_keeps_them() -> None:
    """Past the budget the oldest entries lose their details first; the page they share is counted
    until the newest of them loses it, and another page is counted on its own."""
    journal = Journal(1000, body_bytes=4096, total_bytes=40_000)
    other = bytes(reversed(PAGE))
    for n in range(200):
        journal.add("GET", "/p", "", 200, n, (), exchange(journal, PAGE if n < 100 else other))
        check_counts(journal)
        assert journal.kept_bytes <= 40_000
    records = list(journal.records())
    dropped = [r.seq for r in records if r.exchange == DROPPED]
    kept = [r for r in records if isinstance(r.exchange, tuple)]
    assert dropped and max(dropped) < min(r.seq for r in kept)
    assert {r.exchange[4] for r in kept} == {other[:4096]}  # type: ignore[index]  # the first page went


def test_a_change_is_kept_as_its_own_details() -> None:
    journal = Journal(10)
    for header in (b"a", b"a", b"b", b"a"):
        journal.add("GET", "/s", "", 200, 0, (), exchange(journal, b"small", header))
    held = [record.exchange for record in journal.records()]
    assert held[0] is held[1] and held[1] is not held[2] and held[2] is not held[3]
    assert [e["request"]["headers"]["host"] for e in journal.entries()] == ["a", "a", "b", "a"]
    check_counts(journal)


BODIES = [PAGE, bytes(reversed(PAGE)), b"s" * 100, b"", b"y" * 3000]


@settings(max_examples=80, deadline=None, database=None, derandomize=True)
@given(size=st.integers(1, 9), total=st.sampled_from([0, 3000, 9000, 40_000, 2**20]),
       steps=st.lists(st.one_of(st.sampled_from(range(len(BODIES))), st.just("clear"), st.just("shed"),
                                st.just("bare")), max_size=60))
def test_the_counts_stay_true_whatever_happens(size: int, total: int, steps: list[object]) -> None:
    journal = Journal(size, body_bytes=2048, total_bytes=total)
    pooled = journalpool.POOL.kept
    for step in steps:
        if step == "clear":
            journal.clear()
        elif step == "shed":
            journal.shed_to(journal.kept_bytes // 2)
        elif step == "bare":  # an entry without details (a dict entry, an MCP call) between equal ones
            journal.add("MCP", "/mcp/tools/x", "", 200, 0)
        else:
            assert isinstance(step, int)
            journal.add("GET", "/x", "", 200, 0, (), exchange(journal, BODIES[step]))
            assert total == 0 or journal.kept_bytes <= total or len(journal) == 1
        check_counts(journal)
    assert journalpool.POOL.kept - pooled == journal.kept_bytes  # the pool counted the same
    journal.release()
    assert journal.kept_bytes == 0
