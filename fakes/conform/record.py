"""``fakes record``: a recording proxy. The client under test points at it; it forwards each request
to the real service, answers with the real answer, and writes the exchange to a cassette
(:mod:`.cassette`, credentials redacted).

A plain ASGI app (no framework: it adds as little as it can to every request) on the kernel's
server, forwarding with one pooled ``httpx.AsyncClient``. The upstream is asked for uncompressed
answers, so the cassette and the client get the body as is; a ``Location`` pointing at the
upstream is rewritten to point at the proxy. Answers are buffered whole: streamed answers (SSE,
an MCP session) arrive at the end, not as they are sent.
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlsplit

import httpx
import orjson

from .cassette import CassetteWriter
from .observed import Observed, headers_of

#: headers that belong to one connection, not to the request or answer (RFC 9110 7.6.1), and the
#: ones the proxy sets itself
HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer",
                        "upgrade", "proxy-authenticate", "proxy-authorization", "host", "content-length",
                        "accept-encoding", "content-encoding"})


class RecordingProxy:
    """ASGI: forward to ``upstream``, answer with its answer, write each exchange to ``writer``."""

    def __init__(self, upstream: str, writer: CassetteWriter, *, timeout: float = 60.0) -> None:
        self.upstream = upstream.rstrip("/")
        self._upstream_path = urlsplit(self.upstream).path
        self.writer = writer
        self.timeout = timeout
        self._client: httpx.AsyncClient | None = None
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
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        headers = [(name.decode("latin-1"), value.decode("latin-1")) for name, value in scope["headers"]
                   if name.decode("latin-1").lower() not in HOP_BY_HOP]
        path = scope.get("raw_path") or scope["path"].encode()
        query = scope.get("query_string", b"")
        url = self.upstream + path.decode("latin-1") + ("?" + query.decode("latin-1") if query else "")
        now = time.perf_counter()
        if self._started is None:
            self._started = now
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=self.timeout, headers={"accept-encoding": "identity"})
        try:
            answer = await self._client.request(scope["method"], url, headers=headers, content=body)
            status, answer_headers, answer_body = answer.status_code, answer.headers.multi_items(), answer.content
        except httpx.HTTPError as exc:
            status = 502
            answer_headers = [("content-type", "application/json")]
            answer_body = orjson.dumps({"error": "bad_gateway", "message": f"the upstream did not answer: {exc!r}"})
        kept = [(name.lower(), self._local(name, value, scope)) for name, value in answer_headers
                if name.lower() not in HOP_BY_HOP]
        await send({"type": "http.response.start", "status": status,
                    "headers": [(n.encode("latin-1"), v.encode("latin-1")) for n, v in kept]
                    + [(b"content-length", str(len(answer_body)).encode())]})
        await send({"type": "http.response.body", "body": answer_body})
        self.writer.write(Observed(
            method=scope["method"], path=path.decode("latin-1"), query=query.decode("latin-1"),
            request_headers=headers_of(headers), request_body=body, status=status,
            response_headers=headers_of(kept), response_body=answer_body, at=round(now - self._started, 6)))

    def _local(self, name: str, value: str, scope: dict[str, Any]) -> str:
        """A ``Location`` on the upstream, as the proxy's (so the client stays on the proxy)."""
        if name.lower() != "location" or not value.startswith(self.upstream):
            return value
        host = next((v.decode("latin-1") for n, v in scope["headers"] if n == b"host"), "")
        return f"{scope.get('scheme', 'http')}://{host}{value[len(self.upstream):]}" if host else value

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

