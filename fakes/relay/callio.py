"""What a route hands the relay's call pipeline (:class:`CallInput`) and gets back
(:class:`CallOutput`): plain Python, no HTTP types. Below the pipeline and the rule modules that
read a call (:mod:`fakes.relay.resolve`, :mod:`fakes.relay.routed`, :mod:`fakes.relay.attempt`);
:mod:`fakes.relay.calls` re-exports both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from fakes.kernel.verdicts import ClientRule

from . import billing


@dataclass(slots=True)
class CallInput:
    method: str
    target: str  # what follows /call/: a tool name and path, a catalogue id or a full upstream URL
    query: str
    params: dict[str, str]
    headers: list[tuple[bytes, bytes]]  # as the ASGI scope has them
    body: bytes
    token: str | None
    idempotency_key: str | None
    decoded: bool = False  # the relay undid a body encoding (the caller's Content-Encoding is then dropped)
    #: False when the caller already tried (or ruled out) the plan: the route does, reading the headers
    try_plan: bool = True
    _named: dict[str, str] | None = field(default=None, repr=False)

    def header(self, name: str) -> str | None:
        """A request header by its lower-case name (read only on the full pipeline)."""
        if self._named is None:
            self._named = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in self.headers}
        return self._named.get(name)

    def headers_named(self) -> dict[str, str]:
        self.header("")
        assert self._named is not None
        return self._named


@dataclass(slots=True)
class CallOutput:
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    flags: Sequence[tuple[ClientRule, str]] = ()
    recorded: bool = False  # a call record was kept (the call was answered, not refused)

    def json(self) -> Any:
        return billing.parse_json(self.body)
