"""Receiving a source: Content-Range parsing and rules, the upload session, the bytes on disk.

Three ways to send a source, as the reference documents them: one request (no Content-Range), byte
ranges (``bytes <from>-<to>/<total>``, written at their offset into one file) and parts (``part
<n>/<total>`` or ``part <n>/*`` until the last, each part in its own file, joined in order when
the last one arrives). Every refusal is the reference's 400 with its own slug. Bytes go to a
per-model temporary directory on disk, never into memory.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import tempfile
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from fakes.kernel.errors import ServiceError
from fakes.kernel.statecheck import StateReader, check_integer, refuse

from .problems import problem, upload_error
from .settings import VideoSettings

_BYTES = re.compile(r"bytes ([0-9]{1,20})-([0-9]{1,20})/([0-9]{1,20})")
_PART = re.compile(r"part ([0-9]{1,20})/([0-9]{1,20}|\*)")
CR = '"Content-Range"'
MAX_STATE_BYTES = 10**15  # far beyond max_total_bytes; an imported figure past it is not a real upload


def cr_error(slug: str, title: str, detail: str | None = None) -> ServiceError:
    return upload_error("video-content-range-" + slug, title, detail, name="Content-Range")


@dataclass(frozen=True)
class ContentRange:
    kind: str  # bytes | part
    first: int = 0  # bytes: from; part: the part number
    last: int = 0  # bytes: to
    total: int | None = None  # bytes: total bytes; part: total parts (None for "*")


def parse_content_range(header: str | None) -> ContentRange | None:
    if header is None:
        return None
    text = header.strip()
    match = _BYTES.fullmatch(text)
    if match:
        return ContentRange("bytes", int(match.group(1)), int(match.group(2)), int(match.group(3)))
    match = _PART.fullmatch(text)
    if match:
        total = None if match.group(2) == "*" else int(match.group(2))
        return ContentRange("part", int(match.group(1)), total=total)
    raise cr_error("malformed", f'The value of the {CR} header is malformed, the expected format is '
                                '"bytes <from_byte>-<to_byte>/<total_bytes>" or "part <part>/<total_parts>".',
                   f"received {header[:100]!r}")


@dataclass
class UploadSession:
    """An upload in progress (or finished) for one video."""

    mode: str  # single | bytes | part
    total: int | None = None  # bytes: total bytes; part: total parts once known
    ranges: list[tuple[int, int]] = field(default_factory=list)  # received byte ranges, inclusive
    parts: dict[int, int] = field(default_factory=dict)  # part number -> size

    @property
    def received_bytes(self) -> int:
        if self.mode == "part":
            return sum(self.parts.values())
        return sum(to - start + 1 for start, to in self.ranges)

    def complete(self) -> bool:
        if self.mode == "bytes":
            return self.total is not None and self.received_bytes == self.total
        if self.mode == "part":
            return self.total is not None and len(self.parts) == self.total
        return bool(self.ranges)

    def ingest_figures(self) -> dict[str, Any]:
        """The ``ingest`` fields that describe what arrived (``status`` aside)."""
        figures: dict[str, Any] = {"filesize": self.received_bytes if self.complete() else
                                   (self.total if self.mode == "bytes" else None),
                                   "receivedBytes": [{"from": a, "to": b, "total": self.total or self.received_bytes}
                                                     for a, b in sorted(self.ranges)]}
        if self.mode == "part":
            figures["receivedParts"] = {"parts": sorted(self.parts), "total": self.total}
            figures["receivedBytes"] = []
        return figures

    def to_state(self) -> dict[str, Any]:
        return {"mode": self.mode, "total": self.total, "ranges": [list(r) for r in self.ranges],
                "parts": {str(k): v for k, v in self.parts.items()}}

    @classmethod
    def from_state(cls, read: StateReader) -> UploadSession:
        """An upload of an imported state: ranges and parts within the reference's limits."""
        read.only(("mode", "total", "ranges", "parts"))
        mode = read.choice("mode", ("single", "bytes", "part"))
        total = read.integer("total", minimum=0, maximum=MAX_STATE_BYTES, nullable=True)
        ranges = []
        for index, pair in enumerate(read.array("ranges", max_items=100_000)):
            where = f"{read.where('ranges')}[{index}]"
            if not isinstance(pair, list) or len(pair) != 2:
                refuse(where, "must be [from, to]")
            first = check_integer(pair[0], where, minimum=0, maximum=MAX_STATE_BYTES)
            last = check_integer(pair[1], where, minimum=first, maximum=MAX_STATE_BYTES)
            ranges.append((first, last))
        parts = {}
        for key, size in read.mapping("parts").items():
            where = f"{read.where('parts')}.{key}"
            if not key.isdigit() or len(key) > 6 or not 1 <= int(key) <= 100_000:
                refuse(where, "must be a part number")
            parts[int(key)] = check_integer(size, where, minimum=0, maximum=MAX_STATE_BYTES)
        if (mode != "part" and parts) or (mode == "part" and ranges):
            refuse(read.where("mode"), "does not match the ranges and parts received")
        return cls(mode, total, ranges, parts)


def check_range(session: UploadSession | None, cr: ContentRange, settings: VideoSettings) -> None:
    """The refusals that need no body (the reference's order where it shows one)."""
    if cr.kind == "bytes":
        if session is not None and session.mode == "part":
            raise cr_error("started-with-part", f'This {CR} upload has been started with "part", you cannot '
                                                'continue it with "bytes".')
        if cr.total == 0:
            raise cr_error("by-bytes-total-bytes-zero", f'The "total_bytes" value in the {CR} header must be '
                                                        'greater than 0.')
        assert cr.total is not None
        if cr.total > settings.max_total_bytes:
            raise cr_error("by-bytes-total-bytes-too-high", f'The "total_bytes" value in the {CR} header is higher '
                           'than the maximum allowed limit.',
                           f"The maximum allowed limit is {settings.max_total_bytes}.")
        if cr.first > cr.last:
            raise cr_error("by-bytes-from-byte-too-high", f'The "from_byte" value in the {CR} header is higher than '
                                                          'the "to_byte" value.')
        if session is not None and session.total is not None and session.total != cr.total:
            highest = max(b for _, b in session.ranges)
            if cr.total <= highest:
                raise cr_error("by-bytes-total-bytes-too-low", f'The "total_bytes" value in the {CR} header is lower '
                               'than or equal to the upper bound of a range you already sent for this video.',
                               f"a range up to byte {highest} was already sent")
            raise cr_error("by-bytes-different-total-bytes", f'The "total_bytes" value in the {CR} header must be '
                           'the same than the one you already set for this video.',
                           f'The "total_bytes" you already set for this video is {session.total}')
        if cr.last >= cr.total:
            raise cr_error("by-bytes-to-byte-too-high-total", f'The "to_byte" value in the {CR} header is higher than '
                           'the "total_bytes" value you set for this video.', f"total_bytes is {cr.total}")
        if cr.last - cr.first + 1 > settings.max_upload_bytes:
            raise cr_error("by-bytes-range-too-large", f'The range in the {CR} header is too large.',
                           f"a range holds at most {settings.max_upload_bytes} bytes")
        for start, end in (session.ranges if session else []):
            if cr.first <= end and start <= cr.last:
                raise cr_error("by-bytes-range-overlap", f'The range in the {CR} header overlaps with a previous '
                               'one you already sent for this video.', f"bytes {start}-{end} were already sent")
        return
    if session is not None and session.mode == "bytes":
        raise cr_error("started-with-bytes", f'This {CR} upload has been started with "bytes", you cannot continue '
                                             'it with "part".')
    if cr.first == 0:
        raise cr_error("by-part-part-zero", f'The "part" value in the {CR} header must be greater than 0.')
    if cr.total == 0:
        raise cr_error("by-part-total-parts-zero", f'The "total_parts" value in the {CR} header must be greater '
                                                   'than 0.')
    if cr.first > settings.max_parts:
        raise cr_error("by-part-part-too-high-allowed", f'The "part" value in the {CR} header is higher than the '
                       'maximum number of parts allowed for a video.',
                       f"The maximum number of parts allowed for a video is {settings.max_parts}.")
    if cr.total is not None and cr.total > settings.max_parts:
        raise cr_error("by-part-total-parts-too-high", f'The "total_parts" value in the {CR} header is higher than '
                       'the maximum number of parts allowed for a video.',
                       f"The maximum number of parts allowed is {settings.max_parts}.")
    if cr.total is not None and cr.first > cr.total:
        raise cr_error("by-part-part-too-high-total", f'The "part" value in the {CR} header is higher than the '
                       '"total_parts" value.', f"total_parts is {cr.total}")
    if session is not None and cr.total is not None:
        if session.total is not None and session.total != cr.total:
            raise cr_error("by-part-different-total-parts", f'The "total_parts" value in the {CR} header must be the '
                           'same than the one you already set for this video.',
                           f'The "total_parts" you already set for this video is {session.total}')
        if session.parts and cr.total < max(session.parts):
            raise cr_error("by-part-total-parts-too-low", f'The "total_parts" value in the {CR} header is lower '
                           'than or equal to a part number you already sent for this video.',
                           f"part {max(session.parts)} was already sent")
    if session is not None and session.total is not None and cr.first > session.total:
        raise cr_error("by-part-part-too-high-total", f'The "part" value in the {CR} header is higher than the '
                       '"total_parts" value.', f"total_parts is {session.total}")
    if session is not None and cr.first in session.parts:
        raise cr_error("by-part-part-already-sent", f'The "part" value in the {CR} header collides with a previous '
                       'one you already sent for this video.', f"The part number {cr.first} has already been sent.")


def check_received(session: UploadSession | None, cr: ContentRange | None, size: int,
                   settings: VideoSettings) -> None:
    """The refusals that need the received size."""
    if cr is None:
        return
    if cr.kind == "bytes":
        assert cr.total is not None
        if size != cr.last - cr.first + 1:
            raise cr_error("by-bytes-range-mismatch", 'The size of the file you sent is different than the range '
                           f'length you set in the {CR} header.',
                           f"The size of the file you sent is {size} bytes but the range length you set is "
                           f"{cr.last - cr.first + 1}.")
        if size < settings.min_chunk_bytes and cr.last != cr.total - 1:
            raise cr_error("by-bytes-range-too-small", f'The range in the {CR} header is too small.',
                           f"It must be at least {settings.min_chunk_bytes} bytes, except for the last chunk.")
        return
    known_total = cr.total if cr.total is not None else (session.total if session else None)
    is_last = known_total is not None and cr.first == known_total
    if size < settings.min_chunk_bytes and not is_last:
        raise cr_error("by-part-uploaded-file-too-small", "The uploaded file is too small.",
                       f"It must be at least {settings.min_chunk_bytes} bytes, except if it is the last part.")


def apply(session: UploadSession | None, cr: ContentRange | None, size: int) -> UploadSession:
    """The session after an accepted request (a new object; the old one is left as it was)."""
    if cr is None:
        return UploadSession("single", size, [(0, size - 1)])
    if cr.kind == "bytes":
        ranges = [*(session.ranges if session else []), (cr.first, cr.last)]
        return UploadSession("bytes", cr.total, ranges)
    parts = {**(session.parts if session else {}), cr.first: size}
    total = cr.total if cr.total is not None else (session.total if session else None)
    return UploadSession("part", total, [], parts)


#: what a write into a full directory raises: no space left, a quota, a file past the size limit
STORAGE_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


def no_storage(detail: str) -> ServiceError:
    """The 507 problem of an upload the fake has no room for (the request is not at fault)."""
    return problem(507, "insufficient-storage", "The fake has nowhere to keep uploads.", detail=detail)


@contextlib.contextmanager
def storage_room() -> Iterator[None]:
    """Turns a full temporary directory (``ENOSPC`` ...) met inside into the 507 problem."""
    try:
        yield
    except OSError as exc:
        if exc.errno not in STORAGE_FULL:
            raise
        raise no_storage(f"the temporary directory is full ({exc.strerror}): free space in TMPDIR, give the "
                         "container a larger tmpfs (--tmpfs /tmp:size=...), or set TMPDIR to a larger "
                         "directory") from None


class Storage:
    """Uploaded bytes of one model, in a temporary directory removed with the model."""

    def __init__(self) -> None:
        self._dir: str | None = None

    @property
    def root(self) -> str:
        if self._dir is None:
            try:
                self._dir = tempfile.mkdtemp(prefix="fakes-video-")
            except OSError as exc:  # a read-only container without a tmpfs: say so, as a refusal
                raise no_storage(f"no writable temporary directory ({exc}): set TMPDIR to one, or give a "
                                 "read-only container a tmpfs (--tmpfs /tmp)") from None
            weakref.finalize(self, shutil.rmtree, self._dir, True)
        return self._dir

    def source_path(self, video_id: str) -> str:
        return os.path.join(self.root, f"{video_id}.source")

    def part_path(self, video_id: str, part: int) -> str:
        return os.path.join(self.root, f"{video_id}.part{part}")

    def incoming_path(self, owner: str, attempt: int) -> str:
        """Where one request's file part is received, until it is accepted (and placed) or refused."""
        return os.path.join(self.root, f"{owner}.incoming{attempt}")

    def trial_path(self, video_id: str) -> str:
        return os.path.join(self.root, f"{video_id}.trial")

    def join_parts(self, video_id: str, parts: list[int]) -> str:
        """Concatenate the parts in order into the source file (a streamed copy), then remove them;
        if the copy fails (a full directory), the parts stay and no source is left."""
        target = self.source_path(video_id)
        try:
            with open(target, "wb") as out:
                for part in parts:
                    with open(self.part_path(video_id, part), "rb") as piece:
                        shutil.copyfileobj(piece, out, 1024 * 1024)
        except OSError:
            with contextlib.suppress(OSError):
                os.remove(target)
            raise
        for part in parts:
            os.remove(self.part_path(video_id, part))
        return target

    def discard(self, video_id: str) -> None:
        if self._dir is None:
            return
        prefix = f"{video_id}."
        for name in os.listdir(self._dir):
            if name.startswith(prefix):
                with contextlib.suppress(OSError):
                    os.remove(os.path.join(self._dir, name))

    def exists(self, video_id: str) -> bool:
        return self._dir is not None and os.path.exists(self.source_path(video_id))
