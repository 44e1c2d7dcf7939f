"""The financial filings fake: a FinancialReports API lookalike over a generated catalogue.

~33,500 companies in 44 European markets and ~14.8 million filings, computed from the seed on
demand (see :mod:`fakes.filings.catalogue.generator` for how), with API keys in four access tiers, yearly
quotas, user-added companies and filings, and Markdown content.
"""

from __future__ import annotations

import threading
from typing import Any

from starlette.routing import BaseRoute

from fakes.kernel.benchops import BenchOperation
from fakes.kernel.errors import ServiceError
from fakes.kernel.fake import Fake
from fakes.kernel.sender import BackgroundSender

from . import benchops, control, delivery, openapi, routes
from .model import FilingsModel
from .outbox import Outgoing
from .response_cache import ResponseCache
from .rules import RULES
from .served import ServedFilings
from .settings import FilingsSettings

__all__ = ["FilingsFake", "FilingsSettings"]


class FilingsFake(Fake):
    name = "filings"
    title = "Financial filings API (FinancialReports lookalike)"
    state_required_fields = ("catalogue", "companies", "demo_keys", "filings", "keys", "keys_issued")
    default_port = 8702
    settings_class = FilingsSettings
    client_rules = RULES

    model: FilingsModel
    settings: FilingsSettings

    def __init__(self, **kwargs: Any) -> None:
        self.responses = ResponseCache()
        self._sender: BackgroundSender[ServedFilings, Outgoing] | None = None  # made at the first delivery
        self._sync_lock = threading.Lock()
        super().__init__(**kwargs)

    def create_model(self) -> FilingsModel:
        return FilingsModel(seed=self.seed, clock=self.clock, settings=self.settings, epoch=self.epoch)

    def routes(self) -> list[BaseRoute]:
        return routes.routes()

    def control_routes(self) -> list[BaseRoute]:
        return control.routes()

    def error_body(self, err: ServiceError) -> dict[str, Any]:
        """The real service's ``{"detail": ...}`` (plus the 429 and Markdown-404 extra fields)."""
        return {"detail": err.message, **err.extra}

    def openapi_document(self) -> dict[str, Any]:
        return openapi.document(self.settings)

    def dashboard_panels(self) -> list[dict[str, Any]]:
        from .panel import panels  # imported when a browser first asks (fakes/kernel/dashboard)
        return panels(self)

    def demo_credentials(self) -> dict[str, str]:
        """One Standard key and one Free key (created with every model, so stable per seed)."""
        return {"standard_api_key": self.model.demo_keys["standard"], "free_api_key": self.model.demo_keys["free"],
                "header": self.settings.api_key_header}

    def auth_headers(self) -> dict[str, str]:
        return {self.settings.api_key_header: self.model.demo_keys["enterprise"]}

    @classmethod
    def settings_for_tests(cls) -> dict[str, Any]:
        """The small catalogue: every market, filter and rule of the full one on 220 companies; room for
        the many webhooks the generic suites create on one key."""
        return {"scale": "small", "webhook_limit": 100_000}

    def bench_operations(self) -> list[BenchOperation]:
        """Every public operation once (fakes/filings/benchops.py); sets up what they need."""
        return benchops.operations(self)

    def sample_request(self) -> tuple[str, str]:
        self.model.catalogue  # noqa: B018 - build (or fetch) the shared catalogue before any timing
        return ("GET", "/filings/?ordering=-release_datetime")

    # -- the clock's consequences -------------------------------------------------------------
    @property
    def sender(self) -> BackgroundSender[ServedFilings, Outgoing]:
        if self._sender is None:
            self._sender = delivery.sender(self)
        return self._sender

    def sync(self) -> None:
        """Make what the clock has passed happen (webhook events, retries) and hand the attempts to
        the sender thread. Cheap without webhooks: every request calls it first."""
        model = self.model
        if not model.webhooks.hooks and not model.webhooks.outgoing:
            return
        with self._sync_lock:
            outgoing = model.catch_up()
        if outgoing:
            self.sender.submit(outgoing)

    def clock_moved(self) -> None:
        self.sync()

    def wait_for_webhooks(self, timeout: float = 5.0) -> bool:
        """Make what the clock passed happen, then wait until every attempt so far was posted."""
        self.sync()
        return self.sender.wait(timeout)

    def webhook_deliveries(self, webhook_id: int | None = None) -> list[dict[str, Any]]:
        """Every delivery attempt logged (of one webhook if given), oldest first, with its outcome."""
        self.sync()
        return [{**delivery.to_json(), "attempt": delivery.attempt, "response_body": delivery.response_body,
                 "retry_at_s": delivery.retry_at_s}
                for hook_id, log in self.model.webhooks.logs.items() if webhook_id in (None, hook_id)
                for delivery in list(log)]

    # -- control plane as Python ---------------------------------------------------------------
    def create_key(self, tier: str = "standard", quota: int | str | None = "default") -> str:
        """A new API key of ``tier``; ``quota`` calls a year (None: unlimited; default: the tier's)."""
        return self.model.create_key(tier, quota).key

    def create_key_record(self, tier: str, quota: int | str | None = "default") -> dict[str, Any]:
        key = self.model.create_key(tier, quota)
        return {"api_key": key.key, "tier": key.tier, "quota": key.quota}

    def list_keys(self) -> list[dict[str, Any]]:
        return [{"api_key": k.key, "tier": k.tier, "quota": k.quota, "used": k.used, "year": k.year,
                 "remaining": k.remaining()} for k in self.model.keys.values()]

    def add_company(self, **fields: Any) -> dict[str, Any]:
        """Add a company (``name`` and ``country_code`` required); returns its full JSON."""
        return self.model.add_company(fields)

    def add_filing(self, **fields: Any) -> dict[str, Any]:
        """Publish a filing of ``company`` at the current virtual time (or at ``release_datetime``)."""
        self.sync()
        found = self.model.add_filing(fields, self.base_url)
        self.sync()
        return found

    def rerelease_filing(self, filing_id: int, **changes: Any) -> dict[str, Any]:
        """Re-release a filing added through the control plane: a new version in its history."""
        self.sync()
        found = self.model.rerelease(filing_id, changes)
        self.sync()
        return found

    def lock_watchlist(self, api_key: str, locked: bool = True) -> dict[str, Any]:
        """Lock (or unlock) a key's watchlist, as an administrator does: changes answer 403."""
        return control.lock_watchlist(self, {"api_key": api_key, "locked": locked})

    def merge_companies(self, shell_id: int, canonical_id: int, **fields: Any) -> dict[str, Any]:
        """Retire ``shell_id`` as a duplicate of ``canonical_id`` now (a ``/companies/merges/`` record)."""
        return self.model.merge({"shell_id": shell_id, "canonical_id": canonical_id, **fields})

    def reverse_merge(self, merge_id: int) -> dict[str, Any]:
        return self.model.reverse_merge(merge_id)

    def agent_owner(self, email: str, action: str) -> dict[str, Any]:
        """The owner of an agent account: ``confirm``, ``fund``, ``login``, ``block`` or ``unblock``."""
        return self.model.owner_action(email, action)

    def approve_claim(self, claim_token: str) -> dict[str, Any]:
        """The owner approves a key claim (``POST /agent/key-claim/`` then returns the key once)."""
        return self.model.approve_claim(claim_token)
