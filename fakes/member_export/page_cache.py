"""Rendered bytes of snapshot pages, kept while they cannot change.

A built domain's page is a pure function of the member's state (consent instant, records added by
actions) and, for the all-domains view, of which domains are built by now. So the JSON of a page
answered once can be answered again byte for byte until one of these changes:

- the member's state: its consent instant or the number of records its actions appended (actions
  only ever append), compared on every hit (:func:`member_fingerprint`);
- the clock crossing an instant (:func:`page_valid_until`): the next domain finishing its build
  (all-domains view); for INVITATIONS, whose six-month window slides with the clock (and the
  all-domains view once it is built), its oldest visible record leaving the window;
- the model itself: reset and state import build a new model with new member objects, and an
  entry only answers for the very member object it was rendered for.

Only 200 answers are kept, keyed by the exact query string: the same query bytes pass the same
parameter checks, so a hit skips parsing, the model's paging and JSON encoding (about two thirds
of a snapshot request's time in the app; see docs/benchmark.md). The version and token checks still
run on every request (a token expires with the clock). A page whose domain has an end-of-paging
marker is never answered from here, so the model sees the request and can clear the marker; nor is
any page of a member with a paging note (paging.py), and the noted page itself is never kept.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any, NamedTuple

from starlette.responses import Response

from .members import Member

NEVER = 2**63  # an instant no clock reaches
INVITATIONS = "INVITATIONS"  # its visible records depend on the clock (a sliding window)
CACHE_SIZE = 512


def member_fingerprint(member: Member) -> tuple[int | None, int, int]:
    """What of the member's state a built page depends on: consent instant, appended records and
    the edits and removals of records."""
    return member.regulated_at, sum(len(rows) for rows in member.appended.values()), member.revision


def page_valid_until(member: Member, domain: str | None, now: int, invitations_until: Callable[[], int]) -> int:
    """The first instant at which a page answered at ``now`` may read differently (``now``: never
    keep it). A single built domain never changes with time alone, except INVITATIONS, which
    changes when its oldest visible record leaves the window (``invitations_until()``, the
    model's); the all-domains view changes then too, once INVITATIONS is built, and when the next
    domain finishes its build."""
    if domain is not None:
        return invitations_until() if domain == INVITATIONS else NEVER
    until = NEVER
    for ready_at, name in member.ready_order():
        if ready_at > now:
            return min(until, ready_at)
        if name == INVITATIONS:
            until = invitations_until()
    return until


class PreparedResponse(Response):
    """A 200 JSON answer from bytes and a header list made once (what ``JSONResponse`` would send,
    without building its headers again per request)."""

    media_type = "application/json"

    def __init__(self, body: bytes, raw_headers: list[tuple[bytes, bytes]]) -> None:
        self.status_code = 200
        self.body = body
        self.background = None
        self.raw_headers = list(raw_headers)  # a copy: whoever sends it may add headers


def json_headers(body: bytes) -> list[tuple[bytes, bytes]]:
    """The headers Starlette gives a JSON body, in its order."""
    return [(b"content-length", str(len(body)).encode("latin-1")), (b"content-type", b"application/json")]


class _Entry(NamedTuple):
    member: Member
    fingerprint: tuple[int | None, int, int]
    valid_until: int
    marker_key: str
    body: bytes
    raw_headers: list[tuple[bytes, bytes]]


class RenderedPages:
    """A bounded LRU of rendered snapshot pages: (member id, query string, mount prefix) -> bytes."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._entries: OrderedDict[tuple[str, bytes, str], _Entry] = OrderedDict()
        self.hits = 0

    def get(self, member: Member, query: bytes, prefix: str, now: int) -> Response | None:
        key = (member.id, query, prefix)
        entry = self._entries.get(key)
        if entry is None:
            return None
        if (entry.member is not member or now >= entry.valid_until or entry.marker_key in member.end_of_paging
                or member.stopped_at or entry.fingerprint != member_fingerprint(member)):
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        self.hits += 1
        return PreparedResponse(entry.body, entry.raw_headers)

    def put(self, member: Member, query: bytes, prefix: str, domain: str | None, now: int, body: bytes,
            invitations_until: Callable[[], int]) -> tuple[Response, bool]:
        """Keep ``body`` if the page can be kept: the response to send, and whether it was kept."""
        headers = json_headers(body)
        valid_until = page_valid_until(member, domain, now, invitations_until)
        kept = valid_until > now and (domain or "*") not in member.stopped_at  # a noted page: the model sees each ask
        if kept:
            self._entries[(member.id, query, prefix)] = _Entry(member, member_fingerprint(member), valid_until,
                                                               domain or "*", body, headers)
            if len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return PreparedResponse(body, headers), kept

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def describe(self) -> dict[str, Any]:
        return {"entries": len(self._entries), "hits": self.hits}
