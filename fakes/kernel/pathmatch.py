"""How a request's path must look: the ``path`` criterion of every request pattern (the journal's
find, stubs, faults), compiled once.

A path criterion is one of:

* a string without ``*``, ``?``, ``[`` or ``{``: the exact path (below the fake's base);
* a glob, ``/rest/*``, ``/videos/*/source`` (``fnmatch``: ``*`` also crosses ``/``);
* a template with named path parameters, ``/admin/users/{id}`` or ``/files/{name}.json``: each
  ``{name}`` stands for one non-empty segment (or the part of one between its literal text), at
  most one parameter per segment; a stub's answer reads them (``{{request.path.id}}``);
* ``{"equals": "/a/{literal}"}``: the exact path, whatever characters it holds;
* ``{"matches": regex}``: a regular expression the whole path matches, refused when it can
  backtrack without bound (:mod:`fakes.kernel.saferegex`, paths of up to 1,024 characters).

Every form knows its literal prefix (the text before its first wildcard), so that a set of rules
(:mod:`fakes.kernel.live`) tries the costly ones only on paths that can match them.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping
from typing import Any

from .saferegex import MAX_SUBJECT, UnsafeRegex, compile_costed

GLOB_CHARACTERS = "*?["
PARAMETER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]{0,63})\}")
#: how many characters of a path criterion at most
MAX_PATH_TEXT = 2000
_NO_PARAMS: dict[str, str] = {}


class PathError(ValueError):
    """A path criterion that cannot be used; the message says why."""


class PathMatcher:
    """One compiled path criterion (see the module): :meth:`match` gives the path parameters."""

    __slots__ = ("kind", "literal", "prefix", "regex", "source", "text")

    def __init__(self, kind: str, text: str, regex: re.Pattern[str] | None = None, prefix: str = "",
                 source: str | None = None) -> None:
        self.kind = kind  # "exact", "glob", "template" or "regex"
        self.text = text
        self.regex = regex
        #: a glob's or template's regex without named groups: a part of a set's alternation
        #: (fakes/kernel/ruleindex.py); a regex's is its text
        self.source = source if source is not None else regex.pattern if regex is not None else None
        #: the exact path (kind "exact"): rules index on it
        self.literal = text if kind == "exact" else None
        #: every path it matches starts with this
        self.prefix = text if kind == "exact" else prefix

    @classmethod
    def parse(cls, spec: Any) -> PathMatcher:
        """A criterion as given (a string, or ``{"equals": s}`` / ``{"matches": regex}``)."""
        if isinstance(spec, Mapping):
            if len(spec) != 1 or next(iter(spec)) not in ("equals", "matches"):
                raise PathError("must be a string (exact, glob or template) or one of {\"equals\": path}, "
                                "{\"matches\": regex}")
            kind, value = next(iter(spec.items()))
            if not isinstance(value, str) or not value:
                raise PathError(f"{kind} must be a non-empty string")
            _check_length(value)
            if kind == "equals":
                return cls("exact", value)
            try:
                regex, _ = compile_costed(value)
            except UnsafeRegex as exc:
                raise PathError(f"matches {exc}") from None
            return cls("regex", value, regex, _regex_prefix(value))
        if not isinstance(spec, str) or not spec:
            raise PathError("must be a non-empty string: a path, a glob such as /rest/* or a template such as "
                            "/users/{id}")
        _check_length(spec)
        if "{" in spec or "}" in spec:
            return cls._template(spec)
        if any(ch in spec for ch in GLOB_CHARACTERS):
            translated = fnmatch.translate(spec)
            return cls("glob", spec, re.compile(translated), _glob_prefix(spec), translated.removesuffix(r"\Z"))
        return cls("exact", spec)

    @classmethod
    def _template(cls, text: str) -> PathMatcher:
        if any(ch in text for ch in GLOB_CHARACTERS):
            raise PathError("is a glob or a template, not both: name each varying segment {name}")
        pieces: list[str] = []
        anonymous: list[str] = []
        names: set[str] = set()
        for segment in text.split("/"):
            found = list(PARAMETER.finditer(segment))
            rest = PARAMETER.sub("", segment)
            if "{" in rest or "}" in rest:
                raise PathError(f"segment {segment!r}: a parameter is {{name}} (a letter or _ then letters, "
                                "digits or _, at most 64)")
            if len(found) > 1:
                raise PathError(f"segment {segment!r} holds more than one parameter")
            if not found:
                pieces.append(re.escape(segment))
                anonymous.append(re.escape(segment))
                continue
            name = found[0].group(1)
            if name in names:
                raise PathError(f"parameter {{{name}}} appears twice")
            names.add(name)
            start, end = found[0].span()
            pieces.append(f"{re.escape(segment[:start])}(?P<{name}>[^/]+){re.escape(segment[end:])}")
            anonymous.append(f"{re.escape(segment[:start])}[^/]+{re.escape(segment[end:])}")
        return cls("template", text, re.compile("/".join(pieces)), text[:text.index("{")], "/".join(anonymous))

    def match(self, path: str) -> dict[str, str] | None:
        """The path parameters when ``path`` matches (``{}`` without any), else None."""
        if self.kind == "exact":
            return _NO_PARAMS if path == self.text else None
        if not path.startswith(self.prefix):
            return None
        assert self.regex is not None
        if self.kind == "regex" and len(path) > MAX_SUBJECT:
            return None
        found = self.regex.fullmatch(path)
        if found is None:
            return None
        return found.groupdict() if self.kind == "template" else _NO_PARAMS

    def matches(self, path: str) -> bool:
        return self.match(path) is not None

    def describe(self) -> str:
        return self.text if self.kind != "regex" else f"matching {self.text!r}"

    def to_json(self) -> Any:
        """The criterion as it would be given again."""
        if self.kind == "regex":
            return {"matches": self.text}
        if self.kind == "exact" and (any(ch in self.text for ch in GLOB_CHARACTERS) or "{" in self.text
                                     or "}" in self.text):
            return {"equals": self.text}
        return self.text


def _check_length(text: str) -> None:
    if len(text) > MAX_PATH_TEXT:
        raise PathError(f"is longer than {MAX_PATH_TEXT} characters")


def _glob_prefix(text: str) -> str:
    cut = min((text.index(ch) for ch in GLOB_CHARACTERS if ch in text), default=len(text))
    return text[:cut]


_REGEX_LITERAL = re.compile(r"[A-Za-z0-9/_\-]*")


def _regex_prefix(pattern: str) -> str:
    """The literal text every match of an anchored ``pattern`` starts with ('' when unsure)."""
    if "|" in pattern:
        return ""
    head = _REGEX_LITERAL.match(pattern.removeprefix("^"))
    text = head.group(0) if head else ""
    rest = pattern.removeprefix("^")[len(text):]
    if rest[:1] in ("?", "*", "{") and text:  # the last character is optional or repeated
        text = text[:-1]
    return text
