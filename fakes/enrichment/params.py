"""An operation's query parameters, checked against the route table (:mod:`.operations`).

A parameter the operation does not know is ignored, as the real service ignores it; a known one
that is empty, too long, not ``true``/``false``, out of range or outside its enum or pattern is a
400 naming it (through the ``refuse`` callable, which attaches the request's headers).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from fakes.kernel.errors import ServiceError

from .calls import Call
from .operations import OPERATIONS, Param

PARAMS: dict[str, dict[str, Param]] = {op.name: {p.name: p for p in op.params} for op in OPERATIONS}
REQUIRED: dict[str, tuple[str, ...]] = {op.name: tuple(p.name for p in op.params if p.required) for op in OPERATIONS}

#: refuse(call, status, message) -> the error to raise
Refuse = Callable[..., ServiceError]


def parse_params(call: Call, params: Mapping[str, str], refuse: Refuse) -> dict[str, Any]:
    """The operation's parameters as values; loops over what the request sent (usually one or two),
    not over every parameter."""
    specs = PARAMS[call.op.name]
    parsed: dict[str, Any] = {}
    for name, raw in params.items():
        spec = specs.get(name)
        if spec is None:
            continue
        if spec.deprecated:
            raise refuse(call, 400, f"Parameter '{name}' is deprecated and no longer accepted: {spec.deprecated}.")
        if raw == "":
            if spec.required:
                raise refuse(call, 400, f"Missing required parameter '{name}'.")
            if spec.kind == "string" and not spec.enum and spec.pattern is None:
                continue  # an empty free-text parameter is the same as none
        parsed[name] = _value(call, spec, raw, refuse)
    for name in REQUIRED[call.op.name]:
        if name not in parsed:
            raise refuse(call, 400, f"Missing required parameter '{name}'.")
    return parsed


def _value(call: Call, spec: Param, raw: str, refuse: Refuse) -> Any:
    if len(raw) > spec.max_length:
        raise refuse(call, 400, f"Parameter '{spec.name}' is longer than {spec.max_length} characters.")
    if spec.kind == "boolean":
        if raw == "true":
            return True
        if raw == "false":
            return False
        raise refuse(call, 400, f"Parameter '{spec.name}' must be true or false, got {raw!r}.")
    if spec.kind == "integer":
        if not raw.isascii() or not raw.isdigit() or len(raw) > 9:
            raise refuse(call, 400, f"Parameter '{spec.name}' must be an integer, got {raw!r}.")
        value = int(raw)
        low, high = spec.minimum, spec.maximum
        if (low is not None and value < low) or (high is not None and value > high):
            raise refuse(call, 400, f"Parameter '{spec.name}' must be between {spec.minimum} and "
                                    f"{spec.maximum}, got {value}.")
        return value
    if spec.pattern is not None and not re.fullmatch(spec.pattern, raw.strip()):
        raise refuse(call, 400, f"Parameter '{spec.name}' must match {spec.pattern}, got {raw!r}.")
    if spec.enum and raw not in spec.enum:
        raise refuse(call, 400, f"Parameter '{spec.name}' must be one of {', '.join(spec.enum)}, got {raw!r}.")
    return raw
