"""The relay's own refusal of a call (JSON with ``detail`` and the relay's error header), raised
anywhere in the call pipeline and rendered by :mod:`fakes.relay.calls`."""

from __future__ import annotations

from typing import Any


class Refusal(Exception):
    """The relay's own refusal of a call: JSON with ``detail`` and the error header."""

    def __init__(self, status: int, body: dict[str, Any], headers: list[tuple[str, str]] | None = None) -> None:
        super().__init__(body.get("detail"))
        self.status, self.body, self.headers = status, body, headers or []
