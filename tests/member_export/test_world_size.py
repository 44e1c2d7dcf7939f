"""An empty member-export world stays small: nothing is allocated per world before it is used
(OAuth, limits and actions keep empty containers; the kernel's journal grows as requests come)."""

from __future__ import annotations

import gc
import tracemalloc

from fakes.member_export import MemberExportFake

TARGET_KIB = 64


def test_an_empty_world_holds_at_most_64_kib() -> None:
    fake = MemberExportFake(seed=0)
    with fake.client() as client:
        for index in range(3):  # warm: imports, caches and route tables shared by every world
            fake.world(f"warm-{index}")
            assert client.get(f"/_w/warm-{index}/_fake/health").status_code == 200
        gc.collect()
        tracemalloc.start()
        try:
            before = tracemalloc.take_snapshot()
            fake.world("measured")
            assert client.get("/_w/measured/_fake/health").status_code == 200
            gc.collect()
            after = tracemalloc.take_snapshot()
        finally:
            tracemalloc.stop()
    grown = sum(stat.size_diff for stat in after.compare_to(before, "filename")) / 1024
    assert grown <= TARGET_KIB, f"an empty world holds {grown:.1f} KiB"
