"""The image runs with a read-only root file system and a tmpfs at /tmp (`docker run --read-only
--tmpfs /tmp`, compose's `read_only: true` + `tmpfs: [/tmp]`): the fakes write nothing but video's
uploads, and those go below $TMPDIR (the image sets TMPDIR=/tmp).

Docker cannot run here, so the image's entry command runs as a process under a Python audit hook
that reports every file the process opens for writing, creates, renames or removes outside
$TMPDIR; a video is uploaded, encoded and played through it."""

from __future__ import annotations

import base64
import signal
from pathlib import Path
from typing import Any

import httpx
import pytest

from fakes import registry
from fakes.video.sample_clip import sample_clip
from tests.support.serving import free_port, parse_banner, running

from . import dockerfile
from .conftest import entry_command, local_run_env, localize

#: runs `fakes <args>` like the console script, reporting writes outside $TMPDIR on stderr
WATCHED_ENTRY = r"""
import os, sys
allowed = os.path.realpath(os.environ["TMPDIR"]) + os.sep
WRITES = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
# audit event -> (index of a path argument, index of its dir_fd argument or None), per path
PATH_EVENTS = {"os.mkdir": [(0, 2)], "os.remove": [(0, 1)], "os.rmdir": [(0, 1)], "os.rename": [(0, 2), (1, 3)],
               "os.truncate": [(0, None)], "os.symlink": [(1, 2)], "os.link": [(1, 3)], "os.chmod": [(0, 2)],
               "os.chown": [(0, 3)], "shutil.rmtree": [(0, 1)]}

def outside(path, dir_fd=None):
    if not isinstance(path, (str, bytes, os.PathLike)):
        return False  # a file descriptor: opened (and checked) before
    path = os.fsdecode(path)
    if isinstance(dir_fd, int) and not os.path.isabs(path):
        path = os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), path)
    real = os.path.realpath(path)
    return not (real + os.sep).startswith(allowed) and real != "/dev/null"

def watch(event, args):
    if event == "open":
        path, mode, flags = args
        writing = any(c in (mode or "") for c in "wax+") or bool((flags or 0) & WRITES)
        targets = [(path, None)] if writing else []
    else:
        targets = [(args[i], args[j] if j is not None and j < len(args) else None)
                   for i, j in PATH_EVENTS.get(event, [])]
    for path, dir_fd in targets:
        if outside(path, dir_fd):
            os.write(2, f"READ-ONLY VIOLATION {event} {path!r}\n".encode())

sys.addaudithook(watch)
from fakes.kernel.cli import main
sys.exit(main(sys.argv[1:]))
"""


def basic(key: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{key}:".encode()).decode()}


def test_the_entry_command_writes_only_below_tmpdir(image: dockerfile.Dockerfile, image_env: dict[str, str],
                                                     image_site: Path, image_workdir: Path, tmp_path: Path) -> None:
    if "video" not in registry.service_names():
        pytest.skip("the video service keeps the uploads")
    assert image_env.get("TMPDIR") == "/tmp", "the image says where uploads go: the tmpfs"
    tmpfs = tmp_path / "tmpfs"
    tmpfs.mkdir()
    port = free_port()
    env = local_run_env({**image_env, "FAKES_ONLY": "video", "FAKES_PORT": str(port), "FAKES_HOST": "127.0.0.1",
                         "TMPDIR": str(tmpfs)}, image_site)
    command = entry_command(image)
    python = localize(["python"], image, env)[0]
    base = f"http://127.0.0.1:{port}"
    with running([python, "-c", WATCHED_ENTRY, *command[1:]], env, image_workdir) as server:
        server.wait_until_up([f"{base}/_fake/health"])
        key = parse_banner(server.wait_banner())["video"]["credentials"]["api_key"]
        with httpx.Client(base_url=base, headers=basic(key), timeout=30, trust_env=False) as client:
            video: dict[str, Any] = client.post("/videos", json={"title": "read-only"}).json()
            upload = client.post(f"/videos/{video['videoId']}/source",
                                 files={"file": ("clip.mp4", sample_clip(), "video/mp4")})
            assert upload.status_code in (200, 201), upload.text
            assert list(tmpfs.glob("fakes-video-*/*")), "the upload is kept below TMPDIR"
            client.post("/_fake/clock", json={"advance_seconds": 120})
            status = client.get(f"/videos/{video['videoId']}/status").json()
            assert status["encoding"]["playable"], status
            played = client.get(video["assets"]["mp4"])
            assert played.status_code == 200 and played.content == sample_clip()
        code, _ = server.terminate(signal.SIGTERM)
        assert code == 0, server.describe()
        assert "READ-ONLY VIOLATION" not in server.stderr, server.stderr
        assert "Traceback" not in server.stderr, server.stderr
