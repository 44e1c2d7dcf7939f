"""Live streams with broadcasts on the clock (webhooks, recordings, the sandbox's 30 s) and player themes."""

from __future__ import annotations

from typing import Any

import httpx

from fakes.video import VideoFake

from .helpers import JPEG, PNG, client_for, create, status

RTMP = {"name": "youtube", "serverUrl": "rtmp://broadcast.example.com/live", "streamKey": "abcd-1234"}


def _live(client: httpx.Client, **fields: Any) -> dict[str, Any]:
    response = client.post("/live-streams", json={"name": "launch", **fields})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_a_live_stream_is_created_listed_updated_and_deleted_in_the_vendor_shape() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        live = _live(client, restreams=[RTMP], public=False)
        live_id = live["liveStreamId"]
        assert live_id.startswith("li") and len(live_id) == 24 and live["broadcasting"] is False
        assert live["restreams"] == [RTMP] and live["public"] is False
        assert live["assets"]["hls"] == f"http://testserver/live/{live_id}.m3u8"
        assert live["assets"]["player"] == f"http://testserver/live/{live_id}"
        assert f'src="http://testserver/live/{live_id}"' in live["assets"]["iframe"]
        assert len(live["streamKey"].split("-")) == 5
        fake.advance(10)
        other = _live(client, name="backstage")
        listed = client.get("/live-streams", params={"sortBy": "name", "sortOrder": "asc"}).json()
        assert [s["name"] for s in listed["data"]] == ["backstage", "launch"]
        by_key = client.get("/live-streams", params={"streamKey": live["streamKey"]}).json()["data"]
        assert [s["liveStreamId"] for s in by_key] == [live_id]
        patched = client.patch(f"/live-streams/{live_id}", json={"name": "renamed", "restreams": []}).json()
        assert (patched["name"], patched["restreams"], patched["updatedAt"]) == ("renamed", [],
                                                                               "2026-01-05T09:00:10+00:00")
        assert client.delete(f"/live-streams/{other['liveStreamId']}").status_code == 204
        assert client.get(f"/live-streams/{other['liveStreamId']}").status_code == 404


def test_restreams_and_names_are_refused_as_the_reference_words_it() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        cases = [
            ({"restreams": [{**RTMP, "name": " "}]}, "restreams[0][name]", "This value should not be blank."),
            ({"restreams": [{**RTMP, "name": None}]}, "restreams[0][name]", "This value should not be null."),
            ({"restreams": [{**RTMP, "serverUrl": "http://x/y"}]}, "restreams[0][serverUrl]",
             "RTMP URL should have the following format: [rtmp|rtmps]://[host]/[app name]."),
            ({"restreams": [{**RTMP, "serverUrl": "rtmp://host"}]}, "restreams[0][serverUrl]",
             "Missing app name: [rtmp|rtmps]://[host]/[app name]."),
            ({"restreams": [RTMP] * 6}, "restreams", "This collection should contain 5 elements or less."),
        ]
        for fields, name, detail in cases:
            refused = client.post("/live-streams", json={"name": "x", **fields})
            assert refused.status_code == 400 and (refused.json()["name"], refused.json()["detail"]) == (name, detail)
        assert client.post("/live-streams", json={}).json()["type"].endswith("attribute-required")
        assert client.get("/live-streams").json()["pagination"]["itemsTotal"] == 0  # nothing was kept


def test_a_broadcast_runs_on_the_clock_emits_webhooks_and_becomes_a_recorded_video() -> None:
    fake = VideoFake(seed=0, environment="production")
    with client_for(fake) as client:
        client.post("/webhooks", json={"url": "http://127.0.0.1:9/hook", "events": [
            "live-stream.broadcast.started", "live-stream.broadcast.ended", "video.source.recorded"]})
        live = _live(client)
        live_id = live["liveStreamId"]
        with fake.client() as control:
            started = control.post(f"/_fake/live-streams/{live_id}/broadcast", json={"seconds": 90})
            assert started.status_code == 201, started.text
            again = control.post(f"/_fake/live-streams/{live_id}/broadcast", json={"seconds": 5})
            assert again.status_code == 409
        assert client.get(f"/live-streams/{live_id}").json()["broadcasting"] is True
        fake.advance(30)
        playlist = client.get(f"/live/{live_id}.m3u8")
        assert playlist.status_code == 200 and "#EXT-X-ENDLIST" not in playlist.text
        assert "#EXT-X-MEDIA-SEQUENCE:13" in playlist.text and "segment-15.ts" in playlist.text
        assert client.get(f"/live/{live_id}/segment-15.ts").content[:1] == b"G"  # MPEG-TS sync byte
        assert client.get(f"/live/{live_id}/segment-16.ts").status_code == 404  # not broadcast yet
        assert client.get("/videos", params={"liveStreamId": live_id}).json()["data"] == []
        fake.advance(60)
        assert client.get(f"/live-streams/{live_id}").json()["broadcasting"] is False
        assert client.get(f"/live/{live_id}.m3u8").status_code == 404
        recordings = client.get("/videos", params={"liveStreamId": live_id}).json()["data"]
        assert len(recordings) == 1
        recording = recordings[0]
        assert recording["source"]["type"] == "live" and recording["source"]["liveStream"]["liveStreamId"] == live_id
        assert recording["title"] == "launch" and recording["createdAt"] == "2026-01-05T09:01:30+00:00"
        fake.advance(600)
        encoded = status(client, recording["videoId"])
        assert encoded["encoding"]["playable"] is True and encoded["encoding"]["metadata"]["duration"] == 90
        assert encoded["encoding"]["metadata"]["height"] == 720
    events = [(d["event"], d["emittedAt_ms"]) for d in fake.webhook_deliveries()]
    start = 1767603600000  # 2026-01-05T09:00:00Z
    assert events == [("live-stream.broadcast.started", start), ("live-stream.broadcast.ended", start + 90_000),
                      ("video.source.recorded", start + 90_000)]
    recorded = fake.webhook_deliveries()[2]["body"]
    assert recorded == {"type": "video.source.recorded", "emittedAt": "2026-01-05T09:01:30+00:00",
                        "liveStreamId": live_id, "videoId": recording["videoId"]}


def test_complete_ends_a_broadcast_now_and_the_sandbox_cuts_one_at_30_seconds() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client, fake.client() as control:
        live_id = _live(client)["liveStreamId"]
        cast = control.post(f"/_fake/live-streams/{live_id}/broadcast", json={"seconds": 600}).json()
        assert cast["end_ms"] - cast["start_ms"] == 30_000  # the sandbox: videos and live 30 s at most
        fake.advance(12)
        assert client.put(f"/live-streams/{live_id}/complete").status_code == 202
        assert client.get(f"/live-streams/{live_id}").json()["broadcasting"] is False
        recording = client.get("/videos", params={"liveStreamId": live_id}).json()["data"][0]
        fake.advance(300)
        assert status(client, recording["videoId"])["encoding"]["metadata"]["duration"] == 12
        assert recording["deletesAt"] == "2026-01-06T09:00:12+00:00"  # the sandbox's 24 hours
        assert client.put(f"/live-streams/{live_id}/complete").status_code == 202  # nothing to end: accepted
        unrecorded = _live(client, name="no record")["liveStreamId"]
        control.post(f"/_fake/live-streams/{unrecorded}/broadcast", json={"seconds": 5, "record": False})
        fake.advance(10)
        assert client.get("/videos", params={"liveStreamId": unrecorded}).json()["data"] == []
        for body in ({"seconds": 0}, {"seconds": "5"}, {"seconds": 5, "height": 99}, {"secs": 5}):
            assert control.post(f"/_fake/live-streams/{live_id}/broadcast", json=body).status_code == 400
        assert control.post("/_fake/live-streams/li000/broadcast", json={"seconds": 5}).status_code == 404


def test_live_thumbnails_are_uploaded_served_and_deleted() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        live_id = _live(client)["liveStreamId"]
        assert client.get(f"/live/{live_id}/thumbnail.jpg").status_code == 404  # never broadcast, none uploaded
        png = client.post(f"/live-streams/{live_id}/thumbnail", files={"file": ("t.png", PNG)})
        assert png.json()["type"].endswith("uploaded-file-extension-invalid")
        uploaded = client.post(f"/live-streams/{live_id}/thumbnail", files={"file": ("t.jpg", JPEG)})
        assert uploaded.status_code == 201
        assert client.get(f"/live/{live_id}/thumbnail.jpg").content == JPEG
        assert client.delete(f"/live-streams/{live_id}/thumbnail").status_code == 200
        assert client.get(f"/live/{live_id}/thumbnail.jpg").status_code == 404
        assert "<video" in client.get(f"/live/{live_id}").text


def test_player_themes_with_pl_ids_logos_and_detaching_on_delete() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        created = client.post("/players", json={"name": "brand", "text": "rgba(10, 20, 30, 0.5)",
                                                "forceAutoplay": True})
        assert created.status_code == 201, created.text
        theme = created.json()
        player_id = theme["playerId"]
        assert player_id.startswith("pl") and len(player_id) == 24
        assert (theme["text"], theme["forceAutoplay"], theme["enableControls"], theme["assets"]) == (
            "rgba(10, 20, 30, 0.5)", True, True, {})
        assert client.post("/players", json={"link": "blue"}).json()["name"] == "link"
        assert client.post("/players", json={"nope": 1}).status_code == 400
        logo = client.post(f"/players/{player_id}/logo", files={"file": ("logo.png", PNG)},
                           data={"link": "https://example.com"})
        assert logo.status_code == 201, logo.text
        assets = logo.json()["assets"]
        assert assets == {"logo": f"http://testserver/assets/players/{player_id}/logo.png",
                          "link": "https://example.com"}
        assert client.get(assets["logo"]).content == PNG
        gif = client.post(f"/players/{player_id}/logo", files={"file": ("logo.gif", b"GIF89a")})
        assert gif.status_code == 400 and gif.json()["title"] == (
            "Only [jpg, JPG, jpeg, JPEG, png, PNG] extensions are supported.")
        fake_png = client.post(f"/players/{player_id}/logo", files={"file": ("logo.png", b"not an image")})
        assert fake_png.json()["type"].endswith("uploaded-file-invalid-file")
        video = create(client, playerId=player_id)
        live = _live(client, playerId=player_id)
        assert (video["playerId"], live["playerId"]) == (player_id, player_id)
        assert client.patch(f"/players/{player_id}", json={"hideTitle": True}).json()["hideTitle"] is True
        assert client.delete(f"/players/{player_id}/logo").status_code == 204
        assert client.get(assets["logo"]).status_code == 404
        assert client.delete(f"/players/{player_id}").status_code == 204
        assert "playerId" not in client.get(f"/videos/{video['videoId']}").json()
        assert "playerId" not in client.get(f"/live-streams/{live['liveStreamId']}").json()
        assert client.get(f"/players/{player_id}").status_code == 404
        missing = client.post("/videos", json={"title": "t", "playerId": player_id})
        assert missing.status_code == 404 and missing.json()["name"] == "playerId"
