"""Analytics computed from plays: a week of viewing set up through the control plane, and the
fake's own player and HLS deliveries; watched minutes in the usage at the seed's delivery price."""

from __future__ import annotations

from typing import Any

import httpx

from fakes.video import VideoFake

from .helpers import CLIP_2S, client_for, create, upload

DAY = 86_400


def _week(fake: VideoFake, client: httpx.Client) -> tuple[str, str]:
    """Two encoded videos and a week of plays ending now (2026-01-12T09:00Z)."""
    first = create(client, title="first", tags=["promo"])["videoId"]
    second = create(client, title="second")["videoId"]
    for vid in (first, second):
        upload(client, vid, CLIP_2S.read_bytes())
    plays: list[dict[str, Any]] = []
    for day in range(7):
        at = f"2026-01-{5 + day:02d}T10:00:00+00:00"
        plays.append({"mediaId": first, "seconds": 2, "at": at, "country": "FR", "viewer": f"fr-{day % 2}",
                      "deviceType": "phone", "operatingSystem": "ios", "browser": "safari"})
        plays.append({"mediaId": second, "seconds": 1, "at": at, "country": "DE", "viewer": "de",
                      "referrer": "https://blog.example.com/post"})
    plays.append({"mediaId": second, "seconds": 0, "at": "2026-01-11T10:00:00Z", "country": "US", "count": 3})
    fake.advance(7 * DAY)  # plays happen in the past: the clock is at 2026-01-12T09:00Z now
    with fake.client() as control:
        recorded = control.post("/_fake/plays", json={"plays": plays})
        assert recorded.status_code == 201, recorded.text
        assert recorded.json() == {"recorded": 17, "watched_seconds": 21.0}
    return first, second


def test_a_week_of_plays_gives_metrics_breakdowns_and_time_series() -> None:
    fake = VideoFake(seed=0, environment="production")
    with client_for(fake) as client:
        _, second = _week(fake, client)
        week = {"from": "2026-01-05T00:00:00+00:00"}

        def metric(path: str, **query: str) -> float:
            response = client.get(f"/data/metrics/{path}", params={**week, **query})
            assert response.status_code == 200, response.text
            return float(response.json()["data"])

        assert metric("play/count") == 14 and metric("impression/count") == 17
        assert metric("play/rate") == 14 / 17 and metric("end/count") == 7  # the 2 s plays of the 2.15 s video
        assert metric("watch-time/sum") == 21 and metric("watch-time/average") == 1.5
        assert metric("play/count", **{"filterBy[country][]": "FR"}) == 7
        assert metric("play/count", **{"filterBy[tag]": "promo"}) == 7
        assert metric("play/count", **{"filterBy[continent][]": "EU", "filterBy[deviceType][]": "phone"}) == 7
        assert metric("play/count", **{"filterBy[referrer][]": "https%3A%2F%2Fblog.example.com%2Fpost"}) == 7
        assert metric("play/count", **{"filterBy[mediaId][]": second}) == 7
        assert metric("view/count", viewDuration="3s") == 0 and metric("view/count", viewDuration="3s") == 0
        assert metric("play/count", **{"from": "2026-01-11T00:00:00+00:00"}) == 2
        assert metric("play/total", **{"from": "2026-01-11T00:00:00+00:00"}) == 14  # of all time
        day = client.get("/data/metrics/play/count").json()  # default: the last day
        assert day["context"] == {"metric": "play", "aggregation": "count", "timeframe": {
            "from": "2026-01-11T09:00:00+00:00", "to": "2026-01-12T09:00:00+00:00"}} and day["data"] == 2
        by_country = client.get("/data/buckets/play/country", params=week).json()
        assert [(b["dimensionValue"], b["metricValue"]) for b in by_country["data"]] == [
            ("DE", 7), ("FR", 7), ("US", 0)]
        assert by_country["context"]["breakdown"] == "country"
        by_browser = client.get("/data/buckets/impression/browser", params={**week, "sortBy": "dimensionValue",
                                                                           "sortOrder": "asc"}).json()["data"]
        assert [(b["dimensionValue"], b["metricValue"]) for b in by_browser] == [("chrome", 10), ("safari", 7)]
        assert [b["dimensionValue"] for b in client.get("/data/buckets/play/continent", params=week).json()["data"]] \
            == ["EU", "NA"]
        daily = client.get("/data/timeseries/play", params={**week, "interval": "day"}).json()
        assert daily["context"]["interval"] == "day"
        assert [(p["emittedAt"][:10], p["metricValue"]) for p in daily["data"]] == [
            (f"2026-01-{5 + d:02d}", 2) for d in range(7)] + [("2026-01-12", 0)]
        hourly = client.get("/data/timeseries/play", params={"from": "2026-01-11T08:00:00+00:00"}).json()
        # 08:00 to now, the hour in progress included
        assert hourly["context"]["interval"] == "hour" and hourly["pagination"]["itemsTotal"] == 26
        assert [p["metricValue"] for p in hourly["data"][:3]] == [0, 0, 2]


def test_unique_views_and_concurrent_viewers() -> None:
    fake = VideoFake(seed=0, environment="production")
    with client_for(fake) as client:
        vid = create(client)["videoId"]
        fake.advance(3600)
        plays = [{"mediaId": vid, "seconds": 60, "viewer": "ann", "at": "2026-01-05T09:10:00Z"},
                 {"mediaId": vid, "seconds": 60, "viewer": "ann", "at": "2026-01-05T09:10:30Z"},  # a second tab
                 {"mediaId": vid, "seconds": 60, "viewer": "bob", "at": "2026-01-05T09:10:45Z"},
                 {"mediaId": vid, "seconds": 4, "viewer": "cid", "at": "2026-01-05T09:30:00Z"}]
        with fake.client() as control:
            assert control.post("/_fake/plays", json={"plays": plays}).status_code == 201
        query = {"from": "2026-01-05T09:00:00+00:00"}
        get = client.get
        assert get("/data/metrics/ccv/peak", params=query).json()["data"] == 3
        assert get("/data/metrics/ccv/peak", params={**query, "unique": "true"}).json() == {
            "context": {"metric": "unique-ccv", "aggregation": "peak", "timeframe": {
                "from": "2026-01-05T09:00:00+00:00", "to": "2026-01-05T10:00:00+00:00"}}, "data": 2.0}
        assert get("/data/metrics/view/count", params=query).json()["data"] == 3  # 5 s or more by default
        assert get("/data/metrics/view/count", params={**query, "viewDuration": "3s"}).json()["data"] == 4
        assert get("/data/metrics/view/count", params={**query, "unique": "true"}).json()["data"] == 2
        assert get("/data/metrics/ccv/average", params={**query, "to": "2026-01-05T09:11:00+00:00"}).json()[
            "data"] == round((60 + 30 + 15) / 660, 3)
        assert get("/data/metrics/ccv/live").json()["data"] == 0


def test_unknown_metrics_and_bad_parameters_are_the_references_errors() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        for path in ("/data/metrics/play/peak", "/data/metrics/nope/count", "/data/buckets/play-total/country",
                     "/data/timeseries/play-total"):
            response = client.get(path)
            assert response.status_code == 404 and response.json()["type"].endswith("unrecognized-request-url")
        for path, params, name in (
                ("/data/metrics/view/count", {"viewDuration": "7s"}, "viewDuration"),
                ("/data/metrics/play/count", {"from": "yesterday"}, "from"),
                ("/data/metrics/play/count", {"filterBy[country][]": "fr"}, "filterBy[country][]"),
                ("/data/metrics/play/count", {"filterBy[planet]": "mars"}, "filterBy[planet]"),
                ("/data/metrics/play/count", {"bogus": "1"}, "bogus"),
                ("/data/timeseries/play", {"interval": "minute"}, "interval"),
                ("/data/buckets/play/country", {"sortBy": "x"}, "sortBy")):
            response = client.get(path, params=params)
            assert response.status_code == 400, (path, params, response.text)
            assert response.json()["type"].endswith("request-invalid-query-parameter")
            assert response.json()["name"] == name
        minute = client.get("/data/timeseries/play", params={"interval": "minute",
                                                             "from": "2026-01-05T08:30:00+00:00"})
        assert minute.status_code == 200 and minute.json()["pagination"]["itemsTotal"] == 31
    with fake.client() as control:
        for body, status in (({"mediaId": "vi0"}, 404), ({"mediaId": "vi0", "bogus": 1}, 400), ({}, 400),
                             ({"plays": []}, 400)):
            assert control.post("/_fake/plays", json=body).status_code == status


def test_the_fakes_own_player_and_hls_are_plays_and_feed_the_usage() -> None:
    fake = VideoFake(seed=0, environment="production")
    agent = {"User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148 Safari/604.1",
             "Referer": "https://shop.example.com/"}
    with client_for(fake) as client:
        video = create(client)
        vid = video["videoId"]
        upload(client, vid, CLIP_2S.read_bytes())
        fake.advance(600)
        with fake.client(headers=agent) as viewer:
            assert viewer.get(video["assets"]["player"]).status_code == 200  # an impression
            for index in (0, 1):  # the play: 2.152 s in two segments, to the end
                assert viewer.get(f"/vod/{vid}/hls/240p/segment-{index}.ts").status_code == 200
        query = {"from": "2026-01-05T09:00:00+00:00"}
        # the page load is the session's impression; its segment makes it a play (one session)
        assert client.get("/data/metrics/impression/count", params=query).json()["data"] == 1
        assert client.get("/data/metrics/play/count", params=query).json()["data"] == 1
        assert client.get("/data/metrics/end/count", params=query).json()["data"] == 1
        device = client.get("/data/buckets/play/device-type", params=query).json()["data"]
        assert device == [{"dimensionValue": "phone", "metricValue": 1.0}]
        assert client.get("/data/buckets/play/operating-system", params=query).json()["data"][0][
            "dimensionValue"] == "ios"
        assert client.get("/data/buckets/play/referrer", params=query).json()["data"][0][
            "dimensionValue"] == "https://shop.example.com/"
        assert client.get("/data/buckets/play/country", params=query).json()["data"][0]["dimensionValue"] == "US"
    with fake.client() as control:
        control.post("/_fake/plays", json={"mediaId": vid, "seconds": 57.848})  # default: now
    usage = next(iter(fake.usage()["projects"].values()))
    assert usage["usage"]["watched_minutes"] == 1.0  # 2 s of HLS + 58 s played
    assert usage["cost_usd"]["delivery"] == 0.0017  # the seed's price of a minute watched


def test_a_kept_analytics_answer_goes_when_a_play_or_a_video_changes() -> None:
    """The analytics answers are kept per request and instant (a dashboard polls them): a play recorded
    since, a video tagged since, or the clock moving gives the new figures, never the kept ones."""
    fake = VideoFake(seed=0, environment="production")
    with client_for(fake) as client:
        first, _ = _week(fake, client)
        week = {"from": "2026-01-05T00:00:00+00:00"}
        tagged = {**week, "filterBy[tag]": "later"}
        count = "/data/metrics/play/count"
        assert client.get(count, params=week).json()["data"] == 14
        assert len(fake.model.analytics.answers) == 1  # kept ...
        assert client.get(count, params=week).json()["data"] == 14  # ... and served: the same figure
        assert len(fake.model.analytics.answers) == 1
        assert client.get(count, params=tagged).json()["data"] == 0
        with fake.client() as control:
            recorded = control.post("/_fake/plays", json={"plays": [
                {"mediaId": first, "seconds": 2, "at": "2026-01-12T08:00:00Z", "country": "FR"}]})
            assert recorded.status_code == 201, recorded.text
        assert fake.model.analytics.answers == {}  # a recorded play forgets every kept answer
        assert client.get(count, params=week).json()["data"] == 15
        series = client.get("/data/timeseries/play", params={**week, "interval": "day"}).json()["data"]
        assert series[-1]["metricValue"] == 1
        assert client.patch(f"/videos/{first}", json={"tags": ["later"]}).status_code == 200
        assert client.get(count, params=tagged).json()["data"] == 8  # the video's plays, now tagged
        day = client.get(count).json()["context"]["timeframe"]
        fake.advance(3600)
        assert client.get(count).json()["context"]["timeframe"] != day  # another instant, another answer
