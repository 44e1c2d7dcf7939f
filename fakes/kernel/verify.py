"""Request verification: find and count journal entries by what the client sent, and say which
entries came closest when none matched (the near misses, with the criterion each one failed).

A :class:`RequestPattern` holds the criteria, all optional, all of which must hold:

* ``method``: ``POST`` (any case; ``*`` or none: any);
* ``path``: exact, or a glob such as ``/rest/*`` (below the fake's base, as the journal keeps it);
* ``headers``, ``query``, ``form``: name -> matcher, where a matcher is a string (equal to it) or
  one of ``{"equals": s}``, ``{"contains": s}``, ``{"matches": regex}`` (the whole value),
  ``{"present": true}``, ``{"absent": true}``; header names are case-insensitive; a query or form
  field sent several times matches when any of its values does;
* ``json``: a JSON fragment the request body must contain: an object matches when each of its keys
  is there with a matching value (other keys may be there too), an array when each of its items
  matches some item of the body's array, anything else when equal (``1`` is not ``true``);
* ``body_contains``: text the request body contains;
* ``status``: the answer's status, ``201`` or a class such as ``"4xx"``.

Criteria read the request as the client sent it (credentials included); what is shown (entries,
near misses) is redacted as the journal shows it. Python: ``fake.find_requests(...)``,
``fake.count_requests(...)``, ``fake.assert_requested(..., times=1)``; HTTP:
``POST /_fake/journal/find``. See docs/testing.md, "Verifying requests".
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

import orjson

from .exchange import REDACTED, REQUEST_BODY, REQUEST_LENGTH, Kept, Redactor, request_header, request_text
from .journal import DROPPED, GLOB_CHARACTERS, Journal, Record
from .saferegex import UnsafeRegex, compile_guarded, fullmatch_bounded

#: the closest entries shown when nothing matched
NEAR_MISSES = 3
#: the matching entries shown when there were too many
SHOWN_MATCHES = 5
MATCHER_KINDS = ("equals", "contains", "matches", "present", "absent")
PATTERN_FIELDS = ("method", "path", "headers", "query", "json", "form", "body_contains", "status")
_UNSET: Any = object()
_STATUS_CLASS = re.compile(r"[1-5]xx\Z")


class PatternError(ValueError):
    """A criterion that cannot be used (a bad regex, a wrong type); ``field`` names it."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(f"{field_name}: {message}")
        self.field = field_name
        self.message = message


@dataclass(frozen=True)
class Matcher:
    """How one header, query or form value must look."""

    kind: str  # one of MATCHER_KINDS
    value: str = ""
    regex: re.Pattern[str] | None = None

    @classmethod
    def parse(cls, spec: Any, where: str) -> Matcher:
        if isinstance(spec, str):
            return cls("equals", spec)
        if not isinstance(spec, Mapping) or len(spec) != 1 or next(iter(spec)) not in MATCHER_KINDS:
            raise PatternError(where, "must be a string or one of {\"equals\": s}, {\"contains\": s}, "
                                      "{\"matches\": regex}, {\"present\": true}, {\"absent\": true}")
        kind, value = next(iter(spec.items()))
        if kind in ("present", "absent"):
            if value is not True:
                raise PatternError(f"{where}.{kind}", "must be true")
            return cls(kind)
        if not isinstance(value, str):
            raise PatternError(f"{where}.{kind}", "must be a string")
        if kind == "matches":
            try:
                return cls(kind, value, compile_guarded(value))
            except UnsafeRegex as exc:
                raise PatternError(f"{where}.matches", str(exc)) from None
        return cls(kind, value)

    def check(self, values: list[str]) -> bool:
        if self.kind == "absent":
            return not values
        if self.kind == "present":
            return bool(values)
        return any(self._one(value) for value in values)

    def _one(self, value: str) -> bool:
        if self.kind == "equals":
            return value == self.value
        if self.kind == "contains":
            return self.value in value
        assert self.regex is not None
        return fullmatch_bounded(self.regex, value)

    def describe(self) -> str:
        if self.kind in ("present", "absent"):
            return self.kind
        return repr(self.value) if self.kind == "equals" else f"{self.kind} {self.value!r}"


@dataclass(frozen=True)
class Failure:
    criterion: str  # "method", "path", "status", "headers.<name>", "query.<name>", "form.<name>", "json", "body"
    why: str

    def to_dict(self) -> dict[str, str]:
        return {"criterion": self.criterion, "why": self.why}


@dataclass(frozen=True)
class RequestPattern:
    """What a request must look like to match (every criterion optional; see the module)."""

    method: str | None = None
    path: str | None = None
    headers: Mapping[str, Matcher] = field(default_factory=dict)
    query: Mapping[str, Matcher] = field(default_factory=dict)
    json: Any = _UNSET
    form: Mapping[str, Matcher] = field(default_factory=dict)
    body_contains: str | None = None
    status: int | str | None = None

    @classmethod
    def build(cls, method: str | None = None, path: str | None = None, *, headers: Mapping[str, Any] | None = None,
              query: Mapping[str, Any] | None = None, json: Any = _UNSET, form: Mapping[str, Any] | None = None,
              body_contains: str | None = None, status: int | str | None = None) -> RequestPattern:
        """A pattern from Python values (the same as the JSON of ``POST /_fake/journal/find``)."""
        if method is not None and not isinstance(method, str):
            raise PatternError("method", "must be a string such as POST (or *)")
        if path is not None and not isinstance(path, str):
            raise PatternError("path", "must be a string: a path or a glob such as /rest/*")
        if body_contains is not None and not isinstance(body_contains, str):
            raise PatternError("body_contains", "must be a string")
        wanted = None if method is None or method.strip() in ("", "*") else method.strip().upper()
        return cls(method=wanted, path=path or None,
                   headers={name.lower(): spec for name, spec in _matchers(headers, "headers").items()},
                   query=_matchers(query, "query"), json=json, form=_matchers(form, "form"),
                   body_contains=body_contains, status=_status(status))

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> RequestPattern:
        unknown = sorted(set(body) - set(PATTERN_FIELDS))
        if unknown:
            raise PatternError(unknown[0], f"is not a criterion; known: {', '.join(PATTERN_FIELDS)}")
        for name in PATTERN_FIELDS:
            if name != "json" and name in body and body[name] is None:  # leave it out to match anything
                raise PatternError(name, "must not be null")
        return cls.build(**{name: body[name] for name in PATTERN_FIELDS if name in body})

    def needs_details(self) -> bool:
        return bool(self.headers or self.form or self.body_contains is not None or self.json is not _UNSET)

    def failures(self, record: Record, redactor: Redactor | None) -> list[Failure]:
        """The criteria ``record`` fails (none: it matches)."""
        found: list[Failure] = []
        if self.method is not None and record.method != self.method:
            found.append(Failure("method", f"expected {self.method}, got {record.method}"))
        if self.path is not None and not path_matches(record.path, self.path):
            found.append(Failure("path", f"expected {self.path}, got {record.path}"))
        if self.status is not None and not _status_matches(record.status, self.status):
            found.append(Failure("status", f"expected {self.status}, got {record.status}"))
        if self.query:
            values = parse_qs(record.query, keep_blank_values=True)
            found += _check_fields("query", self.query, values, redactor)
        if self.needs_details():
            found += self._detail_failures(record, redactor)
        return found

    def _detail_failures(self, record: Record, redactor: Redactor | None) -> list[Failure]:
        exchange = record.exchange
        if not isinstance(exchange, tuple):
            why = ("its headers and body were dropped to keep the journal within --journal-bytes"
                   if exchange == DROPPED else "the journal kept no headers and body for it")
            return [Failure("details", why)]
        found: list[Failure] = []
        for name, matcher in self.headers.items():
            value = request_header(exchange, name)
            if not matcher.check([] if value is None else [value]):
                shown = "absent" if value is None else repr(redactor.header(name, value) if redactor else value)
                found.append(Failure(f"headers.{name}", f"expected {matcher.describe()}, got {shown}"))
        if self.form or self.body_contains is not None or self.json is not _UNSET:
            found += self._body_failures(exchange, redactor)
        return found

    def _body_failures(self, exchange: Kept, redactor: Redactor | None) -> list[Failure]:
        kept, length = len(exchange[REQUEST_BODY]), exchange[REQUEST_LENGTH]
        if length > kept:
            return [Failure("body", f"only the first {kept} of its {length} body bytes were kept "
                                    "(--journal-body-bytes)")]
        text = request_text(exchange)
        if text is None:
            return [Failure("body", "the request body is not UTF-8 text")]
        found: list[Failure] = []
        if self.body_contains is not None and self.body_contains not in text:
            found.append(Failure("body_contains", f"the body does not contain {self.body_contains!r}"))
        if self.form:
            found += _check_fields("form", self.form, parse_qs(text, keep_blank_values=True), redactor)
        if self.json is not _UNSET:
            if not text:
                found.append(Failure("json", "the request has no body"))
            else:
                try:
                    actual = orjson.loads(text)
                except orjson.JSONDecodeError:
                    found.append(Failure("json", "the request body is not JSON"))
                else:
                    problem = json_mismatch(self.json, actual, "$", redactor)
                    if problem is not None:
                        found.append(Failure("json", problem))
        return found

    def describe(self) -> str:
        """``POST /rest/*, headers {...}, json {...}`` for reports."""
        parts = [" ".join(p for p in (self.method or "any method", self.path or "any path"))]
        for name in ("headers", "query", "form"):
            matchers: Mapping[str, Matcher] = getattr(self, name)
            if matchers:
                parts.append(f"{name} " + ", ".join(f"{key}={m.describe()}" for key, m in matchers.items()))
        if self.json is not _UNSET:
            parts.append("json " + orjson.dumps(self.json).decode())
        if self.body_contains is not None:
            parts.append(f"body containing {self.body_contains!r}")
        if self.status is not None:
            parts.append(f"status {self.status}")
        return ", ".join(parts)


def path_matches(path: str, wanted: str) -> bool:
    return path == wanted or (any(ch in wanted for ch in GLOB_CHARACTERS) and fnmatch.fnmatchcase(path, wanted))


def _matchers(specs: Mapping[str, Any] | None, where: str) -> dict[str, Matcher]:
    if specs is None:
        return {}
    if not isinstance(specs, Mapping):
        raise PatternError(where, "must be an object of name -> matcher")
    return {str(name): Matcher.parse(spec, f"{where}.{name}") for name, spec in specs.items()}


def _status(status: Any) -> int | str | None:
    if status is None:
        return None
    if isinstance(status, int) and not isinstance(status, bool) and 100 <= status <= 599:
        return status
    if isinstance(status, str) and _STATUS_CLASS.match(status.lower()):
        return status.lower()
    raise PatternError("status", "must be a status from 100 to 599 or a class such as \"4xx\"")


def _status_matches(actual: int, wanted: int | str) -> bool:
    return actual == wanted if isinstance(wanted, int) else str(actual)[:1] == wanted[0]


def _check_fields(where: str, matchers: Mapping[str, Matcher], values: Mapping[str, list[str]],
                  redactor: Redactor | None) -> list[Failure]:
    found = []
    for name, matcher in matchers.items():
        got = values.get(name, [])
        if not matcher.check(got):
            shown = "absent" if not got else ", ".join(
                REDACTED if redactor is not None and redactor.is_secret_field(name, form=True) else repr(v)
                for v in got)
            found.append(Failure(f"{where}.{name}", f"expected {matcher.describe()}, got {shown}"))
    return found


def json_mismatch(expected: Any, actual: Any, where: str, redactor: Redactor | None = None,
                  secret: bool = False) -> str | None:
    """Where ``actual`` fails to contain the fragment ``expected`` (None: it contains it)."""
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return f"at {where}: expected an object, got {_kind(actual)}"
        for key, value in expected.items():
            if key not in actual:
                return f"at {where}.{key}: missing"
            hidden = secret or (redactor is not None and redactor.is_secret_field(key))
            problem = json_mismatch(value, actual[key], f"{where}.{key}", redactor, hidden)
            if problem is not None:
                return problem
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return f"at {where}: expected an array, got {_kind(actual)}"
        for item in expected:
            if not any(json_mismatch(item, candidate, where, redactor, secret) is None for candidate in actual):
                return f"at {where}: no item contains {_short(item)}"
        return None
    if isinstance(expected, bool) != isinstance(actual, bool) or expected != actual \
            or isinstance(actual, (Mapping, list)):
        return f"at {where}: expected {_short(expected)}, got {REDACTED if secret else _short(actual)}"
    return None


def _kind(value: Any) -> str:
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return _short(value)


def _short(value: Any, limit: int = 80) -> str:
    text = orjson.dumps(value).decode()
    return text if len(text) <= limit else text[:limit - 3] + "..."


@dataclass
class Search:
    """What a pattern found in a journal: the matching records and, when none, the closest ones."""

    pattern: RequestPattern
    matches: list[Record]
    near_misses: list[tuple[Record, list[Failure]]]
    kept: int

    @property
    def count(self) -> int:
        return len(self.matches)


def search(journal: Journal, pattern: RequestPattern, *, near_misses: int = NEAR_MISSES) -> Search:
    """Every kept entry matching ``pattern``, oldest first; the closest ``near_misses`` if none."""
    redactor = journal.redactor
    matches: list[Record] = []
    misses: list[tuple[tuple[int, int, int], Record, list[Failure]]] = []
    kept = 0
    for record in journal.records():
        kept += 1
        failed = pattern.failures(record, None)
        if not failed:
            matches.append(record)
        elif not matches and near_misses:
            # fewest failed criteria first; then those whose method and path hold; then the newest
            where = sum(1 for f in failed if f.criterion in ("method", "path"))
            misses.append(((len(failed), where, -record.seq), record, failed))
    closest: list[tuple[Record, list[Failure]]] = []
    if not matches and misses:
        misses.sort(key=lambda item: item[0])
        # described again with what is shown redacted
        closest = [(record, pattern.failures(record, redactor)) for _, record, _ in misses[:near_misses]]
    return Search(pattern, matches, closest, kept)


def find(journal: Journal, pattern: RequestPattern, *, details: bool = True) -> list[dict[str, Any]]:
    return [journal.entry(record, details=details) for record in search(journal, pattern, near_misses=0).matches]


def near_miss_dicts(journal: Journal, found: Search) -> list[dict[str, Any]]:
    return [{"entry": journal.entry(record, details=False), "failed": [f.to_dict() for f in failures]}
            for record, failures in found.near_misses]


def describe_record(journal: Journal, record: Record) -> str:
    entry = journal.entry(record, details=False)
    query = f"?{entry['query']}" if entry["query"] else ""
    return f"#{record.seq} {record.method} {record.path}{query} -> {record.status} at {entry['time']}"


def verification_report(journal: Journal, found: Search, expectation: str) -> str:
    """Why an assertion failed: what was expected, what was found, and the closest entries."""
    head = (f"contract-fakes: expected {expectation} matching {found.pattern.describe()}; found {found.count} "
            f"among the {found.kept} request{'' if found.kept == 1 else 's'} the journal keeps")
    lines = [head]
    if found.matches:
        lines.append("matching:")
        lines += [f"  {describe_record(journal, record)}" for record in found.matches[-SHOWN_MATCHES:]]
        if found.count > SHOWN_MATCHES:
            lines.append(f"  (and {found.count - SHOWN_MATCHES} earlier)")
    elif found.near_misses:
        lines.append("the closest (near misses):")
        for record, failures in found.near_misses:
            lines.append(f"  {describe_record(journal, record)}")
            lines += [f"      {f.criterion}: {f.why}" for f in failures]
    else:
        lines.append("the journal keeps no request (cleared, or none was sent)")
    return "\n".join(lines)


def expectation(times: int | None) -> str:
    if times is None:
        return "at least one request"
    return f"exactly {times} request{'' if times == 1 else 's'}"


def check_times(times: Any) -> int | None:
    if times is None:
        return None
    if isinstance(times, bool) or not isinstance(times, int) or times < 0:
        raise PatternError("times", "must be a whole number >= 0 (or None: at least once)")
    return times


def assert_requested(journal: Journal, pattern: RequestPattern, times: int | None) -> list[dict[str, Any]]:
    """The matching entries; AssertionError with the near misses unless their number is ``times``
    (None: at least one)."""
    __tracebackhide__ = True  # pytest shows the test's line, not this one
    found = search(journal, pattern)
    if (found.count >= 1) if times is None else (found.count == times):
        return [journal.entry(record) for record in found.matches]
    raise AssertionError(verification_report(journal, found, expectation(times)))
