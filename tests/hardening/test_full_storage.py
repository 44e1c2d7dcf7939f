"""An upload into a full temporary directory (ENOSPC) is the video service's 507
``insufficient-storage`` problem, as for a missing directory, never a 500, and it changes nothing:
the video, its accepted chunks and the directory are as they were, and the same upload works once
there is room again (issue 33, item 11).

The first test fills a real, tiny tmpfs (it needs the right to mount one: root in a container;
elsewhere it skips and says so); the second makes the join of the last part fail the same way
(everywhere) and checks that the parts already accepted survive it.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from fakes.video import VideoFake
from fakes.video import ingest as ingest_module
from tests.video.helpers import CLIP_2S, client_for, create, status, upload

FULL_ERRNO = errno.ENOSPC


@pytest.fixture
def tiny_tmpfs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A 64 KiB tmpfs as the process's temporary directory (what ``tempfile`` hands out)."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip() or done.returncode}): needs root")
    try:
        monkeypatch.setattr(tempfile, "tempdir", str(mount))
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(directory: Path, leave: int) -> Path:
    """A file taking all but about ``leave`` bytes of the directory's file system."""
    filler = directory / "filler"
    free = shutil.disk_usage(directory).free
    with open(filler, "wb") as out:
        out.write(b"\0" * max(free - leave, 0))
    return filler


def _problem(answer: object) -> dict[str, object]:
    body: dict[str, object] = answer.json()  # type: ignore[attr-defined]
    return body


def test_an_upload_into_a_full_tmpfs_is_a_507_that_changes_nothing(tiny_tmpfs: Path) -> None:
    fake = VideoFake(seed=0, environment="production", min_chunk_bytes=1000)
    data = CLIP_2S.read_bytes()
    total = len(data)
    with client_for(fake) as client:
        whole, chunked = create(client), create(client, title="in chunks")
        assert upload(client, chunked["videoId"], data[:1200],
                      headers={"Content-Range": f"bytes 0-1199/{total}"}).status_code == 201
        chunked = client.get(f"/videos/{chunked['videoId']}").json()
        storage = Path(fake.model.storage.root)
        before = sorted(os.listdir(storage))
        filler = _fill(tiny_tmpfs, leave=0)
        refused = upload(client, whole["videoId"], data)
        assert refused.status_code == 507, refused.text
        problem = _problem(refused)
        assert str(problem["type"]).endswith("/insufficient-storage") and problem["status"] == 507
        assert "full" in str(problem["detail"]) and "TMPDIR" in str(problem["detail"])
        later = upload(client, chunked["videoId"], data[1200:],
                       headers={"Content-Range": f"bytes 1200-{total - 1}/{total}"})
        assert later.status_code == 507, later.text
        assert client.get(f"/videos/{whole['videoId']}").json() == whole
        assert client.get(f"/videos/{chunked['videoId']}").json() == chunked
        assert sorted(os.listdir(storage)) == before  # no request's file left behind
        copy = client.post("/videos", json={"title": "a copy", "source": chunked["videoId"]})
        assert copy.status_code == 400, copy.text  # an unfinished source: the API's own refusal, first
        filler.unlink()  # room again: the same requests work
        assert upload(client, whole["videoId"], data).status_code == 201
        assert upload(client, chunked["videoId"], data[1200:],
                      headers={"Content-Range": f"bytes 1200-{total - 1}/{total}"}).status_code == 201
        fake.advance(600)
        assert status(client, chunked["videoId"])["encoding"]["playable"] is True
        _fill(tiny_tmpfs, leave=0)
        copied = client.post("/videos", json={"title": "a copy", "source": whole["videoId"]})
        assert copied.status_code == 507, copied.text  # the copy of a source needs room too
        assert [v["title"] for v in client.get("/videos").json()["data"]].count("a copy") == 0


def test_a_last_part_whose_join_finds_no_room_keeps_the_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = VideoFake(seed=0, environment="production", min_chunk_bytes=1000)
    data = CLIP_2S.read_bytes()
    with client_for(fake) as client:
        video_id = create(client)["videoId"]
        assert upload(client, video_id, data[:1200], headers={"Content-Range": "part 1/2"}).status_code == 201
        before = client.get(f"/videos/{video_id}").json()
        real_copy = shutil.copyfileobj

        def no_room(source: object, target: object, length: int = 0) -> None:
            raise OSError(FULL_ERRNO, os.strerror(FULL_ERRNO))

        monkeypatch.setattr(ingest_module.shutil, "copyfileobj", no_room)
        refused = upload(client, video_id, data[1200:], headers={"Content-Range": "part 2/2"})
        assert refused.status_code == 507, refused.text
        assert client.get(f"/videos/{video_id}").json() == before
        monkeypatch.setattr(ingest_module.shutil, "copyfileobj", real_copy)
        assert upload(client, video_id, data[1200:], headers={"Content-Range": "part 2/2"}).status_code == 201
        fake.advance(600)
        assert status(client, video_id)["encoding"]["playable"] is True
        with open(fake.model.storage.source_path(video_id), "rb") as handle:
            assert handle.read() == data
