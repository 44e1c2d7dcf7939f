"""Upload tokens and delegated uploads; a file part under any name; refusals that leave nothing behind."""

from __future__ import annotations

import base64
import os

import pytest

from fakes.video import VideoFake

from .helpers import CLIP_2S, CLIP_31S, client_for, create, status, upload

MIB = 1024 * 1024


def test_upload_tokens_live_their_ttl_on_the_clock() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        short = client.post("/upload-tokens", json={"ttl": 60}).json()
        forever = client.post("/upload-tokens", json={}).json()
        assert short["token"].startswith("to") and len(short["token"]) == 24
        assert (short["ttl"], short["createdAt"], short["expiresAt"]) == (60, "2026-01-05T09:00:00+00:00",
                                                                         "2026-01-05T09:01:00+00:00")
        assert (forever["ttl"], forever["expiresAt"]) == (0, None)
        listed = client.get("/upload-tokens", params={"sortBy": "ttl", "sortOrder": "desc"}).json()["data"]
        assert [t["token"] for t in listed] == [short["token"], forever["token"]]
        assert client.get(f"/upload-tokens/{short['token']}").json() == short
        for bad in ({"ttl": -1}, {"ttl": "60"}, {"ttl": 2**31}, {"other": 1}):
            assert client.post("/upload-tokens", json=bad).status_code == 400
        fake.advance(60)
        assert client.get(f"/upload-tokens/{short['token']}").status_code == 404  # expired: gone
        assert [t["token"] for t in client.get("/upload-tokens").json()["data"]] == [forever["token"]]
        expired = client.post(f"/upload?token={short['token']}", files={"file": ("a.mp4", CLIP_2S.read_bytes())})
        assert expired.status_code == 401 and expired.json()["title"] == "The upload token is invalid or expired."
        assert client.delete(f"/upload-tokens/{forever['token']}").status_code == 204
        assert client.get(f"/upload-tokens/{forever['token']}").status_code == 404


def test_a_delegated_upload_needs_no_key_and_makes_a_video_titled_after_the_file() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        token = client.post("/upload-tokens", json={"ttl": 3600}).json()["token"]
        target = create(client, title="made by the server")
    with fake.client() as anonymous:  # a browser holding only the token
        assert anonymous.post("/upload", files={"file": ("a.mp4", b"x")}).json()["title"] == \
            "The upload token is missing."
        made = anonymous.post(f"/upload?token={token}", files={"file": ("holiday.mp4", CLIP_2S.read_bytes())})
        assert made.status_code == 201, made.text
        assert made.json()["title"] == "holiday.mp4" and made.json()["source"]["type"] == "upload"
        named = anonymous.post(f"/upload?token={token}", files={"file": ("b.mp4", CLIP_2S.read_bytes())},
                               data={"videoId": target["videoId"]})
        assert named.json()["videoId"] == target["videoId"] and named.json()["title"] == "made by the server"
    with client_for(fake) as stranger:  # another project's video is not the token's to fill
        other = create(stranger)
    with fake.client() as anonymous:
        refused = anonymous.post(f"/upload?token={token}", files={"file": ("c.mp4", CLIP_2S.read_bytes())},
                                 data={"videoId": other["videoId"]})
        assert refused.status_code == 404
    fake.advance(60)
    with client_for(fake) as client:
        assert [v["title"] for v in client.get("/videos").json()["data"]] == []  # a new project sees none
    assert fake.verdicts() == []


def test_a_chunked_delegated_upload_continues_the_tokens_video_without_a_video_id() -> None:
    """api.video's clients send the later chunks of a token upload without naming the video."""
    fake = VideoFake(seed=0, environment="production", min_chunk_bytes=1000)
    data = CLIP_2S.read_bytes()
    cut = 1200
    with client_for(fake) as client:
        token = client.post("/upload-tokens", json={}).json()["token"]
    with fake.client() as anonymous:
        first = anonymous.post(f"/upload?token={token}", files={"file": ("clip.mp4", data[:cut])},
                               headers={"Content-Range": f"bytes 0-{cut - 1}/{len(data)}"})
        assert first.status_code == 201, first.text
        second = anonymous.post(f"/upload?token={token}", files={"file": ("clip.mp4", data[cut:])},
                                headers={"Content-Range": f"bytes {cut}-{len(data) - 1}/{len(data)}"})
        assert second.json()["videoId"] == first.json()["videoId"]
        fresh = anonymous.post(f"/upload?token={token}", files={"file": ("next.mp4", data)})
        assert fresh.json()["videoId"] != first.json()["videoId"]  # that upload was complete: a new video
    fake.advance(600)
    video_id = first.json()["videoId"]
    with fake.client(headers=_key_of(fake, 1)) as owner:
        assert status(owner, video_id)["encoding"]["playable"] is True


def _key_of(fake: VideoFake, number: int) -> dict[str, str]:
    project = list(fake.model.projects.by_id.values())[number - 1]
    key = project.key(fake.settings.environment)
    return {"Authorization": "Basic " + base64.b64encode(f"{key}:".encode()).decode()}


def test_a_refused_sandbox_upload_by_token_leaves_no_video() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        token = client.post("/upload-tokens", json={}).json()["token"]
        refused = client.post(f"/upload?token={token}", files={"file": ("long.mp4", CLIP_31S.read_bytes())})
        assert refused.status_code == 400 and "30-second" in refused.json()["detail"]
        assert client.get("/videos").json()["data"] == []
        made = client.post(f"/upload?token={token}", files={"file": ("short.mp4", CLIP_2S.read_bytes())}).json()
        assert made["videoId"] == "viqeXjj1QeIFyJqav8URNWS7"  # the id the refused request did not take


def test_a_file_part_under_another_name_is_taken_with_a_warning_verdict() -> None:
    """api.video's Node client names the part after the file (name="clip.mp4"; filename="clip.mp4")."""
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        video = create(client)
        taken = client.post(f"/videos/{video['videoId']}/source",
                            files={"clip.mp4": ("clip.mp4", CLIP_2S.read_bytes(), "video/mp4")})
        assert taken.status_code == 201, taken.text
        fake.advance(600)
        assert status(client, video["videoId"])["encoding"]["playable"] is True
    verdicts = fake.verdicts()
    assert [(v["id"], v["severity"], v["count"]) for v in verdicts] == [("video/upload-part-name", "warning", 1)]


def test_basic_credentials_of_other_than_ascii_bytes_are_a_401() -> None:
    fake = VideoFake(seed=0)
    with fake.client() as client:
        for header in (b"Basic \xe9\xe9", b"Basic \xff", "Basic ééé".encode(), b"Bearer \xe9"):
            response = client.get("/videos", headers={"Authorization": header})
            assert response.status_code == 401, (header, response.text)
            assert response.json()["type"].startswith("https://docs.api.video/reference/authentication-")


def test_a_refused_byte_range_chunk_leaves_nothing_on_disk_and_the_next_upload_encodes() -> None:
    fake = VideoFake(seed=0)
    data = CLIP_2S.read_bytes()
    with client_for(fake) as client:
        video_id = create(client)["videoId"]
        root = fake.model.storage.root
        refused = upload(client, video_id, b"\0" * 200_000, headers={"Content-Range": "bytes 0-99/1000"})
        assert refused.status_code == 400 and refused.json()["type"].endswith("range-mismatch")
        assert os.listdir(root) == []  # nothing of the refused chunk
        assert "ingest" not in status(client, video_id)
        accepted = upload(client, video_id, data, headers={"Content-Range": f"bytes 0-{len(data) - 1}/{len(data)}"})
        assert accepted.status_code == 201, accepted.text
        fake.advance(600)
        assert status(client, video_id)["encoding"]["playable"] is True
        assert os.listdir(root) == [f"{video_id}.source"]


def test_a_refused_later_chunk_leaves_the_accepted_ones_as_they_were() -> None:
    fake = VideoFake(seed=0, environment="production", min_chunk_bytes=1000)
    data = CLIP_2S.read_bytes()
    total = len(data)
    with client_for(fake) as client:
        video_id = create(client)["videoId"]
        source = fake.model.storage.source_path(video_id)
        assert upload(client, video_id, data[:1200], headers={"Content-Range": f"bytes 0-1199/{total}"}).status_code \
            == 201
        kept = _read(source)
        wrong = upload(client, video_id, b"\xff" * 5000, headers={"Content-Range": f"bytes 1200-{total - 1}/{total}"})
        assert wrong.status_code == 400 and _read(source) == kept  # not written over the first
        assert upload(client, video_id, data[1200:],
                      headers={"Content-Range": f"bytes 1200-{total - 1}/{total}"}).status_code == 201
        fake.advance(600)
        assert status(client, video_id)["encoding"]["playable"] is True
        assert _read(source) == data


def _read(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def test_no_writable_temporary_directory_is_a_refusal_that_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    """A read-only container without a tmpfs: the upload is refused in the service's problem shape
    (507, naming TMPDIR and --tmpfs), not a 500, and the video stays as it was; once a directory is
    usable again, the same upload works."""
    import tempfile

    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        video = create(client)

        def no_directory(*args: object, **kwargs: object) -> str:
            raise FileNotFoundError(2, "No usable temporary directory found")

        with monkeypatch.context() as patched:
            patched.setattr(tempfile, "mkdtemp", no_directory)
            refused = upload(client, video["videoId"], CLIP_2S.read_bytes())
        assert refused.status_code == 507, refused.text
        assert refused.json()["type"].endswith("/insufficient-storage") and refused.json()["status"] == 507
        assert refused.json()["title"] == "The fake has nowhere to keep uploads."
        assert "TMPDIR" in refused.json()["detail"] and "--tmpfs" in refused.json()["detail"]
        assert client.get(f"/videos/{video['videoId']}").json() == video
        assert upload(client, video["videoId"], CLIP_2S.read_bytes()).status_code == 201
