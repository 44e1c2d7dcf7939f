"""Client verdicts: documented client rules, and a count of every time a client broke one.

A service declares its rules as data (:class:`ClientRule`, in its own package, listed in the
fake's ``client_rules``) and flags a request that breaks one with :func:`flag` from its routes
(models that have no request append ``(rule, detail)`` to a list the route hands them). The
kernel records each flag outside the journal ring, so verdicts never scroll away.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from starlette.requests import Request

VERDICTS_KEY = "fakes.verdicts"
Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class ClientRule:
    """One documented rule a client must follow.

    ``id`` is "<service>/<slug>"; ``severity`` is "error" for what the real service punishes
    (bans, bills, lost data) and "warning" for waste; ``source`` names the seed section or the
    reference line the rule comes from."""

    id: str
    severity: Severity
    explanation: str
    source: str

    def to_dict(self) -> dict[str, str]:
        return {"id": self.id, "severity": self.severity, "explanation": self.explanation, "source": self.source}


def flag(request: Request, rule: ClientRule, detail: str = "") -> None:
    """Record that this request broke ``rule`` (``detail`` says how, for the report)."""
    flagged = request.scope.get(VERDICTS_KEY)
    if flagged is not None:
        flagged.append((rule, detail))


class Verdicts:
    """Per-rule counts with the first and last offending request; unbounded in rules, not requests."""

    def __init__(self, rules: tuple[ClientRule, ...] = (), silenced: frozenset[str] = frozenset()) -> None:
        self.rules = {rule.id: rule for rule in rules}
        self.silenced = silenced
        self._counts: dict[str, dict[str, Any]] = {}

    def record(self, rule: ClientRule, detail: str, request: dict[str, Any]) -> None:
        if rule.id in self.silenced:
            return
        self.rules.setdefault(rule.id, rule)
        offence = {**request, "detail": detail}
        seen = self._counts.get(rule.id)
        if seen is None:
            self._counts[rule.id] = {**rule.to_dict(), "count": 1, "first": offence, "last": offence}
        else:
            seen["count"] += 1
            seen["last"] = offence

    def clear(self) -> None:
        self._counts.clear()

    def to_list(self) -> list[dict[str, Any]]:
        return [dict(v) for v in self._counts.values()]

    def errors(self) -> list[dict[str, Any]]:
        return [v for v in self.to_list() if v["severity"] == "error"]

    def __len__(self) -> int:
        return len(self._counts)
