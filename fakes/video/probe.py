"""What an uploaded file is: duration, size, codecs of an MP4/MOV read without any native binary.

mutagen validates the file and gives its duration and audio figures; a small walk over the ISO
base media boxes (``moov/trak/{tkhd,mdia/{hdlr,mdhd,minf/stbl/{stsd,stts}}}``) gives the video
track's width, height, codec and frame rate, which mutagen does not read. A box that claims more
bytes than the file holds (a truncated upload) makes the file "not media", like any other file
mutagen cannot read: the service ingests it and then fails its encoding.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from typing import IO, Any

from mutagen import MutagenError
from mutagen.mp4 import MP4

from fakes.kernel.statecheck import StateReader

CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"edts"}
VIDEO_CODECS = {b"avc1": "h264", b"avc3": "h264", b"hvc1": "hevc", b"hev1": "hevc", b"vp09": "vp9", b"av01": "av1",
                b"mp4v": "mpeg4", b"apcn": "prores", b"apch": "prores", b"jpeg": "mjpeg"}
AUDIO_CODECS = {b"mp4a": "aac", b"ac-3": "ac3", b"ec-3": "eac3", b"Opus": "opus", b"fLaC": "flac", b"lpcm": "pcm",
                b"sowt": "pcm", b"twos": "pcm", b".mp3": "mp3"}
COMMON_RATIOS = ((16, 9), (9, 16), (4, 3), (3, 4), (1, 1), (21, 9), (3, 2), (2, 3))
MAX_DURATION_S = 30 * 86_400  # longer than any source the reference accepts (1,440 minutes)
MAX_MOOV = 64 * 1024 * 1024  # a moov larger than this is not what a test uploads; treat as not media


@dataclass(frozen=True)
class Probe:
    duration_s: float
    width: int | None
    height: int | None
    bitrate: float | None
    framerate: int | None
    samplerate: int | None
    video_codec: str | None
    audio_codec: str | None

    @property
    def aspect_ratio(self) -> str | None:
        if not self.width or not self.height:
            return None
        ratio = self.width / self.height
        for wide, high in COMMON_RATIOS:  # 426x240 is "16/9", as players and the reference say
            if abs(ratio - wide / high) <= 0.01 * wide / high:
                return f"{wide}/{high}"
        divisor = math.gcd(self.width, self.height)
        return f"{self.width // divisor}/{self.height // divisor}"

    def metadata(self) -> dict[str, Any]:
        return {"width": self.width, "height": self.height, "bitrate": self.bitrate,
                "duration": round(self.duration_s), "framerate": self.framerate, "samplerate": self.samplerate,
                "videoCodec": self.video_codec, "audioCodec": self.audio_codec, "aspectRatio": self.aspect_ratio}

    def to_state(self) -> dict[str, Any]:
        return dict(vars(self))

    @classmethod
    def from_state(cls, read: StateReader) -> Probe:
        """A probe of an imported state: each figure in the range a real file could give."""
        read.only(("duration_s", "width", "height", "bitrate", "framerate", "samplerate", "video_codec",
                   "audio_codec"))

        def optional_number(name: str) -> float | None:
            return None if read.raw(name) is None else read.number(name, minimum=0, maximum=10**12)

        return cls(read.number("duration_s", minimum=0, maximum=MAX_DURATION_S),
                   read.integer("width", minimum=0, maximum=100_000, nullable=True),
                   read.integer("height", minimum=0, maximum=100_000, nullable=True),
                   optional_number("bitrate"),
                   read.integer("framerate", minimum=0, maximum=10_000, nullable=True),
                   read.integer("samplerate", minimum=0, maximum=10_000_000, nullable=True),
                   read.text("video_codec", max_length=32, nullable=True),
                   read.text("audio_codec", max_length=32, nullable=True))


def probe(handle: IO[bytes], size: int) -> Probe | None:
    """The file's figures, or None when it is not a readable MP4/MOV."""
    try:
        moov = _find_moov(handle, size)
        if moov is None:
            return None
        handle.seek(0)
        info: Any = MP4(handle).info  # type: ignore[no-untyped-call]
    except (MutagenError, struct.error, ValueError, OSError, IndexError):
        return None
    except Exception:  # whatever a hostile file makes the parser raise, it is not media
        return None
    duration = float(info.length or 0.0)
    if duration <= 0:
        return None
    video = _video_track(moov)
    sample_rate = int(info.sample_rate) if getattr(info, "sample_rate", 0) else None
    audio_codec = None
    for track in _tracks(moov):
        if track.get("handler") == b"soun":
            audio_codec = AUDIO_CODECS.get(track.get("fourcc", b""), (track.get("fourcc") or b"").decode("latin-1"))
            break
    return Probe(duration_s=round(duration, 3), width=video.get("width"), height=video.get("height"),
                 bitrate=round(size * 8 / duration, 1), framerate=video.get("framerate"), samplerate=sample_rate,
                 video_codec=video.get("codec"), audio_codec=audio_codec)


def _boxes(data: bytes, start: int, end: int) -> list[tuple[bytes, int, int]]:
    """(type, payload start, payload end) of the boxes in data[start:end]; ValueError if one overruns."""
    found = []
    offset = start
    while offset + 8 <= end:
        size, kind = struct.unpack_from(">I4s", data, offset)
        header = 8
        if size == 1:
            size = struct.unpack_from(">Q", data, offset + 8)[0]
            header = 16
        elif size == 0:
            size = end - offset
        if size < header or offset + size > end:
            raise ValueError(f"box {kind!r} overruns its parent")
        found.append((kind, offset + header, offset + size))
        offset += size
    return found


def _find_moov(handle: IO[bytes], size: int) -> bytes | None:
    """The moov box's bytes after checking that every top-level box fits in the file."""
    offset = 0
    moov = None
    while offset + 8 <= size:
        handle.seek(offset)
        header = handle.read(16)
        if len(header) < 8:
            return None
        box_size, kind = struct.unpack_from(">I4s", header)
        head = 8
        if box_size == 1:
            if len(header) < 16:
                return None
            box_size, head = struct.unpack_from(">Q", header, 8)[0], 16
        elif box_size == 0:
            box_size = size - offset
        if box_size < head or offset + box_size > size:
            return None  # truncated: the box claims bytes the file does not hold
        if kind == b"moov":
            if box_size > MAX_MOOV:
                return None
            handle.seek(offset)
            moov = handle.read(box_size)
        offset += box_size
    if offset != size and size - offset < 8 and size - offset != 0:
        return None
    return moov


def _tracks(moov: bytes) -> list[dict[str, Any]]:
    tracks = []
    for kind, start, end in _boxes(moov, 8, len(moov)):
        if kind == b"trak":
            tracks.append(_track(moov, start, end))
    return tracks


def _track(data: bytes, start: int, end: int) -> dict[str, Any]:
    track: dict[str, Any] = {}

    def walk(lo: int, hi: int) -> None:
        for kind, s, e in _boxes(data, lo, hi):
            if kind in CONTAINERS:
                walk(s, e)
            elif kind == b"tkhd" and e - s >= 8:
                width, height = struct.unpack_from(">II", data, e - 8)
                track["width"], track["height"] = width >> 16, height >> 16
            elif kind == b"hdlr" and e - s >= 12:
                # the first hdlr is the media's; MOV adds a data handler (alis) inside minf
                track.setdefault("handler", data[s + 8:s + 12])
            elif kind == b"mdhd" and e - s >= 24:
                version = data[s]
                if version == 1 and e - s >= 32:
                    track["timescale"] = struct.unpack_from(">I", data, s + 20)[0]
                else:
                    track["timescale"] = struct.unpack_from(">I", data, s + 12)[0]
            elif kind == b"stsd" and e - s >= 16:
                track["fourcc"] = data[s + 12:s + 16]
            elif kind == b"stts" and e - s >= 16:
                entries = struct.unpack_from(">I", data, s + 4)[0]
                if entries:
                    track["delta"] = struct.unpack_from(">I", data, s + 12)[0]

    walk(start, end)
    return track


def _video_track(moov: bytes) -> dict[str, Any]:
    for track in _tracks(moov):
        if track.get("handler") == b"vide":
            fourcc = track.get("fourcc", b"")
            framerate = None
            if track.get("timescale") and track.get("delta"):
                framerate = round(track["timescale"] / track["delta"])
            return {"width": track.get("width") or None, "height": track.get("height") or None,
                    "codec": VIDEO_CODECS.get(fourcc, fourcc.decode("latin-1") or None), "framerate": framerate}
    return {}
