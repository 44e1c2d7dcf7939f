"""Who publishes each position of a round: the catalogue's split tree written out, for big sets.

A few companies' filings are cheapest from their patterns (:meth:`Catalogue.company_pattern`,
~25 positions each). A search term can name thousands of companies, though (``holding`` names a
quarter of them): then every round position's company and group is looked up in two flat arrays,
built once per catalogue on first need (~1 s and ~5 MB at full scale) by walking each group's
ranks up the tree a level at a time, and the positions are one pass over them.
"""

from __future__ import annotations

import functools
from array import array
from collections.abc import Callable, Sequence

from .generator import Catalogue

#: company sets at least this large are read from the arrays rather than from their patterns
BULK_COMPANIES = 400


class Owners:
    """``company[p]`` and ``group[p]`` (an index into ``keys``) of round position ``p``."""

    def __init__(self, catalogue: Catalogue) -> None:
        size = catalogue.round_size
        self.company = array("i", bytes(4 * size))
        self.group = array("H", bytes(2 * size))
        self.keys: list[tuple[int, int, int, int]] = []  # (type, language, market, weight)
        tree = catalogue.tree
        for number, group in enumerate(catalogue.groups.values()):
            self.keys.append(group.key)
            leaf = tree.node(("group", *group.key))
            assert leaf is not None
            ranks = list(range(leaf.size))
            positions = ranks
            for split, is_left in leaf.route:  # up the tree, every rank at once
                size_, left, phase = split.size, split.left, split.phase
                if is_left:
                    positions = [(k * size_ + phase) // left for k in positions]
                else:
                    right = size_ - left
                    positions = [-((phase - (k + 1) * size_) // right) - 1 for k in positions]
            members, n = group.members, group.n
            inverse, offset = group.inverse, group.offset
            for rank, position in zip(ranks, positions, strict=True):
                self.company[position] = members[(inverse * (rank % n - offset)) % n]
                self.group[position] = number

    def positions(self, companies: frozenset[int], group_ok: Callable[[tuple[int, int, int, int]], bool],
                  ) -> Sequence[int]:
        """Round positions of ``companies``' filings whose group passes ``group_ok``, ascending."""
        wanted = bytearray(max(companies, default=0) + 1)
        for company_id in companies:
            wanted[company_id] = 1
        groups = bytes(1 if group_ok(key) else 0 for key in self.keys)
        company, group, limit = self.company, self.group, len(wanted)
        return array("i", (p for p in range(len(company))
                           if groups[group[p]] and company[p] < limit and wanted[company[p]]))


@functools.lru_cache(maxsize=4)
def owners_of(catalogue: Catalogue) -> Owners:
    return Owners(catalogue)
