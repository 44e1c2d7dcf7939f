"""Client verdicts: documented client rules, and a count of every time a client broke one.

A service declares its rules as data (:class:`ClientRule`, in its own package, listed in the
fake's ``client_rules``) and flags a request that breaks one with :func:`flag` from its routes
(models that have no request append ``(rule, detail)`` to a list the route hands them). The
kernel records each flag outside the journal ring, so verdicts never scroll away; the journal
entry of the request lists the same verdicts (``"<rule id>: <detail>"``) in its ``warnings``.

Verdicts describe the client, not the fake's world: ``reset`` and state import leave them alone,
``clear_verdicts`` (``DELETE /_fake/verdicts``) empties them. See docs/verdicts.md.
"""

from __future__ import annotations

import fnmatch
import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import chain
from typing import Any, ClassVar, Literal, Protocol

from starlette.requests import Request

from .clock import iso_ms
from .redaction import MAX_REMEMBERED_REQUESTS, MAX_REMEMBERED_TEXT, Redactor
from .settings import SettingsError

VERDICTS_KEY = "fakes.verdicts"
SILENCE_ENV = "FAKES_SILENCE_RULES"
SEVERITIES = ("error", "warning")
Severity = Literal["error", "warning"]


@dataclass(frozen=True, eq=False)
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


#: what a model appends a broken rule to: the route that handed it the list flags each one
Broken = list[tuple[ClientRule, str]]


def flag(request: Request, rule: ClientRule, detail: str = "") -> None:
    """Record that this request broke ``rule`` (``detail`` says how, for the report)."""
    flagged = request.scope.get(VERDICTS_KEY)
    if flagged is not None:
        flagged.append((rule, detail))


def flag_all(request: Request, broken: Iterable[tuple[ClientRule, str]]) -> None:
    """Flag every ``(rule, detail)`` a model appended to the list its route handed it."""
    for rule, detail in broken:
        flag(request, rule, detail)


def split_patterns(text: str | Iterable[str] | None) -> list[str]:
    """``"a/x, b/*"`` or ``["a/x", "b/*"]`` -> ``["a/x", "b/*"]`` (blanks dropped)."""
    if text is None:
        return []
    items = text.split(",") if isinstance(text, str) else [p for part in text for p in part.split(",")]
    return [item.strip() for item in items if item.strip()]


def silenced_ids(service: str, rules: Iterable[ClientRule], patterns: Iterable[str]) -> frozenset[str]:
    """The ids of ``rules`` that ``patterns`` silence (exact ids or globs: ``filings/*``).

    One list serves every fake of ``fakes serve``: a pattern whose service part names another
    service is ignored here; one that names this service but matches none of its rules is a
    typo, refused with the known ids (it would silence nothing without a word)."""
    ids = [rule.id for rule in rules]
    chosen: set[str] = set()
    for pattern in patterns:
        owner, slash, _ = pattern.partition("/")
        if not slash:
            raise SettingsError(f"silence rule {pattern!r}: a rule id is SERVICE/RULE (e.g. {service}/...)")
        if not fnmatch.fnmatchcase(service, owner):
            continue
        matched = fnmatch.filter(ids, pattern)
        if not matched and owner == service:
            raise SettingsError(f"silence rule {pattern!r}: {service} has no such rule; known: "
                                f"{', '.join(ids) or 'none'}")
        chosen.update(matched)
    return frozenset(chosen)


@functools.lru_cache(maxsize=64)
def rules_by_id(rules: tuple[ClientRule, ...]) -> dict[str, ClientRule]:
    """A service's rules by id, one dict for all its fakes and worlds (never changed in place)."""
    return {rule.id: rule for rule in rules}


class Verdicts:
    """Per-rule counts with the first and last offending request; unbounded in rules, not requests."""

    # one per fake and world: no __dict__ each
    __slots__ = ("_counts", "redactor", "rules", "silenced")

    def __init__(self, rules: tuple[ClientRule, ...] = (), silenced: frozenset[str] = frozenset(),
                 redactor: Redactor | None = None) -> None:
        self.rules = rules_by_id(rules)  # shared by every fake of these rules; copied before it changes
        self.silenced = silenced
        #: the journal's: a verdict shows no credential the journal hides (None: shown as sent)
        self.redactor = redactor
        self._counts: dict[str, dict[str, Any]] = {}

    def redacted(self, flagged: Iterable[tuple[ClientRule, str]], headers: Iterable[tuple[bytes, bytes]],
                 query: str, body: bytes) -> list[tuple[ClientRule, str]]:
        """``(rule, detail)`` pairs whose details name none of the credentials of the request
        (its headers, query and body) that flagged them."""
        redactor = self.redactor
        if redactor is None:
            return list(flagged)
        secrets = redactor.secrets(headers, query, body.decode("utf-8", "replace"))
        return [(rule, redactor.detail(detail, secrets)) for rule, detail in flagged]

    def shown(self, flagged: list[tuple[ClientRule, str]], headers: list[tuple[bytes, bytes]], query: str,
              body: bytes) -> tuple[list[tuple[ClientRule, str]], tuple[str, ...]]:
        """:meth:`redacted` of a request's verdicts, and the journal's warnings of them ("<rule id>:
        <detail>"). A client that breaks a rule usually sends the same requests again: what the
        last MAX_REMEMBERED_REQUESTS requests of at most MAX_REMEMBERED_TEXT bytes (headers, query,
        body) were shown as is kept with the redactor (every fake and world of the service shares
        it) and given again to an equal request. Read both, change neither."""
        redactor = self.redactor
        if redactor is None:  # shown as sent
            return flagged, tuple(f"{rule.id}: {detail}" if detail else rule.id for rule, detail in flagged)
        remembered = redactor.verdicts_shown
        key = None
        text = len(query) + len(body)
        if text <= MAX_REMEMBERED_TEXT:  # (the headers, which the server bounds, measured on a miss alone)
            key = (tuple(flagged), tuple(headers), query, body)
            known: tuple[list[tuple[ClientRule, str]], tuple[str, ...]] | None = remembered.get(key)
            if known is not None:
                return known
        shown = self.redacted(flagged, headers, query, body)
        found = shown, tuple(f"{rule.id}: {detail}" if detail else rule.id for rule, detail in shown)
        if key is not None and text + sum(map(len, chain.from_iterable(headers))) <= MAX_REMEMBERED_TEXT:
            if len(remembered) >= MAX_REMEMBERED_REQUESTS:
                remembered.clear()
            remembered[key] = found
        return found

    def record_shown(self, shown: list[tuple[ClientRule, str]], method: str, path: str, query: str, status: int,
                     epoch_ms: int, seq: int) -> None:
        """:meth:`record` each of a request's verdicts as :meth:`shown` gave them, without a dict
        of the request per verdict (the journal's route for every flagged request)."""
        counts, silenced = self._counts, self.silenced
        for rule, detail in shown:
            if rule.id in silenced:
                continue
            # kept as a tuple, its query redacted and made a dict when read (_readable): a client
            # that breaks a rule on every request replaces its last offence on every request
            offence = (method, path, query, status, epoch_ms, seq, detail)
            seen = counts.get(rule.id)
            if seen is None:
                if rule.id not in self.rules:
                    self.rules = {**self.rules, rule.id: rule}
                counts[rule.id] = {**rule.to_dict(), "count": 1, "first": offence, "last": offence}
            else:
                seen["count"] += 1
                seen["last"] = offence

    def record(self, rule: ClientRule, detail: str, request: dict[str, Any], *, shown: bool = False) -> None:
        """Count an offence; ``request`` holds the offending request's method, path, query,
        status, epoch_ms (and its journal seq). Shown redacted, as the journal shows it
        (``shown``: the detail is :meth:`redacted` already)."""
        if rule.id in self.silenced:
            return
        if rule.id not in self.rules:
            self.rules = {**self.rules, rule.id: rule}
        redactor = self.redactor
        offence = {**request, "detail": detail}  # a copy: the caller's dict stays as it was
        if redactor is not None:
            if not shown:
                offence["detail"] = redactor.detail(detail)
            if offence.get("query"):
                offence["query"] = redactor.query(offence["query"])
        seen = self._counts.get(rule.id)
        if seen is None:
            self._counts[rule.id] = {**rule.to_dict(), "count": 1, "first": offence, "last": offence}
        else:
            seen["count"] += 1
            seen["last"] = offence

    def clear(self) -> None:
        self._counts.clear()

    def to_list(self, severity: str | None = None) -> list[dict[str, Any]]:
        """Broken rules in the order they were first broken; each offence with its ISO ``time``."""
        redactor = self.redactor
        return [{**v, "first": _readable(v["first"], redactor), "last": _readable(v["last"], redactor)}
                for v in self._counts.values() if severity is None or v["severity"] == severity]

    def errors(self) -> list[dict[str, Any]]:
        return self.to_list("error")

    def total(self) -> int:
        """Offences over every rule (a request that breaks two rules counts twice)."""
        return sum(v["count"] for v in self._counts.values())

    def __len__(self) -> int:
        return len(self._counts)


#: the fields of an offence :meth:`Verdicts.record_shown` keeps as a tuple, in its order
OFFENCE_FIELDS = ("method", "path", "query", "status", "epoch_ms", "seq", "detail")


def _readable(offence: dict[str, Any] | tuple[Any, ...], redactor: Redactor | None) -> dict[str, Any]:
    if offence.__class__ is tuple:  # record_shown's: its query shown redacted now
        offence = dict(zip(OFFENCE_FIELDS, offence, strict=True))
        if offence["query"] and redactor is not None:
            offence["query"] = redactor.query(offence["query"])
    assert isinstance(offence, dict)
    if "time" in offence or "epoch_ms" not in offence:
        return dict(offence)
    return {**offence, "time": iso_ms(offence["epoch_ms"])}


def describe_offence(offence: dict[str, Any]) -> str:
    """``GET /path?query -> 404 at 2026-01-05T09:00:00Z (journal #3): detail``."""
    query = f"?{offence['query']}" if offence.get("query") else ""
    time = offence.get("time") or (iso_ms(offence["epoch_ms"]) if "epoch_ms" in offence else "?")
    seq = f" (journal #{offence['seq']})" if offence.get("seq") else ""
    detail = f": {offence['detail']}" if offence.get("detail") else ""
    return f"{offence.get('method', '?')} {offence.get('path', '?')}{query} -> {offence.get('status', '?')} " \
           f"at {time}{seq}{detail}"


def render_verdicts(verdicts: list[dict[str, Any]], *, indent: str = "") -> str:
    """A readable report: per rule its severity, count, explanation, source and the offending requests."""
    lines = []
    for verdict in verdicts:
        times = "once" if verdict["count"] == 1 else f"{verdict['count']} times"
        lines.append(f"{indent}{verdict['id']} [{verdict['severity']}] broken {times}")
        lines.append(f"{indent}    why:    {verdict['explanation']}")
        lines.append(f"{indent}    source: {verdict['source']}")
        lines.append(f"{indent}    first:  {describe_offence(verdict['first'])}")
        if verdict["count"] > 1:
            lines.append(f"{indent}    last:   {describe_offence(verdict['last'])}")
    return "\n".join(lines)


def summary_line(service: str, verdicts: list[dict[str, Any]]) -> str:
    """One line per fake for ``fakes serve`` on stop: ``filings: 2 rules broken (1 error) - ...``."""
    if not verdicts:
        return f"{service}: no client rule broken"
    errors = sum(1 for v in verdicts if v["severity"] == "error")
    counts = ", ".join(f"{v['id']} x{v['count']}" for v in verdicts)
    rules = "rule" if len(verdicts) == 1 else "rules"
    return f"{service}: {len(verdicts)} {rules} broken ({errors} error{'' if errors == 1 else 's'}) - {counts}"


def check_owners(patterns: Iterable[str], services: Iterable[str]) -> None:
    """Refuse silence patterns that name no known service (``fakes serve --silence-rule``)."""
    known = list(services)
    for pattern in patterns:
        owner, slash, _ = pattern.partition("/")
        if not slash or not fnmatch.filter(known, owner):
            raise SettingsError(f"silence rule {pattern!r}: a rule id is SERVICE/RULE with SERVICE one of "
                                f"{', '.join(known)}")


class JudgedFake(Protocol):
    """What the reports below read of a fake: its verdicts (and, when it has them, its worlds':
    ``worlds.ids()`` and ``worlds.get(id, create=False)``, each a fake judged the same way)."""

    def verdicts(self, severity: str | None = None) -> list[dict[str, Any]]: ...


class RuledFake(Protocol):
    """What the table of rules reads of a fake class: the rules it checks."""

    client_rules: ClassVar[tuple[ClientRule, ...]]


def verdicts_of_worlds(fake: JudgedFake, severity: str | None = None) -> list[tuple[str | None, list[dict[str, Any]]]]:
    """``(world id, verdicts)`` of a fake (world None) and of each of its worlds that broke a rule."""
    found: list[tuple[str | None, list[dict[str, Any]]]] = [(None, fake.verdicts(severity))]
    worlds = getattr(fake, "worlds", None)
    if worlds is None:  # a world itself, or a fake without worlds
        return found
    for world_id in worlds.ids():
        try:
            world = worlds.get(world_id, create=False)
        except KeyError:  # deleted meanwhile
            continue
        verdicts = world.verdicts(severity)
        if verdicts:
            found.append((world_id, verdicts))
    return found


def serve_summary(fakes: Mapping[str, JudgedFake]) -> str:
    """What ``fakes serve`` prints when it stops: per fake (and world) the rules its clients broke."""
    lines = ["contract-fakes: client verdicts (docs/verdicts.md)"]
    for name, fake in fakes.items():
        for world_id, verdicts in verdicts_of_worlds(fake):
            label = name if world_id is None else f"{name} (world {world_id})"
            lines.append("  " + summary_line(label, verdicts))
            lines.extend(f"    {v['id']} [{v['severity']}] x{v['count']}, first: {describe_offence(v['first'])}"
                         for v in verdicts)
    return "\n".join(lines)


def rules_markdown(fake_classes: Iterable[type[RuledFake]]) -> str:
    """The Markdown table of every rule of these fakes (docs/verdicts.md embeds it, tested)."""
    lines = ["| rule | severity | what the client must do | source |", "|---|---|---|---|"]
    for cls in fake_classes:
        for rule in cls.client_rules:
            cells = (f"`{rule.id}`", rule.severity, rule.explanation, rule.source)
            lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)
