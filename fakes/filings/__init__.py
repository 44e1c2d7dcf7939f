"""The financial filings fake: a FinancialReports API lookalike over a generated catalogue.

~33,500 companies in 44 European markets and ~14.8 million filings, computed from the seed on
demand (see :mod:`fakes.filings.catalogue.generator` for how), with API keys in four access tiers, yearly
quotas, user-added companies and filings, and Markdown content.
"""

from __future__ import annotations

from typing import Any

from starlette.routing import BaseRoute

from fakes.kernel.errors import ServiceError
from fakes.kernel.fake import Fake

from . import control, openapi, routes
from .model import FilingsModel
from .rules import RULES
from .settings import FilingsSettings

__all__ = ["FilingsFake", "FilingsSettings"]


class FilingsFake(Fake):
    name = "filings"
    title = "Financial filings API (FinancialReports lookalike)"
    default_port = 8702
    settings_class = FilingsSettings
    client_rules = RULES

    model: FilingsModel
    settings: FilingsSettings

    def __init__(self, **kwargs: Any) -> None:
        self.responses = routes.ResponseCache()
        super().__init__(**kwargs)

    def create_model(self) -> FilingsModel:
        return FilingsModel(seed=self.seed, clock=self.clock, settings=self.settings, epoch=self.epoch)

    def routes(self) -> list[BaseRoute]:
        return routes.routes(self)

    def control_routes(self) -> list[BaseRoute]:
        return control.routes(self)

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
        """The small catalogue: every market, filter and rule of the full one on 220 companies."""
        return {"scale": "small"}

    def sample_request(self) -> tuple[str, str]:
        self.model.catalogue  # noqa: B018 - build (or fetch) the shared catalogue before any timing
        return ("GET", "/filings/?ordering=-release_datetime")

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
        return self.model.add_filing(fields, self.base_url)
