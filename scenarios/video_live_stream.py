"""Video, a live stream: create it with a restream, broadcast, watch the broadcast's webhooks and its
recording become a video that encodes like an upload; complete a second broadcast early.

Against the fake the broadcast is simulated through the control plane
(``POST /_fake/live-streams/{id}/broadcast {"seconds": N}``: the fake has no RTMP server) and the
webhooks are read from the outbox. Against the real service (credential ``api_key``) the scenario
creates, reads, renames and deletes a live stream: a broadcast needs an RTMP client.
"""

from __future__ import annotations

import base64

from .runner import Run, Scenario

EVENTS = ["live-stream.broadcast.started", "live-stream.broadcast.ended", "video.source.recorded"]
RESTREAM = {"name": "mirror", "serverUrl": "rtmp://broadcast.example.com/live", "streamKey": "scenario-key"}


def flow(run: Run) -> None:
    key = run.credential("api_key", create=lambda: str(run.control("POST", "/_fake/projects", json={})[
        "sandbox_key"]))
    auth = {"Authorization": "Basic " + base64.b64encode(f"{key}:".encode()).decode()}

    with run.step("create a live stream with a restream"):
        created = run.request("POST", "/live-streams", json={"name": "scenario live", "restreams": [RESTREAM]},
                              headers=auth)
        run.check(created.status_code == 200, "200", created.text)
        live = created.json()
        live_id = live["liveStreamId"]
        run.check(live_id.startswith("li") and bool(live.get("streamKey")), "an id and a stream key", live)
        run.check(live["broadcasting"] is False, "not broadcasting yet", live)
        run.check(live["restreams"] == [RESTREAM], "the restream comes back", live["restreams"])
        run.check(set(live["assets"]) >= {"hls", "iframe", "player", "thumbnail"}, "its assets", live["assets"])

    if not run.is_fake:
        with run.step("rename and delete it"):
            renamed = run.request("PATCH", f"/live-streams/{live_id}", json={"name": "renamed"}, headers=auth)
            run.check(renamed.status_code == 200 and renamed.json()["name"] == "renamed", "renamed", renamed.text)
            run.check(run.request("DELETE", f"/live-streams/{live_id}", headers=auth).status_code == 204, "204")
        return

    with run.step("subscribe to the broadcast's events, then broadcast 20 seconds"):
        hook = run.request("POST", "/webhooks", json={"events": EVENTS, "url": "http://127.0.0.1:9/live"},
                           headers=auth).json()
        run.control("POST", f"/_fake/live-streams/{live_id}/broadcast", json={"seconds": 20})
        run.wait(5)
        now = run.request("GET", f"/live-streams/{live_id}", headers=auth).json()
        run.check(now["broadcasting"] is True, "broadcasting", now)
        playlist = run.request("GET", f"/live/{live_id}.m3u8")
        run.check(playlist.status_code == 200 and "#EXT-X-ENDLIST" not in playlist.text, "a live HLS playlist",
                  playlist.text)

    with run.step("at its end: not broadcasting, the ended event, and a recorded video"):
        run.wait(15)
        after = run.request("GET", f"/live-streams/{live_id}", headers=auth).json()
        run.check(after["broadcasting"] is False, "not broadcasting", after)
        recordings = run.request("GET", "/videos", params={"liveStreamId": live_id}, headers=auth).json()["data"]
        run.check(len(recordings) == 1, "one recording listed under the live stream", recordings)
        recording = recordings[0]
        run.check(recording["source"].get("liveStream", {}).get("liveStreamId") == live_id,
                  "its source names the live stream", recording["source"])
        events = [d["body"] for d in run.control("GET", "/_fake/webhooks/deliveries")["deliveries"]
                  if d["webhookId"] == hook["webhookId"]]
        run.check([e["type"] for e in events] == EVENTS, "started, ended, recorded", events)
        run.check(events[2]["videoId"] == recording["videoId"], "the recorded event names the video", events[2])

    with run.step("the recording encodes like an upload"):
        run.wait(120)
        status = run.request("GET", f"/videos/{recording['videoId']}/status", headers=auth).json()
        run.check(status["encoding"]["playable"] is True, "playable", status)
        run.check(status["encoding"]["metadata"]["duration"] == 20, "20 seconds long", status["encoding"])

    with run.step("a second broadcast completed early, then the live stream deleted"):
        run.control("POST", f"/_fake/live-streams/{live_id}/broadcast", json={"seconds": 25})
        run.wait(8)
        completed = run.request("PUT", f"/live-streams/{live_id}/complete", headers=auth)
        run.check(completed.status_code == 202, "202", completed.text)
        run.check(run.request("GET", f"/live-streams/{live_id}", headers=auth).json()["broadcasting"] is False,
                  "no longer broadcasting")
        second = run.request("GET", "/videos", params={"liveStreamId": live_id}, headers=auth).json()["data"]
        run.check(len(second) == 2, "a second recording", second)
        run.check(run.request("DELETE", f"/live-streams/{live_id}", headers=auth).status_code == 204, "deleted")


SCENARIO = Scenario(name="video-live-stream", service="video",
                    summary="a live stream broadcast on the clock: webhooks, a recorded video, complete", flow=flow)
