"""Stub rules: answer a request the service's model does not cover, or override one it does.

A stub (``POST /_fake/stubs``, ``fake.stub(...)``)::

    {"request": {"method": "GET", "path": "/admin/users/{id}", "query": {"page": "2"},
                 "headers": {"X-Api-Key": "k1"}, "json": {"tag": "final"}},
     "response": {"status": 200, "headers": {"X-Id": "{{request.path.id}}"},
                  "json": {"id": "{{request.path.id}}", "expires": "{{now + 1h | epoch_ms}}"}},
     "place": "before", "priority": 5, "times": null}

* ``request``: the journal's criteria (:mod:`fakes.kernel.live`), compiled once.
* ``response``, or ``responses`` (a sequence: each match gets the next; past the last the last
  repeats, or with ``"cycle": true`` they start over): status, headers and a ``json`` or ``body``
  (text) answer, templated (:mod:`fakes.kernel.templates`; ``"templates": false`` answers texts as
  they are), and ``latency_ms``.
* ``place``: ``before`` the model (an override: the route does not run, the model's state does
  not change) or ``behind`` it (only where the service has no route for the method and path).
* ``priority`` (1 first, default 5); among stubs of one priority the one added last wins.
* ``times``: answers this many matches, then stays listed, ``spent``; ``fired`` counts.
* ``scenario``, ``requires_state``, ``new_state``: WireMock's scenarios. Every scenario starts in
  ``Started``; a stub requiring a state matches only in it, and moves its scenario on.

All of it is per fake and per world, reset by ``POST /_fake/reset``, kept in exported states.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .criteria import PatternError
from .errors import ControlError
from .http import check_json_value
from .live import LiveRequest
from .ruleindex import EMPTY_INDEX, RULE_CRITERIA, RuleCriteria, RuleIndex, RuleList
from .rulespec import SpecReader
from .stubanswers import Answer, Rendered, parse_answer
from .templates import Context

STARTED = "Started"
PLACES = ("before", "behind")
DEFAULT_PRIORITY = 5
MAX_PRIORITY = 1_000_000
MAX_TIMES = 2**31 - 1
MAX_ANSWERS = 100
MAX_NAME = 200
#: stubs one fake (or world) holds at most
MAX_STUBS = 10_000
#: the largest fired or served count (it stays there: an imported state with it still exports)
MAX_COUNT = 2**62
STUB_FIELDS = frozenset({"request", "response", "responses", "cycle", "place", "priority", "times", "scenario",
                         "requires_state", "new_state", "templates", "name"})
#: what an exported stub carries besides what was posted
STATE_FIELDS = frozenset({"id", "fired", "spent", "served"})


def refuse(field_name: str, message: str) -> ControlError:
    return ControlError(400, f"stub {field_name}: {message}", code="invalid_stub", field=field_name)


@dataclass(eq=False)
class StubRule:
    """One stub, compiled; ``fired`` and ``served`` move as it answers."""

    id: str
    criteria: RuleCriteria
    answers: list[Answer]
    given: dict[str, Any]  # as posted (what listings and exported states show)
    place: str = "before"
    priority: int = DEFAULT_PRIORITY
    times: int | None = None
    cycle: bool = False
    scenario: str | None = None
    requires_state: str | None = None
    new_state: str | None = None
    fired: int = 0
    #: answers given so far (which of ``answers`` is next)
    served: int = 0
    rank: tuple[int, ...] = field(default=(DEFAULT_PRIORITY, 0))

    @property
    def spent(self) -> bool:
        return self.times == 0

    @property
    def needs_body(self) -> bool:
        return self.criteria.needs_body or any(answer.reads_body for answer in self.answers)

    @property
    def tag(self) -> tuple[str, str]:
        return ("stub", self.id)

    def next_answer(self) -> Answer:
        index = self.served % len(self.answers) if self.cycle else min(self.served, len(self.answers) - 1)
        return self.answers[index]

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, **self.given, "place": self.place, "priority": self.priority, "times": self.times,
                "fired": self.fired, "spent": self.spent, "served": self.served}


def parse_stub(rule_id: str, spec: Any, *, max_latency_ms: float, number: int, loading: bool = False) -> StubRule:
    """A stub as posted (or, ``loading``, as exported), every field checked: a refusal is a 400
    ``invalid_stub`` naming the field; an accepted stub can always answer."""
    if not isinstance(spec, Mapping):
        raise ControlError(400, "a stub must be a JSON object: {\"request\": {...}, \"response\": {...}}",
                           code="invalid_stub")
    read = SpecReader(spec, refuse)
    read.only(STUB_FIELDS | (STATE_FIELDS if loading else frozenset()), "a stub")
    request = spec.get("request", {})
    if request is None:
        request = {}
    if not isinstance(request, Mapping):
        raise refuse("request", "must be an object of criteria (method, path, query, headers, json ...)")
    try:
        criteria = RuleCriteria.parse(request)
    except PatternError as exc:
        raise refuse(f"request.{exc.field}" if exc.field else "request", exc.message) from None
    templates = read.switch("templates", True)
    if "response" in spec and "responses" in spec:
        raise refuse("responses", "give response or responses, not both")
    raw_answers: Any = spec.get("responses")
    where = "responses"
    if "responses" not in spec:
        raw_answers, where = [spec.get("response", {})], "response"  # false or null is no answer
    elif not isinstance(raw_answers, list) or not 1 <= len(raw_answers) <= MAX_ANSWERS:
        raise refuse("responses", f"must be a list of 1 to {MAX_ANSWERS} answers")
    answers = [parse_answer(answer, where if where == "response" else f"responses[{index}]", refuse,
                            max_latency_ms=max_latency_ms, templates=templates)
               for index, answer in enumerate(raw_answers)]
    place = read.text("place", "before", 10)
    if place not in PLACES:
        raise refuse("place", "must be before (an override of the model) or behind (where it has no route)")
    priority = read.integer("priority", 1, MAX_PRIORITY, DEFAULT_PRIORITY)
    assert priority is not None
    scenario = read.text("scenario", None, MAX_NAME)
    requires_state = read.text("requires_state", None, MAX_NAME)
    new_state = read.text("new_state", None, MAX_NAME)
    if scenario is None and (requires_state is not None or new_state is not None):
        raise refuse("scenario", "name the scenario whose state requires_state or new_state is")
    read.text("name", None, MAX_NAME)
    rule = StubRule(
        id=rule_id, criteria=criteria, answers=answers,
        given={key: spec[key] for key in spec if key in STUB_FIELDS and spec[key] is not None
               and key not in ("place", "priority", "times")},
        place=place, priority=priority, times=read.integer("times", 0 if loading else 1, MAX_TIMES),
        cycle=read.switch("cycle", False), scenario=scenario, requires_state=requires_state, new_state=new_state,
        rank=(priority, -number))
    if loading:
        rule.fired = read.integer("fired", 0, MAX_COUNT, 0) or 0
        rule.served = read.integer("served", 0, MAX_COUNT, 0) or 0
    return rule


class StubSet(RuleList[StubRule]):
    """The stubs of one fake (or world), their scenarios' states, and the index of each place."""

    # one per fake and world: no __dict__ each
    __slots__ = ("_before", "_behind", "armed", "behind", "max_latency_ms", "scenarios")

    def __init__(self, *, max_latency_ms: float) -> None:
        super().__init__()
        self.scenarios: dict[str, str] = {}  # a scenario named by no state here is in STARTED
        self.max_latency_ms = max_latency_ms
        #: whether a request may meet a stub before the model / behind it (the app's checks)
        self.armed = False
        self.behind = False
        self._before: RuleIndex[StubRule] = EMPTY_INDEX
        self._behind: RuleIndex[StubRule] = EMPTY_INDEX

    def __call__(self) -> list[dict[str, Any]]:
        """Every stub as listed (``fake.stubs()``; spent ones too)."""
        return [rule.to_dict() for rule in self.rules]

    # -- rules ----------------------------------------------------------------------------------
    def add(self, spec: Any) -> StubRule:
        if len(self.rules) >= MAX_STUBS:
            raise ControlError(409, f"this fake holds {MAX_STUBS} stubs already; remove some first",
                               code="too_many_stubs")
        number = self.next_id
        return self._added(parse_stub(f"s{number}", spec, max_latency_ms=self.max_latency_ms, number=number))

    def get(self, stub_id: str) -> StubRule | None:
        return next((rule for rule in self.rules if rule.id == stub_id), None)

    def clear(self) -> None:
        self.rules = []
        self.scenarios = {}
        self._reindex()

    def set_scenario(self, name: str, state: str) -> None:
        """Move scenario ``name`` to ``state`` (texts of 1 to MAX_NAME characters)."""
        for field_name, text in (("name", name), ("state", state)):
            if not isinstance(text, str) or not 0 < len(text) <= MAX_NAME or check_json_value(text) is not None:
                raise ControlError(400, f"a scenario's {field_name} is a text of 1 to {MAX_NAME} characters",
                                   code="invalid_stub", field=field_name)
        self.scenarios[name] = state

    def scenario_states(self) -> dict[str, str]:
        """Every scenario a stub names, with its state."""
        named = {rule.scenario for rule in self.rules if rule.scenario is not None}
        return {name: self.scenarios.get(name, STARTED) for name in sorted(named | set(self.scenarios))}

    def _reindex(self) -> None:
        live = [rule for rule in self.rules if not rule.spent]
        before = [rule for rule in live if rule.place == "before"]
        behind = [rule for rule in live if rule.place == "behind"]
        self._before, self._behind = RuleIndex(before), RuleIndex(behind)
        self.armed, self.behind = bool(live), bool(behind)

    # -- answering ------------------------------------------------------------------------------
    async def pick(self, live: LiveRequest, place: str) -> tuple[StubRule, dict[str, str]] | None:
        """The stub of ``place`` answering this request, with its path parameters."""
        index = self._before if place == "before" else self._behind
        sent = live.sent
        candidates = index.candidates(sent, live.budget)
        if not candidates:
            return None
        found = await live.first(candidates, self._in_state)
        if found is not None and found[0].needs_body and not live.body_read:
            await live.read_body()  # its answer reads the body
        return found

    def _in_state(self, rule: StubRule) -> bool:
        return rule.requires_state is None or self.scenarios.get(rule.scenario or "", STARTED) == rule.requires_state

    def answer(self, rule: StubRule, params: dict[str, str], live: LiveRequest, now_ms: int
               ) -> tuple[Rendered, float]:
        """The answer ``rule`` gives this request, and its latency; counts it."""
        answer = rule.next_answer()
        rendered = answer.render(Context(live.sent, params, now_ms))
        rule.fired = min(rule.fired + 1, MAX_COUNT)
        rule.served = min(rule.served + 1, MAX_COUNT)
        if rule.new_state is not None and rule.scenario is not None:
            self.scenarios[rule.scenario] = rule.new_state
        if rule.times is not None:
            rule.times -= 1
            if rule.times == 0:
                self._reindex()
        return rendered, answer.latency_ms

    # -- state ----------------------------------------------------------------------------------
    def to_state(self) -> dict[str, Any]:
        return {"rules": [rule.to_dict() for rule in self.rules], "scenarios": dict(self.scenarios),
                "next_id": self.next_id}

    def load_state(self, state: Any) -> None:
        """Restore :meth:`to_state`: every stub validated as if posted (the field named
        ``stubs.rules[i].<field>``); nothing changes unless all of it is valid."""
        if not isinstance(state, Mapping):
            raise _state_error("stubs", "must be an object")
        unknown = sorted(set(state) - {"rules", "scenarios", "next_id"})
        if unknown:
            raise _state_error(f"stubs.{unknown[0]}", "is not a field of this state")
        raw_rules = state.get("rules", [])
        if not isinstance(raw_rules, list) or len(raw_rules) > MAX_STUBS:
            raise _state_error("stubs.rules", f"must be a list of at most {MAX_STUBS} stubs")
        rules: list[StubRule] = []
        seen: set[str] = set()
        for index, raw in enumerate(raw_rules):
            where = f"stubs.rules[{index}]"
            if not isinstance(raw, Mapping) or not isinstance(raw.get("id"), str) or not raw["id"] \
                    or len(raw["id"]) > MAX_NAME or raw["id"] in seen:
                raise _state_error(f"{where}.id", "must be a stub object with an id of its own")
            seen.add(raw["id"])
            try:
                rules.append(parse_stub(raw["id"], {k: v for k, v in raw.items() if k != "id"},
                                        max_latency_ms=self.max_latency_ms, number=index, loading=True))
            except ControlError as exc:
                inner = exc.extra.get("field")
                raise _state_error(f"{where}.{inner}" if inner else where, exc.message) from None
        scenarios = state.get("scenarios", {})
        if not isinstance(scenarios, Mapping) or not all(
                isinstance(k, str) and isinstance(v, str) and 0 < len(k) <= MAX_NAME and 0 < len(v) <= MAX_NAME
                for k, v in scenarios.items()):
            raise _state_error("stubs.scenarios", "must be an object of scenario names to states (strings)")
        next_id = state.get("next_id", len(rules) + 1)
        if isinstance(next_id, bool) or not isinstance(next_id, int) or not 1 <= next_id <= 2**62:
            raise _state_error("stubs.next_id", "must be a whole number >= 1")
        self.rules, self.scenarios, self.next_id = rules, dict(scenarios), next_id
        self._reindex()



def _state_error(field_name: str, message: str) -> ControlError:
    return ControlError(400, f"invalid state: {field_name} {message}", code="invalid_state", field=field_name)


def stub_spec(method: str | None, path: Any, response: Any, responses: Any, options: dict[str, Any]) -> dict[str, Any]:
    """The JSON of ``POST /_fake/stubs`` from ``fake.stub(...)``'s arguments: ``method``, ``path``
    and the criteria keywords (query, headers, json ...) make its ``request``; the others are
    the stub's fields."""
    request = dict(options.pop("request", None) or {})
    for name in [name for name in options if name in RULE_CRITERIA]:
        request[name] = options.pop(name)
    if method is not None:
        request["method"] = method
    if path is not None:
        request["path"] = path
    spec: dict[str, Any] = {"request": request, **options}
    if response is not None:
        spec["response"] = response
    if responses is not None:
        spec["responses"] = responses
    return spec
