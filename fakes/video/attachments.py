"""What is attached to a video after its creation: uploaded captions and chapters, a thumbnail.

Captions: the generated ones (transcripts, timeline.py) stay as they are; an uploaded WebVTT is
kept per language tag (languages.py) and listed after them, replacing a generated caption of the
same tag while it exists; one caption of a video may be its ``default``. Chapters: one WebVTT
per tag. Thumbnail: an uploaded JPEG, or a frame picked by timecode (the stand-in frame: the fake
decodes no video). Texts and images live in memory and go with the state.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from fakes.kernel.statecheck import StateReader, check_text, refuse

from .images import Image
from .languages import CAPTION_LANGUAGES, canonical_tag
from .problems import invalid_attribute, not_found, upload_error

MAX_TRACK_BYTES = 1024 * 1024
TIMECODE = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]{2})?")  # a picked frame, as kept
VIDEO_ID = r"vi[0-9A-Za-z]{22}"


def language_tag(raw: str) -> str:
    """The covered tag of a path's ``language``, or the reference's 400."""
    tag = canonical_tag(raw)
    if tag is None:
        if not re.fullmatch(r"[A-Za-z0-9-]{1,32}", raw):
            raise invalid_attribute("language", 'The "language" attribute must contain only letters and dashes '
                                                '(for example "fr", "fr-BE").')
        raise invalid_attribute("language", 'The "language" attribute is not valid.')
    return tag


def webvtt_text(data: bytes) -> str:
    """An uploaded WebVTT file as text, or the reference's invalid-file 400."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise upload_error("uploaded-file-invalid-file", "The uploaded file is invalid.",
                           "a WebVTT file is UTF-8 text") from None
    if not text.startswith("WEBVTT"):
        raise upload_error("uploaded-file-invalid-file", "The uploaded file is invalid.",
                           "a WebVTT file starts with WEBVTT")
    return text


#: what a pick payload's timecode may be (the reference's "Valid Patterns"): hh:mm:ss, hh:mm:ss.ms
#: (1 to 3 digits), hh:mm:ss:frameNumber, or a bare number of seconds ("124")
PICK_TIMECODE = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,3})|:([0-9]{1,4}))?"
                           r"|([0-9]{1,9})(\.[0-9]{1,3})?")
#: frames a second assumed for hh:mm:ss:frameNumber when the source's frame rate is unknown
DEFAULT_FRAME_RATE = 25
OUT_OF_RANGE = "00:00:00.00"  # what the reference picks for a selection out of range


def check_timecode(value: Any) -> re.Match[str]:
    """A pick payload's timecode in one of the reference's forms, or its 400."""
    match = PICK_TIMECODE.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        raise invalid_attribute("timecode", "timecode must be hh:mm:ss.ms, hh:mm:ss:frameNumber or a number of "
                                            "seconds")
    return match


def picked_timecode(match: re.Match[str], duration_s: float, framerate: int | None) -> str:
    """The frame a valid timecode selects in a source of ``duration_s`` seconds, as hh:mm:ss.cc;
    ``00:00:00.00`` when the selection is out of range (a minute or second past 59, a frame past
    the second's last, an instant past the end)."""
    hours, minutes, seconds, fraction, frame, whole, decimals = match.groups()
    if whole is not None:
        instant = int(whole) + (float(decimals) if decimals else 0.0)
    else:
        if int(minutes) > 59 or int(seconds) > 59:
            return OUT_OF_RANGE
        instant = int(hours) * 3600 + int(minutes) * 60 + int(seconds)
        if fraction is not None:
            instant += float("0." + fraction)
        elif frame is not None:
            rate = framerate or DEFAULT_FRAME_RATE
            if int(frame) >= rate:
                return OUT_OF_RANGE
            instant += int(frame) / rate
    if instant > duration_s:
        return OUT_OF_RANGE
    centis = int(instant * 100 + 1e-6)
    return f"{centis // 360_000:02d}:{centis // 6000 % 60:02d}:{centis // 100 % 60:02d}.{centis % 100:02d}"


@dataclass
class Attachments:
    captions: dict[str, dict[str, str]] = field(default_factory=dict)  # video -> tag -> WebVTT
    defaults: dict[str, str] = field(default_factory=dict)  # video -> the tag of its default caption
    chapters: dict[str, dict[str, str]] = field(default_factory=dict)  # video -> tag -> WebVTT
    thumbnails: dict[str, Image] = field(default_factory=dict)  # video -> an uploaded thumbnail
    picked: dict[str, str] = field(default_factory=dict)  # video -> the timecode of a picked frame

    # -- captions ------------------------------------------------------------------------------
    def caption_list(self, video_id: str, generated: str | None, base: str) -> list[dict[str, Any]]:
        """The video's captions: the generated one (``generated``: its tag, or None), then uploads."""
        tags = [generated] if generated is not None else []
        tags += [tag for tag in self.captions.get(video_id, {}) if tag != generated]
        default = self.defaults.get(video_id)
        return [caption_json(video_id, tag, base, tag == default) for tag in tags]

    def upload_caption(self, video_id: str, tag: str, text: str) -> None:
        self.captions.setdefault(video_id, {})[tag] = text

    def caption_text(self, video_id: str, tag: str) -> str | None:
        return self.captions.get(video_id, {}).get(tag)

    def set_default(self, video_id: str, tag: str, default: bool) -> None:
        if default:
            self.defaults[video_id] = tag
        elif self.defaults.get(video_id) == tag:
            del self.defaults[video_id]

    def delete_caption(self, video_id: str, tag: str) -> None:
        uploaded = self.captions.get(video_id, {})
        if tag not in uploaded:
            raise not_found("language")
        del uploaded[tag]
        if not uploaded:
            del self.captions[video_id]
        if self.defaults.get(video_id) == tag:
            del self.defaults[video_id]

    # -- chapters ------------------------------------------------------------------------------
    def chapter_list(self, video_id: str, base: str) -> list[dict[str, Any]]:
        return [chapter_json(video_id, tag, base) for tag in self.chapters.get(video_id, {})]

    def upload_chapter(self, video_id: str, tag: str, text: str) -> None:
        self.chapters.setdefault(video_id, {})[tag] = text

    def chapter_text(self, video_id: str, tag: str) -> str | None:
        return self.chapters.get(video_id, {}).get(tag)

    def delete_chapter(self, video_id: str, tag: str) -> None:
        found = self.chapters.get(video_id, {})
        if tag not in found:
            raise not_found("language")
        del found[tag]
        if not found:
            del self.chapters[video_id]

    # -- thumbnails ----------------------------------------------------------------------------
    def upload_thumbnail(self, video_id: str, image: Image) -> None:
        self.thumbnails[video_id] = image
        self.picked.pop(video_id, None)

    def pick_thumbnail(self, video_id: str, timecode: str) -> None:
        self.picked[video_id] = timecode
        self.thumbnails.pop(video_id, None)

    def forget(self, video_id: str) -> None:
        for table in (self.captions, self.defaults, self.chapters, self.thumbnails, self.picked):
            table.pop(video_id, None)

    # -- state ---------------------------------------------------------------------------------
    def to_state(self) -> dict[str, Any]:
        return {"captions": {v: dict(t) for v, t in self.captions.items()}, "defaults": dict(self.defaults),
                "chapters": {v: dict(t) for v, t in self.chapters.items()},
                "thumbnails": {v: image.to_state() for v, image in self.thumbnails.items()},
                "picked": dict(self.picked)}

    def load_state(self, read: StateReader, videos: dict[str, Any]) -> None:
        read.only(("captions", "defaults", "chapters", "thumbnails", "picked"))

        def video_key(table: str, key: str) -> str:
            if key not in videos:
                refuse(f"{read.where(table)}.{key}", "names no video of this state")
            return key

        for table, target in (("captions", self.captions), ("chapters", self.chapters)):
            for video_id, tracks in read.mapping(table).items():
                where = f"{read.where(table)}.{video_key(table, video_id)}"
                if not isinstance(tracks, dict) or not tracks:
                    refuse(where, "must be an object of language tags to WebVTT texts")
                for tag, text in tracks.items():
                    if tag not in CAPTION_LANGUAGES:
                        refuse(f"{where}.{tag}", "is not a covered language tag")
                    check_text(text, f"{where}.{tag}", max_length=MAX_TRACK_BYTES)
                    if not text.startswith("WEBVTT"):
                        refuse(f"{where}.{tag}", "must be a WebVTT text")
                target[video_id] = dict(tracks)
        for video_id, tag in read.mapping("defaults").items():
            if tag not in CAPTION_LANGUAGES:
                refuse(f"{read.where('defaults')}.{video_key('defaults', video_id)}", "is not a covered language tag")
            self.defaults[video_id] = tag
        thumbnails = read.object("thumbnails")
        for video_id in thumbnails.value:
            self.thumbnails[video_key("thumbnails", video_id)] = Image.from_state(thumbnails.object(video_id))
        for video_id, timecode in read.mapping("picked").items():
            where = f"{read.where('picked')}.{video_key('picked', video_id)}"
            if not isinstance(timecode, str) or not TIMECODE.fullmatch(timecode):
                refuse(where, "must be a timecode hh:mm:ss(.cc)")
            self.picked[video_id] = timecode


def caption_json(video_id: str, tag: str, base: str, default: bool) -> dict[str, Any]:
    return {"uri": f"/videos/{video_id}/captions/{tag}", "src": f"{base}/vod/{video_id}/captions/{tag}.vtt",
            "srclang": tag, "languageName": CAPTION_LANGUAGES[tag], "default": default}


def chapter_json(video_id: str, tag: str, base: str) -> dict[str, Any]:
    return {"uri": f"/videos/{video_id}/chapters/{tag}", "src": f"{base}/vod/{video_id}/chapters/{tag}.vtt",
            "language": tag}
