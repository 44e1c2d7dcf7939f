"""A cassette: a recorded session with a service, as JSON lines.

The first line says what it is: ``{"cassette": "contract-fakes/1", "service": ..., "upstream":
..., "recorded_at": ...}``; every further line is one exchange, in the order the answers came::

    {"seq": 1, "t": 0.412, "request": {"method": "GET", "path": "/videos", "query": "pageSize=2",
     "headers": {...}, "body": "", "body_length": 0},
     "response": {"status": 200, "headers": {...}, "body": "{...}", "body_length": 913}}

``t`` is seconds since the first request. Credentials never reach the file: ``Authorization``
keeps only its scheme, cookies and every header or field the journal redacts show
``[redacted]`` (the kernel's one rule, :mod:`.redact`). A body that is not text, or longer than
``max_body_bytes``, is kept as ``body_sha256`` and ``body_length`` only.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

from ..kernel.redaction import Redactor
from .observed import Observed

FORMAT = "contract-fakes/1"
DEFAULT_MAX_BODY_BYTES = 64 * 1024
#: media types kept by hash whatever their size
BINARY_MEDIA = ("image/", "video/", "audio/", "application/octet-stream", "application/zip", "application/pdf",
                "font/")


class CassetteError(ValueError):
    """A file that is not a cassette (one line for the user, naming the line)."""


@dataclass
class Cassette:
    service: str
    upstream: str = ""
    recorded_at: str = ""
    exchanges: list[Observed] = field(default_factory=list)


def body_fields(data: bytes, media_type: str, redactor: Redactor | None, max_bytes: int) -> dict[str, Any]:
    """``body`` as (redacted) text, or ``body_sha256`` for binary or large bodies; ``body_length``."""
    if not data:
        return {"body": "", "body_length": 0}
    binary = media_type.startswith(BINARY_MEDIA)
    text: str | None = None
    if not binary and len(data) <= max_bytes:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
    if text is None:
        return {"body_sha256": hashlib.sha256(data).hexdigest(), "body_length": len(data)}
    return {"body": redactor.text(text) if redactor is not None else text, "body_length": len(data)}


def _headers(headers: dict[str, str], redactor: Redactor | None) -> dict[str, str]:
    return {name: redactor.header(name, value) if redactor is not None else value for name, value in headers.items()}


def entry(observed: Observed, seq: int, redactor: Redactor | None, max_bytes: int) -> dict[str, Any]:
    """One line of a cassette (credentials redacted when ``redactor`` is given)."""
    request_media = observed.request_headers.get("content-type", "").split(";")[0].strip().lower()
    return {
        "seq": seq, "t": observed.at,
        "request": {"method": observed.method, "path": observed.path,
                    "query": redactor.query(observed.query) if redactor is not None else observed.query,
                    "headers": _headers(observed.request_headers, redactor),
                    **body_fields(observed.request_body, request_media, redactor, max_bytes)},
        "response": {"status": observed.status, "headers": _headers(observed.response_headers, redactor),
                     **body_fields(observed.response_body, observed.media_type, redactor, max_bytes)},
    }


def _dumps(value: dict[str, Any]) -> bytes:
    return orjson.dumps(value) + b"\n"


class CassetteWriter:
    """Appends exchanges to a cassette file, one flushed line each (a stopped recording keeps
    every exchange answered before it stopped). Safe from several threads."""

    def __init__(self, path: str | Path, service: str, upstream: str, redactor: Redactor,
                 max_body_bytes: int = DEFAULT_MAX_BODY_BYTES) -> None:
        self.path = Path(path)
        self.redactor = redactor
        self.max_body_bytes = max_body_bytes
        self.count = 0
        self._lock = threading.Lock()
        self._file: IO[bytes] = self.path.open("wb")
        self._file.write(_dumps({"cassette": FORMAT, "service": service, "upstream": redactor.query(upstream),
                                 "recorded_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}))
        self._file.flush()

    def write(self, observed: Observed) -> None:
        with self._lock:
            self.count += 1
            self._file.write(_dumps(entry(observed, self.count, self.redactor, self.max_body_bytes)))
            self._file.flush()

    def close(self) -> None:
        with self._lock:
            self._file.close()


def _body(part: dict[str, Any]) -> tuple[bytes, bool]:
    if "body_sha256" in part:
        return b"", True
    body = part.get("body", "")
    if not isinstance(body, str):
        raise TypeError("body is not text")
    return body.encode("utf-8"), False


def read_cassette(path: str | Path) -> Cassette:
    """The cassette at ``path``; :class:`CassetteError` names the first line it cannot read."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise CassetteError(f"cannot read the cassette {path}: {getattr(exc, 'strerror', None) or exc}") from None
    if not lines:
        raise CassetteError(f"{path} is empty: not a cassette")
    try:
        head = json.loads(lines[0])
    except ValueError:
        head = None
    if not isinstance(head, dict) or head.get("cassette") != FORMAT or not isinstance(head.get("service"), str):
        raise CassetteError(f"{path}:1 is not a cassette's first line "
                            f"({{\"cassette\": \"{FORMAT}\", \"service\": ...}})")
    cassette = Cassette(head["service"], str(head.get("upstream", "")), str(head.get("recorded_at", "")))
    for number, line in _numbered(lines[1:], 2):
        try:
            item = json.loads(line)
            request, response = item["request"], item["response"]
            request_body, request_hashed = _body(request)
            response_body, response_hashed = _body(response)
            observed = Observed(
                method=str(request["method"]).upper(), path=str(request["path"]), query=str(request.get("query", "")),
                request_headers={str(k).lower(): str(v) for k, v in dict(request.get("headers", {})).items()},
                request_body=request_body, status=int(response["status"]),
                response_headers={str(k).lower(): str(v) for k, v in dict(response.get("headers", {})).items()},
                response_body=response_body, at=float(item.get("t", 0.0)), source="cassette",
                body_by_hash=response_hashed, request_by_hash=request_hashed)
        except (ValueError, KeyError, TypeError) as exc:
            raise CassetteError(f"{path}:{number} is not a cassette line: {exc!r}") from None
        cassette.exchanges.append(observed)
    return cassette


def _numbered(lines: list[str], first: int) -> Iterator[tuple[int, str]]:
    for offset, line in enumerate(lines):
        if line.strip():
            yield first + offset, line
