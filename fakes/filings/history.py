"""A filing's audit trail (``GET /filings/{id}/history/``) and re-releases that add to it.

Every filing has two entries once it is converted: ``+`` when it reached the platform (its type,
title, language and company, processing ``PENDING``) and ``~`` when its conversion finished
(``COMPLETED`` or ``FAILED``, ``processing_delay_s`` later). A filing added through the control
plane can be re-released (``POST /_fake/filings/{id}/rerelease``): each re-release is a ``~``
entry at that virtual instant with what changed, the filing's ``updated_date`` moves there, and
webhooks that asked for ``filing.updated`` hear of it. Newest first, as the service answers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fakes.kernel.errors import ServiceError

from .catalogue.filing_types import TYPES, resolve_type
from .catalogue.markets import LANGUAGE_BY_CODE, LANGUAGES
from .catalogue.records import FilingRecord, iso_s, period_fields
from .dates import InvalidDate, instant_s

REREL_FIELDS = ("title", "filing_type", "language", "markdown", "release_datetime")
MAX_VERSIONS = 1000  # re-releases kept per filing


@dataclass
class Version:
    """One re-release: when, and each changed field's ``{"from", "to"}``."""

    at_s: int
    changes: dict[str, dict[str, Any]]

    def to_state(self) -> dict[str, Any]:
        return {"at_s": self.at_s, "changes": self.changes}


def _bad(message: str) -> ServiceError:
    return ServiceError(400, message, code="invalid_body")


def history_rows(record: FilingRecord, versions: list[Version], now_s: int, delay_s: int) -> list[dict[str, Any]]:
    """The audit trail up to ``now_s``, newest first."""
    filing_type = TYPES[record.type_index]
    first = versions[0].changes if versions else {}

    def original(name: str, current: Any) -> Any:  # a field's value before its first re-release
        return first[name]["from"] if name in first else current
    rows = [_row(record.id * 1000, record.added_s, "+", "ingestion", {
        "filing_type": {"from": None, "to": original("filing_type", filing_type.code)},
        "title": {"from": None, "to": original("title", record.title)},
        "language": {"from": None, "to": original("language", LANGUAGES[record.language_index].code)},
        "company": {"from": None, "to": record.company_id},
        "processing_status": {"from": None, "to": "PENDING"}})]
    done = record.added_s + delay_s
    if now_s >= done:
        rows.append(_row(record.id * 1000 + 1, done, "~", "processing", {
            "processing_status": {"from": "PENDING", "to": "FAILED" if record.failed else "COMPLETED"}}))
    for number, version in enumerate(versions, start=2):
        if version.at_s <= now_s:
            rows.append(_row(record.id * 1000 + number, version.at_s, "~", "rerelease", version.changes))
    rows.sort(key=lambda row: (row["history_date"], row["history_id"]), reverse=True)
    return rows


def _row(history_id: int, at_s: int, kind: str, by: str, changes: dict[str, Any]) -> dict[str, Any]:
    return {"history_id": history_id, "history_date": iso_s(at_s), "history_type": kind, "changed_by": by,
            "changes": changes}


def rerelease(record: FilingRecord, body: dict[str, Any], now_s: int) -> dict[str, dict[str, Any]]:
    """Apply a re-release body to a user filing (validated whole first); returns what changed."""
    unknown = set(body) - set(REREL_FIELDS)
    if unknown:
        raise _bad(f"unknown field(s): {', '.join(sorted(unknown))}; a re-release may change "
                   f"{', '.join(REREL_FIELDS)}")
    changes: dict[str, dict[str, Any]] = {}
    updated: dict[str, Any] = {}
    if "title" in body:
        title = body["title"]
        if not isinstance(title, str) or not title.strip() or len(title) > 4000:
            raise _bad("title must be a non-empty string of at most 4000 characters")
        updated["title"] = title.strip()
    if "filing_type" in body:
        filing_type = resolve_type(body["filing_type"]) if isinstance(body["filing_type"], (str, int)) else None
        if filing_type is None or isinstance(body["filing_type"], bool):
            raise _bad(f"filing_type must be a type name, code or id: {', '.join(t.code for t in TYPES)}")
        updated["type_index"] = filing_type.id - 1
    if "language" in body:
        code = body["language"]
        if not isinstance(code, str) or code.lower() not in LANGUAGE_BY_CODE:
            raise _bad(f"language must be one of {', '.join(lang.code for lang in LANGUAGES)}")
        updated["language_index"] = LANGUAGES.index(LANGUAGE_BY_CODE[code.lower()])
    if "markdown" in body:
        if not isinstance(body["markdown"], str) or len(body["markdown"]) > 10_000_000:
            raise _bad("markdown must be a string of at most 10,000,000 characters")
        updated["markdown"] = body["markdown"]
    if "release_datetime" in body:
        if not isinstance(body["release_datetime"], str):
            raise _bad("release_datetime must be an ISO 8601 date-time")
        try:
            updated["release_s"] = instant_s(body["release_datetime"], end_of_day=False)
        except InvalidDate:
            raise _bad("release_datetime must be an ISO 8601 date-time") from None
        if not 0 <= updated["release_s"] <= 253_402_300_799:
            raise _bad("release_datetime must be an ISO 8601 date-time between 1970 and 9999")
    labels = {"title": "title", "type_index": "filing_type", "language_index": "language", "markdown": "markdown",
              "release_s": "release_datetime"}
    for name, value in updated.items():
        before = getattr(record, name)
        if before == value:
            continue
        shown: Callable[[Any], Any] = {
            "type_index": lambda i: TYPES[i].code, "language_index": lambda i: LANGUAGES[i].code, "release_s": iso_s,
            "markdown": lambda text: None if text is None else f"{len(text)} characters"}.get(name, lambda v: v)
        changes[labels[name]] = {"from": shown(before), "to": shown(value)}
        setattr(record, name, value)
    if not changes:
        raise _bad("nothing changes: a re-release must change at least one of " + ", ".join(REREL_FIELDS))
    record.fiscal_year, record.fiscal_period = period_fields(TYPES[record.type_index].code, record.release_s)
    record.updated_s = now_s
    return changes
