"""State and rules of the member data export fake: members, tokens, consent, builds, changelog.

Plain Python, no HTTP: every instant comes from the clock and every transition is evaluated when
asked (a domain "is built" when ``now >= regulatedAt + build time``; nothing runs in the
background). Generated snapshot records are never stored, only what actions added.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import hashlib
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import quote

from fakes.kernel.errors import ServiceError

from .actions import plan_action
from .changelog import Changelog, Event
from .data import DAY_MS, DataGenerator, MemberSeed, Person, Row, mix, person_urn_id
from .domains import DOMAIN_ORDER, DOMAINS, SERVED_DOMAINS, UNSUPPORTED_DOMAINS
from .settings import MemberExportSettings

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


class Clock(Protocol):
    def now_ms(self) -> int: ...


def bad_request(message: str) -> ServiceError:
    return ServiceError(400, message, service_error_code=SERVICE_ERROR_GENERIC)


def no_data() -> ServiceError:
    return ServiceError(404, NO_DATA, service_error_code=SERVICE_ERROR_GENERIC)


def control_error(status: int, message: str, code: str) -> ServiceError:
    return ServiceError(status, message, code=code)


@dataclass
class Token:
    member_id: str
    application: str
    issued_ms: int
    expires_ms: int
    scope: str

    def to_state(self) -> dict[str, Any]:
        return dict(vars(self))


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
        }

    @classmethod
    def from_state(cls, state: dict[str, Any], *, seed: int, time_field: str) -> Member:
        changelog = Changelog(time_field)
        changelog.load_state(list(state["events"]))
        return cls(
            id=state["id"], region=state["region"], me=Person(**state["me"]), created_ms=int(state["created_ms"]),
            sizes=dict(state["sizes"]), build_times=dict(state["build_times"]), application=state["application"],
            contact_count=int(state["contact_count"]), seed=seed, regulated_at=state["regulated_at"],
            appended={d: list(rows) for d, rows in state["appended"].items()}, changelog=changelog,
            last_poll_ms=state["last_poll_ms"], last_poll_full=bool(state["last_poll_full"]),
            end_of_paging=dict(state["end_of_paging"]),
        )


@dataclass
class SnapshotPage:
    domain: str
    start: int
    records: list[Row]
    page_size: int
    total: int          # deliberately unreliable, as documented: never the true page count
    has_previous: bool


class MemberExportModel:
    def __init__(self, clock: Clock, settings: MemberExportSettings, seed: int = 0) -> None:
        self.clock = clock
        self.settings = settings
        self.seed = seed
        self.gen = DataGenerator(settings.locale)
        self.eligible_regions = frozenset(r.upper() for r in settings.eligible_regions)
        self.members: dict[str, Member] = {}
        self.tokens: dict[str, Token] = {}
        self.counters = {"members": 0, "tokens": 0, "actions": 0, "events": 0}
        self.event_id_base = 978_000_000 + mix(seed, "event-ids") % 1_000_000
        self._pages: OrderedDict[tuple[Any, ...], list[Row]] = OrderedDict()

    # -- members and tokens (control plane) ---------------------------------------------------
    def create_member(
        self, *, region: Any = None, name: Any = None, sizes: Any = None, build_times: Any = None,
    ) -> dict[str, Any]:
        region = self.settings.default_region if region is None else region
        if not isinstance(region, str) or not REGION.fullmatch(region):
            raise control_error(400, "'region' must be a two-letter country code such as DE", "invalid_member")
        if name is not None and (not isinstance(name, str) or not 1 <= len(name) <= MAX_NAME):
            raise control_error(400, f"'name' must be a string of 1 to {MAX_NAME} characters (\"First Last\")",
                                "invalid_member")
        size_overrides = _domain_numbers(sizes, "sizes", upper=MAX_DOMAIN_SIZE, integers=True)
        build_overrides = _domain_numbers(build_times, "build_times", upper=MAX_SECONDS, integers=False)

        number = self.counters["members"]
        self.counters["members"] += 1
        member_id = person_urn_id(self.seed, "member", number)
        resolved_sizes = {}
        for spec in DOMAINS.values():
            low, high = spec.size_range
            drawn = low + mix(self.seed, member_id, spec.name, "size") % (high - low + 1)
            resolved_sizes[spec.name] = int(size_overrides.get(spec.name, self.settings.sizes.get(spec.name, drawn)))
        resolved_builds = {
            spec.name: build_overrides.get(spec.name, self.settings.build_times.get(spec.name, spec.build_s))
            for spec in DOMAINS.values()
        }
        connections = resolved_sizes["CONNECTIONS"]
        me = dataclasses.replace(self.gen.person(self.seed, member_id, "me", name=name), urn_id=member_id)
        member = Member(
            id=member_id, region=region.upper(), me=me,
            created_ms=self.clock.now_ms(), sizes=resolved_sizes, build_times=resolved_builds,
            application=f"urn:li:developerApplication:{200_000 + mix(self.seed, 'app', number) % 800_000}",
            contact_count=connections if connections > 0 else FALLBACK_CONTACTS, seed=self.seed,
            changelog=Changelog(self.settings.changelog_time_field),
        )
        self.members[member_id] = member
        token = self.issue_token(member_id)
        return {"id": member_id, "urn": member.urn, "name": member.me.name, "region": member.region,
                "eligible": self.is_eligible(member), **token,
                "sizes": dict(resolved_sizes), "build_times": dict(resolved_builds)}

    def member(self, member_id: Any) -> Member:
        found = self.members.get(member_id) if isinstance(member_id, str) else None
        if found is None:
            raise control_error(404, f"no member {member_id!r}", "unknown_member")
        return found

    def is_eligible(self, member: Member) -> bool:
        return member.region in self.eligible_regions

    def issue_token(self, member_id: Any, *, expires_in: Any = None, scope: Any = None) -> dict[str, Any]:
        """A fresh access token (OAuth response shape: no refresh token exists)."""
        member = self.member(member_id)
        lifetime = self.settings.token_lifetime_s if expires_in is None else expires_in
        if isinstance(lifetime, bool) or not isinstance(lifetime, int) or not 0 <= lifetime <= MAX_SECONDS:
            raise control_error(400, "'expires_in' must be a whole number of seconds >= 0", "invalid_token")
        scope = self.settings.scope if scope is None else scope
        if not isinstance(scope, str) or len(scope) > 500:
            raise control_error(400, "'scope' must be a string (space-separated scopes)", "invalid_token")
        number = self.counters["tokens"]
        self.counters["tokens"] += 1
        raw = hashlib.blake2b(f"{self.seed}|token|{number}".encode(), digest_size=48).digest()
        access_token = "AQ" + base64.urlsafe_b64encode(raw).decode()  # real tokens start with AQ
        now = self.clock.now_ms()
        self.tokens[access_token] = Token(member.id, member.application, now, now + lifetime * 1000, scope)
        return {"access_token": access_token, "expires_in": lifetime, "scope": scope}

    def consent(self, member_id: Any, *, expires_in: Any = None) -> dict[str, Any]:
        """The member consents (again): archiving starts if it was off, and a new token is issued."""
        member = self.member(member_id)
        if not self.is_eligible(member):
            raise control_error(409, f"member {member.id} is located in {member.region}, outside the EU/EEA and "
                                     "Switzerland, and cannot consent", "not_eligible")
        self.start_archiving(member)
        return {"member_id": member.id, "regulatedAt": member.regulated_at,
                **self.issue_token(member.id, expires_in=expires_in)}

    def start_archiving(self, member: Member) -> None:
        """Idempotent: the first consent fixes ``regulatedAt`` and every domain's build start."""
        if member.regulated_at is None:
            member.start_archiving(self.clock.now_ms())

    def act(self, member_id: Any, action: Any, details: dict[str, Any]) -> dict[str, Any]:
        member = self.member(member_id)
        now = self.clock.now_ms()
        number = self.counters["actions"]
        plan = plan_action(
            action, details, member=member.view, gen=self.gen, n=number, now_ms=now,
            own_delay_s=self.settings.processing_delay_s, reply_delay_s=self.settings.reply_delay_s)
        self.counters["actions"] += 1
        member.appended.setdefault(plan.domain, []).append({"time_ms": now, "row": plan.row})
        event = None
        if member.regulated_at is not None:  # archiving is on: the changelog records it
            event = self._archive(member, plan.resource_name, plan.resource_id, plan.actor, plan.activity,
                                  plan.processed_activity, now, plan.delay_s * 1000)
        return {"action": action, "domain": plan.domain, "record": plan.row, "event": event,
                "visible_at": event["processedAt"] if event else None}

    def _archive(self, member: Member, resource_name: str, resource_id: str, actor: str,
                 activity: dict[str, Any], processed_activity: dict[str, Any], now: int, delay_ms: int) -> Event:
        changelog = member.changelog
        changelog.prune(self.retention_floor(now))
        if changelog.time_field == "processedAt":
            captured, processed = now, changelog.free_instant(now + delay_ms)
        else:
            captured = changelog.free_instant(now)
            processed = captured + delay_ms
        number = self.counters["events"]
        self.counters["events"] += 1
        activity_id = mix(self.seed, "activity", number)
        event: Event = {
            "id": self.event_id_base + number,
            "capturedAt": captured,
            "processedAt": processed,
            "configVersion": 1,
            "owner": member.urn,
            "actor": actor,
            "resourceName": resource_name,
            "resourceId": resource_id,
            "resourceUri": f"/{resource_name}/{quote(resource_id, safe='')}",
            "method": "CREATE",
            "activity": activity,
            "processedActivity": processed_activity,
            "siblingActivities": [],
            "parentSiblingActivities": [],
            "activityId": _uuid(activity_id, number),
            "activityStatus": "SUCCESS",
        }
        changelog.add(event)
        return event

    def member_info(self, member_id: Any) -> dict[str, Any]:
        """Everything a test needs to check a sync against: ids, sizes, build instants, counts now."""
        member = self.member(member_id)
        now = self.clock.now_ms()
        return {
            "id": member.id, "urn": member.urn, "name": member.me.name, "region": member.region,
            "eligible": self.is_eligible(member), "application": member.application,
            "created_at": member.created_ms, "regulatedAt": member.regulated_at,
            "build_times": member.build_times,
            "ready_at": {d: member.ready_at(d) for d in SERVED_DOMAINS} if member.regulated_at is not None else None,
            "records": {d: self.visible_records(member, d, now) for d in SERVED_DOMAINS},
            "events": len(member.changelog),
        }

    # -- the public API -----------------------------------------------------------------------
    @property
    def retention_ms(self) -> int:
        return self.settings.changelog_retention_days * DAY_MS

    def retention_floor(self, now: int) -> int:
        """The oldest instant still kept: an event exactly 28 days old is gone."""
        return now - self.retention_ms + 1

    def authenticate(self, access_token: str | None) -> Member:
        """The member behind a bearer token, or the API's 401/403 answer."""
        if not access_token:
            raise ServiceError(401, "Empty oauth2_access_token", code="INVALID_ACCESS_TOKEN",
                               service_error_code=SERVICE_ERROR_EMPTY_TOKEN)
        token = self.tokens.get(access_token)
        if token is None:
            raise ServiceError(401, "Invalid access token", code="INVALID_ACCESS_TOKEN",
                               service_error_code=SERVICE_ERROR_INVALID_TOKEN)
        if self.clock.now_ms() >= token.expires_ms:
            raise ServiceError(401, "The token used in the request has expired", code="EXPIRED_ACCESS_TOKEN",
                               service_error_code=SERVICE_ERROR_EXPIRED_TOKEN)
        if self.settings.scope not in token.scope.split():
            raise ServiceError(403, f"Not enough permissions to access: the token lacks the scope "
                                    f"{self.settings.scope}", code="ACCESS_DENIED",
                               service_error_code=SERVICE_ERROR_GENERIC)
        member = self.members[token.member_id]
        if not self.is_eligible(member):
            raise ServiceError(403, f"Member data portability is available only to members located in the "
                                    f"EU/EEA or Switzerland; this member's profile location is {member.region}",
                               code="ACCESS_DENIED", service_error_code=SERVICE_ERROR_GENERIC)
        return member

    def authorization(self, member: Member) -> dict[str, Any] | None:
        """The archiving record (None while the member has not consented)."""
        if member.regulated_at is None:
            return None
        return {
            "memberComplianceAuthorizationKey": {"developerApplication": member.application, "member": member.urn},
            "regulatedAt": member.regulated_at,
            "memberComplianceScopes": ["DMA"],
        }

    def record_count(self, member: Member, domain: str, now: int) -> tuple[int, list[dict[str, Any]]]:
        """(generated records visible now, appended records visible now) of a domain."""
        generated = member.sizes[domain]
        appended = member.appended.get(domain, [])
        if domain == "INVITATIONS":  # only the last six months exist
            cutoff = now - self.settings.invitation_history_days * DAY_MS
            generated = self.gen.newer_than(member.view, domain, cutoff)
            appended = [item for item in appended if item["time_ms"] >= cutoff]
        return generated, appended

    def visible_records(self, member: Member, domain: str, now: int) -> int:
        """How many records a full paging of ``domain`` returns now, once it is built."""
        generated, appended = self.record_count(member, domain, now)
        return generated + len(appended)

    def snapshot(self, member: Member, domain: str | None, start: int, warnings: list[str]) -> SnapshotPage:
        """One page of a domain (or of all built domains in build order); 404 past the end."""
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
        if domain is None:
            located = self._locate(member, start, now)
        else:
            ready_at = member.ready_at(domain)
            if ready_at is None or now < ready_at:
                raise no_data()  # still being built: the same answer as the end of paging
            located = (domain, start)
        rows = self._page_rows(member, *located, now) if located is not None else []
        marker_key = domain or "*"
        marker = member.end_of_paging.get(marker_key)
        if located is None or not rows:
            if marker is not None and start > marker:
                warnings.append(f"paged past the end: start={start} requested after start={marker} answered 404 "
                                f"'{NO_DATA}' for {marker_key}; stop paging at the first 404")
            member.end_of_paging[marker_key] = start if marker is None else min(marker, start)
            raise no_data()
        if marker is not None and start >= marker:
            del member.end_of_paging[marker_key]  # new records moved the end
        if domain is None:
            pages = sum(self._pages_of(member, d, now) for ready_at, d in member.ready_order() if ready_at <= now)
        else:
            pages = self._pages_of(member, domain, now)
        total = max(0, pages + _total_skew(self.seed, member.id, marker_key))
        return SnapshotPage(located[0], start, rows, self.settings.page_size, total, start > 0)

    def _pages_of(self, member: Member, domain: str, now: int) -> int:
        return -(-self.visible_records(member, domain, now) // self.settings.page_size)

    def _locate(self, member: Member, start: int, now: int) -> tuple[str, int] | None:
        """Global page ``start`` of the all-domains view -> (domain, page within it)."""
        remaining = start
        for ready_at, name in member.ready_order():
            if ready_at > now:
                break
            pages = self._pages_of(member, name, now)
            if remaining < pages:
                return name, remaining
            remaining -= pages
        return None

    def _page_rows(self, member: Member, domain: str, page: int, now: int) -> list[Row]:
        generated, appended = self.record_count(member, domain, now)
        size = self.settings.page_size
        first, last = page * size, min((page + 1) * size, generated + len(appended))
        if first >= last:
            return []
        key = (member.id, domain, page, generated, len(appended))
        cached = self._pages.get(key)
        if cached is not None:
            self._pages.move_to_end(key)
            return cached
        rows = [self.gen.record(member.view, domain, i) if i < generated else appended[i - generated]["row"]
                for i in range(first, last)]
        self._pages[key] = rows
        if len(self._pages) > PAGE_CACHE_SIZE:
            self._pages.popitem(last=False)
        return rows

    def changelog(self, member: Member, start_time: int | None, count: int | None,
                  warnings: list[str]) -> list[Event]:
        """Events at or after ``start_time`` (inclusive), oldest first, at most ``count``."""
        settings = self.settings
        count = settings.changelog_default_count if count is None else count
        if not 1 <= count <= settings.changelog_max_count:
            raise bad_request(f"count must be between 1 and {settings.changelog_max_count}; "
                              f"the recommended count is {settings.changelog_default_count}")
        if start_time is not None and start_time < 0:
            raise bad_request("startTime must be an epoch time in milliseconds")
        now = self.clock.now_ms()
        floor = self.retention_floor(now)
        if start_time is None:
            start_time = floor
        elif start_time < now - self.retention_ms:
            warnings.append(f"startTime {start_time} is older than {settings.changelog_retention_days} days; "
                            f"clamped to {floor}")
        start_time = max(start_time, floor)
        if member.last_poll_ms is not None and not member.last_poll_full:
            since = now - member.last_poll_ms
            if since < settings.poll_interval_s * 1000:
                warnings.append(f"changelog polled {since / 1000:g} s after the previous poll; the documented "
                                f"cadence is once every {settings.poll_interval_s} s per member")
        member.changelog.prune(floor)
        events = member.changelog.query(start_time, now, count) if member.regulated_at is not None else []
        member.last_poll_ms, member.last_poll_full = now, len(events) == count
        return events

    # -- state --------------------------------------------------------------------------------
    def to_state(self) -> dict[str, Any]:
        return {
            "counters": dict(self.counters),
            "members": [member.to_state() for member in self.members.values()],
            "tokens": {value: token.to_state() for value, token in self.tokens.items()},
        }

    def load_state(self, state: dict[str, Any]) -> None:
        time_field = self.settings.changelog_time_field
        self.counters = {name: int(state["counters"][name]) for name in self.counters}
        members = [Member.from_state(m, seed=self.seed, time_field=time_field) for m in state["members"]]
        self.members = {m.id: m for m in members}
        self.tokens = {value: Token(**token) for value, token in state["tokens"].items()}
        self._pages.clear()


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


@functools.lru_cache(maxsize=4096)
def _total_skew(seed: int, member_id: str, domain_key: str) -> int:
    """Stable and never zero: ``total`` is 2 pages short to 3 pages over, so no client can trust it."""
    return (-2, -1, 1, 2, 3)[mix(seed, member_id, domain_key, "total") % 5]


def _uuid(key: int, number: int) -> str:
    text = f"{key:016x}{mix(key, number):016x}"
    return f"{text[:8]}-{text[8:12]}-4{text[13:16]}-a{text[17:20]}-{text[20:32]}"
