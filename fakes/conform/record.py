"""``fakes record``: a recording proxy. The client under test points at it; it forwards each request
to the real service, answers with the real answer, and writes the exchange to a cassette
(:mod:`.cassette`, credentials redacted).

A plain ASGI app (no framework: it adds as little as it can to every request) on the kernel's
server, forwarding over kept-alive connections (:mod:`.upstream`). The upstream is asked for
uncompressed answers, so the cassette and the client get the body as is; a ``Location`` pointing
at the upstream is rewritten to point at the proxy. Answers are buffered whole: streamed answers
(SSE, an MCP session) arrive at the end, not as they are sent. The cassette line is written after
the answer went out.
"""

from __future__ import annotations

import time
from typing import Any

import orjson

from fakes.kernel.upstream import Upstream, UpstreamError

from .cassette import CassetteWriter
from .observed import Observed

#: headers that belong to one connection, not to the request or answer (RFC 9110 7.6.1), and the
#: ones the proxy sets itself
HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer",
                        "upgrade", "proxy-authenticate", "proxy-authorization", "host", "content-length",
                        "accept-encoding", "content-encoding"})
_HOP_BY_HOP_BYTES = frozenset(name.encode() for name in HOP_BY_HOP)


def _text(pairs: list[tuple[bytes, bytes]]) -> dict[str, str]:
    """Header pairs as the cassette keeps them: names in lower case, repeated values joined."""
    joined: dict[str, str] = {}
    for raw_name, raw_value in pairs:
        name, value = raw_name.decode("latin-1").lower(), raw_value.decode("latin-1")
        joined[name] = f"{joined[name]}, {value}" if name in joined else value
    return joined


class RecordingProxy:
    """ASGI: forward to ``upstream``, answer with its answer, write each exchange to ``writer``."""

    def __init__(self, upstream: str, writer: CassetteWriter, *, timeout: float = 60.0) -> None:
        self.upstream = upstream.rstrip("/")
        self._origin = Upstream(self.upstream, timeout)
        self._upstream_bytes = self.upstream.encode("latin-1")
        self.writer = writer
        self._started: float | None = None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await self.aclose()
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["type"] != "http":
            return
        message = await receive()
        body = message.get("body", b"")
        while message.get("more_body"):
            message = await receive()
            body += message.get("body", b"")
        headers = [(name, value) for name, value in scope["headers"] if name not in _HOP_BY_HOP_BYTES]
        path = scope.get("raw_path") or scope["path"].encode()
        query = scope.get("query_string", b"")
        now = time.perf_counter()
        if self._started is None:
            self._started = now
        try:
            status, answer_headers, answer = await self._origin.request(
                scope["method"], (path + b"?" + query if query else path).decode("latin-1"), headers, body)
        except UpstreamError as exc:
            status, answer_headers = 502, [(b"content-type", b"application/json")]
            answer = orjson.dumps({"error": "bad_gateway", "message": str(exc)})
        kept = [(name, self._local(name, value, scope)) for name, value in answer_headers
                if name not in _HOP_BY_HOP_BYTES]
        kept.append((b"content-length", str(len(answer)).encode()))
        await send({"type": "http.response.start", "status": status, "headers": kept})
        await send({"type": "http.response.body", "body": answer})
        self.writer.write(Observed(
            method=scope["method"], path=path.decode("latin-1"), query=query.decode("latin-1"),
            request_headers=_text(headers), request_body=body, status=status,
            response_headers=_text(kept[:-1]), response_body=answer, at=round(now - self._started, 6)))

    def _local(self, name: bytes, value: bytes, scope: dict[str, Any]) -> bytes:
        """A ``Location`` on the upstream, as the proxy's (so the client stays on the proxy)."""
        if name != b"location" or not value.startswith(self._upstream_bytes):
            return value
        host = next((v for n, v in scope["headers"] if n == b"host"), b"")
        scheme = scope.get("scheme", "http").encode()
        return scheme + b"://" + host + value[len(self._upstream_bytes):] if host else value

    async def aclose(self) -> None:
        await self._origin.aclose()
