"""An incremental multipart/form-data reader that writes the file part straight to a sink.

The upload body is fed chunk by chunk as the server receives it; the file part's bytes go to the
sink (a file on disk, or a bounded buffer) as they arrive and are never held whole in memory, nor
twice. Boundaries are found with ``bytes.find`` (C speed), keeping only a boundary-sized tail
between chunks. The file part is the one named ``file`` (the documented name) or, whatever its
name, one that carries a ``filename`` (api.video's Node client names the part after the file);
other form fields are kept as short texts. Anything malformed raises :class:`MultipartError` with
a reason the route turns into the service's 400.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Protocol

MAX_HEADER_BYTES = 16 * 1024
MAX_PREAMBLE_BYTES = 64 * 1024
MAX_FIELD_BYTES = 4 * 1024  # a form field other than the file (a videoId, a link)
MAX_FIELDS = 16
_PARAM = re.compile(r';\s*([A-Za-z0-9_*.-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)')
_BOUNDARY = re.compile(r'boundary\s*=\s*("(?:[^"\\]|\\.)*"|[^;\s]+)', re.IGNORECASE)


class MultipartError(ValueError):
    """The body is not well-formed multipart/form-data (the message says why)."""


class TooManyFiles(MultipartError):
    """A second file part."""


class FileTooLarge(MultipartError):
    """The file part passed the size limit."""


class Sink(Protocol):
    def write(self, data: bytes | memoryview, /) -> int: ...


def boundary_of(content_type: str | None) -> bytes | None:
    """The boundary of a ``multipart/form-data`` Content-Type, or None if it is not one."""
    if not content_type or not content_type.lower().lstrip().startswith("multipart/form-data"):
        return None
    match = _BOUNDARY.search(content_type)
    if match is None:
        return None
    value = match.group(1)
    if value.startswith('"'):
        value = value[1:-1]
    if not 1 <= len(value) <= 200:
        return None
    return value.encode("latin-1", "replace")


def _disposition(headers: dict[str, str]) -> tuple[str | None, str | None]:
    """(name, filename) of a part's Content-Disposition."""
    value = headers.get("content-disposition", "")
    params: dict[str, str] = {}
    for key, raw in _PARAM.findall(value):
        raw = raw.strip()
        if raw.startswith('"') and raw.endswith('"') and len(raw) >= 2:
            raw = re.sub(r"\\(.)", r"\1", raw[1:-1])
        params[key.lower()] = raw
    return params.get("name"), params.get("filename") or params.get("filename*")


class MultipartReader:
    """Feed it the body with :meth:`feed`, then call :meth:`close`.

    ``open_file`` is called once, at the headers of the file part, and returns the sink its bytes go
    to. ``file_bytes`` counts them; ``file_parts`` counts file parts; ``file_part_name`` is the
    file part's name; ``fields`` holds the other parts' values (UTF-8 text, bounded).
    """

    def __init__(self, boundary: bytes, open_file: Callable[[str | None], Sink], max_file_bytes: int,
                 file_field: str = "file") -> None:
        self.dash_boundary = b"--" + boundary
        self.delimiter = b"\r\n--" + boundary
        self.open_file = open_file
        self.max_file_bytes = max_file_bytes
        self.file_field = file_field
        self.file_parts = 0
        self.file_bytes = 0
        self.filename: str | None = None
        self.file_part_name: str | None = None
        self.other_fields: list[str] = []  # names of parts other than the file, in order
        self.fields: dict[str, str] = {}  # their values (the first of a repeated name)
        self._state = "preamble"
        self._buffer = b""
        self._sink: Sink | None = None  # the sink of the part being read (None: a field)
        self._field: bytearray | None = None  # the value of the field being read

    def feed(self, chunk: bytes) -> None:
        if not chunk:
            return
        if self._state == "data" and len(chunk) > len(self.delimiter):
            # the hot path of a large file: look for a delimiter across the seam first (a few
            # bytes), then in the chunk itself, so the chunk is never copied into a new buffer
            tail = self._buffer
            if tail and (tail + chunk[:len(self.delimiter) - 1]).find(self.delimiter) < 0:
                self._emit(tail)
                tail = b""
            if not tail:
                self._buffer = b""
                rest = self._data(chunk)
                if self._state == "data":
                    self._buffer = rest
                    return
                self._buffer = b""
                chunk = rest
        buffer = self._buffer + chunk if self._buffer else chunk
        while True:
            if self._state == "data":
                buffer = self._data(buffer)
                if self._state == "data":
                    break
            elif self._state == "preamble":
                # the first boundary may open the body or follow a preamble line
                index = buffer.find(self.dash_boundary)
                if index < 0:
                    if len(buffer) > MAX_PREAMBLE_BYTES:
                        raise MultipartError("no multipart boundary in the body")
                    break
                if index > 0 and buffer[index - 2:index] != b"\r\n":
                    raise MultipartError("the first boundary does not start a line")
                buffer = buffer[index + len(self.dash_boundary):]
                self._state = "after_boundary"
            elif self._state == "after_boundary":
                if len(buffer) < 2:
                    break
                if buffer[:2] == b"--":
                    self._state = "end"
                    buffer = b""
                    break
                stripped = buffer.lstrip(b" \t")  # transport padding
                if len(stripped) < 2:
                    break
                if stripped[:2] != b"\r\n":
                    raise MultipartError("a boundary is not followed by CRLF or --")
                buffer = stripped[2:]
                self._state = "headers"
            elif self._state == "headers":
                index = buffer.find(b"\r\n\r\n")
                if index < 0:
                    if buffer.startswith(b"\r\n"):  # a part without headers
                        index = -2
                    elif len(buffer) > MAX_HEADER_BYTES:
                        raise MultipartError("part headers are too long")
                    else:
                        break
                self._start_part(buffer[:max(index, 0)])
                buffer = buffer[index + 4:]
                self._state = "data"
            else:  # end: the epilogue is ignored
                buffer = b""
                break
        self._buffer = buffer

    def _start_part(self, raw: bytes) -> None:
        headers: dict[str, str] = {}
        for line in raw.split(b"\r\n"):
            if not line:
                continue
            key, colon, value = line.partition(b":")
            if not colon:
                raise MultipartError("a part header line has no colon")
            headers[key.strip().lower().decode("latin-1")] = value.strip().decode("utf-8", "replace")
        name, filename = _disposition(headers)
        if name is None:
            raise MultipartError("a part has no Content-Disposition name")
        self._end_field()
        self._sink = None
        if name == self.file_field or filename is not None:
            self.file_parts += 1
            if self.file_parts > 1:
                raise TooManyFiles("more than one file part")
            self.filename = filename
            self.file_part_name = name
            self._sink = self.open_file(filename)
            return
        if len(self.other_fields) >= MAX_FIELDS:
            raise MultipartError(f"more than {MAX_FIELDS} form fields")
        self.other_fields.append(name)
        self._field = bytearray()

    def _end_field(self) -> None:
        if self._field is not None:
            name = self.other_fields[-1]
            self.fields.setdefault(name, self._field.decode("utf-8", "replace"))
            self._field = None

    def _data(self, buffer: bytes) -> bytes:
        index = buffer.find(self.delimiter)
        if index >= 0:
            self._emit(buffer[:index])
            self._state = "after_boundary"
            return buffer[index + len(self.delimiter):]
        keep = len(self.delimiter) - 1
        if len(buffer) > keep:
            self._emit(memoryview(buffer)[:-keep])  # a view: the data is written, not copied
            return buffer[-keep:]
        return buffer

    def _emit(self, data: bytes | memoryview) -> None:
        if not data:
            return
        if self._sink is None:
            if self._field is not None:
                if len(self._field) + len(data) > MAX_FIELD_BYTES:
                    raise MultipartError(f"a form field holds more than {MAX_FIELD_BYTES} bytes")
                self._field += data
            return
        self.file_bytes += len(data)
        if self.file_bytes > self.max_file_bytes:
            raise FileTooLarge(f"the file part passed {self.max_file_bytes} bytes")
        self._sink.write(data)

    def close(self) -> None:
        if self._state != "end":
            raise MultipartError("the body ended before the closing multipart boundary")
        self._end_field()
