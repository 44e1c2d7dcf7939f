"""WireMock's JSON stub mappings as stubs (:mod:`fakes.kernel.stubs`): a team moves its existing
stubs over in one command (``fakes serve --wiremock-mappings DIR``, ``POST
/_fake/stubs/import/wiremock``).

Each mapping is translated whole or refused whole, with the reason (a mapping half translated
would answer requests the original did not). What translates, as WireMock documents it
(https://wiremock.org/docs/request-matching/, https://wiremock.org/docs/stubbing/):

* request: ``method`` (``ANY``: any), ``url`` (path and query, exact), ``urlPath`` (exact),
  ``urlPathPattern`` and ``urlPattern`` (regexes, when they cannot backtrack without bound),
  ``urlPathTemplate`` (``/users/{id}``); ``queryParameters``, ``headers`` and ``formParameters``
  with ``equalTo`` (``caseInsensitive`` too), ``contains``, ``matches``, ``absent``;
  ``basicAuthCredentials``; ``bodyPatterns`` with ``equalToJson`` (whole, or with
  ``ignoreExtraElements`` as a fragment), ``contains``, and ``matchesJsonPath`` in the forms
  ``{"expression": "$.a.b", "equalTo": v}`` and ``$[?(@.a == 'v')]``;
* response: ``status``, ``headers``, ``jsonBody``, ``body``, ``fixedDelayMilliseconds``, the
  ``response-template`` transformer (its common helpers: ``request.path.[n]``, ``request.query.x``,
  ``request.headers.x``, ``jsonPath request.body '$.a'``, ``now`` with ``offset`` and epoch formats);
* ``priority``, ``scenarioName``, ``requiredScenarioState``, ``newScenarioState``, ``name``.

Everything else is refused with a reason (``bodyFileName``, ``base64Body``, ``fault``, proxying,
delay distributions, XML and XPath, negative matchers, cookies, webhooks ...).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import ControlError
from .stubs import StubSet
from .wiremock_templates import Untranslatable, handlebars

#: what a mapping may hold that the translation reads, or knowingly leaves (ids, metadata)
TOP_FIELDS = frozenset({"request", "response", "priority", "scenarioName", "requiredScenarioState",
                        "newScenarioState", "name", "id", "uuid", "persistent", "metadata", "insertionIndex"})
REQUEST_REASONS = {
    "cookies": "cookie matching is not translated; match the Cookie header with headers instead",
    "pathParameters": "path parameter matchers are not translated; put the value in urlPathTemplate's path",
    "multipartPatterns": "multipart bodies are not matched",
    "customMatcher": "custom matchers are Java extensions",
    "host": "host matching is not translated (each fake serves one service)",
    "port": "port matching is not translated (each fake serves one service)",
    "scheme": "scheme matching is not translated",
    "clientIp": "client IP matching is not translated",
}
RESPONSE_REASONS = {
    "bodyFileName": "bodyFileName: files under __files are not read; inline the body as body or jsonBody",
    "base64Body": "base64Body: binary answers are not supported; answer text or JSON",
    "fault": "fault: use a fault rule instead (POST /_fake/faults with drop, or a status)",
    "proxyBaseUrl": "proxying to another server is not supported (no network)",
    "delayDistribution": "delayDistribution: random delays are not translated; use fixedDelayMilliseconds",
    "chunkedDribbleDelay": "chunkedDribbleDelay is not translated",
    "transformerParameters": "transformerParameters are not translated",
}
TOP_REASONS = {
    "postServeActions": "postServeActions (webhooks) are not translated",
    "serveEventListeners": "serveEventListeners (webhooks) are not translated",
}
MATCHER_REASONS = {
    "doesNotMatch": "has no negated regex criterion",
    "doesNotContain": "has no negated contains criterion",
    "equalToDateTime": "date-time matchers are not translated", "before": "date-time matchers are not translated",
    "after": "date-time matchers are not translated",
    "hasExactly": "multi-value matchers are not translated", "includes": "multi-value matchers are not translated",
    "and": "logical matchers are not translated", "or": "logical matchers are not translated",
    "not": "logical matchers are not translated",
    "equalToJson": "JSON matchers on a single value are not translated",
    "matchesJsonPath": "JSON matchers on a single value are not translated",
}
_SIMPLE_JSON_PATH = re.compile(r"\$((?:\.[A-Za-z_][A-Za-z0-9_\-]*)+)\Z")
_ROOT_FILTER = re.compile(r"\$\[\?\(@\.([A-Za-z_][A-Za-z0-9_\-]*)\s*==\s*(?:'([^']*)'|\"([^\"]*)\"|(-?\d+(?:\.\d+)?)"
                          r"|(true|false|null))\s*\)\]\Z")


@dataclass
class Translated:
    source: str  # the file (and position) it came from
    stub: dict[str, Any]
    notes: list[str] = field(default_factory=list)  # what differs slightly from WireMock


@dataclass
class Refused:
    source: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"source": self.source, "reason": self.reason}


def mappings_in(document: Any, source: str) -> list[tuple[str, Any]]:
    """The mappings of one JSON document: ``{"mappings": [...]}`` or one mapping; each with its
    source (``file.json``, ``file.json#3``)."""
    if isinstance(document, Mapping) and "mappings" in document:
        mappings = document["mappings"]
        if not isinstance(mappings, list):
            raise Untranslatable("mappings must be a list of mappings")
        return [(f"{source}#{index}", mapping) for index, mapping in enumerate(mappings)]
    if isinstance(document, list):
        return [(f"{source}#{index}", mapping) for index, mapping in enumerate(document)]
    return [(source, document)]


def translate(mapping: Any, source: str) -> Translated:
    """The stub of one mapping (:class:`Untranslatable` with the reason when there is none)."""
    if not isinstance(mapping, Mapping):
        raise Untranslatable("a mapping must be a JSON object with request and response")
    for name, reason in TOP_REASONS.items():
        if mapping.get(name):
            raise Untranslatable(reason)
    unknown = sorted(str(name) for name in mapping if name not in TOP_FIELDS and name not in TOP_REASONS)
    if unknown:
        raise Untranslatable(f"{unknown[0]!r} is not a mapping field this translation knows")
    notes: list[str] = []
    stub: dict[str, Any] = {"request": _request(mapping.get("request"), notes),
                            "name": str(mapping.get("name") or source)[:200]}
    stub.update(_response(mapping.get("response") or {}, notes))
    if mapping.get("priority") is not None:
        stub["priority"] = mapping["priority"]
    if mapping.get("scenarioName") is not None:
        stub["scenario"] = mapping["scenarioName"]
        for ours, theirs in (("requires_state", "requiredScenarioState"), ("new_state", "newScenarioState")):
            if mapping.get(theirs) is not None:
                stub[ours] = mapping[theirs]
    return Translated(source, stub, notes)


# -- request -------------------------------------------------------------------------------------
def _request(request: Any, notes: list[str]) -> dict[str, Any]:
    if not isinstance(request, Mapping):
        raise Untranslatable("request must be an object")
    for name, reason in REQUEST_REASONS.items():
        if request.get(name):
            raise Untranslatable(f"request.{name}: {reason}")
    criteria: dict[str, Any] = {}
    method = request.get("method", "ANY")
    if not isinstance(method, str):
        raise Untranslatable("request.method must be a string")
    if method.upper() != "ANY":
        criteria["method"] = method.upper()
    urls = [name for name in ("url", "urlPath", "urlPathPattern", "urlPattern", "urlPathTemplate") if name in request]
    if len(urls) > 1:
        raise Untranslatable(f"request gives {' and '.join(urls)}; WireMock takes one")
    if urls:
        value = request[urls[0]]
        if not isinstance(value, str):
            raise Untranslatable(f"request.{urls[0]} must be a string")
        criteria.update(_url(urls[0], value))
    for theirs, ours in (("queryParameters", "query"), ("headers", "headers"), ("formParameters", "form")):
        found = request.get(theirs)
        if found:
            if not isinstance(found, Mapping):
                raise Untranslatable(f"request.{theirs} must be an object")
            criteria[ours] = {name: _matcher(spec, f"request.{theirs}.{name}") for name, spec in found.items()}
    credentials = request.get("basicAuthCredentials")
    if credentials:
        if not isinstance(credentials, Mapping) or not all(isinstance(credentials.get(k), str)
                                                           for k in ("username", "password")):
            raise Untranslatable("request.basicAuthCredentials needs username and password")
        token = base64.b64encode(f"{credentials['username']}:{credentials['password']}".encode()).decode()
        criteria.setdefault("headers", {})["Authorization"] = f"Basic {token}"
    patterns = request.get("bodyPatterns") or []
    if not isinstance(patterns, list):
        raise Untranslatable("request.bodyPatterns must be a list")
    for index, pattern in enumerate(patterns):
        _body_pattern(pattern, f"request.bodyPatterns[{index}]", criteria, notes)
    unknown = sorted(set(request) - {"method", "url", "urlPath", "urlPathPattern", "urlPattern", "urlPathTemplate",
                                     "queryParameters", "headers", "formParameters", "basicAuthCredentials",
                                     "bodyPatterns", *REQUEST_REASONS})
    if unknown:
        raise Untranslatable(f"request.{unknown[0]} is not a request field this translation knows")
    return criteria


def _url(kind: str, value: str) -> dict[str, Any]:
    if kind == "url":  # path and query, exact: the path indexes it, the url keeps it exact
        return {"path": {"equals": value.partition("?")[0]}, "url": value}
    if kind == "urlPath":
        return {"path": {"equals": value}}
    if kind == "urlPathTemplate":
        return {"path": value}
    if kind == "urlPathPattern":
        return {"path": {"matches": value}}
    return {"url": {"matches": value}}


def _matcher(spec: Any, where: str) -> Any:
    """A WireMock value matcher as one of the criteria's."""
    if not isinstance(spec, Mapping) or not spec:
        raise Untranslatable(f"{where} must be a matcher object such as {{\"equalTo\": \"x\"}}")
    operators = [name for name in spec if name != "caseInsensitive"]
    for name in operators:
        if name in MATCHER_REASONS:
            raise Untranslatable(f"{where}: {name} {MATCHER_REASONS[name]}")
    if len(operators) != 1:
        raise Untranslatable(f"{where}: one matcher per value (equalTo, contains, matches or absent)")
    operator = operators[0]
    value = spec[operator]
    case_insensitive = spec.get("caseInsensitive") is True
    if operator == "absent":
        return {"absent": True} if value is not False else {"present": True}
    if not isinstance(value, str):
        raise Untranslatable(f"{where}.{operator} must be a string")
    if case_insensitive and operator != "equalTo":
        raise Untranslatable(f"{where}: caseInsensitive goes with equalTo only")
    if operator == "equalTo":
        return {"matches": "(?i)" + re.escape(value)} if case_insensitive else value
    if operator in ("contains", "matches"):
        return {operator: value}
    raise Untranslatable(f"{where}: {operator} is not a matcher this translation knows")


def _body_pattern(pattern: Any, where: str, criteria: dict[str, Any], notes: list[str]) -> None:
    if not isinstance(pattern, Mapping) or not pattern:
        raise Untranslatable(f"{where} must be a matcher object")
    kind = next(iter(pattern))
    value = pattern[kind]
    if kind == "equalToJson":
        expected = _json_value(value, where)
        if "${json-unit." in json.dumps(expected):
            raise Untranslatable(f"{where}: json-unit placeholders are not translated")
        extra, order = pattern.get("ignoreExtraElements") is True, pattern.get("ignoreArrayOrder") is True
        if extra:
            _merge_fragment(criteria, expected, where)
            if not order and _has_array(expected):
                notes.append(f"{where}: arrays are matched as fragments (any order, other items allowed)")
        elif order:
            raise Untranslatable(f"{where}: ignoreArrayOrder without ignoreExtraElements is not translated")
        elif "json_equals" in criteria:
            raise Untranslatable(f"{where}: a second equalToJson")
        else:
            criteria["json_equals"] = expected
    elif kind == "contains":
        if not isinstance(value, str):
            raise Untranslatable(f"{where}.contains must be a string")
        if "body_contains" in criteria:
            raise Untranslatable(f"{where}: only one contains body pattern is translated")
        criteria["body_contains"] = value
    elif kind == "matchesJsonPath":
        _merge_fragment(criteria, _json_path_fragment(value, where), where)
        notes.append(f"{where}: matched as a JSON fragment (the value's type counts: \"5\" is not 5)")
    elif kind == "equalTo":
        raise Untranslatable(f"{where}: equalTo on the whole body is not translated; use equalToJson or contains")
    else:
        raise Untranslatable(f"{where}: the body pattern {kind!r} is not translated "
                             "(equalToJson, contains and simple matchesJsonPath are)")


def _json_value(value: Any, where: str) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            raise Untranslatable(f"{where}: equalToJson is not JSON") from None
    return value


def _json_path_fragment(value: Any, where: str) -> Any:
    if isinstance(value, Mapping):
        expression, wanted = value.get("expression"), value.get("equalTo")
        if set(value) != {"expression", "equalTo"} or not isinstance(expression, str):
            raise Untranslatable(f"{where}: matchesJsonPath translates as {{\"expression\": \"$.a.b\", "
                                 "\"equalTo\": value}, not with other matchers")
        found = _SIMPLE_JSON_PATH.match(expression)
        if found is None:
            raise Untranslatable(f"{where}: the JSONPath {expression!r} is not a plain $.a.b path")
        fragment: Any = wanted
        for key in reversed(found.group(1)[1:].split(".")):
            fragment = {key: fragment}
        return fragment
    if isinstance(value, str):
        root = _ROOT_FILTER.match(value)
        if root is not None:
            name, single, double, number, literal = root.groups()
            return {name: single if single is not None else double if double is not None else
                    json.loads(number if number is not None else literal)}
        raise Untranslatable(f"{where}: the JSONPath {value!r} tests presence or filters; only "
                             "{\"expression\": \"$.a.b\", \"equalTo\": v} and $[?(@.a == 'v')] are translated")
    raise Untranslatable(f"{where}: matchesJsonPath must be a string or an object")


def _merge_fragment(criteria: dict[str, Any], fragment: Any, where: str) -> None:
    if "json" not in criteria:
        criteria["json"] = fragment
        return
    merged = _merged(criteria["json"], fragment)
    if merged is None:
        raise Untranslatable(f"{where}: conflicts with an earlier JSON body pattern")
    criteria["json"] = merged


def _merged(first: Any, second: Any) -> Any:
    if isinstance(first, dict) and isinstance(second, dict):
        out = dict(first)
        for key, value in second.items():
            if key in out:
                inner = _merged(out[key], value)
                if inner is None:
                    return None
                out[key] = inner
            else:
                out[key] = value
        return out
    return first if first == second else None


def _has_array(value: Any) -> bool:
    if isinstance(value, list):
        return True
    if isinstance(value, dict):
        return any(_has_array(item) for item in value.values())
    return False


# -- response ------------------------------------------------------------------------------------
def _response(response: Any, notes: list[str]) -> dict[str, Any]:
    if not isinstance(response, Mapping):
        raise Untranslatable("response must be an object")
    for name, reason in RESPONSE_REASONS.items():
        if response.get(name):
            raise Untranslatable(f"response.{reason}" if reason.startswith(name) else f"response.{name}: {reason}")
    known = {"status", "statusMessage", "headers", "jsonBody", "body", "fixedDelayMilliseconds", "transformers",
             *RESPONSE_REASONS}
    unknown = sorted(set(response) - known)
    if unknown:
        raise Untranslatable(f"response.{unknown[0]} is not a response field this translation knows")
    transformers = response.get("transformers") or []
    if not isinstance(transformers, list) or any(name != "response-template" for name in transformers):
        raise Untranslatable("response.transformers: only response-template is translated")
    templated = bool(transformers)
    answer: dict[str, Any] = {}
    if response.get("status") is not None:
        answer["status"] = response["status"]
    if response.get("statusMessage"):
        notes.append("response.statusMessage: the reason phrase is the server's own")
    headers = response.get("headers") or {}
    if not isinstance(headers, Mapping):
        raise Untranslatable("response.headers must be an object")
    if headers:
        answer["headers"] = {name: ", ".join(map(str, value)) if isinstance(value, list) else value
                             for name, value in headers.items()}
    if response.get("jsonBody") is not None:
        answer["json"] = response["jsonBody"]
    elif response.get("body") is not None:
        answer["body"] = response["body"]
    if response.get("fixedDelayMilliseconds"):
        answer["latency_ms"] = response["fixedDelayMilliseconds"]
    if templated:
        answer = _translate_templates(answer)
    return {"response": answer, "templates": templated}


def _translate_templates(value: Any) -> Any:
    """Every text of an answer with WireMock's Handlebars helpers in this fake's template language."""
    if isinstance(value, str):
        return handlebars(value)
    if isinstance(value, Mapping):
        return {key: _translate_templates(item) if key != "status" else item for key, item in value.items()}
    if isinstance(value, list):
        return [_translate_templates(item) for item in value]
    return value


# -- folders -------------------------------------------------------------------------------------
class MappingsFolderError(ValueError):
    """A folder of mappings that cannot be read at all (the CLI's one line, exit status 2)."""


def read_folder(folder: Path) -> list[tuple[str, Any]]:
    """Every mapping under ``folder`` (or its ``mappings/`` sub-folder, WireMock's own layout), in
    the order of their file names; a file that is not JSON comes back as a :class:`Refused`."""
    if not folder.is_dir():
        raise MappingsFolderError(f"{folder} is not a folder of WireMock mappings")
    root = folder / "mappings" if (folder / "mappings").is_dir() else folder
    files = sorted(path for path in root.rglob("*.json") if path.is_file())
    if not files:
        raise MappingsFolderError(f"{root} holds no .json mapping files")
    found: list[tuple[str, Any]] = []
    for path in files:
        source = str(path.relative_to(root))
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            found.append((source, Refused(source, f"not a JSON file: {exc}")))
            continue
        try:
            found.extend(mappings_in(document, source))
        except Untranslatable as exc:
            found.append((source, Refused(source, str(exc))))
    return found


# -- importing -------------------------------------------------------------------------------------
@dataclass
class Imported:
    """What an import did: the stubs it added (with their source and notes) and what it refused."""

    added: list[tuple[Translated, dict[str, Any]]] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"imported": [{"source": t.source, "notes": t.notes, "stub": stub} for t, stub in self.added],
                "refused": [r.to_dict() for r in self.refused]}


def import_into(stubs: StubSet, found: list[tuple[str, Any]], *, place: str = "before") -> Imported:
    """Add each mapping of ``found`` (``(source, mapping)``, or a :class:`Refused` already) to
    ``stubs`` as a stub at ``place``; a mapping the translation or the stub's checks refuse is
    named with the reason, the others are added."""
    result = Imported()
    for source, mapping in found:
        if isinstance(mapping, Refused):
            result.refused.append(mapping)
            continue
        try:
            translated = translate(mapping, source)
            rule = stubs.add({**translated.stub, "place": place})
        except Untranslatable as exc:
            result.refused.append(Refused(source, str(exc)))
            continue
        except ControlError as exc:
            result.refused.append(Refused(source, exc.message))
            continue
        result.added.append((translated, rule.to_dict()))
    return result
