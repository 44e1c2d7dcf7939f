"""Uploaded images (video and live-stream thumbnails, player logos, watermarks) and their checks.

An image is judged as the reference says, by its file name's extension (``uploaded-file-extension-
invalid``, naming the extensions taken; a name without an extension passes), then by its bytes: a
JPEG (or PNG) signature, or the upload is ``uploaded-file-invalid-file``. Accepted images are kept
in memory (they are small: at most ``max_image_bytes``) and exported with the state, so a restored
fake serves the same bytes.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any

from fakes.kernel.statecheck import StateReader, refuse

from .problems import upload_error

JPEG_EXTENSIONS = ("jpeg", "jpg", "JPG", "JPEG")
IMAGE_EXTENSIONS = ("jpg", "JPG", "jpeg", "JPEG", "png", "PNG")
MEDIA_TYPES = {"jpeg": "image/jpeg", "png": "image/png"}
MAX_STORED_IMAGE_BYTES = 64 * 1024 * 1024  # what an imported state may hold per image


def image_kind(data: bytes) -> str | None:
    """``jpeg`` or ``png`` by the file's signature, else None."""
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    return None


def check_image(filename: str | None, data: bytes, extensions: tuple[str, ...]) -> str:
    """The kind of an uploaded image, or the reference's 400 for a name or content it refuses."""
    kinds = {"jpeg"} | ({"png"} if "png" in extensions else set())
    name = (filename or "").replace("\\", "/").rpartition("/")[2]
    extension = name.rpartition(".")[2] if "." in name else None
    if extension is not None and extension not in extensions:  # a name without one is judged by its bytes
        raise upload_error("uploaded-file-extension-invalid",
                           f"Only [{', '.join(extensions)}] extensions are supported.",
                           f"the file name {str(filename)[:80]!r} has no such extension")
    kind = image_kind(data)
    if kind is None or kind not in kinds:
        raise upload_error("uploaded-file-invalid-file", "The uploaded file is invalid.",
                           f"the file is not a {' or '.join(sorted(k.upper() for k in kinds))} image")
    return kind


@dataclass(frozen=True)
class Image:
    kind: str  # jpeg | png
    data: bytes

    @property
    def media_type(self) -> str:
        return MEDIA_TYPES[self.kind]

    @property
    def extension(self) -> str:
        return "png" if self.kind == "png" else "jpg"

    def to_state(self) -> dict[str, Any]:
        return {"kind": self.kind, "data": base64.b64encode(self.data).decode("ascii")}

    @classmethod
    def from_state(cls, read: StateReader) -> Image:
        read.only(("kind", "data"))
        kind = read.choice("kind", ("jpeg", "png"))
        text = read.text("data", max_length=MAX_STORED_IMAGE_BYTES * 4 // 3 + 4)
        try:
            data = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            refuse(read.where("data"), "must be base64")
        if image_kind(data) != kind:
            refuse(read.where("data"), f"is not a {kind.upper()} image")
        return cls(kind, data)


def optional_image(read: StateReader, name: str) -> Image | None:
    """An image field of a record, or None where the state has null."""
    if read.raw(name) is None:
        return None
    return Image.from_state(read.object(name))
