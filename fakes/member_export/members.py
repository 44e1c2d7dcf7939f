"""Members and their tokens: who exists, where, what each domain holds and when it is built.

Also the service's error helpers and the limits of control-plane inputs, shared by the model's parts.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from fakes.kernel.clock import MAX_EPOCH_MS
from fakes.kernel.errors import ServiceError
from fakes.kernel.statecheck import StateReader, check_integer, check_text, refuse

from .action_plan import ActionPlan
from .changelog import Changelog
from .data import MemberSeed, Person, Row
from .domains import DOMAIN_ORDER, DOMAINS, SERVED_DOMAINS

NO_DATA = "No data found for this memberId"
REGION = re.compile(r"[A-Za-z]{2}")
MAX_NAME = 200
MAX_DOMAIN_SIZE = 10_000_000
MAX_SECONDS = 100 * 366 * 86_400      # anything longer is surely a typo
FALLBACK_CONTACTS = 20                # people to message when the member has no connections
PAGE_CACHE_SIZE = 256

# serviceErrorCode values seen in public captures of the real API (reference, section A).
SERVICE_ERROR_GENERIC = 100
SERVICE_ERROR_EMPTY_TOKEN = 401
SERVICE_ERROR_INVALID_TOKEN = 65600
SERVICE_ERROR_EXPIRED_TOKEN = 65602
SERVICE_ERROR_REVOKED_TOKEN = 65601
SERVICE_ERROR_THROTTLED = 101


class Clock(Protocol):
    def now_ms(self) -> int: ...


def bad_request(message: str) -> ServiceError:
    return ServiceError(400, message, service_error_code=SERVICE_ERROR_GENERIC)


def no_data() -> ServiceError:
    return ServiceError(404, NO_DATA, service_error_code=SERVICE_ERROR_GENERIC)


def control_error(status: int, message: str, code: str) -> ServiceError:
    return ServiceError(status, message, code=code)


@dataclass
class Member:
    id: str
    region: str
    me: Person
    created_ms: int
    sizes: dict[str, int]          # generated records per domain (actions add more)
    build_times: dict[str, float]  # seconds from consent until each domain is available
    application: str
    contact_count: int
    seed: int
    regulated_at: int | None = None
    appended: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # rows added by actions
    changelog: Changelog = field(default_factory=Changelog)
    last_poll_ms: int | None = None
    last_poll_full: bool = False
    end_of_paging: dict[str, int] = field(default_factory=dict)  # domain or "*" -> start that was past the end
    reported_total: dict[str, int] = field(default_factory=dict)  # domain or "*" -> the last total answered
    last_poll_window: tuple[int, int] | None = None  # (startTime, count) of the previous changelog poll
    # domain or "*" -> (start, total, pages, instant) of a page after which a client paging by total stops (paging.py)
    stopped_at: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)
    items: dict[str, dict[str, Any]] = field(default_factory=dict)  # what actions created, for edits/deletes
    profile_edits: dict[str, str] = field(default_factory=dict)      # PROFILE column -> value edited
    revision: int = 0  # counts edits and removals of snapshot rows (appends change the row count)

    def __post_init__(self) -> None:
        self.view = MemberSeed(self.seed, self.id, self.me, self.created_ms, self.sizes, self.contact_count)
        self._ready_order: list[tuple[int, str]] | None = None

    @property
    def urn(self) -> str:
        return self.me.urn

    def start_archiving(self, now_ms: int) -> None:
        self.regulated_at = now_ms
        self._ready_order = None

    def ready_at(self, domain: str) -> int | None:
        if self.regulated_at is None:
            return None
        return self.regulated_at + round(self.build_times[domain] * 1000)

    def ready_order(self) -> list[tuple[int, str]]:
        """Served domains by build completion: "all domains" paging appends, never reshuffles."""
        if self._ready_order is None:
            self._ready_order = sorted(
                ((self.ready_at(d) or 0, d) for d in SERVED_DOMAINS), key=lambda p: (p[0], DOMAIN_ORDER[p[1]]))
        return self._ready_order

    def to_state(self) -> dict[str, Any]:
        return {
            "id": self.id, "region": self.region, "created_ms": self.created_ms,
            "me": {"first": self.me.first, "last": self.me.last, "urn_id": self.me.urn_id, "slug": self.me.slug},
            "sizes": self.sizes, "build_times": self.build_times, "application": self.application,
            "contact_count": self.contact_count, "regulated_at": self.regulated_at, "appended": self.appended,
            "events": self.changelog.to_state(), "last_poll_ms": self.last_poll_ms,
            "last_poll_full": self.last_poll_full, "end_of_paging": self.end_of_paging,
            "reported_total": self.reported_total,
            "last_poll_window": list(self.last_poll_window) if self.last_poll_window else None,
            "stopped_at": {key: list(note) for key, note in self.stopped_at.items()},
            "items": self.items, "profile_edits": self.profile_edits, "revision": self.revision,
        }

    def apply(self, plan: ActionPlan, now_ms: int) -> Row | None:
        """An action's snapshot effect and item bookkeeping; the record it added, changed or removed."""
        record: Row | None = None
        rows = self.appended.setdefault(plan.domain, []) if plan.domain else []
        if plan.effect == "append" and plan.row is not None:
            entry: dict[str, Any] = {"time_ms": now_ms, "row": plan.row}
            if plan.item is not None:
                entry["item"] = plan.item
            rows.append(entry)
            record = plan.row
        elif plan.effect in ("update", "remove"):
            for index, entry in enumerate(rows):
                if entry.get("item") == plan.item:
                    record = entry["row"]
                    if plan.effect == "remove":
                        del rows[index]
                    else:  # a new dict: pages already cached keep the rows they were made of
                        record = entry["row"] = {**entry["row"], **(plan.row or {})}
                    break
            self.revision += 1
        elif plan.effect == "profile" and plan.row is not None:
            self.profile_edits.update(plan.row)
            self.revision += 1
            record = dict(plan.row)
        if plan.domain and not rows:
            del self.appended[plan.domain]
        if plan.item is not None:
            if plan.effect == "remove":
                self.items.pop(plan.item, None)
            elif plan.item_info is not None:
                self.items.setdefault(plan.item, {}).update(plan.item_info)
        return record

    @classmethod
    def from_state(cls, read: StateReader, *, seed: int, time_field: str) -> Member:
        """A member from an imported state, every field validated (StateError names the field)."""
        read.only(MEMBER_STATE_FIELDS)
        me = read.object("me").only(("first", "last", "urn_id", "slug"))
        person = Person(first=me.text("first", max_length=MAX_NAME), last=me.text("last", max_length=MAX_NAME),
                        urn_id=me.text("urn_id", max_length=64, pattern=ID_PATTERN),
                        slug=me.text("slug", max_length=2 * MAX_NAME + 20))
        sizes_read = read.object("sizes").only(DOMAINS)
        sizes = {d: sizes_read.integer(d, minimum=0, maximum=MAX_DOMAIN_SIZE) for d in DOMAINS}
        builds_read = read.object("build_times").only(DOMAINS)
        build_times = {d: builds_read.number(d, minimum=0, maximum=MAX_SECONDS) for d in DOMAINS}
        appended_read = read.object("appended").only(DOMAINS)
        appended: dict[str, list[dict[str, Any]]] = {}
        for domain in appended_read.value:
            rows = []
            for item in appended_read.objects(domain):
                item.only(("time_ms", "row", "item"))
                row = item.mapping("row")
                for column, cell in row.items():
                    check_text(cell, f"{item.where('row')}.{column}", max_length=MAX_CELL)
                entry = {"time_ms": item.integer("time_ms", minimum=0, maximum=MAX_EPOCH_MS), "row": dict(row)}
                if item.has("item"):
                    entry["item"] = item.text("item", min_length=1, max_length=MAX_ITEM)
                rows.append(entry)
            appended[domain] = rows
        changelog = Changelog(time_field)
        events = [read_event(event) for event in read.objects("events")]
        times = [event[time_field] for event in events]
        if len(set(times)) != len(times):
            refuse(read.where("events"), f"holds two events with one {time_field} (it is unique per member)")
        changelog.load_state(events)
        paging_read = read.object("end_of_paging").only([*DOMAINS, "*"])
        end_of_paging = {key: paging_read.integer(key, minimum=0, maximum=2**31 - 1) for key in paging_read.value}
        # client history the rules read; states exported before the rules had none
        totals_read = (read.object("reported_total") if read.value.get("reported_total") is not None
                       else StateReader({}, read.where("reported_total"))).only([*DOMAINS, "*"])
        reported_total = {key: totals_read.integer(key, minimum=0, maximum=2**31 - 1) for key in totals_read.value}
        window = read.value.get("last_poll_window")
        if window is not None and (not isinstance(window, list) or len(window) != 2):
            refuse(read.where("last_poll_window"), "must be [startTime, count] or null")
        last_poll_window = None if window is None else (
            check_integer(window[0], read.where("last_poll_window[0]"), minimum=0),
            check_integer(window[1], read.where("last_poll_window[1]"), minimum=0, maximum=2**31 - 1))
        stopped_at = _stopped_at(read)
        return cls(
            id=read.text("id", max_length=64, pattern=ID_PATTERN), region=read.text("region", pattern="[A-Z]{2}"),
            me=person, created_ms=read.integer("created_ms", minimum=0, maximum=MAX_EPOCH_MS),
            sizes=sizes, build_times=build_times, application=read.text("application", max_length=200),
            contact_count=read.integer("contact_count", minimum=1, maximum=MAX_DOMAIN_SIZE), seed=seed,
            regulated_at=read.integer("regulated_at", minimum=0, maximum=MAX_EPOCH_MS, nullable=True),
            appended=appended, changelog=changelog,
            last_poll_ms=read.integer("last_poll_ms", minimum=0, maximum=MAX_EPOCH_MS, nullable=True),
            last_poll_full=read.boolean("last_poll_full"), end_of_paging=end_of_paging,
            reported_total=reported_total, last_poll_window=last_poll_window, stopped_at=stopped_at,
            **_edits_from_state(read),
        )


def _edits_from_state(read: StateReader) -> dict[str, Any]:
    """items, profile_edits and revision of an imported member (states made before edits lack them)."""
    items: dict[str, dict[str, Any]] = {}
    if read.has("items"):
        items_read = read.object("items")
        for key in items_read.value:
            check_text(key, items_read.path, min_length=1, max_length=MAX_ITEM)
            info = items_read.object(key)
            info.text("kind", max_length=40, pattern="[a-z_]+")
            items[key] = dict(info.check_json())
    edits: dict[str, str] = {}
    if read.has("profile_edits"):
        edits_read = read.object("profile_edits").only(column for column, _ in DOMAINS["PROFILE"].columns)
        edits = {column: edits_read.text(column, max_length=MAX_CELL) for column in edits_read.value}
    revision = read.integer("revision", minimum=0, maximum=2**40) if read.has("revision") else 0
    return {"items": items, "profile_edits": edits, "revision": revision}


MEMBER_STATE_FIELDS = ("id", "region", "created_ms", "me", "sizes", "build_times", "application", "contact_count",
                       "regulated_at", "appended", "events", "last_poll_ms", "last_poll_full", "end_of_paging",
                       "reported_total", "last_poll_window", "stopped_at", "items", "profile_edits", "revision")
ID_PATTERN = r"[A-Za-z0-9_-]{1,64}"
MAX_CELL = 100_000
MAX_ITEM = 200
MAX_EVENT_ID = 2**53


def _stopped_at(read: StateReader) -> dict[str, tuple[int, int, int, int]]:
    """The paging notes of an imported member (paging.py); states exported before them have none."""
    if read.value.get("stopped_at") is None:
        return {}
    notes = read.object("stopped_at").only([*DOMAINS, "*"])
    found = {}
    for key in notes.value:
        where = notes.where(key)
        note = notes.value[key]
        if not isinstance(note, list) or len(note) != 4:
            refuse(where, "must be [start, total, pages, instant]")
        start, total, pages = (check_integer(note[i], f"{where}[{i}]", minimum=0, maximum=2**31 - 1) for i in range(3))
        if not start + 1 < pages:
            refuse(where, f"holds start {start} of {pages} pages: a note is of a page before the last")
        found[key] = (start, total, pages, check_integer(note[3], f"{where}[3]", minimum=0, maximum=MAX_EPOCH_MS))
    return found


def read_event(read: StateReader) -> dict[str, Any]:
    """A changelog event of an imported state: its instants and id checked, the rest any JSON."""
    event = dict(read.check_json())  # the whole event can be written back
    event["id"] = read.integer("id", minimum=0, maximum=MAX_EVENT_ID)
    for name in ("capturedAt", "processedAt"):
        event[name] = read.integer(name, minimum=0, maximum=2**62)
    return event


def _domain_numbers(value: Any, name: str, *, upper: float, integers: bool) -> dict[str, float]:
    """Validate a ``{"DOMAIN": number}`` control-plane object."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise control_error(400, f"'{name}' must be an object mapping domain names to numbers", "invalid_member")
    checked: dict[str, float] = {}
    for domain, number in value.items():
        if domain not in DOMAINS:
            raise control_error(400, f"'{name}' names an unknown domain {domain!r}", "invalid_member")
        kinds = (int,) if integers else (int, float)
        if isinstance(number, bool) or not isinstance(number, kinds) or not 0 <= number <= upper:
            kind = "whole number" if integers else "number"
            raise control_error(400, f"'{name}.{domain}' must be a {kind} from 0 to {upper:g}", "invalid_member")
        checked[domain] = number
    return checked


@functools.lru_cache(maxsize=16)
def upper_regions(regions: tuple[str, ...]) -> frozenset[str]:
    """The eligible regions as one set for every model of these settings (every world's)."""
    return frozenset(region.upper() for region in regions)


_MAPPINGS: dict[tuple[tuple[str, Any], ...], dict[str, Any]] = {}


def shared_mapping(values: dict[str, Any]) -> dict[str, Any]:
    """One dict for every member with these values (a world's first member is every world's):
    members never change their sizes and build times once made."""
    key = tuple(values.items())
    found = _MAPPINGS.get(key)
    if found is None:
        if len(_MAPPINGS) >= 4096:
            _MAPPINGS.clear()
        found = _MAPPINGS[key] = values
    return found
