"""What each upstream was sent: the request log of the control plane's
``GET /_fake/upstreams/requests``, so a client's test can check what reached the provider.

A request is kept as the upstream received it: the method, host, path and query, the headers the
relay sent (the caller's minus the relay's own and hop-by-hop ones, plus the credential) and the
body (after undoing ``X-Treg-Body-Encoding``; a caller's own ``Content-Encoding`` is kept with the
body as sent). Registered upstreams are always logged; the simulated providers only while the
recording of simulated upstreams is on (setting ``record_upstream_requests``, or
``PUT /_fake/upstreams/recording``), since logging costs every call a little.

Kept per provider: the last :data:`MAX_KEPT` requests, each body up to :data:`MAX_BODY` bytes.
Not part of the exported state (like the kernel's journal, it observes the fake).
"""

from __future__ import annotations

import base64
from collections import deque
from dataclasses import dataclass, replace
from typing import Any

from .upstreams import UpstreamRequest

MAX_KEPT = 1_000
MAX_BODY = 256 * 1024


@dataclass(slots=True, frozen=True)
class Received:
    call_id: str
    at_ms: int
    request: UpstreamRequest  # its body cut to MAX_BODY bytes
    body_bytes: int  # the whole body's length

    def view(self) -> dict[str, Any]:
        request = self.request
        try:
            text: str | None = request.body.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        return {"call_id": self.call_id, "at_ms": self.at_ms, "method": request.method, "host": request.host,
                "path": request.path, "query": request.query, "headers": [[k, v] for k, v in request.headers],
                "body": text, "body_base64": base64.b64encode(request.body).decode("ascii"),
                "body_bytes": self.body_bytes, "body_truncated": self.body_bytes > len(request.body),
                "credential": request.credential}


class UpstreamLog:
    """The requests each provider's upstream was sent, newest last."""

    def __init__(self, simulated: bool = False) -> None:
        self.simulated = simulated  # whether the simulated providers' requests are logged too
        self.by_provider: dict[str, deque[Received]] = {}

    def add(self, provider: str, call_id: str, at_ms: int, request: UpstreamRequest) -> None:
        kept = self.by_provider.get(provider)
        if kept is None:
            kept = self.by_provider[provider] = deque(maxlen=MAX_KEPT)
        body = request.body
        if len(body) > MAX_BODY:
            request = replace(request, body=body[:MAX_BODY])
        kept.append(Received(call_id, at_ms, request, len(body)))

    def view(self, provider: str | None = None) -> dict[str, Any]:
        names = [provider] if provider is not None else sorted(self.by_provider)
        return {"recording_simulated": self.simulated,
                "upstreams": {name: [r.view() for r in self.by_provider.get(name, ())] for name in names}}

    def clear(self, provider: str | None = None) -> None:
        if provider is None:
            self.by_provider.clear()
        else:
            self.by_provider.pop(provider, None)
