"""The parts every action planner uses: the plan an action produces and the context it reads.

See :mod:`.actions` for what actions are and how the model applies a plan.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from fakes.kernel.clock import utc_datetime
from fakes.kernel.errors import ServiceError

from .data import DataGenerator, MemberSeed, Person, Row, mix

MAX_TEXT = 8_000
MAX_DELAY_S = 366 * 86_400
MAX_CONTACT = 10_000_000
MAX_URN = 200
MAX_ITEM = 200
REACTIONS = ("LIKE", "PRAISE", "EMPATHY", "INTEREST", "APPRECIATION", "ENTERTAINMENT")

#: configVersion per (resourceName, method): "unique to the resource and method" (values in the
#: range LinkedIn's examples show; they only help debugging)
CONFIG_VERSIONS: dict[tuple[str, str], int] = {
    ("messages", "CREATE"): 1, ("messages", "UPDATE"): 4, ("messages", "DELETE"): 4,
    ("ugcPosts", "CREATE"): 53, ("ugcPosts", "UPDATE"): 53, ("ugcPosts", "DELETE"): 53,
    ("socialActions/comments", "CREATE"): 70, ("socialActions/comments", "PARTIAL_UPDATE"): 1,
    ("socialActions/comments", "DELETE"): 70, ("socialActions/likes", "CREATE"): 6,
    ("socialActions/likes", "DELETE"): 6, ("invitations", "ACTION"): 7, ("people", "PARTIAL_UPDATE"): 4,
    ("people/languages", "CREATE"): 1, ("endorsement", "CREATE"): 2, ("originalArticles", "ACTION"): 2,
    ("originalArticles", "DELETE"): 2, ("events", "CREATE"): 1, ("organizations", "CREATE"): 1,
    ("organizationAcls", "UPDATE"): 1, ("recRequests", "BATCH_CREATE"): 1, ("recs", "PARTIAL_UPDATE"): 3,
    ("marketplacePlatformProviders", "CREATE"): 3, ("marketplacePlatformProviders", "PARTIAL_UPDATE"): 3,
}
RESOURCE_NAMES = tuple(dict.fromkeys(name for name, _ in CONFIG_VERSIONS))
METHODS = ("CREATE", "UPDATE", "PARTIAL_UPDATE", "DELETE", "ACTION", "BATCH_CREATE")


def invalid(message: str) -> ServiceError:
    return ServiceError(400, message, code="invalid_action")


@dataclass
class ActionPlan:
    """Everything one action changes; the model applies it (snapshot now, event when archived)."""

    resource_name: str
    method: str
    resource_id: str
    resource_uri: str
    actor: str
    activity: dict[str, Any]
    delay_s: int
    method_name: str | None = None
    processed_activity: dict[str, Any] | None = None  # None: the same as activity
    domain: str | None = None        # the snapshot domain touched (None: no snapshot change)
    row: Row | None = None           # append: the new row; update: the changed columns
    effect: str = "append"           # append | update | remove | profile | none
    item: str | None = None          # the item created or acted on (an action's answer names it)
    item_info: dict[str, Any] | None = None  # recorded for a created item (later edits need it)


@dataclass
class ActionContext:
    """One action's inputs: the details, the member, and helpers that validate as they read."""

    action: str
    details: Mapping[str, Any]
    member: MemberSeed
    gen: DataGenerator
    n: int                           # numbers the member's actions: stable ids
    now_ms: int
    default_delay_s: int
    items: Mapping[str, Mapping[str, Any]]
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def me(self) -> Person:
        return self.member.me

    @property
    def moment(self) -> datetime:
        return utc_datetime(self.now_ms)

    @property
    def delay_s(self) -> int:
        return self.whole("delay_s", self.default_delay_s, upper=MAX_DELAY_S + 1)

    def number(self, kind: str, digits: int = 18) -> str:
        """A stable id of ``digits`` digits for this action's ``kind`` of object."""
        return f"{mix(self.member.seed, self.member.member_id, kind, self.n) % 10**digits:0{digits}d}"

    def default_text(self) -> str:
        sentences = self.gen.pools.sentence
        return sentences[mix(self.member.seed, "text", self.n) % len(sentences)]

    def text(self, name: str, default: str | None = None, *, limit: int = MAX_TEXT) -> str:
        value = self.details.get(name, self.default_text() if default is None else default)
        if not isinstance(value, str) or len(value) > limit:
            raise invalid(f"'{name}' must be a string of at most {limit} characters")
        return value

    def whole(self, name: str, default: int, *, upper: int) -> int:
        value = self.details.get(name, default)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < upper:
            raise invalid(f"'{name}' must be an integer from 0 to {upper - 1}")
        return value

    def choice(self, name: str, choices: tuple[str, ...], default: str) -> str:
        value = self.details.get(name, default)
        if value not in choices:
            raise invalid(f"'{name}' must be one of {', '.join(choices)}")
        return str(value)

    def contact(self) -> Person:
        count = self.member.contact_count
        index = self.whole("contact", 0, upper=MAX_CONTACT + 1)
        if index >= count:  # a well-formed index this member lacks: a missing resource, not bad input
            raise ServiceError(404, f"the member has {count} contacts (0 to {count - 1}), not {index}",
                               code="unknown_contact")
        self.extra["contact"] = index
        return self.gen.contact(self.member, index)

    def urn(self, name: str, default: str) -> str:
        value = self.details.get(name, default)
        if not isinstance(value, str) or not value.startswith("urn:li:") or len(value) > MAX_URN:
            raise invalid(f"'{name}' must be a URN such as urn:li:activity:7123456789012345678")
        return value

    def item(self, *kinds: str) -> tuple[str, Mapping[str, Any]]:
        """The item named by ``item`` (default: the member's latest of these kinds), or 404."""
        key = self.details.get("item")
        if key is not None and (not isinstance(key, str) or not 1 <= len(key) <= MAX_ITEM):
            raise invalid("'item' must be the item an earlier action answered")
        if key is None:
            for candidate in reversed(list(self.items)):
                if self.items[candidate]["kind"] in kinds:
                    return candidate, self.items[candidate]
        elif key in self.items and self.items[key]["kind"] in kinds:
            return key, self.items[key]
        which = f"item {key!r}" if key is not None else "item"
        raise ServiceError(404, f"the member has no {which} of kind {' or '.join(kinds)} to {self.action}",
                           code="unknown_item")


Planner = Callable[[ActionContext], ActionPlan]
#: an action's accepted details (besides delay_s) and its planner
Planners = dict[str, tuple[frozenset[str], Planner]]
