"""Company and person enrichment fake: a NinjaPear lookalike (seed 001, part A).

Credits in exact tenths with a cost header on every response, plans (trial, pay-as-you-go packs,
four subscriptions), per-account rate limits on the virtual clock, a generated world keyed by
website, monitoring feeds whose items appear as virtual time passes, and an MCP server over SSE.
See docs/services/enrichment.md.
"""

from __future__ import annotations

from typing import Any

from starlette.routing import BaseRoute

from fakes.kernel.errors import ControlError, ServiceError
from fakes.kernel.fake import Fake

from .control import control_routes
from .credits import CreditError
from .data import normalize_website
from .mcp import McpGate, build_mcp
from .model import EnrichmentModel
from .openapi import openapi_document
from .routes import service_routes
from .rules import CLIENT_RULES
from .settings import EnrichmentSettings

__all__ = ["EnrichmentFake", "EnrichmentModel", "EnrichmentSettings"]

SAMPLE_COMPANY = "stripe.com"
COMPANY_FIELDS = frozenset({
    "name", "description", "tagline", "industry", "company_type", "founded_year", "specialties", "employee_count",
    "employee_count_range_min", "employee_count_range_max", "follower_count", "following_count", "addresses",
    "public_listing", "cover_pic_url", "facebook_url", "twitter_url", "instagram_url", "funding_rounds", "products",
})
PERSON_FIELDS = frozenset({
    "first_name", "last_name", "middle_name", "employer_website", "role", "work_email", "bio", "country", "city",
    "state", "x_handle", "x_profile_url", "personal_website", "follower_count", "following_count", "education",
    "work_experience",
})
COMPANY_TYPES = ("PUBLIC_COMPANY", "PRIVATELY_HELD", "GOVERNMENT_AGENCY", "NON_PROFIT", "EDUCATIONAL", "PARTNERSHIP",
                 "SELF_EMPLOYED", "SELF_OWNED")


class EnrichmentFake(Fake):
    name = "enrichment"
    title = "Company and person enrichment API"
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
        return EnrichmentModel(self.clock, self.settings, self.seed)

    def routes(self) -> list[BaseRoute]:
        return service_routes(self)

    def control_routes(self) -> list[BaseRoute]:
        return control_routes(self)

    def error_body(self, err: ServiceError) -> dict[str, Any]:
        """The service's own error shape: ``{"error": "<message>"}``."""
        return {"error": err.message}

    def openapi_document(self) -> dict[str, Any]:
        return openapi_document(self.settings, self.title)

    def mcp_app(self) -> McpGate:
        """The MCP server (SSE), built once per fake; its tools read the current model per call."""
        if self._mcp is None:
            self._mcp = build_mcp(self)
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

    def sample_request(self) -> tuple[str, str]:
        self.auth_headers()
        return ("GET", f"/v1/company/details?website={SAMPLE_COMPANY}")

    # -- control plane as Python --------------------------------------------------------------
    def create_account(self, plan: str = "trial", credits: Any = None, *, rate_limited: bool = True,
                       api_key: str | None = None) -> dict[str, Any]:
        """A new account with its key: plan ``trial|payg|sub_49|sub_299|sub_899|sub_1899``."""
        if not isinstance(rate_limited, bool):
            raise ControlError(400, "rate_limited must be true or false", code="invalid_field")
        if api_key is not None and (not isinstance(api_key, str) or not 8 <= len(api_key) <= 64
                                    or not api_key.replace("_", "").replace("-", "").isalnum()):
            raise ControlError(400, "api_key must be 8-64 letters, digits, _ or -", code="invalid_field")
        if not isinstance(plan, str):
            raise ControlError(400, "plan must be a string", code="invalid_field")
        try:
            return self.model.create_account(plan, credits, rate_limited=rate_limited, api_key=api_key)
        except CreditError as exc:
            raise ControlError(400, str(exc), code="invalid_account") from None

    def account(self, api_key: str) -> dict[str, Any]:
        """Balance (exact), expiries, plan, usage and feeds of an account."""
        return self.model.account_info(api_key)

    def purchase(self, api_key: str, pack_usd: Any) -> dict[str, Any]:
        """Buy a credit pack at the current virtual time (resumes feeds suspended for credits)."""
        try:
            return self.model.purchase(api_key, pack_usd)
        except CreditError as exc:
            raise ControlError(400, str(exc), code="invalid_purchase") from None

    def add_company(self, website: Any = None, **fields: Any) -> dict[str, Any]:
        """Add (or change) a company keyed by its website; fields not given are generated."""
        domain = normalize_website(website) if isinstance(website, str) else None
        if domain is None:
            raise ControlError(400, "website must be a company website such as https://www.example.com",
                               code="invalid_company")
        unknown = sorted(set(fields) - COMPANY_FIELDS)
        if unknown:
            raise ControlError(400, f"unknown field(s) {', '.join(unknown)}", code="unknown_field")
        _check_types(fields, {"name": str, "description": str, "tagline": str, "industry": int, "founded_year": int,
                              "employee_count": int, "specialties": list, "addresses": list, "funding_rounds": list,
                              "products": list, "public_listing": dict})
        if "company_type" in fields and fields["company_type"] not in COMPANY_TYPES:
            raise ControlError(400, f"company_type must be one of {', '.join(COMPANY_TYPES)}", code="invalid_company")
        record = self.model.world.add_company(domain, dict(fields))
        return {"website": f"https://www.{domain}", **{k: v for k, v in record.items() if not k.startswith("_")}}

    def add_person(self, **fields: Any) -> dict[str, Any]:
        """Add a person at a company: ``first_name``, ``last_name``, ``employer_website``, optional ``role``,
        ``work_email`` (what the work-email lookup returns) and profile fields."""
        unknown = sorted(set(fields) - PERSON_FIELDS)
        if unknown:
            raise ControlError(400, f"unknown field(s) {', '.join(unknown)}", code="unknown_field")
        for required in ("first_name", "last_name", "employer_website"):
            if not isinstance(fields.get(required), str) or not fields[required].strip():
                raise ControlError(400, f"{required} is required (a non-empty string)", code="invalid_person")
        _check_types(fields, {"role": str, "work_email": str, "bio": str, "education": list, "work_experience": list})
        domain = normalize_website(fields.pop("employer_website"))
        if domain is None or "|" in fields["first_name"] + fields["last_name"]:
            raise ControlError(400, "employer_website must be a website; names must not hold '|'",
                               code="invalid_person")
        if not self.model.world.known(domain):
            raise ControlError(400, f"{domain} is not a known company: add it first", code="invalid_person")
        _key, profile = self.model.world.add_person(domain, fields)
        return {**profile, "employer_website": f"https://www.{domain}"}


def _check_types(fields: dict[str, Any], types: dict[str, type]) -> None:
    for name, kind in types.items():
        if name in fields and (not isinstance(fields[name], kind) or isinstance(fields[name], bool)):
            raise ControlError(400, f"{name} must be of type {kind.__name__}", code="invalid_field")
