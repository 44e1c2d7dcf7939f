"""api.video's official Node client (``@api.video/nodejs-client`` 2.6.8 from the npm registry) against
the fake served over HTTP: create, upload in chunks (its parts are named after the file), status,
list, a chunked delegated upload, delete.

Runs where ``node`` and ``npm`` exist and downloads are allowed (``FAKES_TEST_DOWNLOADS=1``, which
``.ci/run`` sets); the client is installed at test time, once, into the checkout's
``build/test-downloads/node`` (``FAKES_TEST_CACHE`` moves the root; tests/support/downloads.py).
Where downloads are off, node or npm is missing, or the registry cannot be reached, the test is
skipped and says why.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from fakes.video import VideoFake
from tests.support.downloads import download_cache

from .helpers import CLIP_2S

CLIENT = "@api.video/nodejs-client"
VERSION = "2.6.8"
MIB = 1024 * 1024

SCRIPT = r"""
const ApiVideoClient = require('@api.video/nodejs-client');
const [base, key, file] = process.argv.slice(2);
const advance = (seconds) => fetch(`${base}/_fake/clock`, {method: 'POST', headers: {'content-type':
  'application/json'}, body: JSON.stringify({advance_seconds: seconds})});
(async () => {
  const client = new ApiVideoClient({ apiKey: key, baseUri: base, chunkSize: 5 * 1024 * 1024 });
  const created = await client.videos.create({ title: 'from node', tags: ['node'] });
  const uploaded = await client.videos.upload(created.videoId, file);
  await advance(600);
  const status = await client.videos.getStatus(created.videoId);
  const listed = await client.videos.list({ tags: ['node'] });
  const token = await client.uploadTokens.createToken({ ttl: 3600 });
  const delegated = await client.videos.uploadWithUploadToken(token.token, file);
  await client.videos.delete(created.videoId);
  let gone = false;
  try { await client.videos.get(created.videoId); } catch (error) { gone = error.problemDetails.status === 404; }
  console.log(JSON.stringify({ created: created.videoId, uploaded: uploaded.videoId, playable: status.encoding.playable,
    filesize: status.ingest.filesize, parts: status.ingest.receivedParts, listed: listed.data.map(v => v.videoId),
    delegated: delegated.videoId, delegatedTitle: delegated.title, gone }));
})().catch((error) => { console.error(error); process.exit(1); });
"""


def _install() -> Path:
    """The client installed in the cache directory (installing it the first time), or a skip."""
    cache = download_cache("node", f"{CLIENT}@{VERSION} from the npm registry (6.6 MB)")
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed here: the Node client's flow runs where node and npm exist")
    prefix = cache / f"apivideo-nodejs-client-{VERSION}"
    if not (prefix / "node_modules" / CLIENT / "package.json").exists():
        prefix.mkdir(parents=True, exist_ok=True)
        try:
            done = subprocess.run(["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund",
                                   "--no-save", "--loglevel=error", f"{CLIENT}@{VERSION}"],
                                  capture_output=True, text=True, timeout=300, check=False)
        except subprocess.TimeoutExpired:
            pytest.skip(f"npm could not install {CLIENT}@{VERSION} within 5 minutes (is the registry reachable?)")
        if done.returncode != 0:
            pytest.skip(f"npm could not install {CLIENT}@{VERSION} (is the registry reachable?): "
                        f"{done.stderr.strip()[-300:]}")
    return prefix / "node_modules"


def test_the_node_client_creates_uploads_in_chunks_lists_and_deletes(tmp_path: Path) -> None:
    modules = _install()
    clip = CLIP_2S.read_bytes()
    padding = 11 * MIB  # an MP4 whose trailing free box makes it three 5 MiB chunks (the client's smallest)
    video = tmp_path / "clip.mp4"
    video.write_bytes(clip + struct.pack(">I", padding + 8) + b"free" + b"\0" * padding)
    script = tmp_path / "flow.js"
    script.write_text(SCRIPT)
    fake = VideoFake(seed=0)
    key = fake.create_project()["sandbox_key"]
    with fake.serve() as base_url:
        done = subprocess.run(["node", str(script), base_url, key, str(video)], capture_output=True, text=True,
                              timeout=120, env={**os.environ, "NODE_PATH": str(modules)}, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["uploaded"] == result["created"] and result["playable"] is True
    assert result["filesize"] == video.stat().st_size
    assert result["parts"] == {"parts": [1, 2, 3], "total": 3}
    assert result["listed"] == [result["created"]]
    assert result["delegated"] != result["created"] and result["delegatedTitle"] == "clip.mp4"
    assert result["gone"] is True
    uploads = [e for e in fake.journal_entries() if e["path"].endswith("/source") or e["path"] == "/upload"]
    assert [e["status"] for e in uploads] == [201] * 6  # three chunks each, every one accepted
    verdicts = {v["id"]: v["count"] for v in fake.verdicts()}
    assert verdicts == {"video/upload-part-name": 6}  # the client names its parts after the file
