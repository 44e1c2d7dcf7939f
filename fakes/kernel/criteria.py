"""Request criteria: whether one request matches a pattern, and which criteria it fails.

The one matcher of the kernel: the journal's verification (fakes/kernel/verify.py) runs it over
kept entries, and anything else that must recognise a request (a stub) runs it over one live
request. :class:`RequestPattern` is the compiled criteria, :class:`Sent` one request as they
read it; ``pattern.failures(sent, redactor, budget)`` is empty when the request matches.

The criteria, all optional, all of which must hold:

* ``method``: ``POST`` (any case; ``*`` or none: any);
* ``path``: exact, a glob such as ``/rest/*``, a template such as ``/users/{id}``, or
  ``{"matches": regex}`` (below the fake's base, as the journal keeps it; :mod:`fakes.kernel.pathmatch`);
* ``url``: the path with ``?query`` when there is one, as a matcher (``{"matches": regex}``, a string);
* ``headers``, ``query``, ``form``: name -> matcher, where a matcher is a string (equal to it) or
  one of ``{"equals": s}``, ``{"contains": s}``, ``{"matches": regex}`` (the whole value),
  ``{"present": true}``, ``{"absent": true}``; header names are case-insensitive; a query or form
  field sent several times matches when any of its values does;
* ``json``: a JSON fragment the request body must contain: an object matches when each of its keys
  is there with a matching value (other keys may be there too), an array when each of its items
  matches some item of the body's array, anything else when equal (``1`` is not ``true``);
* ``json_equals``: the JSON the request body must be, whole (objects: the same keys; arrays: the
  same items in the same order);
* ``body_contains``: text the request body contains;
* ``status``: the answer's status, ``201`` or a class such as ``"4xx"``;
* ``answered_by``: what answered (journal entries only): ``"fault"``, ``"stub"``, ``"model"``, or
  ``{"kind": "stub", "id": "s1"}``.

**Credentials.** A value the journal shows redacted (fakes/kernel/redaction.py) is matched whole
or not at all: a string or ``equals`` compares the value as sent, ``present`` and ``absent`` see it,
but ``contains``, ``matches`` and ``body_contains`` read it as shown (``Bearer [redacted]``), so
no series of finds can spell a token out. A journal that keeps secrets (``--journal-keep-secrets``)
matches everything as sent.

**Bounds.** A pattern holds at most :data:`MAX_MATCHERS` header, query and form criteria, a
``json`` fragment at most :data:`MAX_FRAGMENT_VALUES` values, a string at most
:data:`MAX_CRITERION_TEXT` characters (a :class:`PatternError` naming the field). The work of
matching is counted in steps (fakes/kernel/budget.py: about a byte's work each, a byte of a body
parsed or redacted, a regex's run by :func:`~fakes.kernel.saferegex.match_cost`, ``STEP_CALL``
for each criterion, entry and JSON value looked at) against a ``Budget``; past it
``BudgetSpent``. Array fragments are matched through an index of the body's array
(fakes/kernel/fragments.py), not item against item.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

import orjson

from .budget import STEP_CALL, Budget
from .exchange import REQUEST_BODY, REQUEST_HEADERS, REQUEST_LENGTH, header_pairs
from .fragments import json_equal, json_mismatch, short
from .pathmatch import PathError, PathMatcher
from .redaction import REDACTED, Redactor
from .saferegex import UnsafeRegex, compile_costed, fullmatch_bounded, match_cost

MATCHER_KINDS = ("equals", "contains", "matches", "present", "absent")
PATTERN_FIELDS = ("method", "path", "url", "headers", "query", "json", "json_equals", "form", "body_contains",
                  "status", "answered_by")
#: the criteria only a journal entry can meet (a live request is not answered yet)
ENTRY_ONLY_CRITERIA = ("status", "answered_by")
ANSWERERS = ("fault", "stub", "model")
#: header, query and form criteria of one pattern, together
MAX_MATCHERS = 100
#: values (objects, arrays, strings, numbers ...) of a json fragment
MAX_FRAGMENT_VALUES = 10_000
#: characters of any string of a pattern (a path, a matcher's value, body_contains, a fragment's text)
MAX_CRITERION_TEXT = 65_536
_UNSET: Any = object()
_NOT_JSON: Any = object()
#: what :meth:`Sent.json` gives for a body that is not JSON
NOT_JSON = _NOT_JSON
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
    unbounded: int = 0  # of the regex: what a run costs (saferegex.match_cost)

    @classmethod
    def parse(cls, spec: Any, where: str) -> Matcher:
        if isinstance(spec, str):
            return cls("equals", _text(spec, where))
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
                regex, unbounded = compile_costed(value)
            except UnsafeRegex as exc:
                raise PatternError(f"{where}.matches", str(exc)) from None
            return cls(kind, value, regex, unbounded)
        return cls(kind, _text(value, f"{where}.{kind}"))

    def check(self, values: list[str], budget: Budget, shown: Callable[[str], str] | None = None) -> bool:
        """Whether one of ``values`` (all of them: absent) does; ``shown``: the values are
        credentials, which ``contains`` and ``matches`` read as shown (redacted)."""
        kind = self.kind
        if kind == "equals":  # the common case (a query value, a key): no call per value
            return self.value in values
        if kind == "absent":
            return not values
        if kind == "present":
            return bool(values)
        return any(self._one(value if shown is None or self.kind == "equals" else shown(value), budget)
                   for value in values)

    def _one(self, value: str, budget: Budget) -> bool:
        if self.kind == "equals":
            return value == self.value
        if self.kind == "contains":
            budget.spend(len(value) >> 4)
            return self.value in value
        assert self.regex is not None
        budget.spend(match_cost(self.unbounded, len(value)))
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


class Sent:
    """One request as the criteria read it: method, path, query, the answer's status (None: not
    answered yet) and, when they were kept, its headers and body. Each is decoded once, when a
    criterion first needs it."""

    __slots__ = ("_form", "_headers", "_json", "_params", "_shown", "_text", "answered_by", "body", "length",
                 "method", "path", "query", "raw_headers", "status", "unavailable")

    def __init__(self, method: str, path: str, query: str = "", status: int | None = None, *,
                 headers: Iterable[tuple[bytes, bytes]] | bytes = (), body: bytes = b"", length: int | None = None,
                 unavailable: str = "", answered_by: tuple[str, ...] | None = None) -> None:
        self.method, self.path, self.query, self.status = method, path, query, status
        #: (kind, id, ...) of the fault or stub that answered (None: the model)
        self.answered_by = answered_by
        #: the headers as a settled block (journal) or (name, value) pairs, names in lower case
        self.raw_headers = headers
        self.body = body
        self.length = len(body) if length is None else length
        #: why headers and body are not there to read ("": they are)
        self.unavailable = unavailable
        self._headers: dict[str, str] | None = None
        self._params: dict[str, list[str]] | None = None
        self._form: dict[str, list[str]] | None = None
        self._text: Any = _UNSET
        self._shown: str | None = None
        self._json: Any = _UNSET

    @classmethod
    def of_kept(cls, method: str, path: str, query: str, status: int | None, exchange: Any, missing: str,
                answered_by: tuple[str, ...] | None = None) -> Sent:
        """A journal entry: ``exchange`` its kept tuple, else ``missing`` says why there is none."""
        if isinstance(exchange, tuple):
            return cls(method, path, query, status, headers=exchange[REQUEST_HEADERS], body=exchange[REQUEST_BODY],
                       length=exchange[REQUEST_LENGTH], answered_by=answered_by)
        return cls(method, path, query, status, unavailable=missing, answered_by=answered_by)

    def header(self, name: str) -> str | None:
        """The header ``name`` (lower case) as sent, repeated ones joined by ", "."""
        headers = self._headers
        if headers is None:
            raw = self.raw_headers
            headers = self._headers = {}
            for key, value in header_pairs(raw) if isinstance(raw, bytes) else raw:
                text = key.decode("latin-1")
                headers[text] = f"{headers[text]}, {value.decode('latin-1')}" if text in headers \
                    else value.decode("latin-1")
        return headers.get(name)

    def params(self, budget: Budget) -> dict[str, list[str]]:
        if self._params is None:
            budget.spend(_parse_cost(self.query))
            self._params = parse_qs(self.query, keep_blank_values=True)
        return self._params

    def text(self, budget: Budget) -> str | None:
        """The body as text (None: not UTF-8)."""
        if self._text is _UNSET:
            budget.spend(len(self.body) >> 6)
            try:
                self._text = self.body.decode("utf-8")
            except UnicodeDecodeError:
                self._text = None
        text: str | None = self._text
        return text

    def shown(self, text: str, redactor: Redactor, budget: Budget) -> str:
        """The body text as the journal shows it (credentials redacted)."""
        if self._shown is None:
            budget.spend(len(text))
            self._shown = redactor.text(text)
        return self._shown

    def form(self, text: str, budget: Budget) -> dict[str, list[str]]:
        if self._form is None:
            budget.spend(_parse_cost(text))
            self._form = parse_qs(text, keep_blank_values=True)
        return self._form

    def json(self, text: str, budget: Budget) -> Any:
        """The body as JSON, or ``_NOT_JSON``."""
        if self._json is _UNSET:
            budget.spend(len(text))
            try:
                self._json = orjson.loads(text)
            except orjson.JSONDecodeError:
                self._json = _NOT_JSON
        return self._json


@dataclass(frozen=True)
class RequestPattern:
    """What a request must look like to match (every criterion optional; see the module)."""

    method: str | None = None
    path: PathMatcher | None = None
    headers: Mapping[str, Matcher] = field(default_factory=dict)
    query: Mapping[str, Matcher] = field(default_factory=dict)
    json: Any = _UNSET
    form: Mapping[str, Matcher] = field(default_factory=dict)
    body_contains: str | None = None
    status: int | str | None = None
    url: Matcher | None = None
    json_equals: Any = _UNSET
    answered_by: tuple[str, str | None] | None = None

    @classmethod
    def build(cls, method: str | None = None, path: Any = None, *, headers: Mapping[str, Any] | None = None,
              query: Mapping[str, Any] | None = None, json: Any = _UNSET, form: Mapping[str, Any] | None = None,
              body_contains: str | None = None, status: int | str | None = None, url: Any = None,
              json_equals: Any = _UNSET, answered_by: Any = None) -> RequestPattern:
        """A pattern from Python values (the same as the JSON of ``POST /_fake/journal/find``)."""
        if method is not None and not isinstance(method, str):
            raise PatternError("method", "must be a string such as POST (or *)")
        if body_contains is not None and not isinstance(body_contains, str):
            raise PatternError("body_contains", "must be a string")
        if body_contains is not None:
            _text(body_contains, "body_contains")
        for name, fragment in (("json", json), ("json_equals", json_equals)):
            if fragment is not _UNSET:
                _check_fragment(fragment, name)
        wanted = None if method is None or method.strip() in ("", "*") else method.strip().upper()
        matchers = {where: _matchers(specs, where) for where, specs in (("headers", headers), ("query", query),
                                                                         ("form", form))}
        if sum(len(found) for found in matchers.values()) > MAX_MATCHERS:
            raise PatternError("headers" if len(matchers["headers"]) > MAX_MATCHERS else
                               "query" if len(matchers["query"]) > len(matchers["form"]) else "form",
                               f"a pattern holds at most {MAX_MATCHERS} header, query and form criteria together")
        return cls(method=wanted, path=_path(path),
                   headers={name.lower(): spec for name, spec in matchers["headers"].items()},
                   query=matchers["query"], json=json, form=matchers["form"],
                   body_contains=body_contains, status=_status(status),
                   url=None if url is None else Matcher.parse(url, "url"), json_equals=json_equals,
                   answered_by=_answerer(answered_by))

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> RequestPattern:
        unknown = sorted(set(body) - set(PATTERN_FIELDS))
        if unknown:
            raise PatternError(unknown[0][:200], f"is not a criterion; known: {', '.join(PATTERN_FIELDS)}")
        for name in PATTERN_FIELDS:
            if name not in ("json", "json_equals") and name in body and body[name] is None:  # leave it out: any
                raise PatternError(name, "must not be null")
        return cls.build(**{name: body[name] for name in PATTERN_FIELDS if name in body})

    def needs_details(self) -> bool:
        return bool(self.headers or self.needs_body())

    def needs_body(self) -> bool:
        return bool(self.form or self.body_contains is not None or self.json is not _UNSET
                    or self.json_equals is not _UNSET)

    def matches(self, sent: Sent, redactor: Redactor | None = None, budget: Budget | None = None) -> bool:
        """Whether ``sent`` meets every criterion."""
        return not self.failures(sent, redactor, budget or Budget(), first_only=True)

    def failures(self, sent: Sent, redactor: Redactor | None, budget: Budget, *,
                 first_only: bool = False) -> list[Failure]:
        """The criteria ``sent`` fails (none: it matches), each with why, credentials shown as the
        journal shows them; ``first_only``: stop at the first."""
        found: list[Failure] = []
        budget.spend(2 * STEP_CALL)
        if self.method is not None and sent.method != self.method:
            found.append(Failure("method", f"expected {self.method}, got {sent.method}"))
        if self.path is not None and (not found or not first_only) and not self.path.matches(sent.path):
            budget.spend(len(sent.path))
            found.append(Failure("path", f"expected {_cut(self.path.describe())}, got {_cut(sent.path)}"))
        if self.url is not None and (not found or not first_only):
            url = f"{sent.path}?{sent.query}" if sent.query else sent.path
            shown = _url_shown(redactor, sent) if redactor is not None and sent.query else None
            if not self.url.check([url], budget, shown):
                got = url if shown is None else shown(url)
                found.append(Failure("url", f"expected {self.url.describe()}, got {_cut(got)!r}"))
        if self.answered_by is not None and (not found or not first_only) and \
                not _answered(sent.answered_by, self.answered_by):
            got = "the model" if sent.answered_by is None else " ".join(sent.answered_by[:2])
            found.append(Failure("answered_by", f"expected {' '.join(p for p in self.answered_by if p)}, got {got}"))
        if self.status is not None and (not found or not first_only) and \
                (sent.status is None or not _status_matches(sent.status, self.status)):
            found.append(Failure("status", f"expected {self.status}, got {sent.status}"))
        if found and first_only:
            return found
        if self.query:
            found += _check_fields("query", self.query, sent.params(budget), redactor, budget, first_only)
        if self.needs_details() and (not found or not first_only):
            found += self._detail_failures(sent, redactor, budget, first_only)
        return found

    def _detail_failures(self, sent: Sent, redactor: Redactor | None, budget: Budget,
                         first_only: bool) -> list[Failure]:
        if sent.unavailable:
            return [Failure("details", sent.unavailable)]
        found: list[Failure] = []
        for name, matcher in self.headers.items():
            budget.spend(STEP_CALL)
            value = sent.header(name)
            secret = redactor is not None and redactor.is_secret_header(name)
            shown = _header_shown(redactor, name) if secret else None
            if not matcher.check([] if value is None else [value], budget, shown):
                got = "absent" if value is None else repr(_cut(shown(value) if shown is not None else value))
                found.append(Failure(f"headers.{name}", f"expected {matcher.describe()}, got {got}"))
                if first_only:
                    return found
        if self.needs_body():
            found += self._body_failures(sent, redactor, budget)
        return found

    def _body_failures(self, sent: Sent, redactor: Redactor | None, budget: Budget) -> list[Failure]:
        kept, length = len(sent.body), sent.length
        if length > kept:
            return [Failure("body", f"only the first {kept} of its {length} body bytes were kept "
                                    "(--journal-body-bytes)")]
        text = sent.text(budget)
        if text is None:
            return [Failure("body", "the request body is not UTF-8 text")]
        found: list[Failure] = []
        if self.body_contains is not None and not self._body_contains(sent, text, redactor, budget):
            found.append(Failure("body_contains", f"the body does not contain {_cut(self.body_contains)!r}"))
        if self.form:
            found += _check_fields("form", self.form, sent.form(text, budget), redactor, budget, False)
        for name, expected in (("json", self.json), ("json_equals", self.json_equals)):
            if expected is _UNSET:
                continue
            if not text:
                found.append(Failure(name, "the request has no body"))
                continue
            actual = sent.json(text, budget)
            if actual is _NOT_JSON:
                found.append(Failure(name, "the request body is not JSON"))
                continue
            budget.spend(STEP_CALL)
            problem = (json_mismatch(expected, actual, "$", redactor, budget=budget) if name == "json" else
                       None if json_equal(expected, actual) else "the body is not this JSON (compared whole)")
            if problem is not None:
                found.append(Failure(name, problem))
        return found

    def _body_contains(self, sent: Sent, text: str, redactor: Redactor | None, budget: Budget) -> bool:
        """``body_contains`` in the body as shown: a credential in it cannot be searched for."""
        needle = self.body_contains
        assert needle is not None
        budget.spend(len(text) >> 4)
        if needle not in text and (redactor is None or REDACTED not in needle):
            return False  # redacting cannot make it appear (unless it names the mark itself)
        if redactor is None:
            return True
        return needle in sent.shown(text, redactor, budget)

    def describe(self) -> str:
        """``POST /rest/*, headers {...}, json {...}`` for reports."""
        parts = [" ".join(p for p in (self.method or "any method",
                                      self.path.describe() if self.path is not None else "any path"))]
        if self.url is not None:
            parts.append(f"url {self.url.describe()}")
        for name in ("headers", "query", "form"):
            matchers: Mapping[str, Matcher] = getattr(self, name)
            if matchers:
                parts.append(f"{name} " + ", ".join(f"{key}={m.describe()}" for key, m in matchers.items()))
        if self.json is not _UNSET:
            parts.append("json " + short(self.json, 500))
        if self.json_equals is not _UNSET:
            parts.append("json equal to " + short(self.json_equals, 500))
        if self.body_contains is not None:
            parts.append(f"body containing {_cut(self.body_contains)!r}")
        if self.status is not None:
            parts.append(f"status {self.status}")
        if self.answered_by is not None:
            parts.append("answered by " + " ".join(p for p in self.answered_by if p))
        return ", ".join(parts)


def _path(spec: Any) -> PathMatcher | None:
    if spec is None or spec == "":
        return None
    try:
        return PathMatcher.parse(spec)
    except PathError as exc:
        raise PatternError("path", str(exc)) from None


def _answerer(spec: Any) -> tuple[str, str | None] | None:
    """``answered_by`` as (kind, id or None): ``"fault"``, ``"stub"``, ``"model"``, ``{"kind", "id"}``."""
    if spec is None:
        return None
    if isinstance(spec, str) and spec in ANSWERERS:
        return (spec, None)
    if isinstance(spec, Mapping) and set(spec) <= {"kind", "id"} and spec.get("kind") in ANSWERERS[:2]:
        rule_id = spec.get("id")
        if rule_id is None or (isinstance(rule_id, str) and 0 < len(rule_id) <= 100):
            return (spec["kind"], rule_id)
    raise PatternError("answered_by", "must be \"fault\", \"stub\", \"model\" or {\"kind\": \"fault\" or \"stub\", "
                                      "\"id\": \"f1\"}")


def _answered(actual: tuple[str, ...] | None, wanted: tuple[str, str | None]) -> bool:
    kind, rule_id = wanted
    if actual is None:
        return kind == "model"
    return actual[0] == kind and (rule_id is None or actual[1] == rule_id)


def _parse_cost(text: str) -> int:
    return len(text) + STEP_CALL * text.count("&")


def _text(value: str, where: str) -> str:
    if len(value) > MAX_CRITERION_TEXT:
        raise PatternError(where, f"is longer than {MAX_CRITERION_TEXT} characters")
    return value


def _cut(text: str, limit: int = 200) -> str:
    """A value for a message: long ones cut (a find answers with a few hundred characters per criterion)."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def _header_shown(redactor: Redactor | None, name: str) -> Callable[[str], str]:
    assert redactor is not None
    return lambda value: redactor.header(name, value)


def _url_shown(redactor: Redactor, sent: Sent) -> Callable[[str], str]:
    """The url as the journal shows it: ``contains`` and ``matches`` cannot spell out a key in the query."""
    return lambda value: f"{sent.path}?{redactor.query(sent.query)}"


def _hidden(value: str) -> str:
    return REDACTED


def _matchers(specs: Mapping[str, Any] | None, where: str) -> dict[str, Matcher]:
    if specs is None:
        return {}
    if not isinstance(specs, Mapping):
        raise PatternError(where, "must be an object of name -> matcher")
    if len(specs) > MAX_MATCHERS:
        raise PatternError(where, f"a pattern holds at most {MAX_MATCHERS} header, query and form criteria together")
    return {_text(str(name), where): Matcher.parse(spec, f"{where}.{name}") for name, spec in specs.items()}


def _check_fragment(fragment: Any, name: str = "json") -> None:
    """A json fragment within :data:`MAX_FRAGMENT_VALUES` values and :data:`MAX_CRITERION_TEXT` characters."""
    count, text = 0, 0
    stack = [fragment]
    while stack:
        value = stack.pop()
        count += 1
        if count > MAX_FRAGMENT_VALUES:
            raise PatternError(name, f"a fragment holds at most {MAX_FRAGMENT_VALUES} values (objects, arrays, "
                                       "strings, numbers ...); match on fewer, or count the entries instead")
        if isinstance(value, Mapping):
            text += sum(len(str(key)) for key in value)
            stack.extend(value.values())
        elif isinstance(value, (list, tuple)):
            stack.extend(value)
        elif isinstance(value, str):
            text += len(value)
        if text > MAX_CRITERION_TEXT:
            raise PatternError(name, f"a fragment holds at most {MAX_CRITERION_TEXT} characters of text")


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
                  redactor: Redactor | None, budget: Budget, first_only: bool) -> list[Failure]:
    found: list[Failure] = []
    for name, matcher in matchers.items():
        if found and first_only:
            break
        budget.spend(STEP_CALL)
        got = values.get(name, [])
        secret = redactor is not None and redactor.is_secret_field(name, form=True)
        if not matcher.check(got, budget, _hidden if secret else None):
            shown = "absent" if not got else ", ".join(REDACTED if secret else repr(_cut(v)) for v in got[:5])
            found.append(Failure(f"{where}.{name}", f"expected {matcher.describe()}, got {shown}"))
    return found
