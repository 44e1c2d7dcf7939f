"""The response cache of GET answers (:func:`~fakes.filings.endpoints.guarded` fills and reads it).

A GET's 200 body is a function of the state, the second, the caller and the URL, so the same
request in the same second (a poller, a benchmark, a client paging back) is answered from here.
Each fake keeps one (``FilingsFake.responses``); it knows nothing of keys or routes.
"""

from __future__ import annotations

from collections import OrderedDict

from starlette.responses import Response

from fakes.kernel.verdicts import Broken


def cached_response(body: bytes, media_type: str | None, headers: dict[str, str],
                    allowance: dict[str, str], status: int = 200) -> Response:
    """What ``Response(body, media_type=..., headers={**headers, **allowance})`` sends, the same
    header list in the same order, without Starlette building and checking it per request (a
    repeated page's largest cost after the routing)."""
    response = Response.__new__(Response)
    response.status_code = status
    response.body = body
    response.background = None
    response.media_type = media_type
    raw = [(name.lower().encode("latin-1"), value.encode("latin-1"))
           for name, value in {**headers, **allowance}.items()]
    raw.append((b"content-length", str(len(body)).encode("latin-1")))
    if media_type is not None:
        if media_type.startswith("text/") and "charset=" not in media_type.lower():
            media_type += "; charset=" + Response.charset
        raw.append((b"content-type", media_type.encode("latin-1")))
    response.raw_headers = raw
    return response


CacheKey = tuple[int, int, int, str, str, bytes, str, str, str]
Cached = tuple[bytes, str | None, dict[str, str], int, Broken]


class ResponseCache:
    """The last few successful bodies (with the client rules their URL breaks), least recently used out."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self.entries: OrderedDict[CacheKey, Cached] = OrderedDict()

    def get(self, key: CacheKey) -> Cached | None:
        entry = self.entries.get(key)
        if entry is not None:
            self.entries.move_to_end(key)
        return entry

    def put(self, key: CacheKey, response: Response, broken: Broken) -> Cached | None:
        """Keep a 200 answer; None (nothing kept) for any other."""
        if response.status_code != 200:
            return None
        extra = {name: value for name, value in response.headers.items()
                 if name not in ("content-length", "content-type")}
        entry = (bytes(response.body), response.media_type, extra, 200, broken)
        self.entries[key] = entry
        if len(self.entries) > self.size:
            self.entries.popitem(last=False)
        return entry
