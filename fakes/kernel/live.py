"""A request on its way in, as fault and stub rules read it, and the judging of the candidates the
rules' index (:mod:`fakes.kernel.ruleindex`) names.

**The body.** A live request's body is read only when a rule that could match it (its method,
path, query and headers hold) has a body criterion, and then at most ``body_limit`` bytes
(the fake's ``max_body_bytes``): what was read is handed to the route again, before the rest of
the stream (:meth:`LiveRequest.receive`), so the route and the journal see the request as sent.
With no rule at all the app never builds a :class:`LiveRequest` (one check per request).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from starlette.requests import ClientDisconnect
from starlette.types import Message, Receive, Scope

from .budget import Budget
from .criteria import Sent
from .ruleindex import RuleCriteria, Ruled

R = TypeVar("R", bound=Ruled)
_NO_PARAMS: dict[str, str] = {}


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
        if rest is not None and rest.failures(sent, None, self.budget, first_only=True):
            return None
        return params

    async def first(self, rules: Sequence[R], eligible: Callable[[R], bool] | None = None
                    ) -> tuple[R, dict[str, str]] | None:
        """The first of ``rules`` (index candidates, in order) this request meets, with its path
        parameters; ``eligible(rule)`` asked last (a probability draw, a scenario's state)."""
        for rule in rules:
            criteria = rule.criteria
            if criteria.needs_body and self._chunks is None:
                if not self._head_matches(criteria):
                    continue
                await self.read_body()
            params = self.matches(criteria)
            if params is None or (eligible is not None and not eligible(rule)):
                continue
            return rule, params
        return None

    @property
    def budget(self) -> Budget:
        """The steps matching may take: no limit (a live request is bounded by its caps)."""
        budget = self._budget
        if budget is None:
            budget = self._budget = Budget()
        return budget

    def _head_matches(self, criteria: RuleCriteria) -> bool:
        """Whether the criteria but the body's hold (reading a body for a rule that cannot match
        anyway would be wasted)."""
        path = criteria.path
        if path is not None and path.literal is None and path.match(self.sent.path) is None:
            return False
        head = criteria.head
        return head is None or not head.failures(self.sent, None, self.budget, first_only=True)
