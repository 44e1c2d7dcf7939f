"""Keys and tokens, rate limits and their headers, webhooks delivered to a local receiver, control plane."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from fakes.video import VideoFake

from .helpers import CLIP_2S, CLIP_720P, basic, client_for, create, upload

RATE_HEADERS = ("x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-retry-after")


def test_keys_belong_to_one_environment_and_each_401_has_its_title() -> None:
    fake = VideoFake(seed=0)
    project = fake.create_project()
    assert project["sandbox_key"] != project["production_key"]
    with fake.client() as client:
        def title(headers: dict[str, str]) -> str:
            response = client.get("/videos", headers=headers)
            assert response.status_code == 401
            assert all(name in response.headers for name in RATE_HEADERS)
            return str(response.json()["title"])

        assert title({}) == 'The "Authorization" header is missing.'
        assert title({"Authorization": "Token abc"}) == 'The "Authorization" header value is invalid.'
        assert title({"Authorization": "Basic !!!"}) == 'The "Authorization" header value is invalid.'
        assert title(basic("not-a-key")) == "The API key is invalid."
        assert title(basic(project["production_key"])) == "The API key is invalid."  # the other environment
        assert title({"Authorization": "Bearer nope"}) == "The access token is invalid or expired."
        assert client.get("/videos", headers=basic(project["sandbox_key"])).status_code == 200
    production = VideoFake(seed=0, environment="production")
    other = production.create_project()
    with production.client(headers=basic(other["sandbox_key"])) as client:
        assert client.get("/videos").status_code == 401
    with production.client(headers=basic(other["production_key"])) as client:
        assert client.get("/videos").status_code == 200


def test_bearer_tokens_last_an_hour_and_refresh_tokens_work_once() -> None:
    fake = VideoFake(seed=0)
    key = fake.create_project()["sandbox_key"]
    with fake.client() as client:
        bad = client.post("/auth/api-key", json={"apiKey": "wrong"})
        assert bad.status_code == 400 and bad.json()["title"] == "The user credentials were incorrect."
        token = client.post("/auth/api-key", json={"apiKey": key}).json()
        assert token["token_type"] == "Bearer" and token["expires_in"] == 3600
        bearer = {"Authorization": f"Bearer {token['access_token']}"}
        assert client.get("/videos", headers=bearer).status_code == 200
        fake.advance(3599)
        assert client.get("/videos", headers=bearer).status_code == 200
        fake.advance(1)
        assert client.get("/videos", headers=bearer).status_code == 401
        fresh = client.post("/auth/refresh", json={"refreshToken": token["refresh_token"]}).json()
        assert client.get("/videos", headers={"Authorization": f"Bearer {fresh['access_token']}"}).status_code == 200
        reused = client.post("/auth/refresh", json={"refreshToken": token["refresh_token"]})
        assert reused.status_code == 400 and reused.json() == {  # the reference's document says so
                "type": "https://docs.api.video/reference/authentication-invalid-user-credentials",
                "title": "The user credentials were incorrect.", "status": 400, "name": ""}


def test_rate_limits_per_class_with_headers_on_every_response_and_the_reference_429() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        first = client.get("/videos")
        assert (first.headers["x-ratelimit-limit"], first.headers["x-ratelimit-remaining"],
                first.headers["x-ratelimit-retry-after"]) == ("100", "99", "60")
        for _ in range(98):
            assert client.get("/videos").status_code == 200
        last = client.get("/nope")  # a 404 counts and carries the headers too
        assert last.status_code == 404 and last.headers["x-ratelimit-remaining"] == "0"
        refused = client.get("/videos")
        assert refused.status_code == 429
        assert refused.json() == {"type": "https://docs.api.video/reference/too-many-requests",
                                  "title": "Too many requests.", "status": 429}
        assert refused.headers["x-ratelimit-remaining"] == "0" and "retry-after" not in refused.headers
        writes = client.post("/videos", json={"title": "writes have their own window"})
        assert writes.status_code == 201 and writes.headers["x-ratelimit-limit"] == "40"
        assert client.put("/videos").headers["x-ratelimit-limit"] == "40"  # a 405 counts as a write
        fake.advance(30)
        assert client.get("/videos").headers["x-ratelimit-retry-after"] == "30"
        fake.advance(30)
        assert client.get("/videos").headers["x-ratelimit-remaining"] == "99"
        video = create(client)
        response = upload(client, video["videoId"], CLIP_2S.read_bytes())
        assert response.headers["x-ratelimit-limit"] == "40"  # sandbox uploads: 40 a minute
    production = VideoFake(seed=0, environment="production")
    with client_for(production) as client:
        limits = [client.request(m, p).headers["x-ratelimit-limit"] for m, p in
                  (("GET", "/videos"), ("POST", "/videos"))]
        assert limits == ["500", "200"]


class Receiver:
    """A loopback HTTP server that records every webhook POST."""

    def __init__(self, status: int = 200) -> None:
        self.received: list[tuple[dict[str, str], bytes]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                owner.received.append(({k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(status)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Receiver:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_webhooks_are_delivered_signed_to_a_local_receiver_as_the_clock_passes_each_transition() -> None:
    fake = VideoFake(seed=0)
    with Receiver() as receiver, client_for(fake) as client:
        created = client.post("/webhooks", json={"url": receiver.url, "events": [
            "video.encoding.quality.completed", "video.caption.generated", "video.summary.generated"]})
        assert created.status_code == 201
        hook = created.json()
        assert hook["webhookId"].startswith("webhook_") and hook["signatureSecret"].startswith("sig_sec_")
        assert client.get(f"/webhooks/{hook['webhookId']}").json() == hook
        assert client.get("/webhooks").json()["data"] == [hook]
        video = create(client, transcript=True, transcriptSummary=True)
        upload(client, video["videoId"], CLIP_720P.read_bytes(), name="clip.mov")
        fake.advance(5)  # ingested at 3.3 s, 240p encoding until 7.9 s: nothing yet
        assert fake.wait_for_webhooks(5)
        assert receiver.received == []
        fake.advance(3600)
        assert fake.wait_for_webhooks(5)
    bodies = [json.loads(body) for _, body in receiver.received]
    assert [(b["type"], b.get("encoding"), b.get("quality")) for b in bodies] == [
        ("video.encoding.quality.completed", "hls", "240p"), ("video.encoding.quality.completed", "hls", "360p"),
        ("video.encoding.quality.completed", "hls", "480p"), ("video.encoding.quality.completed", "hls", "720p"),
        ("video.encoding.quality.completed", "mp4", "720p"), ("video.caption.generated", None, None),
        ("video.summary.generated", None, None)]
    assert all(b["videoId"] == video["videoId"] for b in bodies)
    emitted = [b["emittedAt"] for b in bodies]
    assert emitted == sorted(emitted) and emitted[0] == "2026-01-05T09:00:07+00:00"  # the transitions' own instants
    for headers, body in receiver.received:
        assert headers["x-api-video-webhookid"] == hook["webhookId"]
        expected = hmac.new(hook["signatureSecret"].encode(), body, hashlib.sha256).hexdigest()
        assert hmac.compare_digest(headers["x-api-video-signature"], expected)
    outbox = fake.webhook_deliveries()
    assert [d["status"] for d in outbox] == ["delivered"] * 7 and outbox[0]["response_status"] == 200
    with fake.client() as control:
        assert control.get("/_fake/webhooks/deliveries").json()["deliveries"] == outbox


def test_webhooks_to_other_hosts_are_refused_or_only_recorded() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        refused = client.post("/webhooks", json={"url": "https://example.com/hook",
                                                 "events": ["video.encoding.quality.completed"]})
        assert refused.status_code == 400 and refused.json()["name"] == "url"
        for body in ({"url": "http://127.0.0.1:1/x"}, {"events": ["video.encoding.quality.completed"]},
                     {"url": "http://127.0.0.1:1/x", "events": ["nope"]}, {"url": "ftp://127.0.0.1/x", "events": []}):
            assert client.post("/webhooks", json=body).status_code == 400
    recording = VideoFake(seed=0, webhook_other_hosts="record")
    with client_for(recording) as client:
        hook = client.post("/webhooks", json={"url": "https://example.com/hook",
                                              "events": ["video.encoding.quality.completed"]}).json()
        video = create(client)
        upload(client, video["videoId"], CLIP_2S.read_bytes())
        recording.advance(600)
        assert recording.wait_for_webhooks(5)
        outbox = recording.webhook_deliveries()
        assert [d["status"] for d in outbox] == ["not_sent", "not_sent"] and outbox[0]["webhookId"] == hook["webhookId"]
        assert client.delete(f"/webhooks/{hook['webhookId']}").status_code == 204
        assert client.get(f"/webhooks/{hook['webhookId']}").status_code == 404


def test_a_failing_receiver_is_recorded_and_a_deleted_video_emits_nothing() -> None:
    fake = VideoFake(seed=0)
    with Receiver(status=500) as receiver, client_for(fake) as client:
        client.post("/webhooks", json={"url": receiver.url, "events": ["video.encoding.quality.completed"]})
        kept, dropped = create(client), create(client)
        for video in (kept, dropped):
            upload(client, video["videoId"], CLIP_2S.read_bytes())
        client.delete(f"/videos/{dropped['videoId']}")
        fake.advance(600)
        assert fake.wait_for_webhooks(5)
    outbox = fake.webhook_deliveries()
    assert {d["body"]["videoId"] for d in outbox} == {kept["videoId"]}
    assert [(d["status"], d["response_status"]) for d in outbox] == [("failed", 500), ("failed", 500)]


def test_control_plane_projects_usage_views_and_the_demo_key() -> None:
    fake = VideoFake(seed=0)
    credentials = fake.demo_credentials()
    assert credentials["environment"] == "sandbox" and len(credentials["api_key"]) == 43
    with fake.client(headers=basic(credentials["api_key"])) as printed:  # what `fakes serve` prints works
        assert printed.get("/videos").status_code == 200
    with fake.client() as control:
        created = control.post("/_fake/projects", json={})
        assert created.status_code == 201 and set(created.json()) == {"project_id", "sandbox_key", "production_key",
                                                                      "keeps_discarded", "custom_domains"}
        assert control.post("/_fake/projects", json={"x": 1}).status_code == 400
        with fake.client(headers=basic(created.json()["sandbox_key"])) as client:
            video = create(client)
        view = control.post("/_fake/views", json={"videoId": video["videoId"], "seconds": 90})
        assert view.status_code == 201
        assert control.post("/_fake/views", json={"videoId": "nope", "seconds": 1}).status_code == 404
        assert control.post("/_fake/views", json={"videoId": video["videoId"], "seconds": -1}).status_code == 400
        usage = control.get("/_fake/usage", params={"project": created.json()["project_id"]}).json()
        assert usage["projects"][created.json()["project_id"]]["usage"]["watched_minutes"] == 1.5
        assert control.get("/_fake/usage", params={"project": "nope"}).status_code == 404
        assert control.get("/_fake/usage", params={"bogus": "1"}).status_code == 400


def test_tight_status_polling_is_a_warning_verdict() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        video = create(client)
        client.get(f"/videos/{video['videoId']}/status")
        fake.advance(5)
        client.get(f"/videos/{video['videoId']}/status")
        assert fake.verdicts() == []
        for _ in range(3):
            client.get(f"/videos/{video['videoId']}/status")
    verdicts = fake.verdicts()
    assert [(v.get("id"), v["severity"], v["count"]) for v in verdicts] == [
        ("video/status-tight-polling", "warning", 3)]


def test_state_export_and_import_give_the_same_answers() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        video = create(client, transcript=True)
        upload(client, video["videoId"], CLIP_2S.read_bytes())
        fake.advance(3)
        state = json.loads(json.dumps(fake.export_state()))
        copy = VideoFake(seed=0)
        copy.import_state(state)
        headers = dict(client.headers)
        with copy.client(headers=headers) as other:
            for path in (f"/videos/{video['videoId']}", f"/videos/{video['videoId']}/status", "/videos"):
                assert other.get(path).json() == client.get(path).json()
            fake.advance(600)
            copy.advance(600)
            assert other.get(f"/videos/{video['videoId']}/captions").json() == \
                client.get(f"/videos/{video['videoId']}/captions").json()
    with pytest.raises(Exception):  # noqa: B017 - any refusal, nothing changed
        VideoFake(seed=0).import_state({**state, "model": {"projects": "nonsense"}})


class SlowReceiver(Receiver):
    """A receiver that takes its time: deliveries must not hold up the fake."""

    def __init__(self, delay_s: float) -> None:
        super().__init__()
        inner = self.server.RequestHandlerClass

        class Slow(inner):  # type: ignore[valid-type,misc]
            def do_POST(self) -> None:
                time.sleep(delay_s)
                super().do_POST()

        self.server.RequestHandlerClass = Slow


def test_a_slow_receiver_blocks_neither_the_clock_nor_requests() -> None:
    fake = VideoFake(seed=0)
    with SlowReceiver(delay_s=1.0) as receiver, client_for(fake) as client:
        client.post("/webhooks", json={"url": receiver.url, "events": ["video.encoding.quality.completed"]})
        video = create(client)
        upload(client, video["videoId"], CLIP_2S.read_bytes())
        started = time.perf_counter()
        fake.advance(600)  # emits two deliveries to a receiver that needs a second for each
        assert client.get("/videos").status_code == 200
        assert time.perf_counter() - started < 0.5
        assert fake.outbox()[1]["status"] == "pending"  # still queued behind the slow first one
        assert fake.wait_for_webhooks(10)
    assert len(receiver.received) == 2


def test_a_running_clock_emits_webhooks_without_any_request() -> None:
    fake = VideoFake(seed=0, clock="scaled:200")  # the 2 s clip's timeline takes about 0.05 s of wall time
    with Receiver() as receiver, client_for(fake) as client:
        client.post("/webhooks", json={"url": receiver.url, "events": ["video.encoding.quality.completed"]})
        video = create(client)
        upload(client, video["videoId"], CLIP_2S.read_bytes())
        deadline = time.monotonic() + 5
        while len(receiver.received) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)  # no request, no clock move through the fake: the sender thread's tick emits
    assert [json.loads(body)["quality"] for _, body in receiver.received] == ["240p", "240p"]


def test_the_sample_request_answers_200_any_number_of_times_while_other_projects_keep_the_limit() -> None:
    fake = VideoFake(seed=0)
    method, path = fake.sample_request()
    with fake.client(headers=fake.auth_headers()) as client:
        statuses = {client.request(method, path).status_code for _ in range(250)}  # reads limit: 100 a minute
    assert statuses == {200}
    with client_for(fake) as client:  # another project of the same fake: the sandbox reads limit still holds
        assert [client.get("/videos").status_code for _ in range(101)][-2:] == [200, 429]
    exported = fake.export_state()
    restored = VideoFake(seed=0)
    restored.import_state(exported)  # the lift is the project's own state: it survives export and import
    assert restored.export_state() == exported
    with restored.client(headers=fake.auth_headers()) as client:
        assert {client.request(method, path).status_code for _ in range(150)} == {200}
    assert fake.settings.limits()["reads"] == 100  # the fake's defaults are untouched


def test_a_project_made_without_rate_limits_is_never_refused_and_leaves_no_window() -> None:
    fake = VideoFake(seed=0)
    key = fake.create_project(rate_limited=False)["sandbox_key"]
    with fake.client(headers=basic(key)) as client:
        assert {client.post("/videos", json={"title": "t"}).status_code for _ in range(60)} == {201}  # writes: 40
    assert fake.model.buckets == {}
