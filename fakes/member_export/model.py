"""State and rules of the member data export fake: members, tokens, consent, builds, changelog.

Plain Python, no HTTP: every instant comes from the clock and every transition is evaluated when
asked (a domain "is built" when ``now >= regulatedAt + build time``; nothing runs in the
background). Generated snapshot records are never stored, only what actions added. Members and
tokens live in :mod:`.members`, snapshot paging in :mod:`.snapshots`.
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from typing import Any

from fakes.kernel.errors import ServiceError
from fakes.kernel.statecheck import StateReader, check_text, refuse
from fakes.kernel.verdicts import Broken

from .action_plan import ActionPlan
from .actions import config_version, plan_action
from .applications import Application, application_from_state
from .auth_codes import AuthorizationCodes
from .changelog import Changelog, Event
from .data import DAY_MS, Row, generator, mix, person_urn_id
from .domains import DOMAINS, SERVED_DOMAINS
from .members import (
    FALLBACK_CONTACTS,
    MAX_DOMAIN_SIZE,
    MAX_NAME,
    MAX_SECONDS,
    REGION,
    SERVICE_ERROR_EMPTY_TOKEN,
    SERVICE_ERROR_EXPIRED_TOKEN,
    SERVICE_ERROR_GENERIC,
    SERVICE_ERROR_INVALID_TOKEN,
    SERVICE_ERROR_REVOKED_TOKEN,
    Clock,
    Member,
    _domain_numbers,
    bad_request,
    control_error,
    shared_mapping,
    upper_regions,
)
from .oauth import OAuthFlows
from .paging import Judged, moved_on
from .rules import CHANGELOG_START_TOO_OLD, POLLING_TOO_FAST, REPOLLING_IDENTICAL_WINDOW
from .settings import MemberExportSettings
from .snapshots import SnapshotPage, SnapshotReads
from .throttles import DailyLimits
from .tokens import RefreshToken, Token, mint, refresh_token_from_state, token_from_state

__all__ = ["SERVICE_ERROR_GENERIC", "Member", "MemberExportModel", "SnapshotPage", "bad_request"]

MAX_COUNTER = 2**40  # counters number ids and tokens; far beyond any test, well inside 64 bits


#: counters a state exported before OAuth existed lacks (read as 0)
OAUTH_COUNTERS = ("applications", "codes", "refresh_tokens")


class MemberExportModel(SnapshotReads, OAuthFlows):
    def __init__(self, clock: Clock, settings: MemberExportSettings, seed: int = 0, epoch: int = 0) -> None:
        self.clock = clock
        self.settings = settings
        self.seed = seed
        self.epoch = epoch  # the fake's reset epoch: tokens issued after a reset never repeat earlier ones
        self.gen = generator(settings.locale)  # one per locale: a pure function of its arguments
        self.eligible_regions = upper_regions(tuple(settings.eligible_regions))
        self.members: dict[str, Member] = {}
        self.tokens: dict[str, Token] = {}
        self.counters = {"members": 0, "tokens": 0, "actions": 0, "events": 0,
                         "applications": 0, "codes": 0, "refresh_tokens": 0}
        self.applications: dict[str, Application] = {}
        self.codes = AuthorizationCodes()
        self.refresh_tokens: dict[str, RefreshToken] = {}
        self.signed_in: str | None = None  # the member the authorization page takes as signed in
        self.limits = DailyLimits()
        self.event_id_base = 978_000_000 + mix(seed, "event-ids") % 1_000_000
        self._pages: OrderedDict[tuple[Any, ...], list[Row]] = OrderedDict()
        self._ready_pages: dict[tuple[Any, ...], list[tuple[str, int]]] = {}
        self.judged_stops: Judged = set()  # paging notes judged already (paging.py; not state)

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
            created_ms=self.clock.now_ms(), sizes=shared_mapping(resolved_sizes),
            build_times=shared_mapping(resolved_builds),
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

    def issue_token(self, member_id: Any, *, expires_in: Any = None, scope: Any = None,
                    client_id: Any = None) -> dict[str, Any]:
        """A fresh access token (OAuth response shape: no refresh token exists), of the member's
        built-in application or, with ``client_id``, of a registered one (as if just authorized)."""
        member = self.member(member_id)
        application = None if client_id is None else self.application(client_id)
        lifetime = self.settings.token_lifetime_s if expires_in is None else expires_in
        if isinstance(lifetime, bool) or not isinstance(lifetime, int) or not 0 <= lifetime <= MAX_SECONDS:
            raise control_error(400, "'expires_in' must be a whole number of seconds >= 0", "invalid_token")
        scope = self.settings.scope if scope is None else scope
        if not isinstance(scope, str) or len(scope) > 500:
            raise control_error(400, "'scope' must be a string (space-separated scopes)", "invalid_token")
        access_token = mint(self.seed, self.epoch, "access", self._next("tokens"))
        now = self.clock.now_ms()
        self.tokens[access_token] = Token(
            member.id, member.application if application is None else application.urn, now, now + lifetime * 1000,
            scope, client_id=None if application is None else application.client_id,
            authorized_ms=None if application is None else now)
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
            own_delay_s=self.settings.processing_delay_s, reply_delay_s=self.settings.reply_delay_s,
            items=member.items)
        self.counters["actions"] += 1
        record = member.apply(plan, now)
        event = None
        if member.regulated_at is not None:  # archiving is on: the changelog records it
            event = self._archive(member, plan, now)
        return {"action": action, "domain": plan.domain, "record": record, "item": plan.item, "event": event,
                "visible_at": event["processedAt"] if event else None}

    def _archive(self, member: Member, plan: ActionPlan, now: int) -> Event:
        changelog = member.changelog
        changelog.prune(self.retention_floor(now))
        delay_ms = plan.delay_s * 1000
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
            "configVersion": config_version(plan),
            "owner": member.urn,
            "actor": plan.actor,
            "resourceName": plan.resource_name,
            "resourceId": plan.resource_id,
            "resourceUri": plan.resource_uri,
            "method": plan.method,
        }
        if plan.method_name is not None:  # present only for ACTION
            event["methodName"] = plan.method_name
        event.update({
            "activity": plan.activity,
            "processedActivity": plan.activity if plan.processed_activity is None else plan.processed_activity,
            "siblingActivities": [],
            "parentSiblingActivities": [],
            "activityId": _uuid(activity_id, number),
            "activityStatus": "SUCCESS",
        })
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
        return self.members[self.authenticate_token(access_token).member_id]

    def authenticate_token(self, access_token: str | None) -> Token:
        """The bearer token, checked (401 empty/unknown/expired/revoked, 403 scope or region)."""
        if not access_token:
            raise ServiceError(401, "Empty oauth2_access_token", code="INVALID_ACCESS_TOKEN",
                               service_error_code=SERVICE_ERROR_EMPTY_TOKEN)
        token = self.tokens.get(access_token)
        if token is None:
            raise ServiceError(401, "Invalid access token", code="INVALID_ACCESS_TOKEN",
                               service_error_code=SERVICE_ERROR_INVALID_TOKEN)
        if token.revoked:
            raise ServiceError(401, "The token used in the request has been revoked by the user",
                               code="REVOKED_ACCESS_TOKEN", service_error_code=SERVICE_ERROR_REVOKED_TOKEN)
        if self.clock.now_ms() >= token.expires_ms:
            raise ServiceError(401, "The token used in the request has expired", code="EXPIRED_ACCESS_TOKEN",
                               service_error_code=SERVICE_ERROR_EXPIRED_TOKEN)
        if self.settings.scope not in token.scopes:
            raise ServiceError(403, f"Not enough permissions to access: the token lacks the scope "
                                    f"{self.settings.scope}", code="ACCESS_DENIED",
                               service_error_code=SERVICE_ERROR_GENERIC)
        member = self.members[token.member_id]
        if not self.is_eligible(member):
            raise ServiceError(403, f"Member data portability is available only to members located in the "
                                    f"EU/EEA or Switzerland; this member's profile location is {member.region}",
                               code="ACCESS_DENIED", service_error_code=SERVICE_ERROR_GENERIC)
        return token

    def authorization(self, member: Member, application: str | None = None) -> dict[str, Any] | None:
        """The archiving record as ``application`` (default: the member's own) sees it; None while
        the member has not consented."""
        if member.regulated_at is None:
            return None
        return {
            "memberComplianceAuthorizationKey": {"developerApplication": application or member.application,
                                                 "member": member.urn},
            "regulatedAt": member.regulated_at,
            "memberComplianceScopes": ["DMA"],
        }

    def changelog(self, member: Member, start_time: int | None, count: int | None,
                  broken: Broken) -> list[Event]:
        """Events at or after ``start_time`` (inclusive), oldest first, at most ``count``.

        Client rules broken on the way are appended to ``broken`` (look-back, cadence, cursor)."""
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
            broken.append((CHANGELOG_START_TOO_OLD, f"startTime {start_time} is older than "
                                                    f"{settings.changelog_retention_days} days; clamped to {floor}"))
        start_time = max(start_time, floor)
        if member.last_poll_ms is not None:
            since = now - member.last_poll_ms
            if member.last_poll_full and member.last_poll_window == (start_time, count):
                broken.append((REPOLLING_IDENTICAL_WINDOW, f"startTime {start_time} and count {count} again after "
                                                           "a full page: the same events come back; move startTime "
                                                           "to the latest processedAt"))
            elif not member.last_poll_full and since < settings.poll_interval_s * 1000:
                broken.append((POLLING_TOO_FAST, f"changelog polled {since / 1000:g} s after the previous poll; the "
                                                 f"documented cadence is once every {settings.poll_interval_s} s "
                                                 "per member"))
        moved_on(member, self.judged_stops, broken, "then polled the changelog")  # paging.py
        member.changelog.prune(floor)
        events = member.changelog.query(start_time, now, count) if member.regulated_at is not None else []
        member.last_poll_ms, member.last_poll_full = now, len(events) == count
        member.last_poll_window = (start_time, count)
        return events

    # -- state --------------------------------------------------------------------------------
    def to_state(self) -> dict[str, Any]:
        return {
            "counters": dict(self.counters),
            "members": [member.to_state() for member in self.members.values()],
            "tokens": {value: token.to_state() for value, token in self.tokens.items()},
            "applications": [application.to_state() for application in self.applications.values()],
            "codes": self.codes.to_state(),
            "refresh_tokens": {value: refresh.to_state() for value, refresh in self.refresh_tokens.items()},
            "signed_in": self.signed_in,
            "limits": self.limits.to_state(),
        }

    def load_state(self, state: dict[str, Any]) -> None:
        """Validate all of an exported state (StateError names the field), then take it. The OAuth
        parts are optional: a state exported before they existed has none."""
        read = StateReader(state, "model").only(("counters", "members", "tokens", "applications", "codes",
                                                 "refresh_tokens", "signed_in", "limits"))
        counts = read.object("counters").only(self.counters)
        counters = {name: (0 if name in OAUTH_COUNTERS and not counts.has(name) else
                           counts.integer(name, minimum=0, maximum=MAX_COUNTER)) for name in self.counters}
        time_field = self.settings.changelog_time_field
        members: dict[str, Member] = {}
        for item in read.objects("members"):
            member = Member.from_state(item, seed=self.seed, time_field=time_field)
            if member.id in members:
                refuse(item.where("id"), f"repeats the member {member.id}")
            members[member.id] = member
        applications: dict[str, Application] = {}
        for item in read.objects("applications") if read.has("applications") else ():
            application = application_from_state(item)
            if application.client_id in applications:
                refuse(item.where("client_id"), f"repeats the application {application.client_id}")
            applications[application.client_id] = application
        tokens_read = read.object("tokens")
        tokens = {check_text(value, "model.tokens", min_length=1, max_length=500):
                  token_from_state(tokens_read.object(value), members, applications) for value in tokens_read.value}
        codes = AuthorizationCodes()
        if read.has("codes"):
            codes.load_state(read.object("codes"), members, applications)
        refresh_read = read.object("refresh_tokens") if read.has("refresh_tokens") else None
        refresh_tokens = {} if refresh_read is None else {
            check_text(value, "model.refresh_tokens", min_length=1, max_length=500):
            refresh_token_from_state(refresh_read.object(value), members, applications)
            for value in refresh_read.value}
        signed_in = read.text("signed_in", max_length=64, nullable=True) if read.has("signed_in") else None
        if signed_in is not None and signed_in not in members:
            refuse(read.where("signed_in"), f"names no member of this state ({signed_in!r})")
        limits = DailyLimits()
        if read.has("limits"):
            limits.load_state(read.object("limits"))
        self.counters, self.members, self.tokens, self.limits = counters, members, tokens, limits
        self.applications, self.codes, self.refresh_tokens, self.signed_in = (applications, codes, refresh_tokens,
                                                                              signed_in)
        self._pages.clear()
        self._ready_pages.clear()

def _uuid(key: int, number: int) -> str:
    text = f"{key:016x}{mix(key, number):016x}"
    return f"{text[:8]}-{text[8:12]}-4{text[13:16]}-a{text[17:20]}-{text[20:32]}"
