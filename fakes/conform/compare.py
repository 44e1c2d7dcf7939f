"""Is the fake's answer the real service's, as far as a client can tell? One comparison, used by
conformance runs (``fakes conform``) and replays (``fakes replay``).

Compared: the status code; the media type; the headers clients act on (rate limits, credits and
costs, ``Location``, paging links, and every header the API document declares for the answer),
by presence and by the form of their values; the JSON body's shape (:mod:`.shape`): keys, value
types, the merged shape of array items, the form of strings, enum-like values. Values that must
differ between two services (ids, times, URLs, counts, order) are never compared, only their form.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from .observed import Observed
from .shape import STRONG_FORMS, Shape, child_path, shape_of, token_style

#: headers a client acts on, by name (lower case): rate limits, credits, costs, paging, redirects
MATTERING_HEADERS = re.compile(
    r"(rate-?limit|retry-after|credit|cost|balance|quota|^location$|^link$|^x-total|^x-next|^x-page|"
    r"^content-range$)")
#: headers that never say anything about the API (transport, caching, the server's own)
NOISE_HEADERS = frozenset({"date", "server", "content-length", "connection", "keep-alive", "transfer-encoding",
                           "vary", "etag", "age", "via", "x-request-id"})


class Hints(Protocol):
    """What the API document adds to a comparison (see :class:`fakes.conform.document.Document`)."""

    def declared_headers(self, operation: str, status: int) -> set[str]: ...

    def enum_at(self, operation: str, status: int, where: list[str]) -> list[Any] | None: ...


@dataclass(frozen=True)
class Difference:
    """One way the fake's answer differs from the real one.

    ``kind``: status, content-type, body, header-missing, header-extra, header-form, key-missing,
    key-extra, type, form, enum. ``where``: ``status``, ``header Location``, ``$.data[].id``."""

    kind: str
    where: str
    real: str
    fake: str

    @property
    def text(self) -> str:
        return self.described()

    def described(self, real: str = "real") -> str:
        """The difference in words; ``real`` names the side compared with (``recorded`` in a replay)."""
        at = f"`{self.where}`"
        if self.kind == "status":
            return f"{real} {self.real}, fake {self.fake}"
        if self.kind == "key-missing":
            return f"{real} has {at}, fake lacks it"
        if self.kind == "key-extra":
            return f"fake has {at}, {real} lacks it"
        if self.kind == "header-missing":
            return f"{real} sends header {at}, fake does not"
        if self.kind == "header-extra":
            return f"fake sends header {at}, {real} does not"
        if self.kind == "header-form":
            return f"header {at}: {real} {self.real}, fake {self.fake}"
        return f"{at}: {real} {self.real}, fake {self.fake}"

    def key(self, operation: str) -> str:
        """Stable across runs (no values): what a baseline lists."""
        return f"{operation} | {self.kind} | {self.where}" + (
            f" | {self.real} -> {self.fake}" if self.kind in ("status", "content-type", "type", "form") else "")

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "where": self.where, "real": self.real, "fake": self.fake, "text": self.text}


def compare(real: Observed, fake: Observed, *, operation: str = "", hints: Hints | None = None,
            extra_headers: Iterable[str] = ()) -> list[Difference]:
    """Every difference between the two answers to the same request (empty: the same)."""
    if real.status != fake.status:
        return [Difference("status", "status", str(real.status), str(fake.status))]
    found: list[Difference] = []
    if real.media_type != fake.media_type:
        found.append(Difference("content-type", "content-type", real.media_type or "none",
                                fake.media_type or "none"))
    declared = hints.declared_headers(operation, real.status) if hints is not None else set()
    found += compare_headers(real.response_headers, fake.response_headers, declared | set(extra_headers))
    if real.body_by_hash or fake.body_by_hash or not (real.is_json and fake.is_json):
        return found
    real_body, fake_body = real.json(), fake.json()
    if (real_body is None) != (fake_body is None):
        side = "real" if real_body is None else "fake"
        found.append(Difference("body", "$", "not JSON" if side == "real" else "JSON",
                                "not JSON" if side == "fake" else "JSON"))
        return found

    def enum_at(where: list[str]) -> list[Any] | None:
        return hints.enum_at(operation, real.status, where) if hints is not None else None

    found += compare_shapes(shape_of(real_body, path_values(operation, real.path)),
                            shape_of(fake_body, path_values(operation, fake.path)), "$", [], enum_at)
    return found


def path_values(operation: str, path: str) -> frozenset[str]:
    """The values a request put in its operation's path parameters (``GET /platforms/{slug}`` and
    ``/platforms/atlaswise`` -> ``{"atlaswise"}``): an answer keyed by one of them is keyed by data."""
    template = operation.partition(" ")[2].strip("/").split("/")
    segments = path.strip("/").split("/")
    if len(template) != len(segments):
        return frozenset()
    return frozenset(value for name, value in zip(template, segments, strict=True) if name.startswith("{"))


def _mattering(name: str, declared: set[str]) -> bool:
    return name in declared or (name not in NOISE_HEADERS and MATTERING_HEADERS.search(name) is not None)


def header_form(value: str) -> str:
    """The form of a header value: integer, decimal, http-date, datetime, url, path or text."""
    value = value.strip()
    if re.fullmatch(r"-?\d+", value):
        return "integer"
    if re.fullmatch(r"-?\d+\.\d+", value):
        return "decimal"
    if re.fullmatch(r"[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT", value):
        return "http-date"
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-][\d:]+)?", value):
        return "datetime"
    if re.match(r"[a-z][a-z0-9+.\-]*://", value, re.I):
        return "url"
    if value.startswith("/"):
        return "path"
    if value.startswith("<"):
        return "link"
    return "text"


def compare_headers(real: dict[str, str], fake: dict[str, str], declared: set[str]) -> list[Difference]:
    found = []
    for name in sorted(set(real) | set(fake)):
        if not _mattering(name, {d.lower() for d in declared}):
            continue
        if name not in fake:
            found.append(Difference("header-missing", name, "present", "absent"))
        elif name not in real:
            found.append(Difference("header-extra", name, "absent", "present"))
        else:
            real_form, fake_form = header_form(real[name]), header_form(fake[name])
            # free text goes with any form ("Unlimited" where a plan has a number); numbers with numbers
            if real_form != fake_form and "text" not in (real_form, fake_form) \
                    and {real_form, fake_form} != {"integer", "decimal"}:
                found.append(Difference("header-form", name, real_form, fake_form))
    return found


def _types(shape: Shape) -> set[str]:
    return shape.types - {"null"}  # null vs a value is data (an optional field), not shape


def compare_shapes(real: Shape, fake: Shape, path: str, where: list[str],
                   enum_at: Any = None) -> list[Difference]:
    """Differences between two shapes at ``path`` (``where``: its parts, for the document)."""
    found: list[Difference] = []
    real_types, fake_types = _types(real), _types(fake)
    if real_types and fake_types and not real_types & fake_types:
        return [Difference("type", path, "/".join(sorted(real_types)), "/".join(sorted(fake_types)))]
    if "object" in real_types and "object" in fake_types:
        for key in sorted(set(real.keys) | set(fake.keys)):
            inner = child_path(path, key)
            if key not in fake.keys:
                found.append(Difference("key-missing", inner, "present", "absent"))
            elif key not in real.keys:
                found.append(Difference("key-extra", inner, "absent", "present"))
            else:
                found += compare_shapes(real.keys[key], fake.keys[key], inner, [*where, key], enum_at)
    if "array" in real_types and "array" in fake_types and real.items is not None and fake.items is not None \
            and real.has_items and fake.has_items:  # an empty list on either side says nothing of its items
        found += compare_shapes(real.items, fake.items, path + "[]", [*where, "[]"], enum_at)
    if "string" in real_types and "string" in fake_types:
        found += _compare_strings(real, fake, path, where, enum_at)
    return found


def _compare_strings(real: Shape, fake: Shape, path: str, where: list[str], enum_at: Any) -> list[Difference]:
    if real.forms and fake.forms and not real.forms & fake.forms and (real.forms | fake.forms) & STRONG_FORMS:
        return [Difference("form", path, "/".join(sorted(real.forms)), "/".join(sorted(fake.forms)))]
    if not real.tokens or not fake.tokens:
        return []
    declared = enum_at(where) if enum_at is not None else None
    if declared:
        allowed = {str(value) for value in declared}
        fake_outside = sorted(fake.tokens - allowed - real.tokens)
        real_outside = sorted(real.tokens - allowed - fake.tokens)
        if fake_outside and real.tokens <= allowed:
            return [Difference("enum", path, _listed(real.tokens), _listed(fake.tokens) + " (not in the document)")]
        if real_outside:
            return [Difference("enum", path, _listed(real.tokens) + " (not in the document)", _listed(fake.tokens))]
        return []
    real_styles = {token_style(token) for token in real.tokens}
    fake_styles = {token_style(token) for token in fake.tokens}
    if len(real_styles) == len(fake_styles) == 1 and real_styles != fake_styles \
            and real_styles | fake_styles <= {"upper", "lower"}:
        return [Difference("enum", path, f"{real_styles.pop()}-case values ({_listed(real.tokens)})",
                           f"{fake_styles.pop()}-case values ({_listed(fake.tokens)})")]
    return []


def _listed(tokens: set[str], most: int = 4) -> str:
    shown = sorted(tokens)
    return ", ".join(repr(t) for t in shown[:most]) + (f" and {len(shown) - most} more" if len(shown) > most else "")
