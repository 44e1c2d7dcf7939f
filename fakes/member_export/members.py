"""Members and their tokens: who exists, where, what each domain holds and when it is built.

Also the service's error helpers and the limits of control-plane inputs, shared by the model's parts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from fakes.kernel.errors import ServiceError

from .changelog import Changelog
from .data import MemberSeed, Person
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
    reported_total: dict[str, int] = field(default_factory=dict)  # domain or "*" -> the last total answered
    last_poll_window: tuple[int, int] | None = None  # (startTime, count) of the previous changelog poll

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
            # client history the rules read; states exported before the rules had none
            reported_total=dict(state.get("reported_total") or {}),
            last_poll_window=_poll_window(state.get("last_poll_window")),
        )


def _poll_window(value: Any) -> tuple[int, int] | None:
    if value is None:
        return None
    start_time, count = value
    return int(start_time), int(count)



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
