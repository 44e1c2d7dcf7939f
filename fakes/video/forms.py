"""Multipart bodies of the API: the file part streamed to a sink, the refusals in the service's shape.

Every multipart operation (sources, delegated uploads, thumbnails, logos, watermarks, captions,
chapters) reads its body here. The file part is the one named ``file``, or one under any other
name that carries a filename (api.video's Node client names the part after the file): the route
flags the ``video/upload-part-name`` warning for the second. A refused body leaves nothing behind:
a file on disk is removed before the 400 goes out.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import ClientDisconnect, Request

from fakes.kernel.verdicts import flag

from . import rules
from .multipart import FileTooLarge, MultipartError, MultipartReader, Sink, TooManyFiles, boundary_of
from .problems import invalid_attribute, upload_error

NO_FILE = ("uploaded-file-no-file", "There is no uploaded file in the request.")
INVALID_FILE = ("uploaded-file-invalid-file", "The uploaded file is invalid.")


@dataclass
class Form:
    """What a multipart body held: the file part's size, name and filename, the other fields."""

    size: int
    filename: str | None
    part_name: str | None
    fields: dict[str, str] = field(default_factory=dict)
    data: bytes = b""  # the file's bytes when read into memory


def no_file(detail: str | None = None) -> Exception:
    return upload_error(NO_FILE[0], NO_FILE[1], detail)


async def read_form(request: Request, open_sink: Callable[[], Sink], max_bytes: int, *,
                    allowed_fields: frozenset[str] = frozenset(), on_refusal: Callable[[], None] | None = None) -> Form:
    """Stream the body's file part into ``open_sink()``; refuse (after ``on_refusal``) what is not one
    file part of at most ``max_bytes`` bytes with only ``allowed_fields`` beside it."""
    boundary = boundary_of(request.headers.get("content-type"))
    if boundary is None:
        raise no_file("send multipart/form-data with the file in a part named file")
    sinks: list[Any] = []

    def opened(_filename: str | None) -> Sink:
        sinks.append(open_sink())
        return sinks[-1]  # type: ignore[no-any-return]

    reader = MultipartReader(boundary, opened, max_bytes)
    try:
        try:
            async for chunk in request.stream():
                reader.feed(chunk)
            reader.close()
        except TooManyFiles:
            raise upload_error("uploaded-file-multiple-files",
                               "There are more than one uploaded file in the request.") from None
        except FileTooLarge:
            raise upload_error("uploaded-file-too-large", "The uploaded file is too large.",
                               f"a single request holds at most {max_bytes} bytes") from None
        except MultipartError as exc:
            if reader.file_parts == 0:
                raise no_file(str(exc)) from None
            raise upload_error(*INVALID_FILE, str(exc)) from None
        except ClientDisconnect:
            raise upload_error(*INVALID_FILE, "the client went away before the body ended") from None
        if reader.file_parts == 0:
            raise no_file()
        unknown = [name for name in reader.other_fields if name not in allowed_fields]
        if unknown:
            takes = ", ".join(["file", *sorted(allowed_fields)])
            raise invalid_attribute(unknown[0][:100], f"this upload takes the form parts {takes}")
    except BaseException:
        for sink in sinks:
            with contextlib.suppress(Exception):
                sink.close()
        if on_refusal is not None:
            on_refusal()
        raise
    for sink in sinks:
        if not isinstance(sink, io.BytesIO):
            sink.close()
    data = sinks[0].getvalue() if sinks and isinstance(sinks[0], io.BytesIO) else b""
    if reader.file_part_name != "file":
        flag(request, rules.UPLOAD_PART_NAME, f"the file part is named {str(reader.file_part_name)[:60]!r}, "
                                              "not file")
    return Form(reader.file_bytes, reader.filename, reader.file_part_name, dict(reader.fields), data)


async def read_file_to(request: Request, path: str, max_bytes: int, *,
                       allowed_fields: frozenset[str] = frozenset()) -> Form:
    """The file part streamed to a new file at ``path`` (removed again if the body is refused)."""
    def open_sink() -> Sink:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        return os.fdopen(descriptor, "wb")

    return await read_form(request, open_sink, max_bytes, allowed_fields=allowed_fields,
                           on_refusal=lambda: remove_file(path))


async def read_small_file(request: Request, max_bytes: int, *,
                          allowed_fields: frozenset[str] = frozenset()) -> Form:
    """The file part read into memory (images, WebVTT): at most ``max_bytes`` bytes."""
    return await read_form(request, io.BytesIO, max_bytes, allowed_fields=allowed_fields)


def remove_file(path: str) -> None:
    with contextlib.suppress(OSError):
        os.remove(path)
