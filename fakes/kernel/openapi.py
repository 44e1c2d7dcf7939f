"""The control plane's part of every fake's OpenAPI document, merged into the service's own."""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from typing import Any

from .clock import MAX_EPOCH_MS
from .faults import DEFAULT_MAX_LATENCY_MS, MAX_PATH, MAX_TIMES, STATUS_RANGE

#: a character Python's ``str.strip()`` keeps, spelled out (``\S`` means another set in JSON Schema's
#: regular expressions): the pattern of a text a server refuses when it strips to nothing
NOT_BLANK = "[^\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
#: a fault's header name, as :mod:`.faults` checks it (said in words: see ``_fault_in``)
HEADER_NAME_PATTERN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$"

CONTROL_TAG = "control-plane"
CONTROL_SCHEME = "fakeControlToken"
#: On an operation: why a schema-valid body may still be refused with a 400 (a state valid only as a
#: whole, a check digit, a reference to a record); the control-plane contract test then skips
#: schemathesis's positive-data-acceptance check for it, and only that check.
ACCEPTANCE_BEYOND_SCHEMA = "x-acceptance-beyond-schema"
#: Beside it, when the reason is about some body fields only: their names (``a.b``: field ``b`` of the
#: object ``a``, or of each item of the list ``a``). The contract tests then leave those fields out of
#: schema-valid bodies and require the rest to be accepted, so the reason excuses nothing else.
BEYOND_SCHEMA_FIELDS = "x-beyond-schema-fields"


def beyond_schema(reason: str, *fields: str) -> dict[str, Any]:
    """An operation's :data:`ACCEPTANCE_BEYOND_SCHEMA` (and the :data:`BEYOND_SCHEMA_FIELDS` it concerns)."""
    return {ACCEPTANCE_BEYOND_SCHEMA: reason, **({BEYOND_SCHEMA_FIELDS: list(fields)} if fields else {})}

_ERROR = {"type": "object", "properties": {"error": {"type": "string"}, "message": {"type": "string"}},
          "required": ["error", "message"]}
_CLOCK = {
    "type": "object",
    "properties": {"now": {"type": "string", "format": "date-time"}, "epoch_ms": {"type": "integer"},
                   "mode": {"type": "string", "enum": ["manual", "real", "scaled"]}, "scale": {"type": "number"}},
    "required": ["now", "epoch_ms", "mode", "scale"],
}
def _fault_in(max_latency_ms: float) -> dict[str, Any]:
    """What ``POST /_fake/faults`` accepts, exactly as :func:`fakes.kernel.faults.parse_rule` checks it."""
    return {
        "type": "object",
        "properties": {
            "method": {"type": "string", "pattern": r"^(\*|[A-Za-z]{1,20})$",
                       "description": "HTTP method or * (default)"},
            "path": {"type": "string", "minLength": 1, "maxLength": MAX_PATH,
                     "description": "exact path or glob, below the fake's prefix (default *)"},
            "status": {"type": "integer", "minimum": STATUS_RANGE[0], "maximum": STATUS_RANGE[1], "nullable": True},
            # OpenAPI 3.0 has no way to say what a property's name may be (patternProperties and
            # propertyNames are JSON Schema's): the names' rule is the description's and
            # ACCEPTANCE_BEYOND_SCHEMA's
            "headers": {"type": "object", "nullable": True, "additionalProperties": {
                            "type": "string", "pattern": r"^[\t\x20-\x7e\xa0-\xff]{0,4000}$"},
                        "description": "header names are HTTP tokens of 1 to 100 characters "
                                       f"({HEADER_NAME_PATTERN}); values of printable Latin-1 (no CR, LF, "
                                       "C0 or C1 control characters), at most 4000; "
                                       "Content-Length and Transfer-Encoding are the fake's own (ignored)"},
            "body": {"description": "JSON value or text; default: the service's own error body. Integers of "
                                    "any size are kept and answered as sent; text must be Unicode (no lone "
                                    "UTF-16 surrogates)"},
            "latency_ms": {"type": "number", "minimum": 0, "maximum": max_latency_ms, "nullable": True,
                           "description": "at most the fake's max_fault_latency_ms"},
            "times": {"type": "integer", "minimum": 1, "maximum": MAX_TIMES, "nullable": True,
                      "description": "fire for the next N matches (default, or null: always)"},
            "probability": {"type": "number", "minimum": 0, "maximum": 1, "nullable": True,
                            "description": "drawn from the seeded RNG"},
            "drop": {"type": "boolean", "nullable": True, "description": "cut the connection instead of answering"},
            "request": {**RULE_CRITERIA_SCHEMA, "nullable": True,
                        "description": "criteria beyond method and path: query, headers, form, json, json_equals, "
                                       "body_contains, url (the journal's find)"},
        },
        "additionalProperties": False,
        # a rule must do something: answer, wait or drop
        "anyOf": [{"required": ["status"], "properties": {"status": {"type": "integer"}}},
                  {"required": ["drop"], "properties": {"drop": {"enum": [True]}}},
                  {"required": ["latency_ms"], "properties": {"latency_ms": {
                      "type": "number", "minimum": 0, "exclusiveMinimum": True}}}],
    }


_FAULT = {"type": "object", "required": ["id", "method", "path", "request", "status", "headers", "body", "latency_ms",
                                         "times", "probability", "drop", "fired", "spent"],
          "properties": {
              "id": {"type": "string"}, "method": {"type": "string"}, "path": {"type": "string"},
              "request": {"type": "object"}, "spent": {"type": "boolean", "description": "times ran out"},
              "status": {"type": "integer", "nullable": True},
              "headers": {"type": "object", "additionalProperties": {"type": "string"}},
              "body": {"nullable": True}, "latency_ms": {"type": "number"},
              "times": {"type": "integer", "nullable": True, "description": "matches left; null: unlimited"},
              "probability": {"type": "number"}, "drop": {"type": "boolean"}, "fired": {"type": "integer"}}}
_RULE: dict[str, Any] = {
    "type": "object",
    "properties": {"id": {"type": "string"}, "severity": {"type": "string", "enum": ["error", "warning"]},
                   "explanation": {"type": "string"}, "source": {"type": "string"}},
    "required": ["id", "severity", "explanation", "source"],
}
_OFFENCE = {"type": "object", "properties": {
    "method": {"type": "string"}, "path": {"type": "string"}, "query": {"type": "string"},
    "status": {"type": "integer"}, "epoch_ms": {"type": "integer"}, "time": {"type": "string"},
    "seq": {"type": "integer", "description": "the request's journal seq"}, "detail": {"type": "string"}}}
_VERDICTS = {"type": "object", "properties": {
    "verdicts": {"type": "array", "items": {**_RULE, "properties": {
        **_RULE["properties"], "count": {"type": "integer"}, "first": _OFFENCE, "last": _OFFENCE}}},
    "offences": {"type": "integer", "description": "offences over every rule"},
    "rules": {"type": "array", "items": _RULE, "description": "every rule this service declares"},
    "silenced": {"type": "array", "items": {"type": "string"}}},
    "required": ["verdicts", "offences", "rules", "silenced"]}
_CLOCK_MOVE = {
    "type": "object",
    "oneOf": [
        {"required": ["advance_seconds"], "additionalProperties": False, "properties": {
            "advance_seconds": {"type": "number", "minimum": 0, "maximum": MAX_EPOCH_MS / 1000,
                                "description": "past the end of year 9999 from now is a 409"}}},
        {"required": ["set_epoch_ms"], "additionalProperties": False, "properties": {
            "set_epoch_ms": {"type": "integer", "minimum": 0, "maximum": MAX_EPOCH_MS,
                             "description": "earlier than now is a 409"}}},
    ],
}


def state_schema(service: str | None = None, seed: int | None = None, model_fields: Sequence[str] = (),
                 model_required: Sequence[str] = ()) -> dict[str, Any]:
    """What ``PUT /_fake/state`` takes (and ``GET`` gives): the export's envelope. Its ``model`` is
    the service's own: its fields are named here (``model_fields``, no others; ``model_required``
    must be there), their contents (valid only as a whole: references between records, this fake's
    settings) are not; ``fake.import_state`` validates them field by field."""
    instant = {"type": "integer", "minimum": 0, "maximum": MAX_EPOCH_MS}
    return {
        "type": "object",
        "required": ["service", "format", "seed", "clock", "model"],
        "properties": {
            "service": {"type": "string", **({"enum": [service]} if service else {}),
                        "description": "the service the state belongs to"},
            "format": {"type": "integer", "enum": [1]},
            "seed": {"type": "integer", **({"enum": [seed]} if seed is not None else {}),
                     "description": "this fake's seed"},
            "settings": {"type": "object", "description": "must equal this fake's settings when given"},
            "clock": {"type": "object", "required": ["epoch_ms"],
                      "properties": {"epoch_ms": instant, "initial_ms": instant, "mode": {"type": "string"},
                                     "scale": {"type": "number"}}},
            "faults": {"type": "object", "properties": {
                "rules": {"type": "array", "items": {"type": "object"}},
                "rng": {"type": "array", "description": "the seeded generator's state (Python's random)"},
                "next_id": {"type": "integer", "minimum": 1, "maximum": 2**62}}},
            "stubs": {"type": "object", "properties": {
                "rules": {"type": "array", "items": {"type": "object"}},
                "scenarios": {"type": "object", "additionalProperties": {"type": "string"}},
                "next_id": {"type": "integer", "minimum": 1, "maximum": 2**62}}},
            "epoch": {"type": "integer", "minimum": 0, "maximum": 2**31 - 1},
            "model": {"type": "object", "description": "the service's state (see its page)",
                      **({"additionalProperties": False, "properties": {name: {} for name in model_fields}}
                         if model_fields else {}),
                      **({"required": list(model_required)} if model_required else {})},
        },
    }


def json_response_spec(schema: dict[str, Any], description: str = "OK",
                       headers: dict[str, Any] | None = None) -> dict[str, Any]:
    """An OpenAPI response object with a JSON body (what every service document repeats)."""
    response: dict[str, Any] = {"description": description, "content": {"application/json": {"schema": schema}}}
    if headers:
        response["headers"] = headers
    return response


_json = json_response_spec


def secure_control_plane(document: dict[str, Any], *, control_token: bool) -> dict[str, Any]:
    """Give every control-plane operation its own security: none, or the control token as a bearer
    token. Without it an operation inherits the service's global requirement (an API key, say)
    that the control plane never checks."""
    requirement: list[dict[str, list[str]]] = []
    if control_token:
        schemes = document.setdefault("components", {}).setdefault("securitySchemes", {})
        schemes[CONTROL_SCHEME] = {"type": "http", "scheme": "bearer",
                                   "description": "the fake's control token (--control-token)"}
        requirement = [{CONTROL_SCHEME: []}]
    for path, item in document.get("paths", {}).items():
        for method, operation in item.items():
            if isinstance(operation, dict) and CONTROL_TAG in operation.get("tags", ()):
                operation["security"] = requirement
                _access_refusals(path, method, operation.setdefault("responses", {}))
    return document


def _access_refusals(path: str, method: str, responses: dict[str, Any]) -> None:
    """The refusals of the control plane's access checks (fakes/kernel/access.py), on every operation."""
    responses.setdefault("421", _json(_ERROR, "a Host this fake does not serve (--allowed-hosts)"))
    responses.setdefault("403", _json(_ERROR, "a browser's Origin other than the fake's own (--allowed-origins)"))
    if method.lower() not in ("get", "head") and not path.endswith("/_fake/ui/login"):  # the login takes a form
        responses.setdefault("415", _json(_ERROR, "a body declared as something other than JSON"))


def _op(summary: str, responses: dict[str, Any], body: dict[str, Any] | None = None) -> dict[str, Any]:
    op: dict[str, Any] = {"tags": [CONTROL_TAG], "summary": summary, "responses": responses}
    if body is not None:
        op["requestBody"] = {"required": True, "content": {"application/json": {"schema": body}}}
    return op


def control_paths(*, max_fault_latency_ms: float = DEFAULT_MAX_LATENCY_MS, service: str | None = None,
                  seed: int | None = None, model_fields: Sequence[str] = (),
                  model_required: Sequence[str] = ()) -> dict[str, Any]:
    obj = {"type": "object"}
    state = state_schema(service, seed, model_fields, model_required)
    return {
        "/_fake/health": {"get": _op("Liveness: the service name and ok", {"200": _json({
            "type": "object", "required": ["service", "status"],
            "properties": {"service": {"type": "string"}, "status": {"type": "string", "enum": ["ok"]}}})})},
        "/_fake/reset": {"post": {
            **_op("Back to the initial seeded state, clock included; verdicts too with {\"verdicts\": true}",
                  {"200": _json(obj), "400": _json(_ERROR, "bad body")}),
            "requestBody": {"required": False, "content": {"application/json": {"schema": {
                "type": "object", "additionalProperties": False, "properties": {
                    "verdicts": {"type": "boolean", "default": False,
                                 "description": "also forget the verdicts (they survive a reset by default)"}}}}}}}},
        "/_fake/clock": {
            "get": _op("The virtual clock", {"200": _json(_CLOCK)}),
            "post": _op("Move the clock forward", {"200": _json(_CLOCK), "400": _json(_ERROR, "bad body"),
                                                   "409": _json(_ERROR, "would move backwards or past year 9999")},
                        _CLOCK_MOVE),
        },
        **journal_paths(),
        "/_fake/faults": {
            "get": _op("Active fault rules", {"200": _json({"type": "object", "properties": {
                "faults": {"type": "array", "items": _FAULT}}})}),
            "post": {**_op("Register a fault rule", {"201": _json(_FAULT), "400": _json(_ERROR)},
                           _fault_in(max_fault_latency_ms)),
                     **beyond_schema("header names must be HTTP tokens (OpenAPI 3.0 cannot say what a "
                                     "property's name may be) and text in the free-form body must be Unicode: "
                                     "a lone UTF-16 surrogate, valid in JSON, is refused", "headers", "body")},
            "delete": _op("Remove every fault rule", {"200": _json(obj)}),
        },
        "/_fake/faults/{fault_id}": {"delete": {
            **_op("Remove one fault rule", {"200": _json(obj), "404": _json(_ERROR)}),
            "parameters": [{"name": "fault_id", "in": "path", "required": True, "schema": {"type": "string"}}]}},
        **stub_paths(max_fault_latency_ms),
        "/_fake/state": {
            "get": _op("Export the whole state as JSON", {"200": _json(state)}),
            "put": {**_op("Import a state exported by GET (validated whole; a refusal names the field)",
                          {"200": _json(obj), "400": _json(_ERROR), "413": _json(_ERROR, "past max_state_bytes")},
                          state),
                    ACCEPTANCE_BEYOND_SCHEMA: "a state is valid only as a whole: this fake's service, seed and "
                                              "settings, and references between its records"},
        },
        "/_fake/verdicts": {
            "get": {**_op("Client rules broken so far, counted outside the journal ring (docs/verdicts.md)", {
                "200": _json(_VERDICTS), "400": _json(_ERROR, "unknown severity")}),
                "parameters": [{"name": "severity", "in": "query", "required": False,
                                "schema": {"type": "string", "enum": ["error", "warning"]}}]},
            "delete": _op("Forget every verdict", {"200": _json(obj)}),
        },
    }


_MATCHER = {
    "description": "a string (equal to it) or one matcher object",
    "oneOf": [
        {"type": "string"},
        {"type": "object", "additionalProperties": False, "minProperties": 1, "maxProperties": 1, "properties": {
            "equals": {"type": "string"}, "contains": {"type": "string"},
            "matches": {"type": "string", "description": "a regular expression the whole value matches"},
            "present": {"type": "boolean", "enum": [True]}, "absent": {"type": "boolean", "enum": [True]}}},
    ],
}
_MATCHERS = {"type": "object", "additionalProperties": _MATCHER}
_PATH_CRITERION = {
    "description": "exact, a glob such as /rest/*, a template such as /users/{id} (below the fake's base), "
                   "{\"equals\": path} or {\"matches\": regex}",
    "oneOf": [{"type": "string", "maxLength": MAX_PATH},
              {"type": "object", "additionalProperties": False, "minProperties": 1, "maxProperties": 1, "properties": {
                  "equals": {"type": "string", "minLength": 1, "maxLength": MAX_PATH},
                  "matches": {"type": "string", "minLength": 1, "maxLength": 500}}}],
}
#: the criteria of a fault's request (a stub's, with method and path): the journal's find, less status
RULE_CRITERIA_SCHEMA: dict[str, Any] = {"type": "object", "additionalProperties": False, "properties": {
    "url": {**_MATCHER, "description": "the path with ?query: a string (equal) or a matcher"},
    "headers": {**_MATCHERS, "description": "header name (any case) -> matcher"},
    "query": {**_MATCHERS, "description": "query parameter -> matcher (any of its values)"},
    "form": {**_MATCHERS, "description": "form field of a url-encoded body -> matcher"},
    "json": {"description": "a JSON fragment the body contains"},
    "json_equals": {"description": "the JSON the body is, whole"},
    "body_contains": {"type": "string"},
}}
_STATUS_PATTERN = {"oneOf": [{"type": "integer", "minimum": 100, "maximum": 599},
                             {"type": "string", "pattern": "^[1-5][xX][xX]$"}],
                   "description": "the answer's status, or a class such as 4xx"}
_MESSAGE = {"type": "object", "description": "headers (lower-case names; credentials redacted) and body as kept",
            "properties": {"headers": {"type": "object", "additionalProperties": {"type": "string"}},
                           "body": {"type": "string", "nullable": True,
                                    "description": "text (null when not UTF-8: see body_base64)"},
                           "body_base64": {"type": "string"},
                           "body_length": {"type": "integer", "description": "every byte read or sent"},
                           "body_truncated": {"type": "boolean",
                                              "description": "only the first --journal-body-bytes were kept"},
                           "body_unread": {"type": "boolean",
                                           "description": "declared body not read (longer than kept)"}},
            "required": ["headers", "body", "body_length", "body_truncated"]}
_ENTRY = {"type": "object", "required": ["seq", "method", "path", "query", "status", "epoch_ms", "time", "warnings"],
          "properties": {
              "seq": {"type": "integer"}, "method": {"type": "string"}, "path": {"type": "string"},
              "query": {"type": "string"}, "status": {"type": "integer"}, "epoch_ms": {"type": "integer"},
              "time": {"type": "string"}, "warnings": {"type": "array", "items": {"type": "string"}},
              "request": _MESSAGE, "response": _MESSAGE,
              "answered_by": {"type": "object", "required": ["kind", "id"], "description": "the fault or stub rule "
                              "that answered (absent: the model)", "properties": {
                                  "kind": {"type": "string", "enum": ["fault", "stub"]}, "id": {"type": "string"},
                                  "effect": {"type": "string", "enum": ["status", "drop", "latency"]}}},
              "details_dropped": {"type": "boolean",
                                  "description": "headers and bodies dropped to keep the journal in --journal-bytes"},
              "path_truncated": {"type": "boolean", "description": "the path was cut at 8192 characters"},
              "path_length": {"type": "integer", "description": "the length of a cut path"},
              "query_truncated": {"type": "boolean", "description": "the query was cut at 8192 characters"},
              "query_length": {"type": "integer", "description": "the length of a cut query"}}}
_FIND = {"type": "object", "additionalProperties": False, "properties": {
    "method": {"type": "string", "description": "GET, POST ... (any case); * or absent: any"},
    "path": _PATH_CRITERION,
    "url": {**_MATCHER, "description": "the path with ?query: a string (equal) or a matcher"},
    "json_equals": {"description": "the JSON the body is, whole"},
    "answered_by": {"oneOf": [{"type": "string", "enum": ["fault", "stub", "model"]},
                              {"type": "object", "additionalProperties": False, "required": ["kind"], "properties": {
                                  "kind": {"type": "string", "enum": ["fault", "stub"]},
                                  "id": {"type": "string", "minLength": 1, "maxLength": 100, "nullable": True}}}],
                    "description": "what answered: a fault, a stub (by id), or the model"},
    "headers": {**_MATCHERS, "description": "header name (any case) -> matcher"},
    "query": {**_MATCHERS, "description": "query parameter -> matcher (any of its values)"},
    "form": {**_MATCHERS, "description": "form field of a url-encoded body -> matcher"},
    "json": {"description": "a JSON fragment the body contains (objects: these keys among others; arrays: "
                            "each item matches some item)"},
    "body_contains": {"type": "string"},
    "status": _STATUS_PATTERN,
    "limit": {"type": "integer", "minimum": 0, "maximum": 2**31 - 1, "description": "the last N matches (0: all)"},
    "details": {"type": "boolean", "description": "entries with request and response (default true)"},
}}
#: a header criterion of GET /_fake/journal: a name that is not blank as str.strip() sees it, spelled out
#: (\S means another set in JSON Schema's regexes than in Python's), then ":" and a value, or nothing
_NOT_BLANK_NAME = "[^:\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
_HEADER_ITEM = "^[^:]*" + _NOT_BLANK_NAME + "[^:]*(:.*)?$"
_NEAR_MISS = {"type": "object", "required": ["entry", "failed"], "properties": {
    "entry": _ENTRY,
    "failed": {"type": "array", "items": {"type": "object", "required": ["criterion", "why"], "properties": {
        "criterion": {"type": "string"}, "why": {"type": "string"}}}}}}


#: the refusal of a search past its budget of steps (fakes/kernel/verify.py)
_COSTLY = "search_too_costly: the search needs more work than one search may take; narrow it"


def journal_paths() -> dict[str, Any]:
    """The journal's operations: read (filtered), find and count by a request pattern, clear."""
    def query(name: str, schema: dict[str, Any], description: str, **extra: Any) -> dict[str, Any]:
        return {"name": name, "in": "query", "required": False, "description": description, "schema": schema,
                **extra}

    listing = {"type": "object", "required": ["entries", "size", "total"], "properties": {
        "entries": {"type": "array", "items": _ENTRY}, "size": {"type": "integer"}, "total": {"type": "integer"}}}
    return {
        "/_fake/journal": {
            "get": {**_op("Requests received, oldest first (bounded ring), with their headers and bodies",
                          {"400": _json(_ERROR), "200": _json(listing), "422": _json(_ERROR, _COSTLY)}),
                    "parameters": [
                        query("limit", {"type": "integer", "minimum": 0, "maximum": 2**31 - 1}, "the last N (0: all)"),
                        query("method", {"type": "string"}, "only this method"),
                        query("path", {"type": "string"}, "exact, or a glob such as /rest/*"),
                        query("warnings", {"type": "string", "enum": ["1", "true", "0", "false"]},
                              "only requests that broke a client rule"),
                        query("status", {"type": "string", "pattern": "^([1-5][0-9][0-9]|[1-5][xX][xX])$"},
                              "the answer's status or class (404, 4xx)"),
                        query("header", {"type": "array", "items": {"type": "string", "pattern": _HEADER_ITEM}},
                              "Name: value (equal) or Name (present); repeatable", style="form", explode=True),
                        query("body_contains", {"type": "string"}, "text the request body contains"),
                        query("details", {"type": "string", "enum": ["1", "true", "0", "false"]},
                              "0: leave out request and response (default 1)"),
                    ]},
            "delete": _op("Clear the journal", {"200": _json({"type": "object"})}),
        },
        "/_fake/journal/find": {"post": {
            **_op("Find and count the requests matching a pattern; the closest ones when none does "
                  "(docs/testing.md, Verifying requests)",
                  {"200": _json({"type": "object", "required": ["count", "entries", "near_misses", "kept", "total"],
                                 "properties": {
                                     "count": {"type": "integer", "description": "matching entries the journal keeps"},
                                     "entries": {"type": "array", "items": _ENTRY},
                                     "near_misses": {"type": "array", "items": _NEAR_MISS,
                                                     "description": "when none matched: the closest entries"},
                                     "kept": {"type": "integer"}, "total": {"type": "integer"}}}),
                   "400": _json(_ERROR, "a criterion that cannot be used (it is named in field)"),
                   "422": _json(_ERROR, _COSTLY)},
                  _FIND),
            ACCEPTANCE_BEYOND_SCHEMA: "a matches criterion must be a regular expression that compiles"}},
    }


def merge_control_plane(document: dict[str, Any], *, prefix: str = "",
                        max_fault_latency_ms: float = DEFAULT_MAX_LATENCY_MS, service: str | None = None,
                        seed: int | None = None, model_fields: Sequence[str] = (),
                  model_required: Sequence[str] = ()) -> dict[str, Any]:
    """The service's document plus the shared control-plane paths (a copy; the input is kept)."""
    merged = copy.deepcopy(document)
    merged.setdefault("openapi", "3.0.3")
    paths = merged.setdefault("paths", {})
    for path, item in control_paths(max_fault_latency_ms=max_fault_latency_ms, service=service, seed=seed,
                                    model_fields=model_fields, model_required=model_required).items():
        paths.setdefault(path, item)
    tags = merged.setdefault("tags", [])
    if not any(t.get("name") == CONTROL_TAG for t in tags):
        tags.append({"name": CONTROL_TAG, "description": "The fake's own control plane (not part of the real API)"})
    if prefix:
        merged["servers"] = [{"url": prefix}]
    return merged


_PARAMETER = re.compile(r"\{[^}]*\}")


def template_key(method: str, path: str) -> tuple[str, str]:
    """(METHOD, path with every ``{parameter}`` as ``{}``): a route and its document's path match
    whatever each names its parameters."""
    return method.upper(), _PARAMETER.sub("{}", path)


def required_bodies(document: dict[str, Any]) -> frozenset[tuple[str, str]]:
    """The control operations of a document whose request body is required (``template_key``s)."""
    found = set()
    for path, item in document.get("paths", {}).items():
        for method, operation in item.items():
            if (isinstance(operation, dict) and CONTROL_TAG in operation.get("tags", ())
                    and (operation.get("requestBody") or {}).get("required")):
                found.add(template_key(method, path))
    return frozenset(found)


# -- stubs (fakes/kernel/stubs.py) ------------------------------------------------------------------
_TEXT = {"type": "string", "minLength": 1, "maxLength": 200}


def _answer_in(max_latency_ms: float) -> dict[str, Any]:
    headers = _fault_in(max_latency_ms)["properties"]["headers"]
    return {"type": "object", "additionalProperties": False, "not": {"required": ["json", "body"]},
            "properties": {
                "status": {"type": "integer", "minimum": STATUS_RANGE[0], "maximum": STATUS_RANGE[1], "nullable": True},
                "headers": {**headers, "description": "values may hold templates ({{request.path.id}})"},
                "json": {"description": "the JSON body; its strings may hold templates"},
                "body": {"type": "string", "nullable": True, "description": "a text body; may hold templates"},
                "latency_ms": {"type": "number", "minimum": 0, "maximum": max_latency_ms, "nullable": True}}}


def _stub_in(max_latency_ms: float) -> dict[str, Any]:
    answer = _answer_in(max_latency_ms)
    request = {**RULE_CRITERIA_SCHEMA, "nullable": True, "properties": {
        "method": {"type": "string", "description": "GET, POST ... (any case); * or absent: any"},
        "path": _PATH_CRITERION, **RULE_CRITERIA_SCHEMA["properties"]}}
    return {"type": "object", "additionalProperties": False, "not": {"required": ["response", "responses"]},
            "properties": {
                "request": request,
                "response": {**answer, "nullable": True},
                "responses": {"type": "array", "items": answer, "minItems": 1, "maxItems": 100,
                              "description": "answers in turn (the last repeats, or all start over with cycle)"},
                "cycle": {"type": "boolean", "nullable": True},
                "place": {"type": "string", "enum": ["before", "behind"],
                          "description": "before the model (an override) or behind it (only where it has no route)"},
                "priority": {"type": "integer", "minimum": 1, "maximum": 1_000_000, "nullable": True},
                "times": {"type": "integer", "minimum": 1, "maximum": MAX_TIMES, "nullable": True},
                "scenario": {**_TEXT, "nullable": True}, "requires_state": {**_TEXT, "nullable": True},
                "new_state": {**_TEXT, "nullable": True},
                "templates": {"type": "boolean", "nullable": True, "description": "false: texts answered as they are"},
                "name": {**_TEXT, "nullable": True}}}


_STUB = {"type": "object", "required": ["id", "place", "priority", "times", "fired", "spent", "served"], "properties": {
    "id": {"type": "string"}, "request": {"type": "object"}, "response": {"type": "object"},
    "responses": {"type": "array", "items": {"type": "object"}},
    "place": {"type": "string", "enum": ["before", "behind"]}, "priority": {"type": "integer"},
    "times": {"type": "integer", "nullable": True, "description": "matches left; null: unlimited"},
    "fired": {"type": "integer"}, "spent": {"type": "boolean"},
    "served": {"type": "integer", "description": "answers given: which of responses is next"}}}
_STUB_ID = [{"name": "stub_id", "in": "path", "required": True, "schema": {"type": "string"}}]
_BEYOND_STUB = ("templates must compile, a regex must not be able to backtrack without bound, a path template "
                "names each parameter once per segment, requires_state and new_state need a scenario, text must be "
                "Unicode: no schema states these")


def stub_paths(max_latency_ms: float = DEFAULT_MAX_LATENCY_MS) -> dict[str, Any]:
    """The stubs' control operations (fakes/kernel/stubcontrol.py)."""
    listing = {"type": "object", "required": ["stubs", "scenarios"], "properties": {
        "stubs": {"type": "array", "items": _STUB},
        "scenarios": {"type": "object", "additionalProperties": {"type": "string"},
                      "description": "each scenario a stub names, with its state"}}}
    imported = {"type": "object", "required": ["imported", "refused"], "properties": {
        "imported": {"type": "array", "items": {"type": "object", "required": ["source", "notes", "stub"],
                                                "properties": {"source": {"type": "string"}, "stub": _STUB,
                                                               "notes": {"type": "array",
                                                                         "items": {"type": "string"}}}}},
        "refused": {"type": "array", "items": {"type": "object", "required": ["source", "reason"], "properties": {
            "source": {"type": "string"}, "reason": {"type": "string"}}}}}}
    return {
        "/_fake/stubs": {
            "get": _op("Stubs (spent ones too) and their scenarios' states", {"200": _json(listing)}),
            "post": {**_op("Add a stub: which requests it answers, and what with (docs/testing.md, Stubs)",
                           {"201": _json(_STUB), "400": _json(_ERROR, "a field that cannot be used (named in field)"),
                            "409": _json(_ERROR, "10000 stubs already")}, _stub_in(max_latency_ms)),
                     ACCEPTANCE_BEYOND_SCHEMA: _BEYOND_STUB},
            "delete": _op("Remove every stub (and the scenarios' states)", {"200": _json({"type": "object"})}),
        },
        "/_fake/stubs/{stub_id}": {
            "get": {**_op("One stub", {"200": _json(_STUB), "404": _json(_ERROR)}), "parameters": _STUB_ID},
            "delete": {**_op("Remove one stub", {"200": _json({"type": "object"}), "404": _json(_ERROR)}),
                       "parameters": _STUB_ID},
        },
        "/_fake/stubs/scenarios/{name}": {"put": {
            **_op("Move a scenario to a state (every scenario starts in Started)",
                  {"200": _json({"type": "object", "required": ["scenario", "state"]}), "400": _json(_ERROR)},
                  {"type": "object", "required": ["state"], "additionalProperties": False,
                   "properties": {"state": _TEXT}}),
            "parameters": [{"name": "name", "in": "path", "required": True, "schema": _TEXT}],
            ACCEPTANCE_BEYOND_SCHEMA: "text must be Unicode (no lone UTF-16 surrogates)"}},
        "/_fake/stubs/import/wiremock": {"post": {
            **_op("Import WireMock stub mappings as stubs; each one that cannot be translated is named with why",
                  {"200": _json(imported), "400": _json(_ERROR, "not mappings")},
                  {"oneOf": [{"type": "array"},
                             {"type": "object", "properties": {"mappings": {"type": "array"}}}]}),
            "parameters": [{"name": "place", "in": "query", "required": False,
                            "schema": {"type": "string", "enum": ["before", "behind"]}}]}},
    }
