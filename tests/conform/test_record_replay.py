"""`fakes record` and `fakes replay`: a session recorded through the proxy becomes a regression test
of the fake. The upstreams are a small hand-written app and a served fake; nothing leaves the host."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from fakes import create_fake
from fakes.conform.cassette import CassetteWriter, read_cassette
from fakes.conform.record import RecordingProxy
from fakes.conform.redact import service_redactor
from fakes.conform.replay import replay_cassette, write_pytest
from fakes.kernel.fake import Fake
from fakes.kernel.server import ServerThread

from .drift import Drifted, Plant

SECRETS = ("Bearer-token-0123456789", "key-0123456789", "cookie-0123456789", "query-key-0123456789",
           "issued-token-0123456789", "password-0123456789", "session-0123456789")
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4


async def upstream_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """A small upstream: a JSON profile that issues a token and sets a cookie, a PNG, a long text,
    and a POST that answers 201 with an absolute Location."""
    if scope["type"] != "http":
        return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    host = next(v.decode() for n, v in scope["headers"] if n == b"host")
    path = scope["path"]
    headers = [(b"content-type", b"application/json"), (b"x-ratelimit-remaining", b"41")]
    status, answer = 200, b""
    if path == "/profile":
        headers.append((b"set-cookie", f"session={SECRETS[6]}; Path=/".encode()))
        answer = orjson.dumps({"id": "usr_1", "name": "Ada", "access_token": SECRETS[4], "plan": "FREE"})
    elif path == "/logo":
        headers, answer = [(b"content-type", b"image/png")], PNG
    elif path == "/big":
        headers, answer = [(b"content-type", b"text/plain")], b"x" * 100_000
    elif path == "/notes" and scope["method"] == "POST":
        status = 201
        headers.append((b"location", f"http://{host}/notes/n_42".encode()))
        answer = orjson.dumps({"id": "n_42", "echo": orjson.loads(body)})
    else:
        status, answer = 404, orjson.dumps({"error": "not_found"})
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": answer})


@contextlib.contextmanager
def recording(app: Any, cassette: Path, service: str = "video", **options: Any) -> Iterator[tuple[str, str]]:
    """Serve ``app`` as the upstream and a recording proxy in front of it: (proxy URL, upstream URL)."""
    with ServerThread([(app, "127.0.0.1", 0)]) as [(host, port)]:
        upstream = f"http://{host}:{port}"
        writer = CassetteWriter(cassette, service, upstream, service_redactor(service), **options)
        with ServerThread([(RecordingProxy(upstream, writer), "127.0.0.1", 0)]) as [(proxy_host, proxy_port)]:
            yield f"http://{proxy_host}:{proxy_port}", upstream
        writer.close()


def test_the_proxy_answers_with_the_upstream_s_answers_and_the_cassette_keeps_no_secret(tmp_path: Path) -> None:
    cassette = tmp_path / "session.jsonl"
    with recording(upstream_app, cassette, max_body_bytes=64 * 1024) as (proxy, upstream), \
            httpx.Client(base_url=proxy) as client:
        profile = client.get("/profile", params={"api_key": SECRETS[3], "view": "full"}, headers={
            "Authorization": f"Bearer {SECRETS[0]}", "X-API-Key": SECRETS[1], "Cookie": f"c={SECRETS[2]}"})
        logo = client.get("/logo")
        big = client.get("/big")
        note = client.post("/notes", json={"title": "hello", "password": SECRETS[5]})
        missing = client.get("/nothing")
    assert profile.status_code == 200 and profile.json()["access_token"] == SECRETS[4]
    assert profile.headers["set-cookie"].startswith("session=") and profile.headers["x-ratelimit-remaining"] == "41"
    assert logo.content == PNG and logo.headers["content-type"] == "image/png"
    assert big.text == "x" * 100_000
    assert note.status_code == 201 and note.headers["location"] == f"{proxy}/notes/n_42"  # stays on the proxy
    assert missing.status_code == 404

    text = cassette.read_text()
    for secret in SECRETS:
        assert secret not in text
    head, *lines = [json.loads(line) for line in text.splitlines()]
    assert head["cassette"] == "contract-fakes/1" and head["service"] == "video" and head["upstream"] == upstream
    assert [(e["request"]["method"], e["request"]["path"], e["response"]["status"]) for e in lines] == [
        ("GET", "/profile", 200), ("GET", "/logo", 200), ("GET", "/big", 200), ("POST", "/notes", 201),
        ("GET", "/nothing", 404)]
    first = lines[0]
    assert first["request"]["headers"]["authorization"] == "Bearer [redacted]"
    assert first["request"]["headers"]["x-api-key"] == first["request"]["headers"]["cookie"] == "[redacted]"
    assert first["request"]["query"] == "api_key=[redacted]&view=full"
    assert first["response"]["headers"]["set-cookie"] == "[redacted]"
    assert json.loads(first["response"]["body"])["access_token"] == "[redacted]"
    assert json.loads(lines[3]["request"]["body"]) == {"title": "hello", "password": "[redacted]"}
    assert lines[1]["response"] == {"status": 200, "headers": {"content-type": "image/png"},
                                    "body_sha256": hashlib.sha256(PNG).hexdigest(), "body_length": len(PNG)}
    assert "body" not in lines[2]["response"] and lines[2]["response"]["body_length"] == 100_000
    times = [entry["t"] for entry in lines]
    assert times[0] == 0.0 and times == sorted(times)


def test_an_upstream_that_does_not_answer_is_a_502_and_recorded(tmp_path: Path) -> None:
    cassette = tmp_path / "down.jsonl"
    with ServerThread([(upstream_app, "127.0.0.1", 0)]) as [(host, port)]:
        pass  # nothing listens there any more
    writer = CassetteWriter(cassette, "video", f"http://{host}:{port}", service_redactor("video"))
    with ServerThread([(RecordingProxy(f"http://{host}:{port}", writer), "127.0.0.1", 0)]) as [(h, p)]:
        answer = httpx.get(f"http://{h}:{p}/videos")
    writer.close()
    assert answer.status_code == 502 and answer.json()["error"] == "bad_gateway"
    assert read_cassette(cassette).exchanges[0].status == 502


def video_session(base_url: str, fake: Fake) -> None:
    """What a client of the video API does: list, create, read, change, exchange its key for a token
    and use it, read the status, delete."""
    with httpx.Client(base_url=base_url, headers=fake.auth_headers()) as client:
        assert client.get("/videos", params={"pageSize": 2}).status_code == 200
        created = client.post("/videos", json={"title": "recorded", "tags": ["demo"]})
        video = created.json()["videoId"]
        assert client.get(f"/videos/{video}").status_code == 200
        assert client.patch(f"/videos/{video}", json={"title": "renamed"}).status_code == 200
        key = base64.b64decode(fake.auth_headers()["Authorization"].split()[1]).decode().rstrip(":")
        token = httpx.post(f"{base_url}/auth/api-key", json={"apiKey": key}).json()["access_token"]
        status = httpx.get(f"{base_url}/videos/{video}/status", headers={"Authorization": f"Bearer {token}"})
        assert status.status_code == 200
        assert client.delete(f"/videos/{video}").status_code == 204


@pytest.fixture(scope="module")
def video_cassette(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cassette = tmp_path_factory.mktemp("cassettes") / "video-session.jsonl"
    upstream = create_fake("video", clock="manual")
    with recording(upstream.app, cassette) as (proxy, _):
        video_session(proxy, upstream)
    return cassette


def test_a_recorded_session_replays_against_a_fresh_fake_with_no_difference(video_cassette: Path) -> None:
    report = replay_cassette(video_cassette)
    assert report.same, report.render()
    assert [step.replayed for step in report.steps] == [200, 201, 200, 200, 200, 200, 204]


def test_ids_and_credentials_are_carried_over_to_another_fake(video_cassette: Path) -> None:
    """Against a fake of another seed every id and key differs: the created video's id, the key
    exchanged for a token, the token itself are the fake's own in the replayed requests."""
    fake = create_fake("video", seed=7, clock="manual")
    report = replay_cassette(video_cassette, fake=fake)
    assert report.same, report.render()
    recorded = read_cassette(video_cassette).exchanges[1].json()["videoId"]
    [get] = fake.find_requests("GET", "/videos/*/status")
    assert recorded not in get["path"] and get["status"] == 200


def test_a_drifted_fake_shows_exactly_the_drift(video_cassette: Path) -> None:
    plants = (Plant("GET", r"/videos/vi\w+", rename=("title", "name")),
              Plant("DELETE", r"/videos/vi\w+", status=(204, 200)),
              Plant("POST", r"/videos", drop_header="x-ratelimit-remaining"),
              Plant("GET", r"/videos/vi\w+/status", error=(403, {"title": "forbidden", "status": 403})))
    report = replay_cassette(video_cassette, wrap=lambda app: Drifted(app, *plants))
    assert [(seq, operation, d.text) for seq, operation, d in report.differences] == [
        (2, "POST /videos", "real sends header `x-ratelimit-remaining`, fake does not"),
        (3, "GET /videos/{videoId}", "fake has `$.name`, real lacks it"),
        (3, "GET /videos/{videoId}", "real has `$.title`, fake lacks it"),
        (6, "GET /videos/{videoId}/status", "real 200, fake 403"),
        (7, "DELETE /videos/{videoId}", "real 204, fake 200"),
    ]
    assert "#3 GET /videos/" in report.render()


def test_the_recorded_gaps_move_the_fake_s_clock(tmp_path: Path) -> None:
    lines = [{"cassette": "contract-fakes/1", "service": "video"}] + [
        {"seq": n, "t": t, "request": {"method": "GET", "path": "/videos", "query": "", "headers": {}, "body": ""},
         "response": {"status": 401, "headers": {"content-type": "application/problem+json"}, "body": "{}"}}
        for n, t in ((1, 0.0), (2, 90.5), (3, 3600.0))]
    cassette = tmp_path / "gaps.jsonl"
    cassette.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    fake = create_fake("video", clock="manual")
    start = fake.clock.now_ms()
    replay_cassette(cassette, fake=fake)
    assert fake.clock.now_ms() - start == 3_600_000
    assert [e["epoch_ms"] - start for e in fake.journal_entries()] == [0, 90_500, 3_600_000]


def test_a_cassette_becomes_a_pytest_test(video_cassette: Path, pytester: pytest.Pytester) -> None:
    shutil.copy(video_cassette, pytester.path / "session.jsonl")
    write_pytest(pytester.path / "session.jsonl", pytester.path / "test_recorded_session.py")
    source = (pytester.path / "test_recorded_session.py").read_text()
    assert "CASSETTE = Path(__file__).parent / 'session.jsonl'" in source
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
    # the fake drifts from the recording (here: the recording says the delete answered 200)
    drifted = (pytester.path / "session.jsonl").read_text().replace('"status":204', '"status":200')
    (pytester.path / "session.jsonl").write_text(drifted)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*#7 DELETE /videos/vi* [[]DELETE /videos/{videoId}[]]", "*recorded 200, fake 204"])
