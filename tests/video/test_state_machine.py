"""Stateful property test: random creates, uploads (whole, in parts, refused), patches, deletes,
webhook subscriptions and clock moves over HTTP against the sandbox fake.

The machine keeps its own expectations and checks after every step that the fake:
* lists exactly the videos that were created, not deleted and younger than 24 hours (oldest first);
* answers 404 for every other one, from the instant of its deletion on;
* reports a status consistent with the clock: ``playable`` exactly when the first quality is
  encoded, qualities never past the source's ladder, never going backwards;
* refuses every source over 30 seconds and keeps the video uploadable;
* answers bad input with a 4xx in the problem shape, never a 5xx;
* answers the same after its state is exported and imported into a new fake mid-run.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from fakes.video import VideoFake

from .helpers import CLIP_2S, CLIP_31S, CLIP_720P, basic

RANK = {"waiting": 0, "encoding": 1, "encoded": 2, "failed": 2}
MEDIA = {"2s": CLIP_2S.read_bytes(), "720p": CLIP_720P.read_bytes(), "31s": CLIP_31S.read_bytes(),
         "junk": b"not a video at all" * 20}
DAY_MS = 86_400_000


@dataclass
class Tracked:
    video_id: str
    created_ms: int
    title: str
    source: str | None = None  # which media was accepted
    last_ranks: tuple[int, ...] = ()


class VideoMachine(RuleBasedStateMachine):
    @initialize()
    def start(self) -> None:
        self.fake = VideoFake(seed=1, min_chunk_bytes=1000, **VideoFake.settings_for_tests())
        self.key = self.fake.create_project()["sandbox_key"]
        self.client = self.fake.client(headers=basic(self.key))
        self.videos: dict[str, Tracked] = {}
        self.deleted: set[str] = set()

    def teardown(self) -> None:
        self.client.close()

    def now(self) -> int:
        return self.fake.clock.now_ms()

    def alive(self) -> list[Tracked]:
        return [t for t in self.videos.values() if t.video_id not in self.deleted
                and self.now() < t.created_ms + DAY_MS]

    def pick(self, index: int) -> Tracked | None:
        known = sorted(self.videos.values(), key=lambda t: t.created_ms)
        return known[index % len(known)] if known else None

    # -- rules -----------------------------------------------------------------------------------
    @rule(title=st.text(min_size=1, max_size=12).filter(lambda t: t.strip() == t and t))
    def create(self, title: str) -> None:
        response = self.client.post("/videos", json={"title": title, "transcript": True})
        assert response.status_code == 201, response.text
        body = response.json()
        self.videos[body["videoId"]] = Tracked(body["videoId"], self.now(), title)

    @rule(index=st.integers(0, 50), media=st.sampled_from(sorted(MEDIA)), chunked=st.booleans())
    def upload(self, index: int, media: str, chunked: bool) -> None:
        tracked = self.pick(index)
        if tracked is None:
            return
        data = MEDIA[media]
        path = f"/videos/{tracked.video_id}/source"
        if chunked and len(data) > 2000:
            pieces = [(data[:1000], "part 1/2"), (data[1000:], "part 2/2")]
        else:
            pieces = [(data, None)]
        responses = [self.client.post(path, files={"file": ("f.mp4", piece)},
                                      headers={"Content-Range": header} if header else {})
                     for piece, header in pieces]
        last = responses[-1]
        alive = tracked in self.alive()
        if not alive:
            assert all(r.status_code == 404 for r in responses)
        elif tracked.source is not None:
            assert responses[0].status_code == 400
            assert responses[0].json()["type"].endswith("video-source-already-uploaded")
        elif media == "31s":
            assert last.status_code == 400 and "30-second" in last.json()["detail"]
        else:
            assert last.status_code == 201, last.text
            tracked.source = media

    @rule(index=st.integers(0, 50), title=st.text(min_size=1, max_size=8))
    def patch(self, index: int, title: str) -> None:
        tracked = self.pick(index)
        if tracked is None:
            return
        response = self.client.patch(f"/videos/{tracked.video_id}", json={"title": title})
        if tracked in self.alive():
            assert response.status_code == 200 and response.json()["title"] == title
            tracked.title = title
        else:
            assert response.status_code == 404

    @rule(index=st.integers(0, 50))
    def delete(self, index: int) -> None:
        tracked = self.pick(index)
        if tracked is None:
            return
        response = self.client.delete(f"/videos/{tracked.video_id}")
        assert response.status_code == (204 if tracked in self.alive() else 404)
        self.deleted.add(tracked.video_id)

    @rule(seconds=st.sampled_from([0.5, 1, 3, 7, 30, 600, 3600, 43_200, 86_399, 86_400]))
    def advance(self, seconds: float) -> None:
        self.fake.advance(seconds)

    @rule(body=st.sampled_from([b"{", b"[]", b'{"title": 5}', b'{"title": ""}', b'{"title": "t", "x": 1}',
                                b'{"title": "t", "language": "xx"}']))
    def bad_create(self, body: bytes) -> None:
        response = self.client.post("/videos", content=body, headers={"content-type": "application/json"})
        assert response.status_code == 400, response.text
        assert response.json()["type"].startswith("https://docs.api.video/reference/")

    @rule()
    def export_and_import(self) -> None:
        state = json.loads(json.dumps(self.fake.export_state()))
        copy = VideoFake(seed=1, min_chunk_bytes=1000, **VideoFake.settings_for_tests())
        copy.import_state(state)
        with copy.client(headers=basic(self.key)) as other:
            mine = self.client.get("/videos", params={"pageSize": 100}).json()
            theirs = other.get("/videos", params={"pageSize": 100}).json()
            assert mine == theirs

    # -- invariants ------------------------------------------------------------------------------
    @invariant()
    def listing_matches(self) -> None:
        if not hasattr(self, "fake"):
            return
        listed = self.client.get("/videos", params={"pageSize": 100}).json()["data"]
        expected = sorted(self.alive(), key=lambda t: t.created_ms)
        assert [v["videoId"] for v in listed] == [t.video_id for t in expected]
        assert [v["title"] for v in listed] == [t.title for t in expected]

    @invariant()
    def statuses_are_truthful(self) -> None:
        if not hasattr(self, "fake"):
            return
        alive = self.alive()
        for tracked in self.videos.values():
            response = self.client.get(f"/videos/{tracked.video_id}/status")
            if tracked not in alive:
                assert response.status_code == 404
                continue
            body = response.json()["encoding"]
            qualities = body["qualities"]
            assert body["playable"] == any(q["status"] == "encoded" for q in qualities)
            if tracked.source is None:
                assert qualities == [] and body["playable"] is False
                continue
            ladder = {"2s": {"240p"}, "720p": {"240p", "360p", "480p", "720p"}, "junk": {"240p"}}[tracked.source]
            assert {q["quality"] for q in qualities} <= ladder
            if tracked.source == "junk":
                assert all(q["status"] == "failed" for q in qualities)
            ranks = tuple(RANK[q["status"]] for q in qualities)
            if tracked.last_ranks and len(ranks) == len(tracked.last_ranks):
                assert all(a >= b for a, b in zip(ranks, tracked.last_ranks, strict=True))  # never backwards
            tracked.last_ranks = ranks or tracked.last_ranks


VideoMachine.TestCase.settings = settings(
    max_examples=int(os.environ.get("FAKES_STATEFUL_EXAMPLES", "25")), stateful_step_count=20, deadline=None,
    derandomize=not os.environ.get("FAKES_HYPOTHESIS_EXPLORE"), suppress_health_check=list(HealthCheck))
test_video_state_machine = VideoMachine.TestCase


def test_machine_declares_every_rule() -> None:
    assert {name for name in dir(VideoMachine) if not name.startswith("_")} >= {
        "create", "upload", "patch", "delete", "advance", "bad_create", "export_and_import"}
