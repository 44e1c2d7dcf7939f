"""Delegated upload tokens: ``POST /upload?token=`` uploads a video without the API key.

A token lives ``ttl`` seconds on the fake's clock (0: until deleted); an expired token is gone
(404 on reads, 401 on uploads). An upload with a token creates a video titled after the file,
or continues the video named by the ``videoId`` form field, or, for the next chunk of a chunked
upload that names no video (the official clients send none), the token's upload in progress.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fakes.kernel.clock import MAX_EPOCH_MS
from fakes.kernel.statecheck import StateReader, refuse

from . import data
from .problems import invalid_attribute, not_found, problem

TOKEN_PATTERN = r"to[0-9A-Za-z]{22}"
MAX_TTL = 2_147_483_647
MAX_COUNT = 10**12
MISSING_TOKEN = ("authentication-missing-upload-token", "The upload token is missing.")
INVALID_TOKEN = ("authentication-invalid-upload-token", "The upload token is invalid or expired.")


@dataclass
class UploadToken:
    token: str
    project_id: str
    ttl: int
    created_ms: int
    open_video: str | None = None  # the video of a chunked upload in progress with this token

    @property
    def expires_ms(self) -> int | None:
        return None if self.ttl == 0 else min(MAX_EPOCH_MS, self.created_ms + self.ttl * 1000)

    def alive(self, now_ms: int) -> bool:
        expires = self.expires_ms
        return expires is None or now_ms < expires

    def to_json(self, atom: Any) -> dict[str, Any]:
        expires = self.expires_ms
        return {"token": self.token, "ttl": self.ttl, "createdAt": atom(self.created_ms),
                "expiresAt": None if expires is None else atom(expires)}

    def to_state(self) -> dict[str, Any]:
        return dict(vars(self))


@dataclass
class UploadTokens:
    seed: int
    by_token: dict[str, UploadToken] = field(default_factory=dict)
    count: int = 0

    def create(self, project_id: str, body: dict[str, Any], now_ms: int) -> UploadToken:
        unknown = sorted(set(body) - {"ttl"})
        if unknown:
            raise invalid_attribute(unknown[0], "this payload takes ttl")
        ttl = body.get("ttl", 0)
        if isinstance(ttl, bool) or not isinstance(ttl, int) or not 0 <= ttl <= MAX_TTL:
            raise invalid_attribute("ttl", f"ttl must be an integer of seconds from 0 (no expiry) to {MAX_TTL}")
        self.count += 1
        while data.upload_token(self.seed, self.count) in self.by_token:
            self.count += 1
        token = UploadToken(data.upload_token(self.seed, self.count), project_id, ttl, now_ms)
        self.by_token[token.token] = token
        return token

    def get(self, project_id: str, token: str, now_ms: int) -> UploadToken:
        found = self.by_token.get(token)
        if found is None or found.project_id != project_id or not found.alive(now_ms):
            raise not_found("uploadToken")
        return found

    def authenticate(self, token: str | None, now_ms: int) -> UploadToken:
        if not token:
            raise problem(401, *MISSING_TOKEN, detail="POST /upload?token=<an upload token>")
        found = self.by_token.get(token)
        if found is None or not found.alive(now_ms):
            raise problem(401, *INVALID_TOKEN)
        return found

    def delete(self, project_id: str, token: str, now_ms: int) -> None:
        del self.by_token[self.get(project_id, token, now_ms).token]

    def of_project(self, project_id: str, now_ms: int) -> list[UploadToken]:
        return [t for t in self.by_token.values() if t.project_id == project_id and t.alive(now_ms)]

    def forget_video(self, video_id: str) -> None:
        for token in self.by_token.values():
            if token.open_video == video_id:
                token.open_video = None

    def to_state(self) -> dict[str, Any]:
        return {"tokens": [t.to_state() for t in self.by_token.values()], "count": self.count}

    def load_state(self, read: StateReader, projects: dict[str, Any], videos: dict[str, Any]) -> None:
        read.only(("tokens", "count"))
        self.count = read.integer("count", minimum=0, maximum=MAX_COUNT)
        for item in read.objects("tokens", max_items=1_000_000):
            item.only(("token", "project_id", "ttl", "created_ms", "open_video"))
            token = UploadToken(item.text("token", pattern=TOKEN_PATTERN), item.text("project_id", max_length=64),
                                item.integer("ttl", minimum=0, maximum=MAX_TTL),
                                item.integer("created_ms", minimum=0, maximum=MAX_EPOCH_MS),
                                item.text("open_video", max_length=64, nullable=True))
            if token.project_id not in projects:
                refuse(item.where("project_id"), "names no project of this state")
            if token.open_video is not None and token.open_video not in videos:
                refuse(item.where("open_video"), "names no video of this state")
            if token.token in self.by_token:
                refuse(item.where("token"), "repeats an upload token of this state")
            self.by_token[token.token] = token
