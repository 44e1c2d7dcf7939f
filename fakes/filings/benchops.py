"""One timed request per public operation (``FilingsFake.bench_operations``; fakes/kernel/benchops.py).

The requests are the ones a client makes most, on records that exist at any scale (company 7,
filing 1, the first row of each reference list); what an operation consumes (a webhook to delete,
a watchlist entry to remove, a key to rotate) is made again by its ``prepare``, untimed.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Protocol

from fakes.kernel.benchops import BenchOperation

from .catalogue.companies import company_core

if TYPE_CHECKING:
    from .model import FilingsModel
    from .settings import FilingsSettings

COMPANY = 7
FILING = 1
DEAD_RECEIVER = "http://127.0.0.1:9/bench-hook"  # the discard port: nothing listens, the attempt fails fast


class BenchedFilings(Protocol):
    """What the set-up reads of the fake (:class:`~fakes.filings.FilingsFake` is one)."""

    @property
    def model(self) -> FilingsModel: ...

    @property
    def settings(self) -> FilingsSettings: ...

    def auth_headers(self) -> dict[str, str]: ...


class AgentKey(Mapping[str, str]):
    """The bench agent's current key as a header (rotation replaces it each time)."""

    def __init__(self, fake: BenchedFilings, email: str) -> None:
        self.fake, self.email = fake, email

    def _header(self) -> dict[str, str]:
        account = self.fake.model.agents.accounts[self.email]
        return {self.fake.settings.api_key_header: account.key}

    def __getitem__(self, name: str) -> str:
        return self._header()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._header())

    def __len__(self) -> int:
        return 1


def operations(fake: BenchedFilings) -> list[BenchOperation]:
    model = fake.model
    key = fake.auth_headers()[fake.settings.api_key_header]
    isin = company_core(model.catalogue, COMPANY).isins[0]
    hook = model.webhooks.create(key, {"url": DEAD_RECEIVER, "trigger_on_filing_processed": False}, model.now_s())
    delivery = model.webhooks.attempt(model, hook, "filing.processed.test", None, model.now_s(), model.now_s())
    model.webhooks.take_outgoing()  # logged, never sent
    signup = model.sign_up({"email": "bench-agent@example.com", "agent_name": "bench"})[1]
    agent = AgentKey(fake, signup["email"])
    claim = model.agents.claim_for(model.seed, model.epoch, signup["email"], model.now_s()).token  # never approved

    def fresh_hook() -> dict[str, str]:
        made = model.webhooks.create(key, {"url": DEAD_RECEIVER, "is_active": False}, model.now_s())
        return {"hook": str(made.id)}

    def room_for_a_hook() -> dict[str, str]:
        for other in list(model.webhooks.listing(key)):
            if other.id != hook.id:
                model.webhooks.delete(other)
        return {}

    def watched() -> dict[str, str]:
        if COMPANY not in model.watchlists.watched(key):
            model.watchlists.add(key, COMPANY)
        return {}

    def unwatched() -> dict[str, str]:
        if COMPANY in model.watchlists.watched(key):
            model.watchlists.remove(key, COMPANY)
        return {}

    def get(name: str, path: str, template: str | None = None) -> BenchOperation:
        return BenchOperation(name, "GET", path, template)

    reference = []
    for base, name in (("countries", "countries"), ("languages", "languages"), ("sources", "sources"),
                       ("filing-categories", "filing_categories"), ("isic-sections", "isic_sections"),
                       ("isic-divisions", "isic_divisions"), ("isic-groups", "isic_groups"),
                       ("isic-classes", "isic_classes")):
        reference += [get(f"{name}_list", f"/{base}/"), get(f"{name}_retrieve", f"/{base}/1/", f"/{base}/{{id}}/")]
    return [
        get("companies_list", "/companies/?countries=DE&page_size=50"),
        get("companies_retrieve", f"/companies/{COMPANY}/", "/companies/{company_id}/"),
        get("companies_financials_retrieve", f"/companies/{COMPANY}/financials/",
            "/companies/{company_id}/financials/"),
        get("companies_dividends_retrieve", f"/companies/{COMPANY}/dividends/", "/companies/{company_id}/dividends/"),
        get("companies_segments_retrieve", f"/companies/{COMPANY}/segments/", "/companies/{company_id}/segments/"),
        BenchOperation("companies_next_annual_report_retrieve", "GET", f"/companies/{COMPANY}/next-annual-report/",
                       "/companies/{company_id}/next-annual-report/", expect=(200, 404)),  # 404: a short history
        get("companies_merges_retrieve", "/companies/merges/"),
        BenchOperation("companies_resolve_create", "POST", "/companies/resolve/", json={"rows": [
            {"ref": "a", "isin": isin}, {"ref": "b", "ticker": company_core(model.catalogue, COMPANY).ticker}]}),
        get("filings_list", "/filings/?ordering=-release_datetime"),
        get("filings_list (fiscal_year, search)", "/filings/?fiscal_year=2024&search=annual", "/filings/"),
        get("filings_retrieve", f"/filings/{FILING}/", "/filings/{filing_id}/"),
        get("filings_markdown_retrieve", f"/filings/{FILING}/markdown/", "/filings/{filing_id}/markdown/"),
        get("filings_markdown_search_retrieve", f"/filings/{FILING}/markdown/search/?q=revenue",
            "/filings/{filing_id}/markdown/search/"),
        get("filings_document_retrieve", f"/filings/{FILING}/document/", "/filings/{filing_id}/document/"),
        get("filings_history_retrieve", f"/filings/{FILING}/history/", "/filings/{filing_id}/history/"),
        get("filing_types_list", "/filing-types/"),
        get("filing_types_retrieve", "/filing-types/1/", "/filing-types/{type_id}/"),
        *reference,
        get("isins_list", "/isins/"),
        get("isins_retrieve", f"/isins/{isin}/", "/isins/{code}/"),
        get("security_listings_list", "/security-listings/"),
        get("security_listings_retrieve", f"/security-listings/{COMPANY}/", "/security-listings/{id}/"),
        get("line_item_definitions_list", "/line-item-definitions/"),
        get("line_item_definitions_retrieve", "/line-item-definitions/revenue/", "/line-item-definitions/{code}/"),
        get("watchlist_retrieve", "/watchlist/"),
        BenchOperation("watchlist_companies_create", "POST", "/watchlist/companies/", json={"company_id": COMPANY},
                       prepare=unwatched, expect=(201,)),
        BenchOperation("watchlist_companies_destroy", "DELETE", f"/watchlist/companies/{COMPANY}/",
                       "/watchlist/companies/{company_id}/", prepare=watched),
        BenchOperation("watchlist_companies_bulk_add_create", "POST", "/watchlist/companies/bulk-add/",
                       json={"company_ids": [COMPANY, COMPANY + 1]}),
        BenchOperation("watchlist_companies_bulk_remove_create", "POST", "/watchlist/companies/bulk-remove/",
                       json={"company_ids": [COMPANY, COMPANY + 1]}),
        get("webhooks_list", "/webhooks/"),
        BenchOperation("webhooks_create", "POST", "/webhooks/", json={"url": DEAD_RECEIVER, "is_active": False},
                       prepare=room_for_a_hook, expect=(201,)),
        get("webhooks_retrieve", f"/webhooks/{hook.id}/", "/webhooks/{id}/"),
        BenchOperation("webhooks_update", "PUT", f"/webhooks/{hook.id}/", "/webhooks/{id}/",
                       json={"url": DEAD_RECEIVER, "trigger_on_filing_processed": False}),
        BenchOperation("webhooks_partial_update", "PATCH", f"/webhooks/{hook.id}/", "/webhooks/{id}/",
                       json={"include_isins": True}),
        BenchOperation("webhooks_destroy", "DELETE", "/webhooks/{hook}/", "/webhooks/{id}/", prepare=fresh_hook,
                       expect=(204,)),
        get("webhooks_deliveries_retrieve", f"/webhooks/{hook.id}/deliveries/", "/webhooks/{id}/deliveries/"),
        get("webhooks_delivery_detail_retrieve", f"/webhooks/{hook.id}/deliveries/{delivery.uuid}/",
            "/webhooks/{id}/deliveries/{delivery_uuid}/"),
        BenchOperation("webhooks_deliveries_replay_create", "POST",
                       f"/webhooks/{hook.id}/deliveries/{delivery.uuid}/replay/",
                       "/webhooks/{id}/deliveries/{delivery_uuid}/replay/", json={}, expect=(202,)),
        BenchOperation("webhooks_regenerate_secret_create", "POST", f"/webhooks/{hook.id}/regenerate-secret/",
                       "/webhooks/{id}/regenerate-secret/", json={}),
        BenchOperation("webhooks_test_create", "POST", f"/webhooks/{hook.id}/test/", "/webhooks/{id}/test/", json={},
                       expect=(400,)),  # nothing listens at the bench receiver: the test reports the failure
        BenchOperation("agent_signup", "POST", "/agent/signup/", auth=False,
                       json={"email": "bench@example.com", "agent_name": "bench"}, expect=(201, 409)),
        BenchOperation("agent_key_claim", "POST", "/agent/key-claim/", auth=False, json={"claim_token": claim},
                       expect=(202,)),
        BenchOperation("agent_key_rotate", "POST", "/agent/key/rotate/", auth=False, headers=agent),
        BenchOperation("agent_owner_confirmation", "POST", "/agent/owner-confirmation/", auth=False, headers=agent,
                       expect=(202,)),
        BenchOperation("agent_checkout_link", "POST", "/agent/checkout-link/", auth=False, headers=agent,
                       expect=(200, 201)),
        BenchOperation("agent_status", "GET", "/agent/status/", auth=False, headers=agent),
        get("usage_retrieve", "/usage/"),
    ]
