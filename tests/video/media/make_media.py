"""Make the tiny real test videos once (needs PyAV: `pip install av`; the tests do not).

    python tests/video/media/make_media.py

Writes MP4/MOV files next to this script and prints the base64 of the stand-in HLS segment and
JPEG thumbnail that fakes/video/media.py embeds (``--thumbnail`` prints only the thumbnail). Black
frames at 1 fps with silent AAC keep every file a few kilobytes while mutagen and any player read
real durations and codecs; the thumbnail is a test card (colour bars), so it shows as a picture.
"""

from __future__ import annotations

import base64
import io
import sys
from fractions import Fraction
from pathlib import Path

import av

HERE = Path(__file__).parent


def filled_frame(width: int, height: int, grey: int) -> av.VideoFrame:
    frame = av.VideoFrame(width, height, "rgb24")
    plane = frame.planes[0]
    plane.update(bytes([grey]) * plane.buffer_size)
    return frame


def write(target: str | io.BytesIO, seconds: int, width: int, height: int, container: str,
          audio: bool = True) -> None:
    with av.open(target, mode="w", format=container) as out:
        video = out.add_stream("libx264", rate=1)
        video.width, video.height, video.pix_fmt = width, height, "yuv420p"
        video.options = {"preset": "veryslow", "crf": "51"}
        sound = None
        if audio:
            sound = out.add_stream("aac", rate=8000)
            sound.layout = "mono"
        for second in range(seconds):
            frame = filled_frame(width, height, 0)
            frame.pts, frame.time_base = second, Fraction(1, 1)
            out.mux(video.encode(frame))
            if sound is not None:
                for block in range(8000 // 1024 + 1):
                    samples = av.AudioFrame(format="fltp", layout="mono", samples=1024)
                    samples.planes[0].update(bytes(samples.planes[0].buffer_size))
                    samples.sample_rate = 8000
                    samples.pts = second * 8000 + block * 1024
                    if samples.pts >= (second + 1) * 8000:
                        break
                    out.mux(sound.encode(samples))
        out.mux(video.encode(None))
        if sound is not None:
            out.mux(sound.encode(None))


#: colour bars at 75 %: white, yellow, cyan, green, magenta, red, blue
BARS = [(191, 191, 191), (191, 191, 0), (0, 191, 191), (0, 191, 0), (191, 0, 191), (191, 0, 0), (0, 0, 191)]


def test_card(width: int, height: int) -> av.VideoFrame:
    """Colour bars over two thirds of the picture and a grey ramp below: a thumbnail anyone can
    see is a picture (a black frame looks like a broken image in a dashboard)."""
    rows = []
    bars = bytes(channel for x in range(width) for channel in BARS[x * len(BARS) // width])
    ramp = bytes(value for x in range(width) for value in [x * 255 // (width - 1)] * 3)
    for y in range(height):
        rows.append(bars if y < height * 2 // 3 else ramp)
    frame = av.VideoFrame(width, height, "rgb24")
    plane = frame.planes[0]
    stride = plane.line_size
    plane.update(b"".join(row + bytes(stride - len(row)) for row in rows))
    return frame


def jpeg(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    with av.open(buffer, mode="w", format="image2pipe") as out:
        stream = out.add_stream("mjpeg", rate=1)
        stream.width, stream.height, stream.pix_fmt = width, height, "yuvj420p"
        out.mux(stream.encode(test_card(width, height).reformat(format="yuvj420p")))
        out.mux(stream.encode(None))
    return buffer.getvalue()


def main() -> None:
    if "--thumbnail" in sys.argv:
        print("THUMBNAIL =", base64.b64encode(jpeg(426, 240)).decode())
        return
    write(str(HERE / "clip_2s_240p.mp4"), 2, 426, 240, "mp4")
    write(str(HERE / "clip_31s_240p.mp4"), 31, 426, 240, "mp4")
    write(str(HERE / "clip_40s_240p.mp4"), 40, 426, 240, "mp4")
    write(str(HERE / "clip_3s_720p.mov"), 3, 1280, 720, "mov")
    segment = io.BytesIO()
    write(segment, 2, 426, 240, "mpegts")
    if "--print" in sys.argv:
        print("SEGMENT =", base64.b64encode(segment.getvalue()).decode())
        print("THUMBNAIL =", base64.b64encode(jpeg(426, 240)).decode())


if __name__ == "__main__":
    main()
