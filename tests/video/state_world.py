"""A video fake holding one of everything: what the state tests export, break and import."""

from __future__ import annotations

from fakes.video import VideoFake

from .helpers import CLIP_2S, JPEG, PNG, VTT, basic


def populated(**settings: object) -> VideoFake:
    """A sandbox fake with a project of every kind of record, mid-timeline, and some history."""
    fake = VideoFake(seed=0, **{**VideoFake.settings_for_tests(), **settings})
    keys = fake.create_project(keeps_discarded=True)
    with fake.client(headers=basic(keys["sandbox_key"])) as client, fake.client() as control:
        player = client.post("/players", json={"name": "p"}).json()["playerId"]
        client.post(f"/players/{player}/logo", files={"file": ("l.png", PNG)}, data={"link": "https://x.test"})
        mark = client.post("/watermarks", files={"file": ("m.png", PNG)}).json()["watermarkId"]
        client.post("/webhooks", json={"url": "http://127.0.0.1:9/h", "events": ["video.encoding.quality.completed",
                                                                                  "live-stream.broadcast.ended"]})
        video = client.post("/videos", json={"title": "v", "tags": ["a"], "metadata": [{"key": "k", "value": "v"}],
                                             "playerId": player, "transcript": True, "transcriptSummary": True,
                                             "watermark": {"id": mark}}).json()["videoId"]
        client.post(f"/videos/{video}/source", files={"file": ("c.mp4", CLIP_2S.read_bytes())})
        parts = client.post("/videos", json={"title": "parts"}).json()["videoId"]
        client.post(f"/videos/{parts}/source", files={"file": ("p.mp4", b"\0" * 10)},
                    headers={"Content-Range": "part 2/3"})
        discarded = client.post("/videos", json={"title": "d"}).json()["videoId"]
        client.delete(f"/videos/{discarded}")
        live = client.post("/live-streams", json={"name": "l", "playerId": player, "restreams": [
            {"name": "r", "serverUrl": "rtmp://h/app", "streamKey": "k"}]}).json()["liveStreamId"]
        client.post(f"/live-streams/{live}/thumbnail", files={"file": ("t.jpg", JPEG)})
        control.post(f"/_fake/live-streams/{live}/broadcast", json={"seconds": 20})
        client.post("/upload-tokens", json={"ttl": 3600})
        fake.advance(12)  # mid-encoding, mid-broadcast
        client.post(f"/videos/{video}/chapters/en", files={"file": ("c.vtt", VTT)})
        client.post(f"/videos/{video}/captions/fr", files={"file": ("c.vtt", VTT)})
        client.patch(f"/videos/{video}/captions/fr", json={"default": True})
        client.post(f"/videos/{video}/thumbnail", files={"file": ("t.jpg", JPEG)})
        client.get(f"/videos/{video}/status")
        control.post("/_fake/plays", json={"mediaId": video, "seconds": 2, "viewer": "x", "country": "FR"})
        client.post("/auth/api-key", json={"apiKey": keys["sandbox_key"]})
    return fake


READS = ("/videos", "/videos?sortBy=title", "/discarded/videos", "/tags", "/summaries", "/live-streams", "/players",
         "/watermarks", "/upload-tokens", "/webhooks", "/data/metrics/play/count", "/data/buckets/play/country",
         "/data/timeseries/play", "/data/metrics/ccv/peak")


def project_key(fake: VideoFake) -> str:
    project = next(p for p in fake.model.projects.by_id.values() if p.keeps_discarded)
    return project.sandbox_key


def every_read(fake: VideoFake) -> list[str]:
    """GET paths of every list and of each record the fake holds now."""
    paths = list(READS)
    model = fake.model
    for video_id in list(model.videos):
        paths += [f"/videos/{video_id}", f"/videos/{video_id}/status", f"/videos/{video_id}/captions",
                  f"/videos/{video_id}/chapters", f"/discarded/videos/{video_id}", f"/vod/{video_id}",
                  f"/vod/{video_id}/thumbnail.jpg", f"/vod/{video_id}/hls/manifest.m3u8"]
    for live_id in list(model.live.by_id):
        paths += [f"/live-streams/{live_id}", f"/live/{live_id}.m3u8"]
    paths += [f"/players/{i}" for i in list(model.players.by_id)]
    paths += [f"/summaries/{i}/source" for i in list(model.summaries.by_id)]
    paths += [f"/upload-tokens/{i}" for i in list(model.upload_tokens.by_token)]
    return paths
