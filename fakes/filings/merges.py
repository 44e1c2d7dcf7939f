"""Duplicate-company merges (``GET /companies/merges/``), recorded through the control plane.

``POST /_fake/merges`` retires a shell company into a canonical one at the current virtual time:
the shell leaves the company list, its detail says ``is_merged`` and ``merged_into``.
``POST /_fake/merges/{id}/reverse`` undoes it in place (``reversed_at``, ``updated_at``; never
``merged_at``): the shell is a live company again. Records are never deleted, and listed by
``merged_at`` then id.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from fakes.kernel.errors import ServiceError
from fakes.kernel.statecheck import StateReader, refuse

from .catalogue.records import iso_s

PATTERNS = ("exact_duplicate", "suffix_variant", "gb_us_adr", "manual")
MAX_EPOCH_S = 253_402_300_799


@dataclass
class Merge:
    id: int
    shell_id: int
    canonical_id: int
    shell_name: str
    canonical_name: str
    pattern: str
    confidence: float | None
    merged_at_s: int
    reversed_at_s: int | None
    updated_at_s: int

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "shell_id": self.shell_id, "canonical_id": self.canonical_id,
                "shell_name": self.shell_name, "canonical_name": self.canonical_name, "pattern": self.pattern,
                "confidence": self.confidence, "merged_at": iso_s(self.merged_at_s),
                "reversed_at": None if self.reversed_at_s is None else iso_s(self.reversed_at_s),
                "updated_at": iso_s(self.updated_at_s)}


def _bad(message: str) -> ServiceError:
    return ServiceError(400, message, code="invalid_body")


class Merges:
    def __init__(self) -> None:
        self.records: list[Merge] = []
        self.shells: dict[int, int] = {}  # active: shell id -> canonical id

    def merge(self, body: dict[str, Any], now_s: int, name_of: Any) -> Merge:
        """``name_of(id)``: a company's name, or None when there is no such company."""
        unknown = set(body) - {"shell_id", "canonical_id", "pattern", "confidence"}
        if unknown:
            raise _bad(f"unknown field(s): {', '.join(sorted(unknown))}")
        ids = []
        for name in ("shell_id", "canonical_id"):
            value = body.get(name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise _bad(f"{name} must be a company's id (an integer)")
            ids.append(value)
        shell, canonical = ids
        pattern = body.get("pattern", "manual")
        if pattern not in PATTERNS:
            raise _bad(f"pattern must be one of {', '.join(PATTERNS)}")
        confidence = body.get("confidence", None if pattern == "manual" else 0.95)
        if confidence is not None and (isinstance(confidence, bool) or not isinstance(confidence, (int, float))
                                       or not 0 <= confidence <= 1):
            raise _bad("confidence must be a number from 0 to 1, or null for a hand merge")
        for name, value in zip(("shell_id", "canonical_id"), ids, strict=True):
            if name_of(value) is None:  # a well-formed reference to nothing: the record is not there
                raise ServiceError(404, f"{name}: no company {value}", code="not_found")
        if shell == canonical:
            raise _bad("a company cannot be merged into itself")
        if shell in self.shells:
            raise ServiceError(409, f"company {shell} is already merged into {self.shells[shell]}", code="conflict")
        if canonical in self.shells:
            raise ServiceError(409, f"company {canonical} is itself merged into {self.shells[canonical]}",
                               code="conflict")
        if shell in self.shells.values():
            raise ServiceError(409, f"company {shell} is the canonical company of other merges", code="conflict")
        merge = Merge(len(self.records) + 1, shell, canonical, name_of(shell)[:250], name_of(canonical)[:250], pattern,
                      None if confidence is None else float(confidence), now_s, None, now_s)
        self.records.append(merge)
        self.shells[shell] = canonical
        return merge

    def reverse(self, merge_id: int, now_s: int) -> Merge:
        if not 1 <= merge_id <= len(self.records):
            raise ServiceError(404, f"no merge {merge_id}", code="not_found")
        merge = self.records[merge_id - 1]
        if merge.reversed_at_s is not None:
            raise ServiceError(409, f"merge {merge_id} is already reversed", code="conflict")
        merge.reversed_at_s = merge.updated_at_s = now_s
        del self.shells[merge.shell_id]
        return merge

    def listing(self, merged_from: int | None, updated_from: int | None, now_s: int) -> list[dict[str, Any]]:
        return [merge.to_json() for merge in sorted(self.records, key=lambda m: (m.merged_at_s, m.id))
                if merge.merged_at_s <= now_s
                and (merged_from is None or merge.merged_at_s >= merged_from)
                and (updated_from is None or merge.updated_at_s >= updated_from)]

    # -- state ---------------------------------------------------------------------------------
    def to_state(self) -> list[dict[str, Any]]:
        return [asdict(merge) for merge in self.records]

    @classmethod
    def read(cls, read: StateReader, name: str, has_company: Any) -> Merges:
        found = cls()
        for number, item in enumerate(read.objects(name), start=1):
            item.only(("id", "shell_id", "canonical_id", "shell_name", "canonical_name", "pattern", "confidence",
                       "merged_at_s", "reversed_at_s", "updated_at_s"))
            if item.integer("id") != number:
                refuse(item.where("id"), f"must be {number} (merges are numbered in order)")
            shell, canonical = item.integer("shell_id", minimum=1), item.integer("canonical_id", minimum=1)
            for field, company in (("shell_id", shell), ("canonical_id", canonical)):
                if not has_company(company):
                    refuse(item.where(field), "names no company")
            if shell == canonical:
                refuse(item.where("canonical_id"), "equals shell_id")
            merged = item.integer("merged_at_s", minimum=0, maximum=MAX_EPOCH_S)
            reversed_at = (None if item.raw("reversed_at_s") is None
                           else item.integer("reversed_at_s", minimum=merged, maximum=MAX_EPOCH_S))
            confidence = None if item.raw("confidence") is None else item.number("confidence", minimum=0, maximum=1)
            merge = Merge(number, shell, canonical, item.text("shell_name", max_length=250),
                          item.text("canonical_name", max_length=250), item.choice("pattern", PATTERNS), confidence,
                          merged, reversed_at, item.integer("updated_at_s", minimum=merged, maximum=MAX_EPOCH_S))
            if reversed_at is None:
                if shell in found.shells or canonical in found.shells or shell in found.shells.values():
                    refuse(item.where("shell_id"), "conflicts with another active merge")
                found.shells[shell] = canonical
            found.records.append(merge)
        return found
