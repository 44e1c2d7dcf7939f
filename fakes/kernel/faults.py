"""Fault rules: answer a matching request with a chosen status/body, add latency, or drop it.

A rule matches on method and path (exact, or a glob such as ``/rest/*``), fires for the next
``times`` matches (unlimited when None) and, with ``probability`` < 1, only when the fake's
seeded RNG says so - so a faulty run is repeatable with the same seed.
"""

from __future__ import annotations

import fnmatch
import itertools
import random
from dataclasses import asdict, dataclass, field
from typing import Any

from .errors import ControlError


class DroppedConnection(Exception):
    """Raised inside the app to make the server cut the connection (a "drop" fault)."""


@dataclass
class FaultRule:
    id: str
    method: str = "*"
    path: str = "*"
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None
    latency_ms: float = 0.0
    times: int | None = None
    probability: float = 1.0
    drop: bool = False
    fired: int = 0

    def matches(self, method: str, path: str) -> bool:
        if self.method != "*" and self.method != method:
            return False
        if self.path == path:
            return True
        return any(ch in self.path for ch in "*?[") and fnmatch.fnmatchcase(path, self.path)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_FIELDS = {"method", "path", "status", "headers", "body", "latency_ms", "times", "probability", "drop"}


def parse_rule(rule_id: str, spec: dict[str, Any]) -> FaultRule:
    """Validate a fault as sent to ``POST /_fake/faults`` (or passed to ``fake.add_fault``)."""
    unknown = set(spec) - _FIELDS - {"id", "fired"}
    if unknown:
        raise ControlError(400, f"unknown fault fields: {', '.join(sorted(unknown))}", code="invalid_fault")
    try:
        rule = FaultRule(
            id=rule_id,
            method=str(spec.get("method", "*")).upper(),
            path=str(spec.get("path", "*")),
            status=None if spec.get("status") is None else int(spec["status"]),
            headers={str(k): str(v) for k, v in dict(spec.get("headers") or {}).items()},
            body=spec.get("body"),
            latency_ms=float(spec.get("latency_ms") or 0),
            times=None if spec.get("times") is None else int(spec["times"]),
            probability=float(spec.get("probability", 1.0)),
            drop=bool(spec.get("drop", False)),
        )
    except (TypeError, ValueError) as exc:
        raise ControlError(400, f"invalid fault: {exc}", code="invalid_fault") from None
    if rule.status is not None and not 100 <= rule.status <= 599:
        raise ControlError(400, "fault status must be an HTTP status (100-599)", code="invalid_fault")
    if not 0.0 <= rule.probability <= 1.0:
        raise ControlError(400, "fault probability must be within [0, 1]", code="invalid_fault")
    if rule.times is not None and rule.times < 1:
        raise ControlError(400, "fault times must be >= 1 (omit it for unlimited)", code="invalid_fault")
    if rule.latency_ms < 0:
        raise ControlError(400, "fault latency_ms must be >= 0", code="invalid_fault")
    if rule.status is None and not rule.drop and rule.latency_ms == 0:
        raise ControlError(400, "a fault needs a status, latency_ms or drop", code="invalid_fault")
    return rule


class FaultSet:
    """The fake's active fault rules, first match wins, with a seeded RNG for probabilities."""

    def __init__(self, seed: int) -> None:
        self.rules: list[FaultRule] = []
        self.rng = random.Random(seed)
        self._ids = itertools.count(1)

    def add(self, spec: dict[str, Any]) -> FaultRule:
        rule = parse_rule(f"f{next(self._ids)}", spec)
        self.rules.append(rule)
        return rule

    def remove(self, rule_id: str) -> bool:
        before = len(self.rules)
        self.rules = [r for r in self.rules if r.id != rule_id]
        return len(self.rules) != before

    def clear(self) -> None:
        self.rules = []

    def pick(self, method: str, path: str) -> FaultRule | None:
        """The rule that fires for this request, if any (consumes one of its ``times``)."""
        for rule in self.rules:
            if not rule.matches(method, path):
                continue
            if rule.probability < 1.0 and self.rng.random() >= rule.probability:
                continue
            rule.fired += 1
            if rule.times is not None:
                rule.times -= 1
                if rule.times == 0:
                    self.rules.remove(rule)
            return rule
        return None

    def to_state(self) -> dict[str, Any]:
        version, internal, gauss = self.rng.getstate()
        return {"rules": [r.to_dict() for r in self.rules],
                "rng": [version, list(internal), gauss],
                "next_id": self._peek_next_id()}

    def load_state(self, state: dict[str, Any]) -> None:
        self.rules = [FaultRule(**r) for r in state.get("rules", [])]
        if "rng" in state:
            version, internal, gauss = state["rng"]
            self.rng.setstate((version, tuple(internal), gauss))
        self._ids = itertools.count(int(state.get("next_id", len(self.rules) + 1)))

    def _peek_next_id(self) -> int:
        value = next(self._ids)
        self._ids = itertools.count(value)
        return value
