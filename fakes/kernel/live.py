"""Rules matched against live requests (faults and stubs): the request as they read it, their
criteria, and an index that makes a hundred rules cost a few microseconds.

A rule's criteria are the journal's (:mod:`fakes.kernel.criteria`, one matcher): ``method``,
``path`` (exact, glob, template or regex), ``url``, ``query``, ``headers``, ``form``, ``json``,
``json_equals``, ``body_contains``; never ``status`` or ``answered_by`` (a live request has no
answer yet). They are compiled once, when the rule is added.

**The body.** A live request's body is read only when a rule that could match it (its method,
path, query and headers hold) has a body criterion, and then at most ``body_limit`` bytes
(the fake's ``max_body_bytes``): what was read is handed to the route again, before the rest of
the stream (:meth:`LiveRequest.receive`), so the route and the journal see the request as sent.

**The index.** Rules are grouped by method and, within it, by literal path (a dict lookup);
patterned paths are tried after a check of their literal prefix. With no rule at all the app
never builds a :class:`LiveRequest` (one attribute check per request).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, Protocol, TypeVar

from starlette.requests import ClientDisconnect
from starlette.types import Message, Receive, Scope

from .criteria import ANSWER_FIELDS, PATTERN_FIELDS, Budget, PatternError, RequestPattern, Sent
from .http import check_json_value
from .pathmatch import PathMatcher

#: the criteria of a rule (every one optional)
RULE_CRITERIA = tuple(name for name in PATTERN_FIELDS if name not in ANSWER_FIELDS)
_NO_PARAMS: dict[str, str] = {}


@dataclass(frozen=True)
class RuleCriteria:
    """A rule's compiled criteria: method and path apart (the index uses them), the rest as one
    :class:`RequestPattern` (None when there is no other criterion)."""

    method: str | None
    path: PathMatcher | None
    rest: RequestPattern | None
    given: Mapping[str, Any]  # as given (without defaults): what listings show
    #: ``rest`` without its body criteria (None: none left), judged before a body is read for it
    head: RequestPattern | None = None

    @property
    def needs_body(self) -> bool:
        return self.rest is not None and self.rest.needs_body()

    def describe(self) -> str:
        pattern = self.rest or RequestPattern()
        return replace(pattern, method=self.method, path=self.path).describe()

    @classmethod
    def parse(cls, spec: Mapping[str, Any]) -> RuleCriteria:
        """The criteria of ``spec`` (JSON of the journal's find, less ``status`` and ``answered_by``);
        :class:`PatternError` naming the criterion."""
        if not isinstance(spec, Mapping):
            raise PatternError("", "must be an object of criteria")
        unknown = sorted(str(name) for name in spec if name not in RULE_CRITERIA)
        if unknown:
            raise PatternError(unknown[0][:200], f"is not a criterion of a rule; known: {', '.join(RULE_CRITERIA)}")
        problem = check_json_value(dict(spec))  # a rule is listed and exported: text the fake can write back
        if problem is not None:
            where, _, why = problem.partition(": ")
            raise PatternError(where, why)
        pattern = RequestPattern.from_json(spec)
        empty = RequestPattern()
        rest = replace(pattern, method=None, path=None)
        head = replace(rest, form={}, json=empty.json, json_equals=empty.json_equals, body_contains=None)
        return cls(pattern.method, pattern.path, None if rest == empty else rest, dict(spec),
                   None if head == empty else head)


class Ruled(Protocol):
    """A rule the index holds: its criteria and its place (lower first)."""

    @property
    def criteria(self) -> RuleCriteria: ...

    @property
    def rank(self) -> tuple[int, ...]: ...


R = TypeVar("R", bound=Ruled)


class RuleIndex(Generic[R]):
    """The live rules of a set, by method and literal path (see the module); built once per change."""

    __slots__ = ("_any", "_by_method")

    def __init__(self, rules: Iterable[R]) -> None:
        ordered = sorted(rules, key=lambda rule: rule.rank)
        methods = {rule.criteria.method for rule in ordered} - {None}
        self._any = _Group([rule for rule in ordered if rule.criteria.method is None])
        self._by_method = {method: _Group([rule for rule in ordered if rule.criteria.method in (None, method)])
                           for method in methods}

    def candidates(self, method: str, path: str) -> Sequence[R]:
        """The rules whose method and literal path allow this request, in order (patterned paths
        still to be checked)."""
        group = self._by_method.get(method, self._any)
        return group.candidates(path)


class _Group(Generic[R]):
    __slots__ = ("literal", "patterned")

    def __init__(self, rules: list[R]) -> None:
        self.literal: dict[str, list[R]] = {}
        self.patterned: list[R] = []
        for rule in rules:
            path = rule.criteria.path
            if path is not None and path.literal is not None:
                self.literal.setdefault(path.literal, []).append(rule)
            else:
                self.patterned.append(rule)

    def candidates(self, path: str) -> Sequence[R]:
        exact = self.literal.get(path)
        if exact is None:
            return self.patterned
        if not self.patterned:
            return exact
        return sorted([*exact, *self.patterned], key=lambda rule: rule.rank)


class LiveRequest:
    """One request on its way in, as rules read it (see the module for its body)."""

    __slots__ = ("_body_done", "_budget", "_chunks", "_receive", "answered_by", "body_limit", "sent")

    def __init__(self, scope: Scope, path: str, receive: Receive, body_limit: int) -> None:
        self.sent = Sent(scope["method"], path, scope.get("query_string", b"").decode("latin-1"),
                         headers=scope["headers"])
        self._receive = receive
        self.body_limit = body_limit
        self._chunks: list[Message] | None = None  # read for the rules, not yet handed on
        self._body_done = False
        self._budget: Budget | None = None
        #: the tag of the rule that answered, for the journal
        self.answered_by: tuple[str, ...] | None = None

    @property
    def body_read(self) -> bool:
        return self._chunks is not None

    @property
    def buffered(self) -> bool:
        """Whether some of what the rules read is still to be handed on."""
        return bool(self._chunks)

    async def read_body(self) -> None:
        """Read the body (up to ``body_limit`` bytes) for the rules; the route gets it again."""
        chunks: list[Message] = []
        self._chunks = chunks
        kept = b""
        length = 0
        limit = self.body_limit
        while True:
            message = await self._receive()
            if message["type"] == "http.disconnect":
                raise ClientDisconnect()
            chunks.append(message)
            body = message.get("body", b"")
            length += len(body)
            if len(kept) < limit:
                kept = body[:limit] if not kept else kept + body[:limit - len(kept)]
            if not message.get("more_body"):
                self._body_done = True
                break
            if length > limit:
                break  # longer than any rule reads: what came is handed on, then the rest of the stream
        self.sent.body = kept
        self.sent.length = length if self._body_done else length + 1

    async def receive(self) -> Message:
        """The request's ``receive``: what the rules read first, then the rest as it comes."""
        chunks = self._chunks
        if chunks:
            return chunks.pop(0)
        return await self._receive()

    def matches(self, criteria: RuleCriteria) -> dict[str, str] | None:
        """The path parameters when ``criteria`` hold for this request (the body read already
        when they need it), else None."""
        sent = self.sent
        path = criteria.path
        params = _NO_PARAMS if path is None or path.literal is not None else path.match(sent.path)
        if params is None:
            return None
        rest = criteria.rest
        if rest is not None:
            if self._budget is None:
                self._budget = Budget()
            if rest.failures(sent, None, self._budget, first_only=True):
                return None
        return params

    async def first(self, rules: Sequence[R], eligible: Callable[[R], bool] | None = None
                    ) -> tuple[R, dict[str, str]] | None:
        """The first of ``rules`` (index candidates, in order) this request meets, with its path
        parameters; ``eligible(rule)`` asked last (a probability draw, a scenario's state)."""
        for rule in rules:
            criteria = rule.criteria
            if criteria.rest is not None and criteria.needs_body and not self.body_read:
                if not self._head_matches(criteria):
                    continue
                await self.read_body()
            params = self.matches(criteria)
            if params is None or (eligible is not None and not eligible(rule)):
                continue
            return rule, params
        return None

    def _head_matches(self, criteria: RuleCriteria) -> bool:
        """Whether the criteria but the body's hold (reading a body for a rule that cannot match
        anyway would be wasted)."""
        path = criteria.path
        if path is not None and path.literal is None and path.match(self.sent.path) is None:
            return False
        head = criteria.head
        if head is None:
            return True
        if self._budget is None:
            self._budget = Budget()
        return not head.failures(self.sent, None, self._budget, first_only=True)
