"""api.video's own browser uploader (npm ``@api.video/video-uploader`` 1.1.6) in Debian's Chromium
with normal web security, from a page on another origin, against the video fake served over HTTPS:
what a web app does with a delegated upload token.

The uploader builds ``https://<apiHost>/upload?token=...`` and nothing else, sends ``AV-Origin-Client``
and ``Content-Range`` (so every chunk is preflighted), and after the upload polls the HLS manifest
with ``fetch`` every 500 ms while it answers 202 or an empty body (``onPlayable``). Chromium trusts the
fake's certificate by its public key only (``--ignore-certificate-errors-spki-list``); CORS stays on.

Opt-in, as every test that downloads: ``FAKES_TEST_DOWNLOADS=1``. The package comes from the npm
registry (``npm pack``, no install scripts) into the checkout's ``build/npm/`` once.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import tarfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.staticfiles import StaticFiles

from fakes.kernel.server import ServerThread
from fakes.kernel.tls import ServerCertificate, local_certificate
from fakes.video import VideoFake

from .helpers import CLIP_2S

PACKAGE = "@api.video/video-uploader"
VERSION = "1.1.6"
ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / "build" / "npm"
CHROMIUM = os.environ.get("FAKES_CHROMIUM", "/usr/bin/chromium")
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync"]
MIB = 1024 * 1024

if os.environ.get("FAKES_TEST_DOWNLOADS") != "1":
    pytest.skip("downloads the uploader from npm: opt in with FAKES_TEST_DOWNLOADS=1", allow_module_level=True)

PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>upload page</title><link rel="icon" href="data:,">
<script src="video-uploader.js"></script></head>
<body><script>
window.playable = null;
window.upload = async ({api, token, file, chunkSize}) => {
  const blob = await (await fetch(file)).blob();
  const uploader = new VideoUploader({file: new File([blob], file, {type: 'video/mp4'}), uploadToken: token,
                                      apiHost: api, chunkSize, retries: 2});
  uploader.onPlayable((video) => { window.playable = {videoId: video.videoId, at: Date.now()}; });
  const started = Date.now();
  try {
    const video = await uploader.upload();
    return {ok: true, ms: Date.now() - started, video: JSON.parse(JSON.stringify(video)),
            dates: ['publishedAt', 'createdAt', 'updatedAt'].map((k) => video[k] instanceof Date && !isNaN(video[k])),
            publicField: '_public' in video && !('public' in video), resolvedAt: Date.now()};
  } catch (error) {
    return {ok: false, ms: Date.now() - started, error: JSON.parse(JSON.stringify(error))};
  }
};
</script></body></html>
"""


def uploader_script() -> Path:
    """The uploader's browser bundle, fetched from npm the first time (or a skip saying why)."""
    folder = CACHE / f"api.video-video-uploader-{VERSION}"
    bundle = folder / "package" / "dist" / "index.js"
    if bundle.exists():
        return bundle
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed here: the browser uploader comes from the npm registry")
    folder.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(["npm", "pack", f"{PACKAGE}@{VERSION}", "--pack-destination", str(folder),
                               "--loglevel=error", "--json"], capture_output=True, text=True, timeout=300, check=False)
    except subprocess.TimeoutExpired:
        pytest.skip(f"npm could not fetch {PACKAGE}@{VERSION} within 5 minutes (is the registry reachable?)")
    if done.returncode != 0:
        pytest.skip(f"npm could not fetch {PACKAGE}@{VERSION} (is the registry reachable?): {done.stderr[-300:]}")
    archive = folder / json.loads(done.stdout)[0]["filename"].replace("@", "").replace("/", "-")
    with tarfile.open(archive) as packed:
        packed.extractall(folder, filter="data")
    return bundle


@pytest.fixture(scope="module")
def chromium_args() -> list[str]:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.skip("playwright is not installed (it is in the test extra)")
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"no chromium at {CHROMIUM} (Debian: apt-get install chromium; FAKES_CHROMIUM names another)")
    return LAUNCH_ARGS


class Site:
    """The fake over HTTPS, a page of a web app on another origin, and Chromium on that page."""

    def __init__(self, fake: VideoFake, certificate: ServerCertificate, api: str, page: Any) -> None:
        self.fake, self.certificate, self.api, self.page = fake, certificate, api, page
        self.http = httpx.Client(base_url=f"https://{api}", verify=certificate.client_context(), timeout=30)
        self.key = fake.create_project()["sandbox_key"]

    def token(self, ttl: int = 3600) -> str:
        made = self.http.post("/upload-tokens", json={"ttl": ttl}, auth=(self.key, ""))
        assert made.status_code == 200, made.text
        token: str = made.json()["token"]
        return token

    def advance(self, seconds: float) -> None:  # through the control plane, as a test of a served fake does
        assert self.http.post("/_fake/clock", json={"advance_seconds": seconds}).status_code == 200

    def upload(self, token: str, file: str, chunk_size: int = 5 * MIB) -> dict[str, Any]:
        result: dict[str, Any] = self.page.evaluate(
            "(args) => window.upload(args)", {"api": self.api, "token": token, "file": file, "chunkSize": chunk_size})
        return result

    def status(self, video_id: str) -> dict[str, Any]:
        body: dict[str, Any] = self.http.get(f"/videos/{video_id}/status", auth=(self.key, "")).json()
        return body


@pytest.fixture
def site(chromium_args: list[str], tmp_path: Path) -> Iterator[Site]:
    from playwright.sync_api import sync_playwright

    files = tmp_path / "site"
    files.mkdir()
    shutil.copy(uploader_script(), files / "video-uploader.js")
    (files / "index.html").write_text(PAGE)
    (files / "clip.mp4").write_bytes(CLIP_2S.read_bytes())
    padding = 11 * MIB  # a trailing free box: an MP4 of three 5 MiB chunks
    (files / "three-chunks.mp4").write_bytes(CLIP_2S.read_bytes() + struct.pack(">I", padding + 8) + b"free"
                                             + b"\0" * padding)
    certificate = local_certificate(tmp_path / "tls")
    fake = VideoFake(seed=0, clock="manual")
    with ServerThread([(fake.app, "127.0.0.1", 0)], tls=certificate.context) as [(_, api_port)], \
            ServerThread([(StaticFiles(directory=files), "127.0.0.1", 0)]) as [(_, page_port)], \
            sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, timeout=60_000,
            args=[*chromium_args, f"--ignore-certificate-errors-spki-list={certificate.spki_sha256}"])
        try:
            page = browser.new_page()
            page.goto(f"http://localhost:{page_port}/index.html")  # another origin than the fake's
            assert page.evaluate("typeof VideoUploader") == "function"
            served = Site(fake, certificate, f"127.0.0.1:{api_port}", page)
            yield served
            served.http.close()
        finally:
            browser.close()


def manifest_polls(fake: VideoFake, video_id: str) -> list[int]:
    return [entry["status"] for entry in fake.journal_entries(method="GET")
            if entry["path"] == f"/vod/{video_id}/hls/manifest.m3u8"]


def test_a_single_chunk_upload_resolves_and_on_playable_waits_for_the_encoding(site: Site) -> None:
    result = site.upload(site.token(), "clip.mp4")
    assert result["ok"], result
    video = result["video"]
    assert video["title"] == "clip.mp4"
    assert result["dates"] == [True, True, True] and result["publicField"] is True
    for name in ("iframe", "player", "hls", "thumbnail", "mp4"):
        assert video["assets"][name], name
    api_base = f"https://{site.api}"
    assert video["assets"]["hls"] == f"{api_base}/vod/{video['videoId']}/hls/manifest.m3u8"
    deadline = time.monotonic() + 30
    while len(manifest_polls(site.fake, video["videoId"])) < 3 and time.monotonic() < deadline:
        time.sleep(0.2)  # the uploader polls every 500 ms: the answers reach the page (CORS) and it goes on
    polls = manifest_polls(site.fake, video["videoId"])
    assert len(polls) >= 3 and set(polls) == {202}, polls
    assert site.page.evaluate("window.playable") is None
    assert site.status(video["videoId"])["encoding"]["playable"] is False
    site.advance(600)
    site.page.wait_for_function("window.playable !== null", timeout=30_000)
    assert site.page.evaluate("window.playable.videoId") == video["videoId"]
    assert site.status(video["videoId"])["encoding"]["playable"] is True
    assert manifest_polls(site.fake, video["videoId"])[-1] == 200
    preflights = site.fake.journal_entries(method="OPTIONS")
    assert preflights and {e["status"] for e in preflights} == {204}


def test_a_three_chunk_upload_resolves_and_the_mp4_is_the_file(site: Site, tmp_path: Path) -> None:
    token = site.token()
    result = site.upload(token, "three-chunks.mp4")
    assert result["ok"], result
    uploads = [e for e in site.fake.journal_entries(method="POST") if e["path"] == "/upload"]
    assert [e["status"] for e in uploads] == [201, 201, 201]
    video_id = result["video"]["videoId"]
    status = site.status(video_id)
    sent = (tmp_path / "site" / "three-chunks.mp4").read_bytes()
    assert status["ingest"]["filesize"] == len(sent)
    site.advance(600)
    mp4 = site.http.get(f"/vod/{video_id}/mp4/source.mp4")
    assert mp4.status_code == 200 and mp4.content == sent


@pytest.mark.parametrize("expired", [False, True], ids=["unknown token", "expired token"])
def test_a_token_that_is_not_good_is_refused_at_once_with_the_401_the_page_reads(site: Site, expired: bool) -> None:
    if expired:
        token = site.token(ttl=60)
        site.advance(61)
    else:
        token = "to1234567890abcdefghijk"
    result = site.upload(token, "clip.mp4")
    assert not result["ok"]
    assert result["error"]["status"] == 401, result
    assert result["error"]["title"], result  # the service's problem body, readable by the page
    assert result["ms"] < 10_000, result  # no retries: a 4xx is final for the uploader
    refused = [e for e in site.fake.journal_entries(method="POST") if e["path"] == "/upload"]
    assert [e["status"] for e in refused] == [401]


def test_the_page_trusts_the_fake_by_its_key_only(site: Site, tmp_path: Path) -> None:
    """Chromium ignores certificate errors for the fake's key alone: another TLS server still fails."""
    other = local_certificate(tmp_path / "other")
    fetch = "(url) => fetch(url).then((r) => 'fetched ' + r.status, (e) => String(e))"
    with ServerThread([(site.fake.app, "127.0.0.1", 0)], tls=other.context) as [(_, port)]:
        failed = site.page.evaluate(fetch, f"https://127.0.0.1:{port}/vod/none/hls/manifest.m3u8")
    assert failed.startswith("TypeError"), failed
    assert site.page.evaluate(fetch, f"https://{site.api}/vod/none/hls/manifest.m3u8") == "fetched 404"
