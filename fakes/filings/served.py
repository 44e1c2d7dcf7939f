"""What the routes, the control plane and the webhook sender need of the fake, as protocols.

:class:`~fakes.filings.FilingsFake` composes these pieces and satisfies both protocols; the pieces
depend on them rather than on the class that imports them, so the package reads bottom-up.
"""

from __future__ import annotations

from typing import Any, Protocol

from fakes.kernel.clock import Clock
from fakes.kernel.errors import ServiceError

from .model import FilingsModel
from .response_cache import ResponseCache
from .settings import FilingsSettings


class ServedFilings(Protocol):
    """What a request's handling reads: the model (replaced by reset and import, so read per
    request), the settings, the clock, the response cache, and the catch-up run before anything."""

    @property
    def model(self) -> FilingsModel: ...

    @property
    def settings(self) -> FilingsSettings: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def responses(self) -> ResponseCache: ...

    def sync(self) -> None:
        """Make what the clock has passed happen (webhook events, retries) and send the attempts."""

    def error_body(self, err: ServiceError) -> dict[str, Any]:
        """The service's own error body (what the kernel renders a refusal with)."""


class ControlledFilings(ServedFilings, Protocol):
    """The control plane as Python (what ``/_fake/`` calls and the dashboard shows)."""

    @property
    def prefix(self) -> str: ...

    def list_keys(self) -> list[dict[str, Any]]: ...

    def create_key_record(self, tier: str, quota: int | str | None = "default") -> dict[str, Any]: ...

    def add_company(self, **fields: Any) -> dict[str, Any]: ...

    def rerelease_filing(self, filing_id: int, **changes: Any) -> dict[str, Any]: ...

    def reverse_merge(self, merge_id: int) -> dict[str, Any]: ...

    def agent_owner(self, email: str, action: str) -> dict[str, Any]: ...

    def approve_claim(self, claim_token: str) -> dict[str, Any]: ...

    def webhook_deliveries(self, webhook_id: int | None = None) -> list[dict[str, Any]]: ...
