"""The sample clip the package ships for the video examples: docs/services/video.md's "Use" runs
as written in an empty directory, and `python -m fakes.video.sample_clip PATH` writes the clip."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import mutagen.mp4
import pytest

from fakes.video.sample_clip import sample_clip, write_sample_clip

ROOT = Path(__file__).resolve().parents[2]


def test_the_use_example_runs_in_an_empty_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "docs/services/video.md").read_text(), re.S)
    use = next(block for block in blocks if "clip.mp4" in block)
    monkeypatch.chdir(tmp_path)
    scope: dict[str, object] = {}
    exec(compile(use, "docs/services/video.md", "exec"), scope)  # asserts the clip became playable
    assert (tmp_path / "clip.mp4").read_bytes() == sample_clip()
    assert "#EXTM3U" in str(scope["playlist"])


def test_the_clip_is_a_short_real_mp4(tmp_path: Path) -> None:
    path = write_sample_clip(tmp_path / "clip.mp4")
    info = mutagen.mp4.MP4(path).info
    assert 1 < info.length < 3 and path.stat().st_size < 10_000


def test_the_command_writes_the_clip_and_refuses_in_one_line(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "fakes.video.sample_clip"]
    done = subprocess.run([*command, "clip.mp4"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("clip.mp4 ("), done.stdout + done.stderr
    assert (tmp_path / "clip.mp4").read_bytes() == sample_clip()
    refused = subprocess.run([*command, str(tmp_path / "missing" / "clip.mp4")], capture_output=True, text=True,
                             timeout=60)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert refused.stderr.startswith("sample_clip: error: cannot write "), refused.stderr
