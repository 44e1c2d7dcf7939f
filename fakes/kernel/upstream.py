"""The recording proxy's way to the upstream: keep-alive HTTP/1.1 connections on asyncio streams,
answers parsed with httptools (uvicorn's parser, already installed).

Written here rather than using ``httpx.AsyncClient`` for speed: httpx's async path costs the proxy
about 2.5 ms of CPU per request (it probes for trio with a failing import on every request, the
cost the kernel's in-process transport avoids too); this costs a fraction of that, which is what
keeps ``fakes record`` under 2 ms per request (docs/conformance.md).
"""

from __future__ import annotations

import asyncio
import ssl
from urllib.parse import urlsplit

import httptools

Headers = list[tuple[bytes, bytes]]
READ_SIZE = 256 * 1024


class UpstreamError(Exception):
    """The upstream could not be reached or answered with something that is not HTTP/1.1."""


class _Answer:
    """httptools' callbacks: the status, headers and body of one answer."""

    def __init__(self) -> None:
        self.headers: Headers = []
        self.body: list[bytes] = []
        self.headers_done = False
        self.done = False
        self.length_known = False
        self.keep_alive = False
        self.parser: httptools.HttpResponseParser | None = None

    def on_header(self, name: bytes, value: bytes) -> None:
        lowered = name.lower()
        if lowered in (b"content-length", b"transfer-encoding"):
            self.length_known = True
        self.headers.append((lowered, value))

    def on_headers_complete(self) -> None:
        self.headers_done = True
        # asked here: once the message is complete the parser has moved on to the next one
        self.keep_alive = self.parser is not None and self.parser.should_keep_alive()

    def on_body(self, body: bytes) -> None:
        self.body.append(body)

    def on_message_complete(self) -> None:
        self.done = True


class _Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.reusable = True

    async def exchange(self, head: bytes, body: bytes, is_head: bool) -> tuple[int, Headers, bytes]:
        self.writer.write(head + body if len(body) < 65536 else head)
        if len(body) >= 65536:
            self.writer.write(body)
        await self.writer.drain()
        answer = _Answer()
        parser = answer.parser = httptools.HttpResponseParser(answer)
        while not answer.done and not (is_head and answer.headers_done):
            data = await self.reader.read(READ_SIZE)
            if not data:
                if answer.headers_done and not answer.length_known:  # a body delimited by the close
                    self.reusable = False
                    break
                raise ConnectionResetError("the upstream closed the connection before its answer was complete")
            try:
                parser.feed_data(data)
            except httptools.HttpParserError as exc:
                raise UpstreamError(f"the upstream's answer is not HTTP/1.1: {exc}") from None
        self.reusable = self.reusable and not is_head and answer.keep_alive
        return parser.get_status_code(), answer.headers, b"".join(answer.body)

    def close(self) -> None:
        self.writer.close()


class Upstream:
    """One origin (``http://host:port/base`` or https), its idle connections kept for reuse."""

    def __init__(self, base_url: str, timeout: float = 60.0) -> None:
        parts = urlsplit(base_url)
        self.tls = parts.scheme == "https"
        self.host = parts.hostname or "localhost"
        self.port = parts.port or (443 if self.tls else 80)
        default = (self.tls and self.port == 443) or (not self.tls and self.port == 80)
        self.host_header = (parts.netloc.rpartition("@")[2] if not default else self.host).encode("latin-1")
        self.base_path = parts.path.rstrip("/")
        self.timeout = timeout
        self._ssl: ssl.SSLContext | None = ssl.create_default_context() if self.tls else None
        self._idle: list[_Connection] = []

    async def _connect(self) -> _Connection:
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(self.host, self.port, ssl=self._ssl, limit=READ_SIZE), self.timeout)
        except (OSError, TimeoutError) as exc:
            raise UpstreamError(f"cannot connect to {self.host}:{self.port}: {exc!r}") from None
        return _Connection(reader, writer)

    def _head(self, method: str, target: str, headers: Headers, body: bytes) -> bytes:
        lines = [f"{method} {self.base_path}{target} HTTP/1.1".encode("latin-1"), b"host: " + self.host_header]
        lines += [name + b": " + value for name, value in headers]
        if body or method in ("POST", "PUT", "PATCH"):
            lines.append(b"content-length: " + str(len(body)).encode())
        return b"\r\n".join(lines) + b"\r\n\r\n"

    async def request(self, method: str, target: str, headers: Headers, body: bytes) -> tuple[int, Headers, bytes]:
        """Send one request (``target``: path and query below the base); its status, headers, body."""
        head = self._head(method, target, headers, body)
        for attempt in (0, 1):
            reused = bool(self._idle)
            connection = self._idle.pop() if reused else await self._connect()
            try:
                async with asyncio.timeout(self.timeout):  # no task per request, unlike wait_for
                    answer = await connection.exchange(head, body, method == "HEAD")
            except TimeoutError:
                connection.close()
                raise UpstreamError(f"the upstream did not answer within {self.timeout:g} s") from None
            except (OSError, asyncio.IncompleteReadError) as exc:
                connection.close()
                if reused and attempt == 0:  # an idle connection the upstream had closed: once more, anew
                    continue
                raise UpstreamError(f"the upstream did not answer: {exc!r}") from None
            except BaseException:
                connection.close()
                raise
            if connection.reusable:
                self._idle.append(connection)
            else:
                connection.close()
            return answer
        raise UpstreamError("unreachable")  # the loop always returns or raises

    async def aclose(self) -> None:
        while self._idle:
            self._idle.pop().close()
