"""The encoding timeline of one uploaded source, as instants on the fake's clock.

Once the last byte arrives (instant U) the source waits ``queue_s`` (ingest status ``uploaded``),
ingests for ``ingest_base_s + duration * ingest_per_source_s`` (``ingesting``), then each quality
encodes after the previous one for ``encode_base_s + duration * encode_per_source_s``: HLS from
240p up to the source's height (a source under 240 pixels gets 240p only), then the MP4 at the top
rung when ``mp4Support``. The video is playable when the first quality is encoded. The transcript is
ready ``duration * caption_per_source_s`` after the last quality: the captions then (when asked
for), and a summary ``summary_delay_s`` after the transcript or its own request, the later
(summaries.py). Nothing is scheduled: the status is computed from these instants whenever it is read.
"""

from __future__ import annotations

from dataclasses import dataclass

from .settings import VideoSettings

RUNGS = ((240, "240p"), (360, "360p"), (480, "480p"), (720, "720p"), (1080, "1080p"), (2160, "2160p"))
BANDWIDTH = {"240p": 400_000, "360p": 800_000, "480p": 1_400_000, "720p": 2_800_000, "1080p": 5_000_000,
             "2160p": 14_000_000}
RESOLUTION = {"240p": (426, 240), "360p": (640, 360), "480p": (854, 480), "720p": (1280, 720),
              "1080p": (1920, 1080), "2160p": (3840, 2160)}


def ladder(height: int | None) -> list[str]:
    """HLS qualities for a source of this height: every rung up to it, 240p at least."""
    found = [label for rung, label in RUNGS if height is not None and rung <= height]
    return found or ["240p"]


@dataclass(frozen=True)
class Step:
    encoding: str  # hls | mp4
    quality: str
    start_ms: int
    end_ms: int

    def status(self, now_ms: int) -> str:
        if now_ms >= self.end_ms:
            return "encoded"
        return "encoding" if now_ms >= self.start_ms else "waiting"


@dataclass(frozen=True)
class Timeline:
    uploaded_ms: int
    ingest_start_ms: int
    ingested_ms: int
    steps: tuple[Step, ...]
    failed: bool
    transcribed_ms: int | None  # the transcript (for captions and summaries) is ready
    caption_ms: int | None  # = transcribed_ms when the video asked for captions

    @property
    def playable_ms(self) -> int | None:
        return None if self.failed or not self.steps else self.steps[0].end_ms

    @property
    def encoded_ms(self) -> int | None:
        return None if self.failed or not self.steps else self.steps[-1].end_ms

    def ingest_status(self, now_ms: int) -> str:
        if now_ms >= self.ingested_ms:
            return "ingested"
        return "ingesting" if now_ms >= self.ingest_start_ms else "uploaded"

    def qualities(self, now_ms: int) -> list[dict[str, str]]:
        if now_ms < self.ingested_ms:
            return []
        if self.failed:
            return [{"type": "hls", "quality": "240p", "status": "failed"}]
        return [{"type": s.encoding, "quality": s.quality, "status": s.status(now_ms)} for s in self.steps]

    def encoded_hls(self, now_ms: int) -> list[str]:
        return [s.quality for s in self.steps if s.encoding == "hls" and now_ms >= s.end_ms]

    def mp4_ready(self, now_ms: int) -> bool:
        return any(s.encoding == "mp4" and now_ms >= s.end_ms for s in self.steps)

    def will_encode(self, encoding: str, quality: str | None = None) -> bool:
        """Whether this encoding (of this quality) is planned: encoded already or to come."""
        return any(s.encoding == encoding and quality in (None, s.quality) for s in self.steps)


def build(settings: VideoSettings, uploaded_ms: int, duration_s: float | None, height: int | None, *,
          mp4: bool, transcript: bool) -> Timeline:
    """The instants of a source received at ``uploaded_ms``; ``duration_s`` None means not media."""
    seconds = duration_s or 0.0
    ingest_start = uploaded_ms + round(settings.queue_s * 1000)
    ingested = ingest_start + round((settings.ingest_base_s + seconds * settings.ingest_per_source_s) * 1000)
    if duration_s is None:
        return Timeline(uploaded_ms, ingest_start, ingested, (), True, None, None)
    per_quality = round((settings.encode_base_s + seconds * settings.encode_per_source_s) * 1000)
    steps = []
    cursor = ingested
    labels = ladder(height)
    plan = [("hls", label) for label in labels] + ([("mp4", labels[-1])] if mp4 else [])
    for encoding, quality in plan:
        steps.append(Step(encoding, quality, cursor, cursor + per_quality))
        cursor += per_quality
    transcribed = cursor + round(seconds * settings.caption_per_source_s * 1000)
    return Timeline(uploaded_ms, ingest_start, ingested, tuple(steps), False, transcribed,
                    transcribed if transcript else None)
