"""The relay's control-plane request bodies: one JSON schema each, used twice - published in the
OpenAPI document and checked at the door by :func:`check` - so the document says exactly what the
server accepts. What no schema can say (a provider that must exist, a name taken already) is the
model's 404 or 409.

:func:`check` knows the part of JSON Schema these schemas use: ``type`` (with ``nullable``),
``properties``, ``required``, ``additionalProperties``, ``maxProperties``, ``minLength``,
``maxLength``, ``pattern``, ``minimum``, ``maximum``, ``enum``, ``items``, ``minItems``,
``maxItems``, ``oneOf`` and ``anyOf``. A refusal is the control plane's 400 naming the field.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from fakes.kernel.errors import ControlError

from .catalogue import COST_TYPES
from .saturation import MAX_SATURATION

Schema = dict[str, Any]

#: the largest amount of micro-USD a body may name (a balance stays far inside 64 bits)
MAX_MICRO = 10**12
#: entry kinds: the simulated upstream's answer shapes
KINDS = ["email", "verify", "person", "match", "company", "people", "lookalikes", "jobs", "list", "write", "generic",
         "async", "async_poll"]

# $ as ECMA-262 reads it (the end of the text): :func:`_regex` makes it Python's \Z
_SLUG = r"^[a-z0-9-]*[a-z][a-z0-9-]*$"


#: some character that is not ASCII white space, spelled out: \S differs between Python's
#: regular expressions (which the server uses) and ECMA's (which schema tools use)
_NOT_BLANK = r"[^\t\n\v\f\r ]"


def text(max_length: int = 500) -> Schema:
    """A string of 1 to ``max_length`` characters that is not only white space."""
    return {"type": "string", "minLength": 1, "maxLength": max_length, "pattern": _NOT_BLANK}


def integer(minimum: int, maximum: int) -> Schema:
    return {"type": "integer", "minimum": minimum, "maximum": maximum}


def strict(properties: dict[str, Schema], required: list[str] | None = None) -> Schema:
    """An object of these properties and no others (``required``: all when None; OpenAPI 3.0 has no
    empty ``required``)."""
    needed = list(properties) if required is None else required
    return {"type": "object", "properties": properties, "additionalProperties": False,
            **({"required": needed} if needed else {})}


TEAM = strict({"balance_micro": integer(0, MAX_MICRO), "name": text()}, [])
TOOL = strict({"provider": text(), "key": text()})
SECRET = strict({"provider": text(), "secret": text()})
TOPUP = strict({"amount_micro": integer(1, MAX_MICRO)})
SATURATION = strict({"saturated": {"type": "boolean"}, "max_in_flight": integer(0, MAX_SATURATION),
                     "max_per_second": integer(0, MAX_SATURATION), "retry_after_s": integer(0, MAX_SATURATION)}, [])
CANNED_ROW = {**strict({"method": text(20), "path": text(2000), "status": integer(200, 599),
                        "headers": {"type": "object", "maxProperties": 50, "additionalProperties": {
                            "type": "string", "maxLength": 2000, "pattern": r"^[\t\x20-\x7e]*$"}},
                        "body": {}}, []),
              "description": "method and path: * (any) or exact; header names are HTTP tokens; "
                             "integers in body within 64 bits"}
UPSTREAM = {**strict({"provider": text(), "responses": {"type": "array", "minItems": 1, "maxItems": 1000,
                                                        "items": CANNED_ROW},
                      "fake": text()}, ["provider"]),
            "oneOf": [{"required": ["responses"]}, {"required": ["fake"]}]}
LOGIN_APPROVE = strict({"email": {"type": "string", "minLength": 3, "maxLength": 320, "pattern": r"^[^@]+@[^@]+$"},
                        "org": text(200)}, ["email"])
CONSENT = strict({"grant": {"type": "boolean"}}, [])
RECORDING = strict({"simulated": {"type": "boolean"}})
PROVIDER = strict({"provider": {"type": "string", "maxLength": 64, "pattern": _SLUG},
                   "host": {"type": "string", "maxLength": 253, "pattern": r"^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$"},
                   "display_name": text(200), "trial_allowance": integer(1, 10**6)}, ["provider"])
PARAM = strict({"type": {"type": "string", "enum": ["string", "integer", "number", "boolean"]},
                "required": {"type": "boolean"}, "note": {"type": "string", "maxLength": 500},
                "example": {"anyOf": [{"type": "string", "maxLength": 500}, integer(-(2**53), 2**53),
                                      {"type": "boolean"}]}}, [])
COST = {**strict({"type": {"type": "string", "enum": list(COST_TYPES)}, "value": integer(0, MAX_MICRO)}),
        "nullable": True}
_ENTRY_ID = r"^[a-z0-9-]*[a-z][a-z0-9-]*(\.[A-Za-z0-9_-]+){2,}$"  # <provider>.<area>.<action>
ENTRY = strict({"id": {"type": "string", "maxLength": 200, "pattern": _ENTRY_ID},
                "method": {"type": "string", "enum": ["GET", "POST", "get", "post"]},
                "path": {"type": "string", "maxLength": 2000, "pattern": r"^/"},
                "params": {"type": "object", "maxProperties": 50, "additionalProperties": PARAM},
                "cost": COST, "summary": text(), "capability": text(200),
                "kind": {"type": "string", "enum": KINDS}, "curated": {"type": "boolean"},
                "poll": {"type": "string", "maxLength": 200, "pattern": _ENTRY_ID}, "interval": integer(1, 3600),
                "status": {"type": "string", "enum": ["retired", "broken"]}, "status_note": text(),
                "superseded_by": {"type": "string", "maxLength": 200, "pattern": _ENTRY_ID}}, ["id", "path"])


def check(body: Any, schema: Schema) -> None:
    """Refuse ``body`` with a 400 naming the first field that breaks ``schema``."""
    found = problem(body, schema, "")
    if found is not None:
        where, why = found
        raise ControlError(400, f"{where or 'body'}: {why}", code="invalid_body", field=where or None)


_TYPES: dict[str, Any] = {"object": dict, "array": list, "string": str, "boolean": bool, "number": (int, float)}


@functools.lru_cache(maxsize=64)
def _regex(pattern: str) -> re.Pattern[str]:
    """The schema's ``pattern`` (ECMA-262, as OpenAPI reads it) for Python: a final ``$`` is the end
    of the text there, where Python's also matches before a final newline."""
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + "\\Z"
    return re.compile(pattern)


def _join(where: str, name: str | int) -> str:
    if isinstance(name, int):
        return f"{where}[{name}]"
    return f"{where}.{name}" if where else name


def problem(value: Any, schema: Schema, where: str) -> tuple[str, str] | None:
    if value is None and schema.get("nullable"):
        return None
    kind = schema.get("type")
    if kind == "integer":
        if not isinstance(value, int) or isinstance(value, bool):
            return where, "must be an integer"
    elif kind is not None and (not isinstance(value, _TYPES[kind]) or (kind != "boolean" and isinstance(value, bool))):
        return where, f"must be a JSON {kind}"
    if "enum" in schema and (isinstance(value, bool) or value not in schema["enum"]):
        return where, f"must be one of {', '.join(map(str, schema['enum']))}"
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0) or len(value) > schema.get("maxLength", len(value)):
            return where, f"must have {schema.get('minLength', 0)} to {schema.get('maxLength')} characters"
        if "pattern" in schema and not _regex(schema["pattern"]).search(value):
            return where, f"must match {schema['pattern']}"
    if (isinstance(value, (int, float)) and not isinstance(value, bool)
            and not schema.get("minimum", value) <= value <= schema.get("maximum", value)):
        return where, f"must be from {schema.get('minimum')} to {schema.get('maximum')}"
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0) or len(value) > schema.get("maxItems", len(value)):
            return where, f"must have {schema.get('minItems', 0)} to {schema.get('maxItems')} items"
        for index, item in enumerate(value):
            found = problem(item, schema.get("items", {}), _join(where, index))
            if found is not None:
                return found
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                return _join(where, name), "is required"
        if len(value) > schema.get("maxProperties", len(value)):
            return where, f"may have at most {schema['maxProperties']} members"
        extra = schema.get("additionalProperties", True)
        for name, item in value.items():
            if name in properties:
                found = problem(item, properties[name], _join(where, name))
            elif extra is False:
                found = (_join(where, name), "is not a known field")
            elif isinstance(extra, dict):
                found = problem(item, extra, _join(where, name))
            else:
                found = None
            if found is not None:
                return found
    if "oneOf" in schema and sum(problem(value, option, where) is None for option in schema["oneOf"]) != 1:
        return where, "must match exactly one of: " + "; ".join(map(str, schema["oneOf"]))
    if "anyOf" in schema and all(problem(value, option, where) is not None for option in schema["anyOf"]):
        return where, "must match one of: " + "; ".join(map(str, schema["anyOf"]))
    return None
