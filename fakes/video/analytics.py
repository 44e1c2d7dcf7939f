"""Viewing analytics computed from play sessions: real deliveries and plays set up by tests.

A session is one viewer's viewing of one video or live stream: its impression (the content loaded),
a play once anything was watched, the seconds watched, whether it was watched to the end. The fake
records one for each load of its player page and for each HLS segment or MP4 it serves (segments
from one viewer, by address and user agent, within ``SESSION_GAP_MS`` of each other extend one
session), and ``POST /_fake/plays`` adds any number with the viewer, country, device, operating
system, browser, referrer, watched seconds and instant a test chooses. The three analytics
endpoints compute their figures from the sessions of the caller's project at request time:

* ``play`` (count of sessions that played), ``start`` (the same: playback started), ``end``
  (watched to the end), ``impression`` (every session), ``play-rate`` (plays / impressions),
  ``play-total`` (plays of all time), ``impression-time`` and ``watch-time`` (average or sum, ms and
  seconds), ``view`` (sessions that watched at least ``viewDuration``, 5 s by default; ``unique``:
  one per viewer and UTC day), ``ccv`` (concurrent viewers: peak, time average, or ``live``, the
  peak of the last 20 seconds; ``unique``: one per viewer).
* A session counts in a timeframe by its start (``ccv``: by its overlap), ``to`` excluded.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from fakes.kernel.clock import MAX_EPOCH_MS
from fakes.kernel.statecheck import check_integer, check_text, refuse

from .geo import CONTINENT_OF

SESSION_GAP_MS = 30 * 60_000
DAY_MS = 86_400_000
LIVE_WINDOW_MS = 20_000
DEVICE_TYPES = ("computer", "phone", "tablet", "tv", "console", "wearable", "unknown")
MEDIA_TYPES = ("video", "live-stream")
#: dimension of a breakdown -> the session field it reads
BREAKDOWNS: dict[str, Callable[[Session], str]] = {}
FIELDS = ("start_ms", "last_ms", "project_id", "media_id", "media_type", "viewer", "country", "device", "os",
          "browser", "referrer", "seconds", "ended", "impression_ms", "delivered")


@dataclass(slots=True)
class Session:
    start_ms: int
    last_ms: int
    project_id: str
    media_id: str
    media_type: str
    viewer: str
    country: str
    device: str
    os: str
    browser: str
    referrer: str
    seconds: float = 0.0
    ended: bool = False
    impression_ms: int = 500
    delivered: bool = False  # from the fake's own player and HLS (a later segment may extend it)

    @property
    def played(self) -> bool:
        return self.seconds > 0

    @property
    def continent(self) -> str:
        return CONTINENT_OF.get(self.country, "")

    def end_ms(self) -> int:
        return self.start_ms + max(1, round(self.seconds * 1000))

    def to_state(self) -> list[Any]:
        return [getattr(self, name) for name in FIELDS]


BREAKDOWNS.update({
    "media-id": lambda s: s.media_id, "media-type": lambda s: s.media_type, "continent": lambda s: s.continent,
    "country": lambda s: s.country, "device-type": lambda s: s.device, "operating-system": lambda s: s.os,
    "browser": lambda s: s.browser, "referrer": lambda s: s.referrer,
})


@dataclass(frozen=True)
class Query:
    """One analytics question: the timeframe, the counting rules and the filters."""

    start_ms: int
    end_ms: int
    now_ms: int
    unique: bool = False
    view_ms: int = 5_000
    filters: tuple[tuple[str, frozenset[str]], ...] = ()
    #: media ids having the ``tag`` filter's tag (None: no tag filter)
    tagged: frozenset[str] | None = None


def user_agent_facts(agent: str) -> tuple[str, str, str]:
    """(device type, operating system, browser) read from a User-Agent header."""
    text = agent.lower()
    if "ipad" in text or ("android" in text and "mobile" not in text):
        device = "tablet"
    elif "iphone" in text or "mobile" in text:
        device = "phone"
    elif "smart-tv" in text or "smarttv" in text or "tizen" in text:
        device = "tv"
    elif "playstation" in text or "xbox" in text or "nintendo" in text:
        device = "console"
    elif any(word in text for word in ("windows", "macintosh", "x11", "linux", "cros")):
        device = "computer"
    else:
        device = "unknown"
    os = next((name for word, name in (("iphone", "ios"), ("ipad", "ios"), ("android", "android"),
                                       ("windows", "windows"), ("mac os x", "mac osx"), ("linux", "linux"))
               if word in text), "unknown")
    browser = next((name for word, name in (("edg/", "edge"), ("opr/", "opera"), ("opera", "opera"),
                                            ("firefox/", "firefox"), ("chrome/", "chrome"), ("safari/", "safari"))
                    if word in text), "unknown")
    return device, os, browser


MAX_REMEMBERED_ANSWERS = 64


@dataclass
class Analytics:
    sessions: dict[str, list[Session]] = field(default_factory=dict)  # project -> sessions
    open: dict[tuple[str, str], Session] = field(default_factory=dict)  # (media, viewer) -> latest delivered
    #: rendered answers of the analytics endpoints, until a session changes (see remembered())
    answers: dict[tuple[Any, ...], bytes] = field(default_factory=dict, repr=False, compare=False)

    def remembered(self, key: tuple[Any, ...]) -> bytes | None:
        """The answer kept for ``key`` (the request, its instant and what else it read), if no session
        changed since: a dashboard polls the same figures again and again."""
        return self.answers.get(key)

    def remember(self, key: tuple[Any, ...], body: bytes) -> None:
        if len(self.answers) >= MAX_REMEMBERED_ANSWERS:
            self.answers.clear()
        self.answers[key] = body

    def add(self, session: Session) -> Session:
        self.answers.clear()
        self.sessions.setdefault(session.project_id, []).append(session)
        if session.delivered:
            self.open[(session.media_id, session.viewer)] = session
        return session

    def delivered(self, template: Session, seconds: float, *, ended: bool, impression: bool) -> Session:
        """A real delivery: a new session for a page load (``impression``), else the viewer's
        session of this media if it was active within the gap, else a new one."""
        self.answers.clear()
        key = (template.media_id, template.viewer)
        current = None if impression else self.open.get(key)
        if current is None or template.start_ms - current.last_ms > SESSION_GAP_MS:
            current = self.add(template)
        current.last_ms = max(current.last_ms, template.start_ms)
        current.seconds += max(0.0, seconds)
        current.ended = current.ended or ended
        return current

    def forget_project(self, project_id: str) -> None:
        self.answers.clear()
        self.sessions.pop(project_id, None)

    # -- figures -------------------------------------------------------------------------------
    def chosen(self, project_id: str, query: Query, *, timeframe: bool = True, overlap: bool = False) -> list[Session]:
        found = []
        for session in self.sessions.get(project_id, ()):
            if timeframe:
                if overlap:
                    if session.start_ms >= query.end_ms or session.end_ms() <= query.start_ms:
                        continue
                elif not query.start_ms <= session.start_ms < query.end_ms:
                    continue
            if query.tagged is not None and session.media_id not in query.tagged:
                continue
            if all(BREAKDOWNS[name](session) in values for name, values in query.filters):
                found.append(session)
        return found

    def value(self, project_id: str, metric: str, aggregation: str, query: Query) -> float:
        """One figure: ``metric`` is a bucket/timeseries metric name, or ``watch-time`` /
        ``impression-time`` with ``aggregation`` average or sum."""
        if metric == "play-total":
            return float(sum(1 for s in self.chosen(project_id, query, timeframe=False) if s.played))
        if metric.startswith("ccv"):
            window = query
            if aggregation == "live":
                start = max(query.now_ms - LIVE_WINDOW_MS, 0)
                window = Query(start, query.now_ms, query.now_ms, query.unique, query.view_ms, query.filters,
                               query.tagged)
            chosen = self.chosen(project_id, window, overlap=True)
            return concurrency(chosen, window.start_ms, window.end_ms, unique=window.unique,
                               average=aggregation == "average")
        return figure(self.chosen(project_id, query), metric, aggregation, query)

    # -- state ---------------------------------------------------------------------------------
    def to_state(self) -> list[list[Any]]:
        return [s.to_state() for sessions in self.sessions.values() for s in sessions]

    def load_state(self, rows: list[Any], where: str, projects: Iterable[str]) -> None:
        known = set(projects)
        for index, row in enumerate(rows):
            at = f"{where}[{index}]"
            if not isinstance(row, list) or len(row) != len(FIELDS):
                refuse(at, f"must be a list of {len(FIELDS)} values: {', '.join(FIELDS)}")
            values = dict(zip(FIELDS, row, strict=True))
            start = check_integer(values["start_ms"], f"{at}.start_ms", minimum=0, maximum=MAX_EPOCH_MS)
            check_integer(values["last_ms"], f"{at}.last_ms", minimum=start, maximum=MAX_EPOCH_MS)
            check_integer(values["impression_ms"], f"{at}.impression_ms", minimum=0, maximum=3_600_000)
            for name in ("project_id", "media_id", "viewer", "country", "device", "os", "browser"):
                check_text(values[name], f"{at}.{name}", max_length=200)
            check_text(values["referrer"], f"{at}.referrer", max_length=2048)
            if values["media_type"] not in MEDIA_TYPES:
                refuse(f"{at}.media_type", f"must be one of {', '.join(MEDIA_TYPES)}")
            seconds = values["seconds"]
            if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or \
                    not math.isfinite(seconds) or not 0 <= seconds <= 10**9:
                refuse(f"{at}.seconds", "must be a number of seconds from 0 to 1e9")
            for name in ("ended", "delivered"):
                if not isinstance(values[name], bool):
                    refuse(f"{at}.{name}", "must be true or false")
            if values["project_id"] not in known:
                refuse(f"{at}.project_id", "names no project of this state")
            values["seconds"] = float(seconds)
            self.add(Session(**values))


def figure(sessions: list[Session], metric: str, aggregation: str, query: Query) -> float:
    played = [s for s in sessions if s.played]
    if metric in ("play", "start"):
        return float(len(played))
    if metric == "end":
        return float(sum(1 for s in sessions if s.ended))
    if metric == "impression":
        return float(len(sessions))
    if metric == "play-rate":
        return len(played) / len(sessions) if sessions else 0.0
    if metric == "impression-time":
        total = float(sum(s.impression_ms for s in sessions))
        return total if aggregation == "sum" else (total / len(sessions) if sessions else 0.0)
    if metric == "watch-time":
        total = sum(s.seconds for s in played)
        return round(total, 3) if aggregation == "sum" else (round(total / len(played), 3) if played else 0.0)
    if metric == "view":
        views = [s for s in sessions if s.seconds * 1000 >= query.view_ms]
        if query.unique:
            return float(len({(s.viewer, s.start_ms // DAY_MS) for s in views}))
        return float(len(views))
    raise ValueError(f"unknown metric {metric}")


def concurrency(sessions: list[Session], start_ms: int, end_ms: int, *, unique: bool, average: bool) -> float:
    """Peak (or time-averaged) number of sessions watching at once within [start_ms, end_ms)."""
    spans = [(max(s.start_ms, start_ms), min(s.end_ms(), end_ms), s.viewer) for s in sessions if s.played]
    if unique:  # one viewer watching in two tabs counts once: merge each viewer's spans
        merged: list[tuple[int, int, str]] = []
        for begin, finish, viewer in sorted(spans, key=lambda x: (x[2], x[0])):
            if merged and merged[-1][2] == viewer and begin <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], finish), viewer)
            else:
                merged.append((begin, finish, viewer))
        spans = merged
    spans = [span for span in spans if span[1] > span[0]]
    if average:
        length = end_ms - start_ms
        return round(sum(f - b for b, f, _ in spans) / length, 3) if length > 0 else 0.0
    events = sorted([(b, 1) for b, _, _ in spans] + [(f, -1) for _, f, _ in spans])
    peak = current = 0
    for _, step in events:
        current += step
        peak = max(peak, current)
    return float(peak)
