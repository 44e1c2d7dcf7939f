"""Company and person enrichment fake: a NinjaPear lookalike (docs/services/enrichment.md).

Credits in exact tenths with a cost header on every response, plans (trial, pay-as-you-go packs,
four subscriptions), per-account rate limits on the virtual clock, a generated world keyed by
website, monitoring feeds whose items appear as virtual time passes, and an MCP server over SSE.
See docs/services/enrichment.md.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from starlette.routing import BaseRoute

from fakes.kernel.benchops import BenchOperation
from fakes.kernel.errors import ControlError, ServiceError
from fakes.kernel.fake import Fake

from .bench import bench_operations, mix_operations
from .bodycheck import ACCOUNT_IN, COMPANY_IN, PERSON_IN, PURCHASE_IN, check_body
from .control import control_routes
from .credits import CreditError
from .data import normalize_website
from .mcp import McpGate
from .model import AccountExists, EnrichmentModel
from .openapi import openapi_document
from .routes import service_routes
from .rules import CLIENT_RULES
from .settings import EnrichmentSettings

__all__ = ["EnrichmentFake", "EnrichmentModel", "EnrichmentSettings"]

SAMPLE_COMPANY = "stripe.com"
class EnrichmentFake(Fake):
    name = "enrichment"
    title = "Company and person enrichment API"
    state_required_fields = ("accounts", "cache", "feeds", "key_counter", "world")
    default_port = 8703
    settings_class = EnrichmentSettings
    client_rules = CLIENT_RULES

    settings: EnrichmentSettings
    model: EnrichmentModel
    _mcp: McpGate | None = None
    _auth_for: EnrichmentModel | None = None
    _auth_headers: dict[str, str]

    # -- kernel hooks -------------------------------------------------------------------------
    def create_model(self) -> EnrichmentModel:
        return EnrichmentModel(self.clock, self.settings, self.seed, self.epoch)

    def routes(self) -> list[BaseRoute]:
        return service_routes(self)

    def control_routes(self) -> list[BaseRoute]:
        return control_routes()

    def error_body(self, err: ServiceError) -> dict[str, Any]:
        """The service's own error shape: ``{"error": "<message>"}``."""
        return {"error": err.message}

    def openapi_document(self) -> dict[str, Any]:
        return openapi_document(self.settings, self.title)

    def dashboard_panels(self) -> list[dict[str, Any]]:
        from .panel import panels  # imported when a browser first asks (fakes/kernel/dashboard)
        return panels(self)

    def mcp_app(self) -> McpGate:
        """The MCP endpoint (SSE) of this fake: a gate whose SDK app is made on the first /mcp request;
        the tools (shared by every fake of the process) read this fake's current model per call."""
        if self._mcp is None:
            self._mcp = McpGate(self)
        return self._mcp

    def demo_credentials(self) -> dict[str, str]:
        """A trial key (10 credits, 3 days) and a $299 subscription key."""
        trial = self.create_account("trial")["api_key"]
        subscription = self.create_account("sub_299")["api_key"]
        return {"trial_api_key": trial, "subscription_api_key": subscription,
                "headers": f"Authorization: Bearer {subscription}",
                "mcp": f"/mcp/sse?api_key={subscription}"}

    def auth_headers(self) -> dict[str, str]:
        """A subscription key without rate limits and with ample credits (contract tests, benchmark)."""
        if self._auth_for is not self.model:
            key = self.create_account("sub_1899", credits=10_000_000, rate_limited=False)["api_key"]
            self._auth_headers = {"Authorization": f"Bearer {key}"}
            self._auth_for = self.model
        return dict(self._auth_headers)

    def bench_operations(self) -> list[BenchOperation]:
        """Every public operation, timed by ``python -m scenarios bench --parts operations`` (see :mod:`.bench`)."""
        return bench_operations(self)

    def bench_mix_operations(self) -> list[BenchOperation]:
        """The operations a rule-abiding client sends, for the benchmark's realistic mix (see
        :func:`.bench.mix_operations`)."""
        return mix_operations(self)

    def sample_request(self) -> tuple[str, str]:
        self.auth_headers()
        return ("GET", f"/v1/company/details?website={SAMPLE_COMPANY}")

    # -- control plane as Python --------------------------------------------------------------
    def create_account(self, plan: str = "trial", credits: Any = None, *, rate_limited: bool = True,
                       api_key: str | None = None) -> dict[str, Any]:
        """A new account with its key: plan ``trial|payg|sub_49|sub_299|sub_899|sub_1899``; ``credits``
        are rounded to 0.1."""
        body = {k: v for k, v in {"plan": plan, "credits": credits, "rate_limited": rate_limited,
                                  "api_key": api_key}.items() if v is not None}
        check_body(body, ACCOUNT_IN, "account")
        if api_key is not None:
            api_key = api_key.rstrip("\n")
        if credits is not None:
            credits = Decimal(str(credits)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
        try:
            return self.model.create_account(plan, credits, rate_limited=rate_limited, api_key=api_key)
        except AccountExists as exc:
            raise ControlError(409, str(exc), code="conflict") from None
        except CreditError as exc:
            raise ControlError(400, str(exc), code="invalid_account") from None

    def account(self, api_key: str) -> dict[str, Any]:
        """Balance (exact), expiries, plan, usage and feeds of an account."""
        return self.model.account_info(api_key)

    def purchase(self, api_key: str, pack_usd: Any) -> dict[str, Any]:
        """Buy a credit pack at the current virtual time (resumes feeds suspended for credits)."""
        check_body({"pack_usd": pack_usd}, PURCHASE_IN, "purchase")
        try:
            return self.model.purchase(api_key, pack_usd)
        except CreditError as exc:
            raise ControlError(400, str(exc), code="invalid_purchase") from None

    def add_company(self, website: Any = None, **fields: Any) -> dict[str, Any]:
        """Add (or change) a company keyed by its website; fields not given are generated."""
        check_body({"website": website, **fields} if website is not None else fields, COMPANY_IN, "company")
        domain = normalize_website(str(website))
        if domain is None:
            raise ControlError(400, "website must be a company website such as https://www.example.com",
                               code="invalid_company")
        if "employee_count" in fields:  # keep the range consistent with the count
            count = int(fields["employee_count"])
            fields.setdefault("employee_count_range_min", count - count // 5)
            fields.setdefault("employee_count_range_max", count + count // 5 + 1)
        record = self.model.world.add_company(domain, dict(fields))
        return {"website": f"https://www.{domain}", **{k: v for k, v in record.items() if not k.startswith("_")}}

    def add_person(self, **fields: Any) -> dict[str, Any]:
        """Add a person at a known company: ``first_name``, ``last_name``, ``employer_website``,
        optional ``role``, ``work_email`` (what the work-email lookup returns) and profile fields."""
        check_body(fields, PERSON_IN, "person")
        domain = normalize_website(fields.pop("employer_website"))
        if domain is None:
            raise ControlError(400, "employer_website must be a website", code="invalid_person")
        if not self.model.world.known(domain):
            raise ControlError(404, f"{domain} is not a known company: add it first", code="not_found")
        _key, profile = self.model.world.add_person(domain, fields)
        return {**profile, "employer_website": f"https://www.{domain}"}
