"""A binary tree of :class:`~fakes.filings.catalogue.arith.Split` s: one round of positions shared out
among many parts, each part's positions spread evenly over the round.

The tree is built from weighted leaves grouped in nested levels (type > language > market >
publishing-rate group in the catalogue). Every node, leaf or inner, is a *part*: a subsequence
of the root's positions whose size per round is fixed. For any part, in O(depth):

* :meth:`SplitTree.count` - how many of its positions lie below a root position;
* :meth:`SplitTree.select` - the root position of its ``k``-th position;
* :meth:`SplitTree.locate` - which leaf a root position belongs to, and its rank there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .arith import Split, stable_hash

PHASE_SALT = 0x5E11


@dataclass(slots=True)
class Node:
    id: int
    size: int
    key: object  # the caller's label of a leaf or a level's group (None for the binary helpers)
    split: Split | None = None  # inner nodes: how the size is shared between the two children
    left: int = -1
    right: int = -1
    # (split, is_left) from this node's parent up to the root: the route to the root position
    route: tuple[tuple[Split, bool], ...] = ()


@dataclass
class SplitTree:
    nodes: list[Node] = field(default_factory=list)
    by_key: dict[object, int] = field(default_factory=dict)
    root_id: int = 0

    @property
    def root(self) -> Node:
        return self.nodes[self.root_id]

    # -- building ------------------------------------------------------------------------------
    @classmethod
    def build(cls, seed: int, levels: Nested) -> SplitTree:
        """``levels`` is a nested structure: a leaf is ``(key, size)``, a group ``(key, [children])``."""
        tree = cls()
        tree.root_id = tree._build_group(seed, None, levels)
        tree._set_routes(tree.root_id, ())
        return tree

    def _new(self, size: int, key: object) -> int:
        node = Node(len(self.nodes), size, key)
        self.nodes.append(node)
        if key is not None and size > 0:  # an empty part owns no position: it is not in the tree
            self.by_key[key] = node.id
        return node.id

    def _build_group(self, seed: int, key: object, children: Nested) -> int:
        ids = [self._build_item(seed, item) for item in children]
        ids = [i for i in ids if self.nodes[i].size > 0]
        if not ids:
            return self._new(0, key)
        top = self._join(seed, ids)
        if key is not None:
            if self.nodes[top].key is None:
                self.nodes[top].key = key
                self.by_key[key] = top
            else:  # a group with a single child that already has a key: wrap it
                top = self._wrap(top, key)
        return top

    def _build_item(self, seed: int, item: tuple[object, int | Nested]) -> int:
        key, content = item
        if isinstance(content, int):
            return self._new(content, key)
        return self._build_group(seed, key, content)

    def _wrap(self, child: int, key: object) -> int:
        size = self.nodes[child].size
        parent = self._new(size, key)
        node = self.nodes[parent]
        node.split, node.left, node.right = Split(size, size, 0), child, -1
        return parent

    def _join(self, seed: int, ids: list[int]) -> int:
        """A weight-balanced binary tree over ``ids``: heavy parts end up near the root."""
        if len(ids) == 1:
            return ids[0]
        total = sum(self.nodes[i].size for i in ids)
        running, cut = 0, 1
        for position, i in enumerate(ids[:-1], start=1):
            running += self.nodes[i].size
            cut = position
            if running * 2 >= total:
                break
        left, right = self._join(seed, ids[:cut]), self._join(seed, ids[cut:])
        parent = self._new(total, None)
        left_size = self.nodes[left].size
        node = self.nodes[parent]
        node.split = Split(total, left_size, stable_hash(seed, PHASE_SALT, parent) % total)
        node.left, node.right = left, right
        return parent

    def _set_routes(self, root: int, route: tuple[tuple[Split, bool], ...]) -> None:
        stack = [(root, route)]
        while stack:
            node_id, node_route = stack.pop()
            node = self.nodes[node_id]
            node.route = node_route
            if node.split is not None:
                stack.append((node.left, ((node.split, True), *node_route)))
                if node.right >= 0:
                    stack.append((node.right, ((node.split, False), *node_route)))

    # -- queries -------------------------------------------------------------------------------
    def node(self, key: object) -> Node | None:
        index = self.by_key.get(key)
        return None if index is None else self.nodes[index]

    def count(self, node: Node, root_position: int) -> int:
        """How many of ``node``'s positions lie among root positions ``0..root_position-1``."""
        r = root_position
        for split, is_left in reversed(node.route):
            r = split.count_left(r) if is_left else r - split.count_left(r)
        return r

    def select(self, node: Node, k: int) -> int:
        """Root position of ``node``'s ``k``-th position (0 <= k < node.size)."""
        for split, is_left in node.route:
            k = split.select_left(k) if is_left else split.select_right(k)
        return k

    def locate(self, root_position: int) -> tuple[Node, int]:
        """The leaf holding ``root_position`` and the position's rank within that leaf."""
        nodes = self.nodes
        node = nodes[self.root_id]
        p = root_position
        while node.split is not None:
            # Split.count_left inlined: this loop is the hot path of rendering any filing
            size, left, phase = node.split.size, node.split.left, node.split.phase
            below = -((phase - p * left) // size)
            if -((phase - (p + 1) * left) // size) > below:
                p, node = below, nodes[node.left]
            else:
                p, node = p - below, nodes[node.right]
        return node, p


Nested = Sequence[tuple[object, "int | Nested"]]

