"""Integer arithmetic the catalogue is built on: a stable hash and the even two-way split.

Both are pure functions of integers, so everything derived from them is a pure function of
(seed, index): nothing random is stored, and a process started tomorrow answers the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd

MASK64 = (1 << 64) - 1


def mix64(value: int) -> int:
    """SplitMix64's finaliser: a fast, well-spread 64-bit hash of one integer."""
    value = (value + 0x9E3779B97F4A7C15) & MASK64
    value = ((value ^ (value >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    value = ((value ^ (value >> 27)) * 0x94D049BB133111EB) & MASK64
    return value ^ (value >> 31)


def stable_hash(*parts: int) -> int:
    """A 64-bit hash of a tuple of integers (salt them with a purpose tag to decorrelate uses)."""
    h = 0x51ED270B
    for part in parts:
        h = mix64(h ^ (part & MASK64))
    return h


def salted(*parts: int) -> int:
    """A base for :func:`hash_at`: hash the fixed parts (seed, purpose) once, not per index."""
    return stable_hash(*parts)


def hash_at(base: int, index: int) -> int:
    """A 64-bit hash of ``index`` under a :func:`salted` base: one mix per call (hot paths)."""
    return mix64((base + index) & MASK64)


def pick_weighted(h: int, weights: list[int] | tuple[int, ...]) -> int:
    """Index chosen by ``h`` with probability proportional to ``weights``."""
    point = h % sum(weights)
    for index, weight in enumerate(weights):
        if point < weight:
            return index
        point -= weight
    raise AssertionError("unreachable")


@dataclass(frozen=True, slots=True)
class Split:
    """Positions ``0..size-1`` of a sequence shared out evenly between a left and a right part.

    The left part holds ``left`` positions, the ``k``-th of them at ``(k*size + phase) // left``
    (a Beatty sequence), the right part the others. Every question about the split - how many
    left positions lie below ``r``, where the ``k``-th left or right position is, which part a
    position belongs to - has a closed form, so nested splits route a position through a tree of
    parts in O(depth) with nothing stored but three integers per split.

    With ``count_left(r) = ceil((r*left - phase) / size)`` the right part's count is
    ``floor((r*(size-left) + phase) / size)``, which inverts in closed form as well.
    """

    size: int
    left: int
    phase: int  # 0 <= phase < size; shifts where the evenly spaced left positions fall

    def count_left(self, r: int) -> int:
        """Left positions among ``0..r-1`` (0 <= r <= size)."""
        return -((self.phase - r * self.left) // self.size)

    def count_right(self, r: int) -> int:
        return r - self.count_left(r)

    def is_left(self, position: int) -> bool:
        return self.count_left(position + 1) > self.count_left(position)

    def select_left(self, k: int) -> int:
        """Position of the ``k``-th (0-based) left element."""
        return (k * self.size + self.phase) // self.left

    def select_right(self, k: int) -> int:
        """Position of the ``k``-th (0-based) right element."""
        return -((self.phase - (k + 1) * self.size) // (self.size - self.left)) - 1


def coprime_multiplier(h: int, modulus: int) -> int:
    """A multiplier in [1, modulus) coprime with ``modulus`` (for affine permutations)."""
    if modulus <= 2:
        return 1
    a = 1 + h % (modulus - 1)
    while gcd(a, modulus) != 1:
        a = a % (modulus - 1) + 1
    return a
