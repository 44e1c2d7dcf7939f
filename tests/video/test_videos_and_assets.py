"""Create, upload real files, watch the timeline, fetch every asset, sandbox rules, captions, usage."""

from __future__ import annotations

import io
import struct

import pytest
from mutagen.mp4 import MP4

from fakes.video import VideoFake

from .helpers import CLIP_2S, CLIP_31S, CLIP_40S, CLIP_720P, PNG, client_for, create, status, upload


def test_status_walks_from_uploaded_to_playable_on_the_clock() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        video = create(client)
        before = status(client, video["videoId"])
        assert "ingest" not in before and before["encoding"]["playable"] is False
        assert upload(client, video["videoId"], CLIP_2S.read_bytes()).status_code == 201
        seen = []
        for _ in range(40):
            now = status(client, video["videoId"])
            qualities = tuple((q["type"], q["quality"], q["status"]) for q in now["encoding"]["qualities"])
            seen.append((now["ingest"]["status"], now["encoding"]["playable"], qualities))
            fake.advance(0.5)
    ingest_states = [s[0] for s in seen]
    assert ingest_states[0] == "uploaded" and "ingesting" in ingest_states and ingest_states[-1] == "ingested"
    assert ingest_states.index("ingesting") < ingest_states.index("ingested")
    hls = [dict(((t, q), st) for t, q, st in s[2]).get(("hls", "240p")) for s in seen]
    assert [x for x in dict.fromkeys(hls) if x] == ["waiting", "encoding", "encoded"] or \
        [x for x in dict.fromkeys(hls) if x] == ["encoding", "encoded"]
    for ingest, playable, qualities in seen:  # playable exactly when the first quality is encoded
        assert playable == any(q == ("hls", "240p", "encoded") for q in qualities)
        if ingest != "ingested":
            assert qualities == () and not playable
    assert seen[-1][1] is True
    assert ("mp4", "240p", "encoded") in seen[-1][2]
    final = seen[-1]
    assert {q for _, q, _ in final[2]} == {"240p"}  # a 240-pixel source gets 240p only


def test_metadata_is_read_from_the_file_and_the_ladder_stops_at_the_source_height() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        video = create(client)
        upload(client, video["videoId"], CLIP_720P.read_bytes(), name="clip.mov")
        fake.advance(3600)
        body = status(client, video["videoId"])
    meta = body["encoding"]["metadata"]
    assert (meta["width"], meta["height"], meta["duration"]) == (1280, 720, 3)
    assert (meta["videoCodec"], meta["audioCodec"], meta["aspectRatio"], meta["samplerate"]) == ("h264", "aac",
                                                                                                 "16/9", 8000)
    assert [(q["type"], q["quality"]) for q in body["encoding"]["qualities"]] == [
        ("hls", "240p"), ("hls", "360p"), ("hls", "480p"), ("hls", "720p"), ("mp4", "720p")]
    assert body["ingest"] == {"status": "ingested", "filesize": CLIP_720P.stat().st_size,
                              "receivedBytes": [{"from": 0, "to": CLIP_720P.stat().st_size - 1,
                                                 "total": CLIP_720P.stat().st_size}]}


def test_every_asset_is_served_by_the_fake_and_is_what_its_type_says() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        video = create(client, transcript=True, language="de")
        vid = video["videoId"]
        assets = video["assets"]
        assert all(url.startswith("http://testserver/vod/") for k, url in assets.items() if k != "iframe")
        assert "api.video" not in str(assets)
        assert client.get(assets["hls"]).status_code == 404  # nothing to play yet
        upload(client, vid, CLIP_2S.read_bytes())
        fake.advance(3600)
        master = client.get(assets["hls"])
        assert master.status_code == 200 and master.headers["content-type"].startswith("application/vnd.apple")
        lines = master.text.splitlines()
        assert lines[0] == "#EXTM3U" and any(line.startswith("#EXT-X-STREAM-INF:BANDWIDTH=") for line in lines)
        variant = next(line for line in lines if line and not line.startswith("#"))
        base = assets["hls"].rsplit("/", 1)[0]
        playlist = client.get(f"{base}/{variant}")
        assert playlist.status_code == 200
        media_lines = playlist.text.splitlines()
        assert media_lines[0] == "#EXTM3U" and media_lines[-1] == "#EXT-X-ENDLIST"
        assert "#EXT-X-TARGETDURATION:2" in media_lines
        durations = [float(line[8:].rstrip(",")) for line in media_lines if line.startswith("#EXTINF:")]
        assert sum(durations) == pytest.approx(2.152, abs=0.01)
        segments = [line for line in media_lines if line and not line.startswith("#")]
        for name in segments:
            ts = client.get(f"{base}/{variant.rsplit('/', 1)[0]}/{name}")
            assert ts.status_code == 200 and ts.headers["content-type"] == "video/mp2t"
            assert len(ts.content) % 188 == 0 and ts.content[::188] == b"\x47" * (len(ts.content) // 188)
        thumb = client.get(assets["thumbnail"])
        assert thumb.headers["content-type"] == "image/jpeg"
        assert thumb.content[:2] == b"\xff\xd8" and thumb.content[-2:] == b"\xff\xd9"
        mp4 = client.get(assets["mp4"])
        assert mp4.headers["content-type"] == "video/mp4" and mp4.content == CLIP_2S.read_bytes()
        assert struct.unpack(">I4s", mp4.content[:8])[1] == b"ftyp"
        assert MP4(io.BytesIO(mp4.content)).info.length == pytest.approx(2.152, abs=0.01)
        player = client.get(assets["player"])
        assert player.headers["content-type"].startswith("text/html") and assets["hls"] in player.text
        assert f'src="{assets["player"]}"' in assets["iframe"]
        captions = client.get(f"/videos/{vid}/captions").json()["data"]
        assert [c["srclang"] for c in captions] == ["de"]
        vtt = client.get(captions[0]["src"])
        assert vtt.headers["content-type"].startswith("text/vtt") and vtt.text.startswith("WEBVTT\n")
        assert "00:00:00.000 --> 00:00:02.152" in vtt.text
    # assets need no key, as a player has none
    with fake.client() as anonymous:
        assert anonymous.get(assets["thumbnail"]).status_code == 200
        assert anonymous.get(f"/videos/{vid}").status_code == 401


def test_public_base_url_setting_rewrites_asset_urls() -> None:
    fake = VideoFake(seed=0, public_base_url="https://videos.example.test/proxy")
    with client_for(fake) as client:
        video = create(client)
    assert video["assets"]["hls"] == f"https://videos.example.test/proxy/vod/{video['videoId']}/hls/manifest.m3u8"
    mounted = VideoFake(seed=0, prefix="/video")  # gateway mode: the mount prefix is part of every URL
    with client_for(mounted) as client:
        video = create(client)
        upload(client, video["videoId"], CLIP_2S.read_bytes())
        mounted.advance(600)
        assert video["assets"]["thumbnail"].startswith("http://testserver/video/vod/")
        assert client.get(video["assets"]["thumbnail"]).status_code == 200
        assert client.get("/videos").json()["pagination"]["links"][0]["uri"].startswith(
            "http://testserver/video/videos?")


def test_a_31_second_source_is_refused_in_the_sandbox_and_accepted_in_production() -> None:
    sandbox = VideoFake(seed=0)
    with client_for(sandbox) as client:
        video = create(client)
        refused = upload(client, video["videoId"], CLIP_31S.read_bytes())
        assert refused.status_code == 400
        problem = refused.json()
        assert problem["type"] == "https://docs.api.video/reference/uploaded-file-invalid-file"
        assert "30-second" in problem["detail"] and problem["status"] == 400
        assert "ingest" not in status(client, video["videoId"])  # nothing kept: a shorter file may follow
        assert upload(client, video["videoId"], CLIP_2S.read_bytes()).status_code == 201
    assert [v["rule"] if "rule" in v else v["id"] for v in sandbox.verdicts()] == ["video/sandbox-source-over-30s"]
    production = VideoFake(seed=0, environment="production")
    with client_for(production) as client:
        for clip in (CLIP_31S, CLIP_40S):
            video = create(client)
            assert video["deletesAt"] is None and video["watermarked"] is False
            assert upload(client, video["videoId"], clip.read_bytes()).status_code == 201
        production.advance(3600)
        assert status(client, video["videoId"])["encoding"]["metadata"]["duration"] == 40
    assert production.verdicts() == []


def test_sandbox_videos_are_deleted_exactly_24_hours_after_creation() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        video = create(client)
        vid = video["videoId"]
        assert video["deletesAt"] == "2026-01-06T09:00:00+00:00" and video["watermarked"] is True
        upload(client, vid, CLIP_2S.read_bytes())
        fake.advance(86_399)
        assert client.get(f"/videos/{vid}").status_code == 200
        assert [v["videoId"] for v in client.get("/videos").json()["data"]] == [vid]
        fake.advance(1)
        for path in (f"/videos/{vid}", f"/videos/{vid}/status", f"/videos/{vid}/captions"):
            gone = client.get(path)
            assert gone.status_code == 404 and gone.json()["name"] == "videoId"
        assert client.get("/videos").json()["data"] == []
        assert client.get(video["assets"]["thumbnail"]).status_code == 404
    production = VideoFake(seed=0, environment="production")
    with client_for(production) as client:
        kept = create(client)
        production.advance(10 * 86_400)
        assert client.get(f"/videos/{kept['videoId']}").status_code == 200


def test_a_file_that_is_not_media_is_ingested_then_fails_encoding() -> None:
    fake = VideoFake(seed=0)
    truncated = CLIP_2S.read_bytes()[:1500]
    with client_for(fake) as client:
        for content in (b"this is not a video" * 50, truncated):
            video = create(client)
            assert upload(client, video["videoId"], content).status_code == 201
            fake.advance(600)
            body = status(client, video["videoId"])
            assert body["ingest"]["status"] == "ingested"
            assert body["encoding"] == {"playable": False, "qualities": [
                {"type": "hls", "quality": "240p", "status": "failed"}], "metadata": body["encoding"]["metadata"]}
            assert client.get(video["assets"]["hls"]).status_code == 404


def test_upload_refusals_are_the_documented_400s_and_404() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        video = create(client)
        vid = video["videoId"]

        def slug(response: object) -> str:
            assert response.status_code == 400, response.text  # type: ignore[attr-defined]
            return response.json()["type"].rsplit("/", 1)[1]  # type: ignore[attr-defined]

        assert slug(client.post(f"/videos/{vid}/source", data={"other": "abc"},
                                files={"x": (None, b"")})) == "uploaded-file-no-file"  # fields, no file part
        assert slug(client.post(f"/videos/{vid}/source", content=b"abc")) == "uploaded-file-no-file"
        two = [("file", ("a.mp4", b"a")), ("file", ("b.mp4", b"b"))]
        assert slug(client.post(f"/videos/{vid}/source", files=two)) == "uploaded-file-multiple-files"
        assert slug(upload(client, vid, b"")) == "uploaded-file-empty"
        extra = client.post(f"/videos/{vid}/source", files={"file": ("a.mp4", b"abc")}, data={"title": "x"})
        assert slug(extra) == "invalid-attribute" and extra.json()["name"] == "title"
        small = VideoFake(seed=0, max_upload_bytes=100)
        with client_for(small) as limited:
            other = create(limited)
            assert slug(upload(limited, other["videoId"], b"x" * 101)) == "uploaded-file-too-large"
        missing = upload(client, "vi" + "0" * 22, CLIP_2S.read_bytes())
        assert missing.status_code == 404 and missing.json()["title"] == "The requested resource was not found."
        assert upload(client, vid, CLIP_2S.read_bytes()).status_code == 201
        assert slug(upload(client, vid, CLIP_2S.read_bytes())) == "video-source-already-uploaded"


def test_broken_bodies_and_content_ranges_never_give_a_5xx() -> None:
    fake = VideoFake(seed=0)
    data = CLIP_2S.read_bytes()
    with client_for(fake) as client:
        vid = create(client)["videoId"]
        boundary = "XyZ"
        good = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.mp4\"\r\n\r\n"
                ).encode() + data + f"\r\n--{boundary}--\r\n".encode()
        bodies = [good[:len(good) // 2], good[:30], b"--XyZ\r\n\r\n", b"garbage" * 10, good.replace(b"--XyZ--", b"")]
        for body in bodies:
            response = client.post(f"/videos/{vid}/source", content=body,
                                   headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
            assert 400 <= response.status_code < 500, response.text
            assert response.json()["type"].startswith("https://docs.api.video/reference/")
        for header in ("bytes 5-2/10", "bytes 0-9/0", "part 0/3", "part 4/3", "part 1/0", "bytes x", "part 1/2/3",
                       "bytes 0-99999999999999999999/5", "part 99999/*", "bytes 0-10/5"):
            response = upload(client, vid, data, headers={"Content-Range": header})
            assert response.status_code == 400, (header, response.text)
        assert "ingest" not in status(client, vid)  # none of it changed the video
        assert upload(client, vid, data).status_code == 201


def test_chunked_upload_in_three_parts_and_in_byte_ranges() -> None:
    fake = VideoFake(seed=0, min_chunk_bytes=1000)
    data = CLIP_2S.read_bytes()
    thirds = [data[:1000], data[1000:2000], data[2000:]]
    with client_for(fake) as client:
        vid = create(client)["videoId"]
        assert upload(client, vid, thirds[0], headers={"Content-Range": "part 1/*"}).status_code == 201
        middle = status(client, vid)["ingest"]
        assert middle["status"] == "uploading" and middle["receivedParts"] == {"parts": [1], "total": None}
        too_small = upload(client, vid, b"x" * 10, headers={"Content-Range": "part 2/*"})
        assert too_small.json()["type"].endswith("video-content-range-by-part-uploaded-file-too-small")
        assert upload(client, vid, thirds[2], headers={"Content-Range": "part 3/3"}).status_code == 201
        assert status(client, vid)["ingest"]["receivedParts"] == {"parts": [1, 3], "total": 3}
        again = upload(client, vid, thirds[0], headers={"Content-Range": "part 1/3"})
        assert again.json()["type"].endswith("video-content-range-by-part-part-already-sent")
        mixed = upload(client, vid, thirds[1], headers={"Content-Range": "bytes 1000-1999/2429"})
        assert mixed.json()["type"].endswith("video-content-range-started-with-part")
        assert upload(client, vid, thirds[1], headers={"Content-Range": "part 2/3"}).status_code == 201
        fake.advance(600)
        done = status(client, vid)
        assert done["ingest"]["status"] == "ingested" and done["encoding"]["playable"] is True
        assert done["encoding"]["metadata"]["duration"] == 2
        assert client.get(f"/vod/{vid}/mp4/source.mp4").content == data  # joined in part order

        ranged = create(client)["videoId"]
        total = len(data)
        for start, end in ((2000, total - 1), (0, 999), (1000, 1999)):  # out of order is fine
            response = upload(client, ranged, data[start:end + 1],
                              headers={"Content-Range": f"bytes {start}-{end}/{total}"})
            assert response.status_code == 201, response.text
        fake.advance(600)
        assert client.get(f"/vod/{ranged}/mp4/source.mp4").content == data
        overlap = create(client)["videoId"]
        upload(client, overlap, data[:1000], headers={"Content-Range": f"bytes 0-999/{total}"})
        clash = upload(client, overlap, data[500:1500], headers={"Content-Range": f"bytes 500-1499/{total}"})
        assert clash.json()["type"].endswith("video-content-range-by-bytes-range-overlap")
        mismatch = upload(client, overlap, data[1000:1500], headers={"Content-Range": f"bytes 1000-1999/{total}"})
        assert mismatch.json()["type"].endswith("video-content-range-by-bytes-range-mismatch")


def test_create_validates_like_the_reference_and_keeps_every_field() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        missing = client.post("/videos", json={"description": "no title"})
        assert missing.status_code == 400 and missing.json() == {
            "type": "https://docs.api.video/reference/attribute-required", "title": "This attribute is required.",
            "status": 400, "name": "title", "problems": [{
                "type": "https://docs.api.video/reference/attribute-required",
                "title": "This attribute is required.", "name": "title"}]}
        wrong = client.post("/videos", json={"title": "t", "language": "xx"})
        assert wrong.json()["type"].endswith("invalid-attribute") and wrong.json()["name"] == "language"
        assert client.post("/videos", content=b"{nope", headers={"content-type": "application/json"}).status_code == 400
        player = client.post("/players", json={"name": "brand"}).json()["playerId"]
        mark = client.post("/watermarks", files={"file": ("mark.png", PNG, "image/png")}).json()["watermarkId"]
        for wrong_reference in ({"playerId": "pl" + "0" * 22}, {"playerId": "pt123"},
                                {"watermark": {"id": "watermark_" + "0" * 22}}):
            refused = client.post("/videos", json={"title": "t", **wrong_reference})
            assert refused.status_code in (400, 404), refused.text  # a malformed id, or an unknown one
        full = create(client, description="d", tags=["x", "y"], metadata=[{"key": "k", "value": "v"}], public=False,
                      panoramic=True, mp4Support=False, playerId=player, language="fr", transcript=True,
                      transcriptSummary=True, transcriptSummaryAttributes=["abstract"],
                      watermark={"id": mark, "top": "10px"}, clip={"startTimecode": "00:00:01"})
        assert (full["description"], full["tags"], full["metadata"], full["public"], full["panoramic"],
                full["mp4Support"], full["playerId"], full["language"], full["languageOrigin"]) == (
            "d", ["x", "y"], [{"key": "k", "value": "v"}], False, True, False, player, "fr", "api")
        assert "mp4" not in full["assets"] and full["watermark"] == {"id": mark, "top": "10px"}
        assert full["videoId"].startswith("vi") and len(full["videoId"]) == 24
        assert full["createdAt"] == "2026-01-05T09:00:00+00:00"
        patched = client.patch(f"/videos/{full['videoId']}", json={"title": "new", "tags": []}).json()
        assert (patched["title"], patched["tags"], patched["description"]) == ("new", [], "d")
        assert client.delete(f"/videos/{full['videoId']}").status_code == 204
        assert client.get(f"/videos/{full['videoId']}").status_code == 404


def test_ids_are_deterministic_from_the_seed() -> None:
    def first_id(seed: int) -> str:
        fake = VideoFake(seed=seed)
        with client_for(fake) as client:
            return str(create(client)["videoId"])

    assert first_id(0) == first_id(0) != first_id(1)


def test_list_filters_sorting_and_pagination_envelope() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        for number in range(7):
            create(client, title=f"clip {number}", tags=["even" if number % 2 == 0 else "odd"],
                   metadata=[{"key": "n", "value": str(number)}])
            fake.advance(1)
        page = client.get("/videos", params={"pageSize": 3, "currentPage": 2}).json()
        assert [v["title"] for v in page["data"]] == ["clip 3", "clip 4", "clip 5"]
        pagination = page["pagination"]
        assert (pagination["itemsTotal"], pagination["pagesTotal"], pagination["currentPageItems"]) == (7, 3, 3)
        assert [link["rel"] for link in pagination["links"]] == ["self", "first", "previous", "next", "last"]
        assert pagination["links"][3]["uri"] == "http://testserver/videos?currentPage=3&pageSize=3"
        desc = client.get("/videos", params={"sortBy": "title", "sortOrder": "desc"}).json()["data"]
        assert desc[0]["title"] == "clip 6"
        assert len(client.get("/videos", params={"tags[]": "even"}).json()["data"]) == 4
        assert [v["title"] for v in client.get("/videos", params={"metadata[n]": "5"}).json()["data"]] == ["clip 5"]
        assert len(client.get("/videos", params={"title": "CLIP 1"}).json()["data"]) == 1
        for bad in ({"pageSize": 0}, {"pageSize": 101}, {"currentPage": "x"}, {"sortBy": "size"}):
            refused = client.get("/videos", params=bad)
            assert refused.status_code == 400 and refused.json()["type"].endswith("invalid-query-parameter")
        # the rendered page is cached and still right after a change
        first = client.get("/videos").content
        assert client.get("/videos").content == first
        create(client, title="clip 7")
        assert client.get("/videos").json()["pagination"]["itemsTotal"] == 8


def test_transcripts_and_summaries_arrive_on_the_clock() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        video = create(client, transcript=True, transcriptSummary=True)
        vid = video["videoId"]
        summary = client.get("/summaries", params={"videoId": vid}).json()["data"][0]
        assert summary["sourceStatus"] == "missing"
        upload(client, vid, CLIP_2S.read_bytes())
        fake.advance(8)
        assert client.get(f"/videos/{vid}/captions").json()["data"] == []
        assert client.get(f"/summaries/{summary['summaryId']}/source").status_code == 404
        fake.advance(600)
        assert client.get(f"/videos/{vid}").json()["language"] == "en"  # detected: origin auto
        caption = client.get(f"/videos/{vid}/captions/en").json()
        assert caption["srclang"] == "en" and caption["languageName"] == "English"
        source = client.get(f"/summaries/{summary['summaryId']}/source").json()
        assert isinstance(source["abstract"], str) and source["abstract"] and len(source["takeaways"]) == 3
        again = VideoFake(seed=0)
        with client_for(again) as other:
            other_vid = create(other, transcript=True, transcriptSummary=True)["videoId"]
            upload(other, other_vid, CLIP_2S.read_bytes())
            again.advance(608)
            other_summary = other.get("/summaries").json()["data"][0]["summaryId"]
            assert other.get(f"/summaries/{other_summary}/source").json() == source  # seeded


def test_usage_and_cost_follow_the_seed_prices() -> None:
    fake = VideoFake(seed=0, environment="production")
    project = fake.create_project()
    from .helpers import basic

    with fake.client(headers=basic(project["production_key"])) as client:
        video = create(client, transcript=True, transcriptSummary=True)
        upload(client, video["videoId"], CLIP_40S.read_bytes())
        fake.advance(30 * 86_400)
        base = video["assets"]["hls"].rsplit("/", 1)[0]
        for index in range(20):
            assert client.get(f"{base}/240p/segment-{index}.ts").status_code == 200
    fake.record_view(video["videoId"], 60)
    report = fake.usage(project["project_id"])["projects"][project["project_id"]]
    minutes = 40.152 / 60
    assert report["usage"]["watched_minutes"] == pytest.approx(1 + 40 / 60, abs=1e-3)
    assert report["usage"]["transcript_minutes"] == pytest.approx(minutes, abs=1e-3)
    assert report["usage"]["stored_minute_months"] == pytest.approx(minutes, rel=1e-3)  # about a month stored
    assert report["cost_usd"]["transcription"] == pytest.approx(minutes * 0.10, abs=1e-5)
    assert report["cost_usd"]["summaries"] == pytest.approx(minutes * 0.15, abs=1e-5)
    assert report["cost_usd"]["delivery"] == pytest.approx((1 + 40 / 60) * 0.0017, abs=1e-6)
    assert report["cost_usd"]["encoding"] == 0.0


@pytest.mark.parametrize("raw", ["", " 2", "+2", "1_0", "\u0663", "\u00b2", "-1", "9" * 40, "2.0"])
def test_page_integers_are_ascii_digits_refused_in_the_problem_shape(raw: str) -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        for name in ("currentPage", "pageSize"):
            refused = client.get("/videos", params={name: raw})
            assert refused.status_code == 400, (name, raw)
            body = refused.json()
            assert body["type"].endswith("invalid-query-parameter") and body["name"] == name
            assert body["status"] == 400 and "integer" in body["detail"]
        assert client.get("/videos", params={"currentPage": "0002", "pageSize": "010"}).status_code == 200
