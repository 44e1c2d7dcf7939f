"""Captions and chapters uploaded, summaries written, watermarks, thumbnails, discarded videos and tags."""

from __future__ import annotations

from fakes.video import VideoFake

from .helpers import CLIP_2S, JPEG, PNG, VTT, client_for, create, upload


def _encoded(fake: VideoFake, client: object, **fields: object) -> str:
    video = create(client, **fields)  # type: ignore[arg-type]
    assert upload(client, video["videoId"], CLIP_2S.read_bytes()).status_code == 201  # type: ignore[arg-type]
    fake.advance(600)
    return str(video["videoId"])


def test_uploaded_captions_sit_beside_the_generated_one_and_one_is_the_default() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        vid = _encoded(fake, client, transcript=True)
        added = client.post(f"/videos/{vid}/captions/fr-CA", files={"file": ("fr.vtt", VTT)})
        assert added.status_code == 200, added.text
        assert added.json() == {"uri": f"/videos/{vid}/captions/fr-CA",
                                "src": f"http://testserver/vod/{vid}/captions/fr-CA.vtt", "srclang": "fr-CA",
                                "languageName": "français canadien", "default": False}
        assert client.get(added.json()["src"]).text == VTT.decode()
        listed = client.get(f"/videos/{vid}/captions").json()["data"]
        assert [c["srclang"] for c in listed] == ["en", "fr-CA"]  # generated first, then uploaded
        assert client.patch(f"/videos/{vid}/captions/en", json={"default": True}).json()["default"] is True
        assert client.patch(f"/videos/{vid}/captions/fr-ca", json={"default": True}).json()["default"] is True
        assert [c["default"] for c in client.get(f"/videos/{vid}/captions").json()["data"]] == [False, True]
        for language, detail in (("fr_CA", 'must contain only letters and dashes'), ("xx-YY", "is not valid")):
            refused = client.get(f"/videos/{vid}/captions/{language}")
            assert refused.status_code == 400 and detail in refused.json()["detail"]
        assert client.post(f"/videos/{vid}/captions/de", files={"file": ("de.vtt", b"not webvtt")}).status_code == 400
        assert client.delete(f"/videos/{vid}/captions/en").status_code == 404  # generated captions stay
        assert client.delete(f"/videos/{vid}/captions/fr-CA").status_code == 204
        assert [c["srclang"] for c in client.get(f"/videos/{vid}/captions").json()["data"]] == ["en"]
        assert client.get(f"/vod/{vid}/captions/fr-CA.vtt").status_code == 404


def test_chapters_are_uploaded_listed_served_and_deleted() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        vid = create(client)["videoId"]
        chapter = client.post(f"/videos/{vid}/chapters/en", files={"file": ("en.vtt", VTT)}).json()
        assert chapter == {"uri": f"/videos/{vid}/chapters/en", "src": f"http://testserver/vod/{vid}/chapters/en.vtt",
                           "language": "en"}
        assert client.get(chapter["src"]).text == VTT.decode()
        assert client.get(f"/videos/{vid}/chapters").json()["pagination"]["itemsTotal"] == 1
        assert client.get(f"/videos/{vid}/chapters/en").json() == chapter
        assert client.get(f"/videos/{vid}/chapters/fr").status_code == 404
        assert client.delete(f"/videos/{vid}/chapters/en").status_code == 204
        assert client.get(f"/videos/{vid}/chapters").json()["data"] == []
        assert client.delete(f"/videos/{vid}/chapters/en").status_code == 404


def test_summaries_are_asked_for_generated_on_the_clock_edited_and_deleted() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        client.post("/webhooks", json={"url": "http://127.0.0.1:9/h", "events": ["video.summary.generated"]})
        vid = create(client)["videoId"]
        summary = client.post("/summaries", json={"videoId": vid, "attributes": ["takeaways"]})
        assert summary.status_code == 201 and summary.json()["sourceStatus"] == "missing"
        again = client.post("/summaries", json={"videoId": vid})
        assert again.status_code == 409 and again.json()["type"].endswith("summary-already-exists")
        patched = client.patch(f"/videos/{vid}", json={"transcriptSummary": True})
        assert patched.status_code == 409 and patched.json()["name"] == "transcriptSummary"
        summary_id = summary.json()["summaryId"]
        upload(client, vid, CLIP_2S.read_bytes())
        early = client.patch(f"/summaries/{summary_id}/source", json={"abstract": "too soon"})
        assert early.status_code == 409
        fake.advance(600)
        row = client.get("/summaries", params={"videoId": vid}).json()["data"][0]
        assert (row["sourceStatus"], row["origin"]) == ("completed", "auto")
        generated = client.get(f"/summaries/{summary_id}/source").json()
        assert set(generated) == {"takeaways"} and len(generated["takeaways"]) == 3
        edited = client.patch(f"/summaries/{summary_id}/source", json={"abstract": "Mine.", "takeaways": ["one"]})
        assert edited.status_code == 201 and edited.json() == {"abstract": "Mine.", "takeaways": ["one"]}
        assert client.get("/summaries", params={"origin": "api"}).json()["data"][0]["summaryId"] == summary_id
        assert client.patch(f"/summaries/{summary_id}/source", json={"takeaways": ["1", "2", "3", "4"]}
                            ).status_code == 400
        assert client.delete(f"/summaries/{summary_id}").status_code == 204
        assert client.get(f"/summaries/{summary_id}/source").status_code == 404
        assert client.post("/summaries", json={"videoId": vid}).status_code == 201  # a new one may be asked for
    events = [d["event"] for d in fake.webhook_deliveries()]
    assert events == ["video.summary.generated"]
    usage = fake.usage()["projects"]
    assert next(iter(usage.values()))["usage"]["summary_takeaways_minutes"] > 0


def test_watermarks_are_uploaded_listed_named_at_creation_and_deleted() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        mark = client.post("/watermarks", files={"file": ("m.png", PNG)})
        assert mark.status_code == 200 and mark.json()["watermarkId"].startswith("watermark_")
        fake.advance(5)
        second = client.post("/watermarks", files={"file": ("m.jpg", JPEG)}).json()
        assert client.post("/watermarks", files={"file": ("m.bmp", b"BM")}).status_code == 400
        listed = client.get("/watermarks", params={"sortOrder": "desc"}).json()["data"]
        assert [m["watermarkId"] for m in listed] == [second["watermarkId"], mark.json()["watermarkId"]]
        video = create(client, watermark={"id": second["watermarkId"], "opacity": "70%"})
        assert video["watermark"] == {"id": second["watermarkId"], "opacity": "70%"}
        assert client.delete(f"/watermarks/{second['watermarkId']}").status_code == 204
        assert client.get(f"/videos/{video['videoId']}").json()["watermark"]["id"] == second["watermarkId"]
        assert client.post("/videos", json={"title": "t", "watermark": {"id": second["watermarkId"]}}
                           ).status_code == 404
        assert client.delete(f"/watermarks/{second['watermarkId']}").status_code == 404


def test_thumbnails_are_uploaded_as_jpeg_or_picked_by_timecode() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        fresh = create(client)["videoId"]
        assert client.patch(f"/videos/{fresh}/thumbnail", json={"timecode": "00:00:01"}).status_code == 400
        vid = _encoded(fake, client)
        uploaded = client.post(f"/videos/{vid}/thumbnail", files={"file": ("t.jpg", JPEG)})
        assert uploaded.status_code == 200 and uploaded.json()["videoId"] == vid
        assert client.get(uploaded.json()["assets"]["thumbnail"]).content == JPEG
        assert client.post(f"/videos/{vid}/thumbnail", files={"file": ("t.png", PNG)}).json()["title"] == \
            "Only [jpeg, jpg, JPG, JPEG] extensions are supported."
        # past the end: the reference picks 00:00:00.00 (tests/video/test_thumbnail_timecodes.py)
        assert client.patch(f"/videos/{vid}/thumbnail", json={"timecode": "00:00:05.00"}).status_code == 200
        assert client.patch(f"/videos/{vid}/thumbnail", json={"timecode": "0:1"}).status_code == 400
        picked = client.patch(f"/videos/{vid}/thumbnail", json={"timecode": "00:00:01.50"})
        assert picked.status_code == 200
        assert client.get(picked.json()["assets"]["thumbnail"]).headers["content-type"] == "image/jpeg"


def test_a_project_with_video_restore_discards_restores_and_purges_after_the_retention() -> None:
    fake = VideoFake(seed=0, discarded_retention_s=3600, environment="production")
    with fake.client() as control:
        keys = control.post("/_fake/projects", json={"keeps_discarded": True}).json()
    assert keys["keeps_discarded"] is True
    from .helpers import basic

    with fake.client(headers=basic(keys["production_key"])) as client:
        kept, gone = create(client, title="kept")["videoId"], create(client, title="gone")["videoId"]
        assert client.delete(f"/videos/{kept}").status_code == 204
        assert client.get(f"/videos/{kept}").status_code == 404
        assert [v["videoId"] for v in client.get("/videos").json()["data"]] == [gone]
        discarded = client.get(f"/discarded/videos/{kept}").json()
        assert (discarded["discarded"], discarded["discardedAt"], discarded["deletesAt"]) == (
            True, "2026-01-05T09:00:00+00:00", "2026-01-05T10:00:00+00:00")
        assert [v["videoId"] for v in client.get("/discarded/videos").json()["data"]] == [kept]
        refused = client.patch(f"/discarded/videos/{kept}", json={"discarded": True})
        assert refused.status_code == 400 and refused.json()["detail"] == "Value must be false."
        restored = client.patch(f"/discarded/videos/{kept}", json={"discarded": False}).json()
        assert (restored["discarded"], restored["discardedAt"], restored["deletesAt"]) == (False, None, None)
        assert client.get(f"/videos/{kept}").status_code == 200
        # the discarded list is kept rendered while no video changes: each change shows at once
        assert client.get("/discarded/videos").json()["data"] == []
        client.delete(f"/videos/{gone}")
        for _ in range(2):
            assert [v["videoId"] for v in client.get("/discarded/videos").json()["data"]] == [gone]
        assert any(key[2] == "discarded?" for key in fake.model._list_cache)  # kept rendered
        fake.advance(3599)
        assert client.get(f"/discarded/videos/{gone}").status_code == 200
        assert [v["videoId"] for v in client.get("/discarded/videos?pageSize=10").json()["data"]] == [gone]
        fake.advance(1)
        assert client.get(f"/discarded/videos/{gone}").status_code == 404  # purged at the retention's end
        assert client.get("/discarded/videos").json()["data"] == []
    with client_for(fake) as plain:  # a project without the feature deletes at once
        vid = create(plain)["videoId"]
        plain.delete(f"/videos/{vid}")
        assert plain.get(f"/discarded/videos/{vid}").status_code == 404


def test_tags_count_the_videos_that_carry_them() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        for tags in (["cats", "funny"], ["cats"], ["dogs", "cats"]):
            create(client, tags=tags)
        page = client.get("/tags", params={"sortBy": "videoCount", "sortOrder": "desc"}).json()
        assert page["data"] == [{"value": "cats", "videoCount": 3}, {"value": "dogs", "videoCount": 1},
                                {"value": "funny", "videoCount": 1}]
        assert client.get("/tags", params={"value": "DO"}).json()["data"] == [{"value": "dogs", "videoCount": 1}]
        assert client.get("/tags", params={"sortBy": "count"}).status_code == 400


def test_list_pages_of_long_queries_are_answered_but_not_kept() -> None:
    from fakes.video.model import MAX_CACHED_LIST_KEY

    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        create(client, title="one")
        # each text parameter is at most 1,000 characters: three make a query past the bound
        long_query = "/videos?" + "&".join(f"{name}={'x' * 1000}" for name in ("title", "description", "liveStreamId"))
        assert len(long_query) > MAX_CACHED_LIST_KEY
        assert client.get(long_query).json()["data"] == []
        assert len(client.get("/videos").json()["data"]) == 1
    assert [key[2] for key in fake.model._list_cache] == [""]
