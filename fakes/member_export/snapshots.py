"""Snapshot paging: one page of a domain, or of all built domains in build order, 404 past the end."""

from __future__ import annotations

import functools
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from fakes.kernel.verdicts import Broken

from .data import DAY_MS, DataGenerator, Row, mix, record_time_ms
from .domains import DOMAINS, UNSUPPORTED_DOMAINS
from .members import NO_DATA, PAGE_CACHE_SIZE, Clock, Member, bad_request, no_data
from .page_cache import INVITATIONS, NEVER, member_fingerprint
from .paging import Judged, after_page, before_page
from .rules import PAGING_PAST_404, RELYING_ON_TOTAL
from .settings import MemberExportSettings

READY_PAGES_KEPT = 256


@dataclass
class SnapshotPage:
    domain: str
    start: int
    records: list[Row]
    page_size: int
    total: int          # deliberately unreliable, as documented: never the true page count
    has_previous: bool
    rows_key: tuple[Any, ...] | None = None  # where the model keeps its rows (see rows_rendered)


class SnapshotReads:
    """The snapshot half of :class:`~fakes.member_export.model.MemberExportModel`."""

    clock: Clock
    settings: MemberExportSettings
    seed: int
    gen: DataGenerator
    judged_stops: Judged
    _pages: OrderedDict[tuple[Any, ...], list[Row]]
    #: (member id, its fingerprint, instant) -> its built domains in build order with their page counts
    _ready_pages: dict[tuple[Any, ...], list[tuple[str, int]]]

    def record_count(self, member: Member, domain: str, now: int) -> tuple[int, list[dict[str, Any]]]:
        """(generated records visible now, appended records visible now) of a domain."""
        generated = member.sizes[domain]
        appended = member.appended.get(domain, [])
        if domain == INVITATIONS:  # only the last six months exist
            cutoff = now - self.settings.invitation_history_days * DAY_MS
            generated = self.gen.newer_than(member.view, domain, cutoff)
            appended = [item for item in appended if item["time_ms"] >= cutoff]
        return generated, appended

    def invitations_until(self, member: Member, now: int) -> int:
        """The first instant after ``now`` at which INVITATIONS shows fewer records - its oldest
        visible one, generated or appended, leaves the window - or NEVER when none is visible (only
        new records change it then, and they change the member's fingerprint)."""
        window = self.settings.invitation_history_days * DAY_MS
        cutoff = now - window
        oldest = NEVER
        visible = self.gen.newer_than(member.view, INVITATIONS, cutoff)
        if visible:
            oldest = record_time_ms(member.view, INVITATIONS, visible - 1)  # newest first: the last is the oldest
        for item in member.appended.get(INVITATIONS, ()):
            if cutoff <= item["time_ms"] < oldest:
                oldest = item["time_ms"]
        return NEVER if oldest == NEVER else oldest + window + 1

    def visible_records(self, member: Member, domain: str, now: int) -> int:
        """How many records a full paging of ``domain`` returns now, once it is built."""
        generated, appended = self.record_count(member, domain, now)
        return generated + len(appended)

    def snapshot(self, member: Member, domain: str | None, start: int, broken: Broken) -> SnapshotPage:
        """One page of a domain (or of all built domains in build order); 404 past the end.

        Client rules broken on the way are appended to ``broken`` (paging past the 404, by total)."""
        if domain is not None:
            if domain in UNSUPPORTED_DOMAINS:
                raise bad_request(f"Domain {domain} is not supported")
            if domain not in DOMAINS:
                raise bad_request(f"Invalid domain {domain!r}: domains are case sensitive, e.g. PROFILE, INBOX")
        if start < 0:
            raise bad_request("start must be a non-negative integer")
        if member.regulated_at is None:
            raise no_data()
        now = self.clock.now_ms()
        marker_key = domain or "*"
        before_page(member, marker_key, start, self.judged_stops, broken)  # stopping at total (paging.py)
        if domain is None:
            located = self._locate(member, start, now)
        else:
            ready_at = member.ready_at(domain)
            if ready_at is None or now < ready_at:
                raise no_data()  # still being built: the same answer as the end of paging
            located = (domain, start)
        rows, rows_key = self._page_rows(member, *located, now) if located is not None else ([], None)
        marker = member.end_of_paging.get(marker_key)
        if located is None or not rows:
            if marker is not None and start > marker:
                broken.append((PAGING_PAST_404, f"start={start} requested after start={marker} answered 404 "
                                                f"'{NO_DATA}' for {marker_key}; stop paging at the first 404"))
                promised = member.reported_total.get(marker_key, 0)
                if start < promised:
                    broken.append((RELYING_ON_TOTAL, f"start={start} is below the reported total {promised} of "
                                                     f"{marker_key}, after start={marker} answered 404"))
            member.end_of_paging[marker_key] = start if marker is None else min(marker, start)
            raise no_data()
        if marker is not None and start >= marker:
            del member.end_of_paging[marker_key]  # new records moved the end
        if domain is None:
            pages = sum(count for _, count in self._built_pages(member, now))
        else:
            pages = self._pages_of(member, domain, now)
        total = max(0, pages + _total_skew(self.seed, member.id, marker_key))
        member.reported_total[marker_key] = total  # what a client relying on total would page up to
        after_page(member, marker_key, start, total, pages, now)
        return SnapshotPage(located[0], start, rows, self.settings.page_size, total, start > 0, rows_key)

    def rows_rendered(self, page: SnapshotPage) -> None:
        """The page's bytes are kept until it can change (page_cache.py): its rows need not be, and
        a world that read one page keeps one copy of it, not two."""
        if page.rows_key is not None:
            self._pages.pop(page.rows_key, None)

    def _pages_of(self, member: Member, domain: str, now: int) -> int:
        return -(-self.visible_records(member, domain, now) // self.settings.page_size)

    def _built_pages(self, member: Member, now: int) -> list[tuple[str, int]]:
        """The domains built by ``now`` in build order, with their page counts: worked out once per
        member state and instant (the all-domains view asks on every page, over some 60 domains)."""
        key = (member.id, member_fingerprint(member), now)
        found = self._ready_pages.get(key)
        if found is None:
            found = [(name, self._pages_of(member, name, now)) for ready_at, name in member.ready_order()
                     if ready_at <= now]
            if len(self._ready_pages) >= READY_PAGES_KEPT:
                self._ready_pages.clear()
            self._ready_pages[key] = found
        return found

    def _locate(self, member: Member, start: int, now: int) -> tuple[str, int] | None:
        """Global page ``start`` of the all-domains view -> (domain, page within it)."""
        remaining = start
        for name, pages in self._built_pages(member, now):
            if remaining < pages:
                return name, remaining
            remaining -= pages
        return None

    def _page_rows(self, member: Member, domain: str, page: int,
                   now: int) -> tuple[list[Row], tuple[Any, ...] | None]:
        """The page's rows and the key they are kept under (None: no rows)."""
        generated, appended = self.record_count(member, domain, now)
        size = self.settings.page_size
        first, last = page * size, min((page + 1) * size, generated + len(appended))
        if first >= last:
            return [], None
        key = (member.id, domain, page, generated, len(appended), member.revision)
        cached = self._pages.get(key)
        if cached is not None:
            self._pages.move_to_end(key)
            return cached, key
        rows = [self.gen.record(member.view, domain, i) if i < generated else appended[i - generated]["row"]
                for i in range(first, last)]
        if domain == "PROFILE" and member.profile_edits:  # the member edited the profile: over the generated
            rows = [{**row, **member.profile_edits} if i < generated else row
                    for i, row in zip(range(first, last), rows, strict=True)]
        self._pages[key] = rows
        if len(self._pages) > PAGE_CACHE_SIZE:
            self._pages.popitem(last=False)
        return rows, key


@functools.lru_cache(maxsize=4096)
def _total_skew(seed: int, member_id: str, domain_key: str) -> int:
    """Stable and never zero: ``total`` is 2 pages short to 3 pages over, so no client can trust it."""
    return (-2, -1, 1, 2, 3)[mix(seed, member_id, domain_key, "total") % 5]
