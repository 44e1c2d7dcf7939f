"""The "real service" of the conformance tests: a fake with planted differences.

No machine here reaches the vendors, so the suite stands a fake of the same service in for the
real one and plants in it the drifts a vendor makes: a renamed field, a changed status, a missing
header, an extra error case. :class:`Drifted` is a tiny ASGI wrapper around a fake's app that does
that for the requests a :class:`Plant` matches; it is served on its own loopback port like any fake.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import orjson


@dataclass(frozen=True)
class Plant:
    """One planted difference, on the requests whose method and path (a regex) match."""

    method: str
    path: str
    rename: tuple[str, str] | None = None  # a JSON key, wherever it is in the answer
    status: tuple[int, int] | None = None  # this status becomes that one
    drop_header: str | None = None
    error: tuple[int, dict[str, Any]] | None = None  # answered instead of the fake's answer
    lowercase: str | None = None  # this JSON key's string values, lower-cased (an enum's style)

    def matches(self, method: str, path: str) -> bool:
        return self.method in ("*", method) and re.fullmatch(self.path, path) is not None


def _renamed(value: Any, old: str, new: str) -> Any:
    if isinstance(value, dict):
        return {(new if key == old else key): _renamed(item, old, new) for key, item in value.items()}
    if isinstance(value, list):
        return [_renamed(item, old, new) for item in value]
    return value


def _lowered(value: Any, key: str) -> Any:
    if isinstance(value, dict):
        return {k: (v.lower() if k == key and isinstance(v, str) else _lowered(v, key)) for k, v in value.items()}
    if isinstance(value, list):
        return [_lowered(item, key) for item in value]
    return value


class Drifted:
    """ASGI: ``app`` with ``plants`` applied to the answers of the requests they match."""

    def __init__(self, app: Any, *plants: Plant) -> None:
        self.app = app
        self.plants = plants

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        chosen = [plant for plant in self.plants if plant.matches(scope["method"], scope["path"])]
        if not chosen:
            await self.app(scope, receive, send)
            return
        for plant in chosen:
            if plant.error is not None:
                status, body = plant.error
                await send({"type": "http.response.start", "status": status,
                            "headers": [(b"content-type", b"application/json")]})
                await send({"type": "http.response.body", "body": orjson.dumps(body)})
                return
        start: dict[str, Any] = {}
        chunks: list[bytes] = []

        async def keep(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, keep)
        status = start["status"]
        headers = [(name, value) for name, value in start.get("headers", []) if name.lower() != b"content-length"]
        body = b"".join(chunks)
        for plant in chosen:
            if plant.status is not None and status == plant.status[0]:
                status = plant.status[1]
            if plant.drop_header is not None:
                headers = [(n, v) for n, v in headers if n.decode().lower() != plant.drop_header.lower()]
            if (plant.rename or plant.lowercase) and body[:1] in (b"{", b"["):
                value = orjson.loads(body)
                if plant.rename:
                    value = _renamed(value, *plant.rename)
                if plant.lowercase:
                    value = _lowered(value, plant.lowercase)
                body = orjson.dumps(value)
        headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
