"""Regular expressions a fake may run on what clients sent, without one freezing the server.

Python's ``re`` backtracks, holds the GIL and cannot be interrupted: a pattern such as ``(a+)+$``
or ``(a|aa)*c`` against a few thousand characters runs for hours, and a fake serves every client
on one event loop. So a pattern given through the control plane (a journal criterion) is refused
when its shape can backtrack without bound: a repeated part that itself repeats or offers
alternatives, a backreference, or more than :data:`MAX_UNBOUNDED` unbounded repeats (three make
1,024 characters a second's work); and it is run on values of at most :data:`MAX_SUBJECT`
characters (a longer value does not match).
"""

from __future__ import annotations

import re
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]
from typing import Any

MAX_PATTERN = 500
MAX_SUBJECT = 1024
MAX_UNBOUNDED = 2
#: a repeat allowing more than this many times counts as unbounded (.{0,1000} is .* to the engine)
LONG_REPEAT = 32
_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", sre.MAX_REPEAT))


class UnsafeRegex(ValueError):
    """A pattern refused: not a regular expression, too long, or one that can backtrack without bound."""


def compile_guarded(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled, or :class:`UnsafeRegex` saying why it is refused."""
    return compile_costed(pattern)[0]


def compile_costed(pattern: str) -> tuple[re.Pattern[str], int]:
    """``pattern`` compiled, and how many unbounded repeats it holds (0 to :data:`MAX_UNBOUNDED`):
    a run on a value of n characters takes about n steps with one at most, n * n with two
    (:func:`match_cost`). :class:`UnsafeRegex` if it is refused."""
    if len(pattern) > MAX_PATTERN:
        raise UnsafeRegex(f"is longer than {MAX_PATTERN} characters")
    try:
        compiled = re.compile(pattern)
        parsed = _parser.parse(pattern)
    except (re.error, RecursionError, OverflowError) as exc:
        raise UnsafeRegex(f"is not a regular expression: {exc}") from None
    unbounded = [0]
    problem = _backtracking(list(parsed.data), unbounded)
    if problem:
        raise UnsafeRegex(f"{problem}: such a pattern can take exponential time on a long value (write it "
                          "without the nesting, e.g. a+ for (a+)+, a{1,2} for (a|aa))")
    return compiled, unbounded[0]


def match_cost(unbounded: int, length: int) -> int:
    """The steps (about a byte's work each) a guarded pattern with ``unbounded`` repeats may take
    on a value of ``length`` characters: what a find's budget is charged for running it."""
    length = min(length, MAX_SUBJECT) + 1
    return (length * length if unbounded >= 2 else length) >> 2


def fullmatch_bounded(regex: re.Pattern[str], value: str) -> bool:
    """Whether ``regex`` matches all of ``value``; a value past :data:`MAX_SUBJECT` never does."""
    return len(value) <= MAX_SUBJECT and regex.fullmatch(value) is not None


def _backtracking(items: list[tuple[Any, Any]], unbounded: list[int], in_repeat: bool = False) -> str:
    """What makes the parsed pattern ``items`` unsafe ('' when nothing does)."""
    for op, arg in items:
        if op in _REPEATS:
            _low, high, body = arg
            if high > 1 and in_repeat:
                return "a repeat inside a repeat"
            if high > LONG_REPEAT:
                unbounded[0] += 1
                if unbounded[0] > MAX_UNBOUNDED:
                    return f"more than {MAX_UNBOUNDED} unbounded repeats"
            found = _backtracking(list(body), unbounded, in_repeat or high > 1)
            if found:
                return found
        elif op is sre.BRANCH:
            if in_repeat:
                return "alternatives inside a repeat"
            for alternative in arg[1]:
                found = _backtracking(list(alternative), unbounded, in_repeat)
                if found:
                    return found
        elif op is sre.SUBPATTERN:
            found = _backtracking(list(arg[3]), unbounded, in_repeat)
            if found:
                return found
        elif op in (sre.ASSERT, sre.ASSERT_NOT):
            found = _backtracking(list(arg[1]), unbounded, in_repeat)
            if found:
                return found
        elif op in (sre.GROUPREF, sre.GROUPREF_EXISTS):
            return "a backreference"
    return ""
