"""The streaming multipart reader: any chunking gives the same file bytes; garbage only ever raises
MultipartError (which the route turns into the service's 400)."""

from __future__ import annotations

import contextlib
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fakes.video.multipart import MultipartError, MultipartReader, TooManyFiles, boundary_of

BOUNDARY = b"----b0undary"


def body(file: bytes, *, extra_field: bytes = b"", filename: str = "a.mp4") -> bytes:
    parts = []
    if extra_field:
        parts.append(b"--" + BOUNDARY + b'\r\nContent-Disposition: form-data; name="title"\r\n\r\n' + extra_field)
    parts.append(b"--" + BOUNDARY + f'\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
                 .encode() + b"Content-Type: video/mp4\r\n\r\n" + file)
    return b"\r\n".join(parts) + b"\r\n--" + BOUNDARY + b"--\r\n"


def read(raw: bytes, cuts: list[int]) -> tuple[bytes, MultipartReader]:
    sink = io.BytesIO()
    reader = MultipartReader(BOUNDARY, lambda _name: sink, max_file_bytes=10**9)
    start = 0
    for cut in [*sorted({c % (len(raw) + 1) for c in cuts}), len(raw)]:
        reader.feed(raw[start:cut])
        start = cut
    reader.close()
    return sink.getvalue(), reader


@settings(max_examples=300, deadline=None)
@given(file=st.binary(max_size=400), extra=st.binary(max_size=40).filter(lambda b: b"--" not in b),
       cuts=st.lists(st.integers(0, 2000), max_size=12))
def test_any_chunking_yields_exactly_the_file(file: bytes, extra: bytes, cuts: list[int]) -> None:
    raw = body(file, extra_field=extra)
    got, reader = read(raw, cuts)
    assert got == file and reader.file_bytes == len(file) and reader.file_parts == 1


def test_boundary_look_alikes_inside_the_file_are_data() -> None:
    tricky = b"\r\n--" + BOUNDARY[:-1] + b"X\r\n--" + BOUNDARY[:5] + b"\r\n"
    assert read(body(tricky * 3), list(range(0, 400, 7)))[0] == tricky * 3


@settings(max_examples=300, deadline=None)
@given(raw=st.binary(max_size=300), cuts=st.lists(st.integers(0, 300), max_size=6))
def test_garbage_only_raises_multipart_errors(raw: bytes, cuts: list[int]) -> None:
    with contextlib.suppress(MultipartError):
        read(raw, cuts)


@settings(max_examples=200, deadline=None)
@given(cut=st.integers(0, 10_000))
def test_every_truncation_of_a_valid_body_is_refused(cut: int) -> None:
    raw = body(b"x" * 300)
    cut = cut % len(raw.rstrip(b"\r\n"))  # the epilogue's CRLF may go; the closing "--" may not
    with pytest.raises(MultipartError):
        read(raw[:cut], [])


def test_two_file_parts_and_boundaries_of_content_types() -> None:
    doubled = body(b"a").replace(b"--" + BOUNDARY + b"--", b"--" + BOUNDARY) + body(b"b")[len(b"--" + BOUNDARY):]
    with pytest.raises(TooManyFiles):
        read(b"--" + BOUNDARY + doubled[len(b"--" + BOUNDARY):], [])
    assert boundary_of('multipart/form-data; boundary="a b"') == b"a b"
    assert boundary_of("multipart/form-data; charset=utf-8; boundary=xyz") == b"xyz"
    assert boundary_of("application/json") is None and boundary_of("multipart/form-data") is None
