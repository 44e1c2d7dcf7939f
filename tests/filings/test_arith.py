"""The integer building blocks: even two-way splits and split trees, against brute force."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from fakes.filings.catalogue.arith import Split, pick_weighted, stable_hash
from fakes.filings.catalogue.splittree import SplitTree


@st.composite
def splits(draw: st.DrawFn) -> Split:
    size = draw(st.integers(1, 400))
    return Split(size, draw(st.integers(0, size)), draw(st.integers(0, size - 1)))


@given(splits())
def test_split_closed_forms_agree_with_enumeration(split: Split) -> None:
    left = [p for p in range(split.size) if split.is_left(p)]
    right = [p for p in range(split.size) if not split.is_left(p)]
    assert len(left) == split.left
    assert [split.select_left(k) for k in range(len(left))] == left
    assert [split.select_right(k) for k in range(len(right))] == right
    for r in range(split.size + 1):
        assert split.count_left(r) == sum(p < r for p in left)


@given(splits())
def test_split_spreads_the_left_part_evenly(split: Split) -> None:
    for r in range(split.size + 1):  # never more than one position away from the exact share
        assert abs(split.count_left(r) - r * split.left / split.size) < 1


nested = st.recursive(
    st.integers(0, 12),
    lambda children: st.lists(children, min_size=1, max_size=4),
    max_leaves=24,
)


def _levels(shape: Any, path: tuple[int, ...] = ()) -> list[tuple[object, Any]]:
    items: list[tuple[object, Any]] = []
    for i, child in enumerate(shape if isinstance(shape, list) else [shape]):
        key = (*path, i)
        items.append((key, child if isinstance(child, int) else _levels(child, key)))
    return items


@given(nested, st.integers(0, 1000))
def test_split_tree_routes_every_position_to_exactly_one_leaf(shape: Any, seed: int) -> None:
    tree = SplitTree.build(seed, _levels(shape))
    owned: dict[int, list[int]] = {}
    for position in range(tree.root.size):
        leaf, rank = tree.locate(position)
        owned.setdefault(leaf.id, []).append(position)
        assert rank == len(owned[leaf.id]) - 1
    for key in tree.by_key:  # every keyed part, leaf or group: select/count match enumeration
        node = tree.nodes[tree.by_key[key]]
        positions = [tree.select(node, k) for k in range(node.size)]
        assert positions == sorted(set(positions))
        if node.split is None and node.size:
            assert positions == owned[node.id]
        for r in range(0, tree.root.size + 1, max(1, tree.root.size // 7)):
            assert tree.count(node, r) == sum(p < r for p in positions)


def test_hash_is_stable_and_weighted_pick_is_proportional() -> None:
    assert stable_hash(1, 2, 3) == stable_hash(1, 2, 3) != stable_hash(1, 2, 4)
    picks = [pick_weighted(stable_hash(7, i), [1, 3]) for i in range(4000)]
    assert 0.7 < picks.count(1) / len(picks) < 0.8
