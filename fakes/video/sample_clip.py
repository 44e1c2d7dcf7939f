"""A short sample clip for trying the video fake (docs/services/video.md, "Use"): the 2-second
426x240 H.264/AAC MP4 that the fake itself serves (:data:`fakes.video.media.STAND_IN_MP4`,
2.4 KB), as bytes or written to a file.

    python -m fakes.video.sample_clip clip.mp4        # writes clip.mp4 (default name: clip.mp4)

    from fakes.video.sample_clip import sample_clip, write_sample_clip
    path = write_sample_clip("clip.mp4")               # the path written
    files = {"file": ("clip.mp4", sample_clip())}      # or the bytes, for an upload
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from .media import STAND_IN_MP4

DEFAULT_NAME = "clip.mp4"


def sample_clip() -> bytes:
    """The clip's bytes: a real MP4 that the fake ingests, encodes and plays like any upload."""
    return STAND_IN_MP4


def write_sample_clip(path: str | os.PathLike[str] = DEFAULT_NAME) -> Path:
    """Write the clip to ``path`` (replacing a file there) and return the path."""
    target = Path(path)
    target.write_bytes(STAND_IN_MP4)
    return target


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) > 1 or args[:1] in (["-h"], ["--help"]):
        print("usage: python -m fakes.video.sample_clip [PATH]  (writes a 2-second MP4, default clip.mp4)",
              file=sys.stderr if len(args) > 1 else sys.stdout)
        return 2 if len(args) > 1 else 0
    try:
        written = write_sample_clip(args[0] if args else DEFAULT_NAME)
    except OSError as exc:
        print(f"sample_clip: error: cannot write {exc.filename}: {exc.strerror}", file=sys.stderr)
        return 2
    print(f"{written} ({len(STAND_IN_MP4)} bytes, 2 s, 426x240 H.264/AAC)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
