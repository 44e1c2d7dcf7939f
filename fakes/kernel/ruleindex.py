"""The criteria of live rules (faults, stubs) and their index: which rules a request has to be
judged by, found in a few dictionary lookups and one regular-expression run, whatever the number
of rules.

A rule's criteria are the journal's (:mod:`fakes.kernel.criteria`, one matcher): ``method``,
``path`` (exact, glob, template or regex), ``url``, ``query``, ``headers``, ``form``, ``json``,
``json_equals``, ``body_contains``; never ``status`` or ``answered_by`` (a live request has no
answer yet). They are compiled once, when the rule is added (:class:`RuleCriteria`).

* By method: a rule of one method is filed under it; one of any method under every method.
* By literal path: rules of one exact path share a bucket, found by a dict lookup. Within a bucket,
  when most rules ask for one query parameter or header to equal something (page 2, key k1), they
  are filed by that value too.
* Patterned paths (globs, templates, regexes, none): their path regexes make one alternation, run
  once per request: no match, no candidate; a match names the first rule whose path holds, and
  the rules before it are skipped.

The index only narrows: every candidate is still judged on all its criteria (fakes/kernel/live.py),
in rank order. It is rebuilt when the rules change, never per request.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, Protocol, TypeVar

from .budget import Budget
from .criteria import ENTRY_ONLY_CRITERIA, PATTERN_FIELDS, PatternError, RequestPattern, Sent
from .http import check_json_value
from .pathmatch import PathMatcher
from .saferegex import MAX_SUBJECT

#: a bucket of fewer rules is judged rule by rule
KEYED_FROM = 8
_LEADING_FLAGS = re.compile(r"\(\?([aiLmsux]+)\)")


#: the criteria of a rule (every one optional)
RULE_CRITERIA = tuple(name for name in PATTERN_FIELDS if name not in ENTRY_ONLY_CRITERIA)


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
    needs_body: bool = False

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
                   None if head == empty else head, rest.needs_body())


class Ruled(Protocol):
    """A rule the index holds: its id, its criteria and its place (lower first)."""

    @property
    def id(self) -> str: ...

    @property
    def criteria(self) -> RuleCriteria: ...

    @property
    def rank(self) -> tuple[int, ...]: ...


R = TypeVar("R", bound=Ruled)


def _by_rank(rule: Ruled) -> tuple[int, ...]:
    return rule.rank


class RuleList(Generic[R]):
    """Rules listed in the order added (spent ones too), numbered (``next_id``: the number the next
    accepted rule gets; a refused one uses none), and indexed again whenever they change."""

    # one per fake and world: no __dict__ each
    __slots__ = ("next_id", "rules")

    def __init__(self) -> None:
        self.rules: list[R] = []
        self.next_id = 1

    def _added(self, rule: R) -> R:
        self.next_id += 1
        self.rules.append(rule)
        self._reindex()
        return rule

    def remove(self, rule_id: str) -> bool:
        before = len(self.rules)
        self.rules = [rule for rule in self.rules if rule.id != rule_id]
        self._reindex()
        return len(self.rules) != before

    def _reindex(self) -> None:
        raise NotImplementedError


class RuleIndex(Generic[R]):
    """The rules of a set, by method, path and a shared criterion (see the module)."""

    __slots__ = ("_any", "_by_method")

    def __init__(self, rules: Iterable[R]) -> None:
        ordered = sorted(rules, key=_by_rank)
        methods = {rule.criteria.method for rule in ordered} - {None}
        self._any = _Group([rule for rule in ordered if rule.criteria.method is None])
        self._by_method = {method: _Group([rule for rule in ordered if rule.criteria.method in (None, method)])
                           for method in methods}

    def candidates(self, sent: Sent, budget: Budget) -> Sequence[R]:
        """The rules ``sent`` may meet, in rank order (each still to be judged whole)."""
        return self._by_method.get(sent.method, self._any).candidates(sent, budget)


class _Group(Generic[R]):
    __slots__ = ("literal", "patterned")

    def __init__(self, rules: list[R]) -> None:
        by_path: dict[str, list[R]] = {}
        patterned: list[R] = []
        for rule in rules:
            path = rule.criteria.path
            if path is not None and path.literal is not None:
                by_path.setdefault(path.literal, []).append(rule)
            else:
                patterned.append(rule)
        self.literal = {path: _Keyed(found) for path, found in by_path.items()}
        self.patterned = _Patterned(patterned)

    def candidates(self, sent: Sent, budget: Budget) -> Sequence[R]:
        patterned = self.patterned.candidates(sent.path)
        keyed = self.literal.get(sent.path)
        if keyed is None:
            return patterned
        exact = keyed.candidates(sent, budget)
        if not patterned:
            return exact
        if not exact:
            return patterned
        return sorted([*exact, *patterned], key=_by_rank)


class _Keyed(Generic[R]):
    """The rules of one exact path, filed by the value of the query parameter or header that most
    of them ask to equal something, when enough do."""

    __slots__ = ("by_value", "key", "rules", "unkeyed")

    def __init__(self, rules: list[R]) -> None:
        self.rules = rules
        self.key: tuple[str, str] | None = None
        self.by_value: dict[str, list[R]] = {}
        self.unkeyed: list[R] = []
        if len(rules) < KEYED_FROM:
            return
        counts = Counter(key for rule in rules for key in _equal_keys(rule.criteria))
        if not counts:
            return
        key, count = counts.most_common(1)[0]
        if count * 2 < len(rules):
            return
        self.key = key
        for rule in rules:
            value = _equal_keys(rule.criteria).get(key)
            if value is None:
                self.unkeyed.append(rule)
            else:
                self.by_value.setdefault(value, []).append(rule)

    def candidates(self, sent: Sent, budget: Budget) -> Sequence[R]:
        if self.key is None:
            return self.rules
        where, name = self.key
        if where == "headers":
            value = sent.header(name)
            values = [] if value is None else [value]
        else:
            values = sent.params(budget).get(name, [])
        found = [rule for value in dict.fromkeys(values) for rule in self.by_value.get(value, ())]
        if not found:
            return self.unkeyed
        return sorted([*found, *self.unkeyed], key=_by_rank) if self.unkeyed or len(values) > 1 else found


def _equal_keys(criteria: RuleCriteria) -> dict[tuple[str, str], str]:
    """The query parameters and headers ``criteria`` ask to equal a value: (where, name) -> value."""
    rest = criteria.rest
    if rest is None:
        return {}
    keys = {("query", name): matcher.value for name, matcher in rest.query.items() if matcher.kind == "equals"}
    keys.update({("headers", name): matcher.value for name, matcher in rest.headers.items()
                 if matcher.kind == "equals"})
    return keys


class _Patterned(Generic[R]):
    """Rules of patterned paths (or none): one alternation of their path regexes says which is the
    first whose path holds."""

    __slots__ = ("combined", "guarded", "rules", "starts")

    def __init__(self, rules: list[R]) -> None:
        self.rules = rules
        self.combined: re.Pattern[str] | None = None
        self.starts: dict[str, int] = {}
        #: the alternation holds a client's regex: run on paths of at most MAX_SUBJECT characters
        self.guarded = any(rule.criteria.path is not None and rule.criteria.path.kind == "regex" for rule in rules)
        sources = [_source(rule.criteria) for rule in rules]
        if len(rules) < 2 or any(source is None for source in sources):
            return
        try:
            # each alternative marked by an empty group at its end, not wrapped in one: the regex
            # compiler then factors out the literal prefix the alternatives share (/api/v1/...)
            self.combined = re.compile("|".join(f"(?:{source})(?P<r{index}>)" for index, source in enumerate(sources)))
        except (re.error, RecursionError, OverflowError):
            return
        self.starts = {f"r{index}": index for index in range(len(rules))}

    def candidates(self, path: str) -> Sequence[R]:
        combined = self.combined
        if combined is None or (self.guarded and len(path) > MAX_SUBJECT):
            return self.rules
        found = combined.fullmatch(path)
        if found is None:
            return ()
        start = self.starts[found.lastgroup or "r0"]
        return self.rules[start:] if start else self.rules


def _source(criteria: RuleCriteria) -> str | None:
    """The path regex of a rule as a part of an alternation (None: it cannot be one)."""
    path = criteria.path
    if path is None:
        return "(?s:.*)"
    if path.kind == "regex":
        text = path.text
        flags = _LEADING_FLAGS.match(text)
        if flags is not None:  # a global flag in front becomes a scoped one
            text = f"(?{flags.group(1)}:{text[flags.end():]})"
        return None if "(?P" in text else f"(?:{text})"
    return path.source


#: the index of no rules, shared by every fake and world that has none (it never changes)
EMPTY_INDEX: RuleIndex[Any] = RuleIndex(())
