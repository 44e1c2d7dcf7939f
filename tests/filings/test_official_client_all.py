"""Every public operation method of the official client's API classes, against the fake.

``financial-reports-generated-client`` validates each answer with its pydantic models (required
and nullable fields, enums), so a shape the fake gets wrong fails here. The fake is served over
HTTP (the client speaks aiohttp) with a catalogue of 300 companies, whose filings go back years
(annual reports to predict from, financials over many years). Webhook deliveries go to a loopback
receiver in this process. The last test checks that every method was called.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import hmac
import inspect
import json
import re
import threading
from collections.abc import Awaitable, Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from financial_reports_generated_client import api as client_apis
from financial_reports_generated_client.api_client import ApiClient
from financial_reports_generated_client.client import FinancialReports
from financial_reports_generated_client.exceptions import ApiException
from financial_reports_generated_client.models.agent_key_claim_request import AgentKeyClaimRequest
from financial_reports_generated_client.models.agent_signup_request import AgentSignupRequest
from financial_reports_generated_client.models.bulk_watchlist import BulkWatchlist
from financial_reports_generated_client.models.company_resolve_request import CompanyResolveRequest
from financial_reports_generated_client.models.patched_webhook import PatchedWebhook
from financial_reports_generated_client.models.resolve_row import ResolveRow
from financial_reports_generated_client.models.watchlist_action import WatchlistAction
from financial_reports_generated_client.models.webhook import Webhook

from fakes.filings import FilingsFake

API_CLASSES = [cls for _name, cls in inspect.getmembers(client_apis, inspect.isclass) if cls.__name__.endswith("Api")]


def public_methods() -> set[str]:
    return {f"{cls.__name__}.{name}" for cls in API_CLASSES for name, _ in inspect.getmembers(cls, inspect.isfunction)
            if not name.startswith("_") and not name.endswith(("_with_http_info", "_without_preload_content"))}


class Receiver:
    """A loopback webhook receiver: records every POST; answers ``status`` (a list: one per POST)."""

    def __init__(self) -> None:
        self.posts: list[tuple[dict[str, str], bytes]] = []
        self.statuses: list[int] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                receiver.posts.append(({k.lower(): v for k, v in self.headers.items()}, body))
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                self.send_response(status)
                self.send_header("content-length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[FilingsFake, str, Receiver]]:
    fake = FilingsFake(seed=0, scale="300", agent_sandbox_calls=3)
    receiver = Receiver()
    with fake.serve() as url:
        yield fake, url, receiver
    receiver.server.shutdown()


class Apis:
    """Every API class of the client on one ApiClient; ``call`` records which method ran."""

    def __init__(self, api_client: ApiClient) -> None:
        self.by_class = {cls.__name__: cls(api_client) for cls in API_CLASSES}

    async def call(self, qualified: str, *args: Any, **kwargs: Any) -> Any:
        class_name, method = qualified.split(".")
        return await getattr(self.by_class[class_name], method)(*args, **kwargs)


def run(url: str, key: str, body: Callable[[Apis], Awaitable[Any]]) -> Any:
    async def go() -> Any:
        async with FinancialReports(api_key=key) as client:
            client.api_client.configuration.host = url
            return await body(Apis(client.api_client))
    return asyncio.run(go())


def test_reference_data(served: tuple[FilingsFake, str, Receiver]) -> None:
    fake, url, _receiver = served

    async def body(apis: Apis) -> None:
        countries = await apis.call("CountriesApi.countries_list", page_size=100)
        assert countries.count == 44 and {c.alpha_2 for c in countries.results} >= {"DE", "GB", "FO"}
        assert (await apis.call("CountriesApi.countries_retrieve", 2)).alpha_3 == "DEU"
        languages = await apis.call("LanguagesApi.languages_list", page_size=100)
        assert (await apis.call("LanguagesApi.languages_retrieve", languages.results[1].id)).code == "de"
        sources = await apis.call("SourcesApi.sources_list", page_size=100)
        assert sources.count == 44
        assert (await apis.call("SourcesApi.sources_retrieve", 1)).id == 1
        categories = await apis.call("FilingCategoriesApi.filing_categories_list")
        assert (await apis.call("FilingCategoriesApi.filing_categories_retrieve", categories.results[0].id)).name
        types = await apis.call("FilingTypesApi.filing_types_list", category=1)
        assert types.results and all(t.category.id == 1 for t in types.results)
        assert (await apis.call("FilingTypesApi.filing_types_retrieve", 1)).code == "10-K"
        sections = await apis.call("ISICClassificationsApi.isic_sections_list", code__in=["K", "C"])
        assert {s.code for s in sections.results} == {"C", "K"}
        assert (await apis.call("ISICClassificationsApi.isic_sections_retrieve", 1)).code == "A"
        divisions = await apis.call("ISICClassificationsApi.isic_divisions_list", sector_code="K")
        assert divisions.results and all(d.sector.code == "K" for d in divisions.results)
        assert (await apis.call("ISICClassificationsApi.isic_divisions_retrieve", 1)).sector.code
        groups = await apis.call("ISICClassificationsApi.isic_groups_list", industry_group_code="64")
        assert all(g.industry_group.code == "64" for g in groups.results)
        assert (await apis.call("ISICClassificationsApi.isic_groups_retrieve", 1)).industry_group
        classes = await apis.call("ISICClassificationsApi.isic_classes_list", name__icontains="bank",
                                  page_size=100)
        assert classes.count >= 0
        assert (await apis.call("ISICClassificationsApi.isic_classes_retrieve", 1)).industry.industry_group.sector
        company = await apis.call("CompaniesApi.companies_retrieve", 7)
        isins = await apis.call("ISINsApi.isins_list", company=7)
        assert [i.code for i in isins.results] == company.isins and isins.results[0].is_primary
        assert (await apis.call("ISINsApi.isins_retrieve", company.isins[0])).company.id == 7
        listings = await apis.call("SecurityListingsApi.security_listings_list", ticker=company.ticker)
        assert 7 in {row.company.id for row in listings.results}
        listing = await apis.call("SecurityListingsApi.security_listings_retrieve", 7)
        assert listing.figi == company.listings[0].figi and listing.mic == company.listings[0].mic
        definitions = await apis.call("FinancialDataApi.line_item_definitions_list", statement_type="IS")
        assert definitions.results and all(d.statement_type.value == "IS" for d in definitions.results)
        revenue = await apis.call("FinancialDataApi.line_item_definitions_retrieve", "revenue")
        assert revenue.depth == 0 and revenue.parent_code is None

    run(url, fake.create_key("standard"), body)


def test_company_extras(served: tuple[FilingsFake, str, Receiver]) -> None:
    fake, url, _receiver = served
    fake.merge_companies(12, 11, pattern="exact_duplicate")

    async def body(apis: Apis) -> None:
        companies = await apis.call("CompaniesApi.companies_list", countries="DE", page_size=5)
        assert companies.results and all(c.country_code == "DE" for c in companies.results)
        financials = await apis.call("CompaniesApi.companies_financials_retrieve", 7, statement_type="IS",
                                     line_items="revenue,gross_profit,net_income_loss")
        assert financials.period_count >= 5
        year = financials.periods[0]
        codes = {item.code for statement in year.statements for item in statement.line_items}
        assert codes <= {"revenue", "gross_profit", "net_income_loss"} and "revenue" in codes
        dividends = await apis.call("CompaniesApi.companies_dividends_retrieve", 7)
        assert dividends.company_id == 7
        segments = await apis.call("CompaniesApi.companies_segments_retrieve", 7, axis="business")
        assert segments.company_id == 7
        prediction = await apis.call("CompaniesApi.companies_next_annual_report_retrieve", 7)
        assert prediction.start_date <= prediction.end_date and 0 <= prediction.confidence <= 100
        merges = await apis.call("CompaniesApi.companies_merges_retrieve")
        assert [(m.shell_id, m.canonical_id) for m in merges.results] == [(12, 11)]
        company = await apis.call("CompaniesApi.companies_retrieve", 7)
        resolved = await apis.call("CompaniesApi.companies_resolve_create", CompanyResolveRequest(rows=[
            ResolveRow(ref="a", isin=company.isins[0]), ResolveRow(ref="b", name="No Such Company Ever Ltd"),
            ResolveRow(ref="c")]))
        assert [r.status.value for r in resolved.results] == ["matched", "not_covered", "not_covered"]
        assert resolved.results[0].company.id == 7 and resolved.results[2].warnings == ["no_identifiers"]

    run(url, fake.create_key("enterprise"), body)


def test_filings_and_their_dates_in_the_clients_format(served: tuple[FilingsFake, str, Receiver]) -> None:
    fake, url, _receiver = served
    key = fake.create_key("enterprise")

    async def body(apis: Apis) -> None:
        start = dt.datetime(2025, 9, 1, tzinfo=dt.UTC)
        aware = await apis.call("FilingsApi.filings_list", release_datetime_from=start, page_size=5)
        naive = await apis.call("FilingsApi.filings_list", release_datetime_from=start.replace(tzinfo=None),
                                page_size=5)
        with fake.client(headers={"X-API-Key": key}) as http:
            zulu = http.get("/filings/", params={"release_datetime_from": "2025-09-01T00:00:00Z",
                                                 "page_size": 5}).json()
        assert aware.count == naive.count == zulu["count"] > 0
        assert [f.id for f in aware.results] == [f["id"] for f in zulu["results"]]
        annual = await apis.call("FilingsApi.filings_list", fiscal_year=2023, type="10-K", page_size=50)
        assert annual.results and all(f.title.endswith("Annual Report 2023") for f in annual.results)
        first = annual.results[0]
        detail = await apis.call("FilingsApi.filings_retrieve", first.id)
        assert detail.fiscal_year == 2023
        history = await apis.call("FilingsApi.filings_history_retrieve", first.id)
        assert [h.history_type for h in history.results] == ["~", "+"]
        text = await apis.call("FilingsApi.filings_markdown_retrieve", first.id, limit=200)
        assert isinstance(text, str) and 0 < len(text) <= 200
        await apis.call("FilingsApi.filings_markdown_search_retrieve", first.id, q="revenue", max_hits=3)
        document = await apis.call("FilingsApi.filings_document_retrieve", first.id)
        assert bytes(document).startswith(b"%PDF")

    run(url, key, body)


def test_watchlist_and_webhooks_deliver_signed_events(served: tuple[FilingsFake, str, Receiver]) -> None:
    fake, url, receiver = served
    key = fake.create_key("standard")

    async def body(apis: Apis) -> None:
        await apis.call("WatchlistApi.watchlist_companies_create", WatchlistAction(company_id=5))
        added = await apis.call("WatchlistApi.watchlist_companies_bulk_add_create",
                                BulkWatchlist(company_ids=[5, 6, 7]))
        assert added.company_ids == [6, 7]
        removed = await apis.call("WatchlistApi.watchlist_companies_bulk_remove_create", BulkWatchlist(company_ids=[7]))
        assert removed.company_ids == [7]
        await apis.call("WatchlistApi.watchlist_companies_destroy", 6)
        page = await apis.call("WatchlistApi.watchlist_retrieve")
        assert [c.id for c in page.results] == [5] and page.is_locked is False
        created = await apis.call("WebhooksManagementApi.webhooks_create", Webhook(
            id=0, url=receiver.url, created_at=dt.datetime.now(dt.UTC), updated_at=dt.datetime.now(dt.UTC),
            trigger_on_filing_received=True, include_markdown=False))
        hook_id, secret = created.id, created.secret_key
        listed = await apis.call("WebhooksManagementApi.webhooks_list")
        assert [h.id for h in listed.results] == [hook_id]
        assert (await apis.call("WebhooksManagementApi.webhooks_retrieve", hook_id)).url == receiver.url
        await apis.call("WebhooksManagementApi.webhooks_partial_update", hook_id, PatchedWebhook(include_isins=True))
        whole = Webhook(id=hook_id, url=receiver.url, created_at=created.created_at, updated_at=created.updated_at,
                        trigger_on_filing_received=True, include_markdown=False, include_isins=True)
        assert (await apis.call("WebhooksManagementApi.webhooks_update", hook_id, whole)).include_isins
        tested = await apis.call("WebhooksManagementApi.webhooks_test_create", hook_id, whole)
        assert tested.status == "success"
        new_secret = (await apis.call("WebhooksManagementApi.webhooks_regenerate_secret_create", hook_id,
                                      whole)).secret_key
        assert new_secret != secret
        return hook_id, new_secret, whole

    hook_id, secret, whole = run(url, key, body)
    receiver.posts.clear()
    fake.advance(60 * 86_400)  # the live feed releases two months of filings, company 5's among them
    assert fake.wait_for_webhooks(10)
    assert receiver.posts, "no delivery for a watched company's filings"
    for headers, raw in receiver.posts:
        signed = f"{headers['x-filing-timestamp']}.".encode() + raw
        expected = "sha256=" + hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
        assert hmac.compare_digest(headers["x-filing-signature-256"], expected)
        event = json.loads(raw)
        assert event["event_type"] in ("filing.received", "filing.processed") and event["company"]["id"] == "5"

    async def logs(apis: Apis) -> None:
        deliveries = await apis.call("WebhooksManagementApi.webhooks_deliveries_retrieve", hook_id)
        assert deliveries.count >= len(receiver.posts)
        newest = deliveries.results[0]
        detail = await apis.call("WebhooksManagementApi.webhooks_delivery_detail_retrieve", str(newest.uuid),
                                 hook_id)
        assert detail.request_payload["filing_id"] == str(newest.filing_id)
        replay = await apis.call("WebhooksManagementApi.webhooks_deliveries_replay_create", str(newest.uuid),
                                 hook_id, whole)
        assert replay.status == "success"
        await apis.call("WebhooksManagementApi.webhooks_destroy", hook_id)
        with pytest.raises(ApiException) as gone:
            await apis.call("WebhooksManagementApi.webhooks_retrieve", hook_id)
        assert gone.value.status == 404

    run(url, key, logs)


def test_agent_account_and_usage(served: tuple[FilingsFake, str, Receiver]) -> None:
    fake, url, _receiver = served
    standard = fake.create_key("standard")

    async def signup(apis: Apis) -> Any:
        made = await apis.call("AgentAccountApi.agent_signup",
                               AgentSignupRequest(email="robot@example.com", agent_name="robot"))
        with pytest.raises(ApiException) as taken:
            await apis.call("AgentAccountApi.agent_signup",
                            AgentSignupRequest(email="robot@example.com", agent_name="robot 2"))
        assert taken.value.status == 409
        token = json.loads(taken.value.body)["claim_token"]
        pending = await apis.call("AgentAccountApi.agent_key_claim", AgentKeyClaimRequest(claim_token=token))
        assert pending["status"] == "pending"
        usage = await apis.call("AccountApi.usage_retrieve")
        assert usage is None  # the client declares no model for it; the body is checked over HTTP below
        return made["api_key"], token

    agent_key, token = run(url, standard, signup)

    async def as_agent(apis: Apis) -> Any:
        status = await apis.call("AgentAccountApi.agent_status")
        assert status["state"] == "sandbox" and status["sandbox_calls_remaining"] == 3
        link = await apis.call("AgentAccountApi.agent_checkout_link")
        assert link["url"].startswith("https://checkout.stripe.com/")
        sent = await apis.call("AgentAccountApi.agent_owner_confirmation")
        assert sent["status"] == "sent"
        return (await apis.call("AgentAccountApi.agent_key_rotate"))["api_key"]

    rotated = run(url, agent_key, as_agent)
    fake.approve_claim(token)

    async def claim(apis: Apis) -> Any:
        return await apis.call("AgentAccountApi.agent_key_claim", AgentKeyClaimRequest(claim_token=token))

    assert run(url, standard, claim)["api_key"] == rotated
    with fake.client() as http:
        assert http.post("/watchlist/companies/", json={"company_id": 3},
                         headers={"X-API-Key": rotated}).status_code == 403  # the sandbox is read-only
        resolved = http.post("/companies/resolve/", json={"rows": [{"name": "x"}]}, headers={"X-API-Key": rotated})
        assert resolved.status_code == 200  # a lookup, though a POST
        for _ in range(2):
            assert http.get("/languages/", headers={"X-API-Key": rotated}).status_code == 200
        assert http.get("/languages/", headers={"X-API-Key": rotated}).status_code == 402
        assert http.get("/usage/", headers={"X-API-Key": rotated}).json()["agent"]["state"] == "unfunded"
        fake.agent_owner("robot@example.com", "confirm")
        assert http.get("/languages/", headers={"X-API-Key": rotated}).status_code == 200


def test_every_public_method_of_the_client_is_called_here() -> None:
    """Each test calls methods through ``Apis.call("Class.method", ...)``: every public method of every
    API class must appear so in this module (checked on its source, so that pytest-xdist may run the
    tests above in any process)."""
    with open(__file__, encoding="utf-8") as source:
        named = set(re.findall(r'apis\.call\(\s*"([A-Za-z]+Api\.[a-z_]+)"', source.read()))
    assert len(public_methods()) == 61
    assert not public_methods() - named, sorted(public_methods() - named)
    assert named <= public_methods()
