"""The OpenAPI document's newer operations: reference data, financials, company extras, filing
history, Markdown search, watchlist, webhooks, agent accounts and usage (see :mod:`.openapi`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fakes.kernel.http import JSON_INT_MAX

from .agent import AGENT_NAME, EMAIL
from .catalogue.filing_types import TYPES
from .corporate import DIVIDEND_STATUSES, SEGMENT_AXES, SEGMENT_METRICS, SEGMENT_PERIODS
from .financials import INCLUDES, STATEMENTS
from .lineitems import BY_CODE, STATEMENT_NAMES, TEMPLATES
from .oas import (
    BOOLEAN_WORDS,
    GUARD,
    Schema,
    array,
    b,
    errors,
    i,
    id_filter,
    lenient,
    listing,
    nullable,
    obj,
    ok,
    operation,
    path,
    query,
    ref,
    s,
    word_filter,
)
from .oas import paging as paging_parameters
from .outbox import EVENTS, STATUSES
from .params import MAX_SEARCH_LENGTH, NOT_BLANK
from .resolve import FIELDS, MAX_ROWS
from .settings import FilingsSettings
from .webhooks import FLAGS, MAX_URL, URL_PATTERN

TEXT = {"type": "string", "maxLength": MAX_SEARCH_LENGTH}
FREE = {"type": "object", "additionalProperties": True}
FLAG: Schema = {"anyOf": [b(), s(enum=[*BOOLEAN_WORDS, "yes", "no", "on", "off", "y", "n", "t", "f"]),
                  i(minimum=0, maximum=1)]}
TYPE_NAMES = sorted({t.code for t in TYPES} | {t.name for t in TYPES})
ISIC = ("code", "code__iexact", "code__in", "name__icontains")


def schemas() -> dict[str, Schema]:
    section = obj({"code": s(), "name": s()})
    division = obj({"code": s(), "name": s(), "sector": ref("ISICSection")})
    group = obj({"code": s(), "name": s(), "industry_group": ref("ISICDivision")})
    match = obj({"id": i(), "name": s(), "ticker": s(nullable=True), "isins": array(s()), "lei": s(),
                 "country_code": s(nullable=True), "listing_status": s()})
    webhook = {"id": i(), "url": s(), **{name: b() for name in FLAGS}, "subscribed_filing_types": array(s()),
               "created_at": s("date-time"), "updated_at": s("date-time")}
    delivery = {"uuid": s("uuid"), "webhook_id": i(), "event_type": s(enum=list(EVENTS)),
                "filing_id": i(nullable=True), "status": s(enum=list(STATUSES)),
                "response_status_code": i(nullable=True), "duration_ms": i(nullable=True),
                "created_at": s("date-time")}
    found = {
        "Country": obj({"name": s(), "alpha_2": s(), "alpha_3": s(), "numeric": s()}),
        "Source": obj({"id": i(), "name": s(), "url": s(nullable=True), "description": s(),
                       "has_named_speakers": b(nullable=True)}),
        "ISICSection": section, "ISICDivision": division, "ISICGroup": group,
        "ISICClass": obj({"code": s(), "name": s(), "industry": ref("ISICGroup")}),
        "ISIN": obj({"code": s(), "is_primary": b(), "company": ref("CompanyMinimal"), "figi": s(),
                     "composite_figi": s(), "share_class_figi": s(), "security_type": s(), "security_type2": s(),
                     "market_sector": s(), "exch_code": s(), "figi_last_updated": s("date-time", nullable=True)}),
        "SecurityListing": obj({"id": i(), "company": ref("CompanyMinimal"), "mic": s(), "ticker": s(),
                                "exch_code": s(), "exchange_name": s(nullable=True), "security_type": s(),
                                "market_sector": s(), "figi": s(), "composite_figi": s(), "share_class_figi": s()}),
        "LineItemDefinition": obj({"code": s(), "name": s(), "statement_type": s(enum=list(STATEMENT_NAMES)),
                                   "statement_type_display": s(), "depth": i(), "parent_code": s(nullable=True),
                                   "sort_order": i(), "category": s(), "description": s(), "aliases": array(s()),
                                   "templates": array(s(enum=list(TEMPLATES))), "is_capital_iq_standard": b()}),
        "NextAnnualReport": obj({"start_date": s("date"), "end_date": s("date"), "confidence": i(minimum=0,
                                                                                                 maximum=100),
                                 "is_overdue": b()}),
        "CompanyMerge": obj({"id": i(), "shell_id": i(), "canonical_id": i(), "shell_name": s(),
                             "canonical_name": s(), "pattern": s(), "confidence": {"type": "number", "nullable": True},
                             "merged_at": s("date-time"), "reversed_at": s("date-time", nullable=True),
                             "updated_at": s("date-time")}),
        "CompanyResolveMatch": match,
        "CompanyResolveResponse": obj({
            "summary": obj({"matched": i(), "matched_via_alias": i(), "ambiguous": i(), "not_covered": i()}),
            "results": array(obj({"ref": s(nullable=True), "input": FREE,
                                  "status": s(enum=["matched", "matched_via_alias", "ambiguous", "not_covered"]),
                                  "resolved_via": s(nullable=True, enum=["isin", "lei", "cik", "ticker",
                                                                         "security_listing"]),
                                  "company": nullable(ref("CompanyResolveMatch")),
                                  "candidates": array(ref("CompanyResolveMatch")), "warnings": array(s())}))}),
        "FilingHistory": obj({"history_id": i(), "history_date": s("date-time"), "history_type": s(enum=["+", "~",
                                                                                                        "-"]),
                              "changed_by": s(), "changes": FREE}),
        "Financials": obj({"company_id": i(), "template": s(enum=list(TEMPLATES)),
                           "currency": nullable(obj({"code": s(), "name": s(), "symbol": s()})),
                           "sources_masked": b(), "filters": FREE, "period_count": i(), "periods": array(FREE)},
                          ["company_id", "sources_masked", "filters", "period_count", "periods"]),
        "Dividends": obj({"company_id": i(), "filters": FREE, "dividends": array(FREE)}),
        "Segments": obj({"company_id": i(), "filters": FREE, "segments": array(FREE)}),
        "MarkdownSearch": obj({"filing_id": i(), "q": s(), "total_hits": i(), "returned": i(), "total_chars": i(),
                               "hits": array(obj({"offset": i(), "context": s()}))}),
        "WatchlistPage": obj({"count": i(), "next": s(nullable=True), "previous": s(nullable=True),
                              "results": array(obj({"id": i(), "name": s()})), "is_locked": b()}),
        "WatchlistResponse": {**obj({"status": s(), "message": s(), "company_id": i()}, ["status", "message"]),
                              "additionalProperties": True},
        "BulkWatchlistResponse": obj({"status": s(), "message": s(), "company_ids": array(i())},
                                     ["status", "message"]),
        "Webhook": obj(webhook, ["id", "url", "created_at", "updated_at"]),
        "WebhookCreateResponse": obj({**webhook, "secret_key": s()}, ["id", "url", "created_at", "updated_at",
                                                                      "secret_key"]),
        "WebhookDelivery": obj(delivery),
        "WebhookDeliveryDetail": obj({**delivery, "response_body": s(nullable=True), "request_headers": FREE,
                                      "request_payload": FREE}),
        "WebhookSecret": obj({"secret_key": s()}),
        "WebhookReplayResponse": obj({"status": s(), "message": s()}),
        "WebhookTestResponse": obj({"status": s(), "message": s(), "delivery_uuid": s("uuid")}),
        "Usage": obj({"plan": s(), "cycle": FREE, "requests": FREE, "free_credits": nullable(FREE),
                      "payg": nullable(FREE), "agent": nullable(FREE)}),
    }
    for name in ("Country", "Language", "Source", "FilingCategory", "ISICSection", "ISICDivision", "ISICGroup",
                 "ISICClass", "ISIN", "SecurityListing", "LineItemDefinition", "CompanyMerge", "FilingHistory",
                 "Webhook", "WebhookDelivery"):
        found[f"Paginated{name}List"] = listing(name)
    return found


def _pair(base: str, name: str, schema: str, description: str, settings: FilingsSettings,
          filters: list[Schema] | None = None, key: Schema | None = None) -> dict[str, Any]:
    detail = key or path("id", f"The {name}'s id.")
    return {
        f"/{base}/": {"get": operation(f"List {name}s", description, "reference",
                                       params=[*(filters or []), *paging_parameters(settings)],
                                       responses={**ok(ref(f"Paginated{schema}List"), f"A page of {name}s."),
                                                  **errors(400, *GUARD, 404)})},
        f"/{base}/{{{detail['name']}}}/": {"get": operation(
            f"Retrieve a {name}", description, "reference", params=[detail],
            responses={**ok(ref(schema), f"The {name}."), **errors(*GUARD, 404)})},
    }


def _isic(*parents: str) -> list[Schema]:
    return [query(name, TEXT, "Exact code, case-insensitive code, codes (comma-separated) or a name part."
                  if name != "code__in" else "Codes, comma-separated.") for name in ISIC] + [
        query(name, TEXT, "The code of an ancestor level.") for name in parents]


def paths(settings: FilingsSettings) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for base, name, schema, filters in (
            ("countries", "country", "Country", None), ("languages", "language", "Language", None),
            ("sources", "source", "Source", None), ("filing-categories", "filing category", "FilingCategory", None),
            ("isic-sections", "ISIC section", "ISICSection", _isic()),
            ("isic-divisions", "ISIC division", "ISICDivision", _isic("sector_code")),
            ("isic-groups", "ISIC group", "ISICGroup", _isic("sector_code", "industry_group_code")),
            ("isic-classes", "ISIC class", "ISICClass", _isic("sector_code", "industry_group_code", "industry_code"))):
        found.update(_pair(base, name, schema, "Reference data (Standard Access, Level 1).", settings, filters))
    found.update(_pair("isins", "ISIN", "ISIN", "Every company's ISINs, the primary first.", settings, [
        query("code", TEXT, "One ISIN."),
        query("codes", {"type": "string", "maxLength": 6500}, "ISINs, comma-separated."),
        id_filter("company", "Company id."), word_filter("is_primary", "Only primary (or secondary) ISINs."),
        query("search", TEXT, "A part of the code.")], path("code", "An ISIN.", {"type": "string",
                                                                                  "pattern": "^[^/]+$"})))
    found.update(_pair("security-listings", "security listing", "SecurityListing", "Every company's venue listing.",
                       settings, [id_filter("company", "Company id."), query("exch_code", TEXT, "Exchange code."),
                                  query("figi", TEXT, "FIGI."), query("mic", TEXT, "ISO 10383 MIC."),
                                  query("ticker", TEXT, "Ticker; a `.XX` suffix pins the market."),
                                  query("ordering", {"type": "string"},
                                        "id, ticker, mic or exch_code; `-` descending.")]))
    found.update(_pair("line-item-definitions", "line item definition", "LineItemDefinition",
                       "The dictionary of standardised KPIs.", settings, [
                           query("depth", lenient(i(minimum=0, maximum=32767)), "Hierarchy depth."),
                           word_filter("is_capital_iq_standard", "Capital IQ standard items only (or not)."),
                           query("parent_code", TEXT, "Children of this code."),
                           query("search", TEXT, "A search term."),
                           query("statement_type", lenient(s(enum=list(STATEMENT_NAMES))), "IS, BS, CFS or SUP."),
                           query("template", lenient(s(enum=list(TEMPLATES))), "industrial, bank or insurer.")],
                       path("code", "A line item code.", {"type": "string", "pattern": "^[^/]+$"})))
    found.update(_companies(settings))
    found.update(_filings(settings))
    found.update(_watchlist(settings))
    found.update(_webhooks(settings))
    found.update(_account())
    return found


def _company(suffix: str, summary: str, description: str, schema: str, params: list[Schema],
             tag: str = "financials", statuses: tuple[int, ...] = (400, *GUARD, 404)) -> dict[str, Any]:
    return {f"/companies/{{company_id}}/{suffix}": {"get": operation(
        summary, description, tag, params=[path("company_id", "Company id."), *params],
        responses={**ok(ref(schema), summary), **errors(*statuses)})}}


def _codes(codes: Iterable[str]) -> str:
    """One or more of ``codes``, comma-separated."""
    one = "|".join(sorted(codes))
    return f"^({one})(,({one}))*$"


def _companies(settings: FilingsSettings) -> dict[str, Any]:
    year = lenient(i(minimum=0, maximum=9999))
    return {
        **_company("financials/", "Company financials", "Statements per fiscal year (Level 3).", "Financials", [
            query("statement_type", lenient(s(enum=list(STATEMENTS))), "IS, BS or CFS."),
            query("fiscal_year", year, "Exact fiscal year."), query("fiscal_year_from", year, "From this year."),
            query("fiscal_year_to", year, "Up to this year."),
            query("fiscal_period", lenient(s(enum=["9M", "FY", "H1", "H2", "Q1", "Q2", "Q3", "Q4"])), "Period."),
            query("line_items", lenient({"type": "string", "maxLength": 2000, "pattern": _codes(BY_CODE)}),
                  "Line item codes, comma-separated (an unknown code is a 400)."),
            query("as_of", lenient(s("date")), "Only filings released by this day."),
            query("as_known_at", lenient({"anyOf": [s("date-time"), s("date")]}), "As known at this instant."),
            query("include", lenient({"type": "string", "maxLength": 200, "pattern": _codes(INCLUDES)}),
                  f"Comma-separated: {', '.join(INCLUDES)}.")]),
        **_company("dividends/", "Company dividends", "Cash dividends, newest first (Level 3).", "Dividends",
                   [query("status", lenient(s(enum=list(DIVIDEND_STATUSES))), "Only this status.")]),
        **_company("segments/", "Company segments", "Segment figures from ESEF reports (Level 3).", "Segments", [
            query("axis", lenient(s(enum=list(SEGMENT_AXES))), "business or geographic."),
            query("metric", lenient(s(enum=list(SEGMENT_METRICS))), "One metric."),
            query("period", lenient(s(enum=list(SEGMENT_PERIODS))), "Period length.")]),
        **_company("next-annual-report/", "Predict the next annual report",
                   "The release window predicted from the last five annual reports; 404 with fewer than two.",
                   "NextAnnualReport", [], "companies", (*GUARD, 404)),
        "/companies/merges/": {"get": operation(
            "List company merges", "Duplicate-company merges, by merged_at then id.", "companies",
            params=[query("merged_at_from", lenient({"anyOf": [s("date-time"), s("date")]}), "Merged at or after."),
                    query("updated_at_from", lenient({"anyOf": [s("date-time"), s("date")]}), "Updated at or after."),
                    *paging_parameters(settings)],
            responses={**ok(ref("PaginatedCompanyMergeList"), "A page of merges."), **errors(400, *GUARD, 404)})},
        "/companies/resolve/": {"post": operation(
            "Resolve companies by identifier (batch)", "Match rows of identifiers to companies.", "companies",
            body=obj({"rows": array(obj({name: {"type": "string", "maxLength": limit}
                                         for name, limit in FIELDS.items()},
                                        []), min_items=1, max_items=MAX_ROWS)}),
            beyond_schema="refs must be unique within a batch",
            responses={**ok(ref("CompanyResolveResponse"), "One result per row, in order."), **errors(400, *GUARD)})},
    }


def _filings(settings: FilingsSettings) -> dict[str, Any]:
    return {
        "/filings/{filing_id}/history/": {"get": operation(
            "A filing's audit trail", "Changes to a filing, newest first.", "filings",
            params=[path("filing_id", "Filing id."), *paging_parameters(settings)],
            responses={**ok(ref("PaginatedFilingHistoryList"), "The history."), **errors(400, *GUARD, 404)})},
        "/filings/{filing_id}/markdown/search/": {"get": operation(
            "Search within a filing's Markdown", "Case-insensitive hits in document order (Level 2).", "filings",
            params=[path("filing_id", "Filing id."),
                    query("q", {"type": "string", "minLength": 1, "maxLength": MAX_SEARCH_LENGTH, "pattern": NOT_BLANK},
                          "Text to find.", required=True),
                    query("max_hits", i(minimum=1, maximum=50), "Hits to return (default 10).")],
            responses={**ok(ref("MarkdownSearch"), "The hits."), **errors(400, *GUARD, 404)})},
    }


def _watchlist(settings: FilingsSettings) -> dict[str, Any]:
    company = i(minimum=1, maximum=JSON_INT_MAX)
    bulk = obj({"company_ids": array(company, min_items=1, max_items=100)})
    answer = ref("WatchlistResponse")
    return {
        "/watchlist/": {"get": operation(
            "The caller's watchlist", "Companies on the watchlist, in the order added.", "watchlist",
            params=paging_parameters(settings),
            responses={**ok(ref("WatchlistPage"), "A page of the watchlist."), **errors(400, *GUARD, 404)})},
        "/watchlist/companies/": {"post": operation(
            "Add a company", "Adds one company.", "watchlist", body=obj({"company_id": company}),
            beyond_schema="the company must exist and not be on the watchlist yet",
            responses={**ok(answer, "Added.", 201), **errors(400, schema=answer), **errors(*GUARD)})},
        "/watchlist/companies/{company_id}/": {"delete": operation(
            "Remove a company", "Removes one company.", "watchlist",
            params=[path("company_id", "Company id.", {"type": "string", "pattern": "^[^/]+$"})],
            responses={**ok(answer, "Removed."), **errors(404, schema=answer), **errors(*GUARD)})},
        "/watchlist/companies/bulk-add/": {"post": operation(
            "Add up to 100 companies", "Those on the watchlist already are skipped.", "watchlist", body=bulk,
            beyond_schema="every company must exist",
            responses={**ok(ref("BulkWatchlistResponse"), "Added."), **errors(400, *GUARD)})},
        "/watchlist/companies/bulk-remove/": {"post": operation(
            "Remove up to 100 companies", "Those not on the watchlist are skipped.", "watchlist", body=bulk,
            responses={**ok(ref("BulkWatchlistResponse"), "Removed."), **errors(400, *GUARD)})},
    }


def _webhooks(settings: FilingsSettings) -> dict[str, Any]:
    fields: dict[str, Schema] = {"url": {"type": "string", "maxLength": MAX_URL, "pattern": URL_PATTERN},
              **{name: FLAG for name in FLAGS},
              "subscribed_filing_types": nullable(array(s(enum=TYPE_NAMES), max_items=len(TYPES) * 3))}
    full, partial = obj(fields, ["url"]), obj(fields, [])
    hook = path("id", "Webhook id.")
    uuid = path("delivery_uuid", "Delivery uuid.", {"type": "string", "pattern": "^[0-9a-f-]+$"})
    limit = "an account's webhook limit (webhook_limit) refuses more"
    return {
        "/webhooks/": {
            "get": operation("List webhooks", "The caller's webhooks (no secrets).", "webhooks",
                             params=paging_parameters(settings),
                             responses={**ok(ref("PaginatedWebhookList"), "A page."), **errors(400, *GUARD, 404)}),
            "post": operation("Create a webhook", "The secret is in this answer only.", "webhooks", body=full,
                              beyond_schema=limit, responses={**ok(ref("WebhookCreateResponse"), "Created.", 201),
                                                              **errors(400, *GUARD)})},
        "/webhooks/{id}/": {
            "get": operation("Retrieve a webhook", "One webhook (no secret).", "webhooks", params=[hook],
                             responses={**ok(ref("Webhook"), "The webhook."), **errors(*GUARD, 404)}),
            "put": operation("Replace a webhook's settings", "Needs url.", "webhooks", params=[hook], body=full,
                             responses={**ok(ref("Webhook"), "Updated."), **errors(400, *GUARD, 404)}),
            "patch": operation("Change some settings", "Only what is sent.", "webhooks", params=[hook], body=partial,
                               body_required=False,
                               responses={**ok(ref("Webhook"), "Updated."), **errors(400, *GUARD, 404)}),
            "delete": operation("Delete a webhook", "With its delivery log.", "webhooks", params=[hook],
                                responses={"204": {"description": "Deleted."}, **errors(*GUARD, 404)})},
        "/webhooks/{id}/deliveries/": {"get": operation(
            "Delivery log", "Attempts, newest first.", "webhooks", params=[hook, *paging_parameters(settings)],
            responses={**ok(ref("PaginatedWebhookDeliveryList"), "A page."), **errors(400, *GUARD, 404)})},
        "/webhooks/{id}/deliveries/{delivery_uuid}/": {"get": operation(
            "One delivery attempt", "With the payload rebuilt from the filing as it is now.", "webhooks",
            params=[hook, uuid], responses={**ok(ref("WebhookDeliveryDetail"), "The attempt."),
                                            **errors(*GUARD, 404)})},
        "/webhooks/{id}/deliveries/{delivery_uuid}/replay/": {"post": operation(
            "Replay a delivery", "Queues the event again: a new attempt in the log.", "webhooks", params=[hook, uuid],
            body=FREE, body_required=False,
            responses={**ok(ref("WebhookReplayResponse"), "Queued.", 202), **errors(400, *GUARD, 404)})},
        "/webhooks/{id}/regenerate-secret/": {"post": operation(
            "Regenerate the secret", "The old secret stops working at once.", "webhooks", params=[hook], body=FREE,
            body_required=False, responses={**ok(ref("WebhookSecret"), "The new secret."),
                                            **errors(400, *GUARD, 404)})},
        "/webhooks/{id}/test/": {"post": operation(
            "Send a test event", "Posts filing.processed.test now; 400 when the endpoint did not answer 2xx.",
            "webhooks", params=[hook], body=FREE, body_required=False,
            responses={**ok(ref("WebhookTestResponse"), "The endpoint answered 2xx."),
                       "400": {"description": "The endpoint failed (or a malformed body).",
                               "content": {"application/json": {"schema": FREE}}},
                       **errors(*GUARD, 404)})},
    }


def _account() -> dict[str, Any]:
    answer = {"description": "The answer.", "content": {"application/json": {"schema": FREE}}}

    def agent(summary: str, method: str, statuses: dict[str, Any], body: Schema | None = None,
              keyed: bool = True) -> Schema:
        return {method: operation(summary, summary + ".", "account", body=body, security=keyed,
                                  responses={**statuses, **(errors(401, 403, 429) if keyed else {})})}

    error = errors(400)
    return {
        "/agent/signup/": agent("Create an API key as an AI agent", "post", {
            "201": answer, "409": answer, **error}, obj({"email": {"type": "string", "pattern": EMAIL.pattern,
                                                                   "maxLength": 254},
                                                         "agent_name": {"type": "string",
                                                                        "pattern": AGENT_NAME.pattern}}), keyed=False),
        "/agent/key-claim/": agent("Claim an existing account's key", "post", {
            "200": answer, "202": answer, "404": answer, "410": answer, **error},
            obj({"claim_token": {"type": "string", "pattern": "^clm_[0-9a-f]{16}$"}}), keyed=False),
        "/agent/key/rotate/": agent("Rotate the agent key", "post", {"200": answer}),
        "/agent/owner-confirmation/": agent("Email the owner a confirmation link", "post",
                                            {"202": answer, "409": answer}),
        "/agent/checkout-link/": agent("Create a checkout link", "post", {"200": answer, "201": answer,
                                                                          "409": answer}),
        "/agent/status/": agent("The agent account's state", "get", {"200": answer}),
        "/usage/": {"get": operation("API usage", "What the key has used this cycle (never billed).", "account",
                                     responses={**ok(ref("Usage"), "Usage."), **errors(401, 403)})},
    }
