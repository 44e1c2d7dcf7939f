"""Issue 37, item 4: many touched worlds in little memory (what makes a world cheap), and the
benchmark's density part."""

from __future__ import annotations

import gc
import tracemalloc

from fakes.kernel.http import dumps


def test_a_kept_json_body_holds_only_its_bytes() -> None:
    """orjson hands back its whole working buffer (4 KiB for a 100-byte body since 3.12): kept by a
    journal entry or a render cache of every world, it was most of a world's memory."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = [dumps({"id": i, "name": "x" * 80}) for i in range(1000)]
        small = (tracemalloc.get_traced_memory()[0] - before) / len(kept)
        before = tracemalloc.get_traced_memory()[0]
        large = [dumps({"results": [{"n": n, "text": "y" * 90} for n in range(500)]}) for _ in range(20)]
        large_each = (tracemalloc.get_traced_memory()[0] - before) / len(large)
    finally:
        tracemalloc.stop()
    assert len(kept[0]) < 120 and small < 250, small
    assert large_each < len(large[0]) * 1.1, (large_each, len(large[0]))
