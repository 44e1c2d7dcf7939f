"""Video, analytics: a day of viewing, then its report - plays, play rate, watch time, the countries,
the hours - and the minutes watched in the usage at the seed's delivery price (a sandbox video lives
24 hours, so the day is the video's first; in production a test can set up weeks the same way).

Against the fake the plays are set up through the control plane (``POST /_fake/plays``: viewer,
country, device, seconds, instant), the fake's own player and HLS add one more, and the figures are
checked exactly. Against the real service (credential ``api_key``) the scenario reads the three
analytics endpoints for the last day and checks their shape.
"""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta

from fakes.video.media import STAND_IN_MP4

from .runner import Run, Scenario

HOUR_S = 3600


def flow(run: Run) -> None:
    project: dict[str, str] = {}

    def new_project() -> str:
        project.update(run.control("POST", "/_fake/projects", json={}))
        environment = run.control("GET", "/_fake/usage")["environment"]
        return project[f"{environment}_key"]

    key = run.credential("api_key", create=new_project)
    auth = {"Authorization": "Basic " + base64.b64encode(f"{key}:".encode()).decode()}

    if not run.is_fake:
        with run.step("the last day's figures have the reference's shapes"):
            metric = run.request("GET", "/data/metrics/play/count", headers=auth)
            run.check(metric.status_code == 200 and "data" in metric.json(), "a play count", metric.text)
            buckets = run.request("GET", "/data/buckets/play/country", headers=auth)
            run.check(buckets.status_code == 200 and "pagination" in buckets.json(), "plays by country", buckets.text)
            series = run.request("GET", "/data/timeseries/play", headers=auth)
            run.check(series.status_code == 200 and series.json()["context"]["interval"] == "hour", "hourly plays",
                      series.text)
        return

    with run.step("a video is uploaded and encoded"):
        video = run.request("POST", "/videos", json={"title": "analytics", "tags": ["launch"]}, headers=auth).json()
        uploaded = run.request("POST", f"/videos/{video['videoId']}/source", headers=auth,
                               files={"file": ("clip.mp4", STAND_IN_MP4, "video/mp4")})
        run.check(uploaded.status_code == 201, "201", uploaded.text)
        run.wait(600)

    with run.step("a day of plays: France every 3 hours, Germany every other time, two visitors who did not play"):
        start = datetime.fromtimestamp(run.now_ms() / 1000, tz=UTC).replace(minute=0, second=0, microsecond=0)
        run.wait(21 * HOUR_S)
        plays = []
        for slot in range(7):
            at = (start + timedelta(hours=1 + 3 * slot)).isoformat()
            plays.append({"mediaId": video["videoId"], "seconds": 2, "at": at, "country": "FR", "viewer": f"fr{slot}",
                          "deviceType": "phone"})
            if slot % 2 == 0:
                plays.append({"mediaId": video["videoId"], "seconds": 1, "at": at, "country": "DE", "viewer": "de"})
        plays.append({"mediaId": video["videoId"], "seconds": 0, "count": 2, "country": "US"})
        recorded = run.control("POST", "/_fake/plays", json={"plays": plays})
        run.check(recorded["recorded"] == 13, "13 sessions recorded", recorded)

    week = {"from": start.isoformat()}
    with run.step("the day's figures"):
        plays_count = run.request("GET", "/data/metrics/play/count", params=week, headers=auth).json()
        run.check(plays_count["data"] == 11, "11 plays", plays_count)
        rate = run.request("GET", "/data/metrics/play/rate", params=week, headers=auth).json()["data"]
        run.check(abs(rate - 11 / 13) < 1e-9, "a play rate of 11 / 13", rate)
        watch = run.request("GET", "/data/metrics/watch-time/sum", params=week, headers=auth).json()["data"]
        run.check(watch == 18, "18 seconds watched", watch)
        phones = run.request("GET", "/data/metrics/play/count", headers=auth,
                             params={**week, "filterBy[deviceType][]": "phone"}).json()["data"]
        run.check(phones == 7, "7 on phones", phones)

    with run.step("plays by country and by hour"):
        countries = run.request("GET", "/data/buckets/play/country", params=week, headers=auth).json()["data"]
        run.check([(c["dimensionValue"], c["metricValue"]) for c in countries] == [("FR", 7), ("DE", 4), ("US", 0)],
                  "FR 7, DE 4, US 0", countries)
        hours = run.request("GET", "/data/timeseries/play", params={**week, "pageSize": 100},
                            headers=auth).json()["data"]
        per_slot = [h["metricValue"] for h in hours][1:22:3]
        run.check(per_slot == [2, 1, 2, 1, 2, 1, 2], "2, 1, 2, 1, 2, 1, 2 every 3 hours", hours)

    with run.step("the fake's own player and HLS are plays too"):
        run.request("GET", f"/vod/{video['videoId']}")
        run.request("GET", f"/vod/{video['videoId']}/hls/240p/segment-0.ts")
        recent = run.request("GET", "/data/metrics/play/count", headers=auth,
                             params={"from": (start + timedelta(hours=21)).isoformat()}).json()["data"]
        run.check(recent == 1, "one play since the last of the day's", recent)

    with run.step("the minutes watched are in the usage at the seed's price"):
        usage = run.control("GET", "/_fake/usage", params={"project": project["project_id"]})["projects"]
        mine = usage[project["project_id"]]
        run.check(mine["usage"]["watched_minutes"] == 0.3333, "20 seconds: 0.3333 minutes", mine["usage"])
        run.check(mine["cost_usd"]["delivery"] == round(20 / 60 * 0.0017, 6), "at $0.0017 a minute",
                  mine["cost_usd"])


SCENARIO = Scenario(name="video-analytics", service="video",
                    summary="a week of plays, then its metrics, breakdowns and time series, and the usage", flow=flow)
