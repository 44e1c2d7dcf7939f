"""The fake's OpenAPI 3.0 document: every public operation, parameter and response shape.

Shapes follow the official ``financial-reports-generated-client``'s models (its required and
nullable fields); parameter schemas come from :mod:`~fakes.filings.params`, the same patterns the
parser enforces, so a schema-valid request is never refused and an invalid one always is.
"""

from __future__ import annotations

from typing import Any

from fakes.kernel.http import JSON_INT_MAX
from fakes.kernel.openapi import ACCEPTANCE_BEYOND_SCHEMA, CONTROL_TAG, json_response_spec

from .catalogue.directory import COMPANY_ORDERINGS
from .catalogue.filing_types import TYPES
from .catalogue.markets import MARKETS
from .keys import TIERS
from .params import (
    COUNTRIES_PATTERN,
    FILING_TYPE_CHOICES,
    ISIC_PATTERNS,
    LANGUAGE_PATTERN,
    LANGUAGES_PATTERN,
    MAX_SEARCH_LENGTH,
    TYPE_CODES,
    TYPES_PATTERN,
)
from .query import ORDERING_FIELDS
from .settings import FilingsSettings

Schema = dict[str, Any]


def _s(fmt: str | None = None, *, nullable: bool = False, enum: list[str] | None = None) -> Schema:
    schema: Schema = {"type": "string"}
    if fmt:
        schema["format"] = fmt
    if nullable:
        schema["nullable"] = True
    if enum:
        schema["enum"] = enum
    return schema


def _i(*, nullable: bool = False, minimum: int | None = None) -> Schema:
    schema: Schema = {"type": "integer"}
    if nullable:
        schema["nullable"] = True
    if minimum is not None:
        schema["minimum"] = minimum
    return schema


def _obj(properties: dict[str, Schema], required: list[str] | None = None) -> Schema:
    return {"type": "object", "properties": properties,
            "required": list(properties) if required is None else required}


def _ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def _array(items: Schema) -> Schema:
    return {"type": "array", "items": items}


def _nullable_object(properties: dict[str, Schema]) -> Schema:
    return {**_obj(properties), "nullable": True}


PROCESSING = ["PENDING", "QUEUED", "PROCESSING", "COMPLETED", "FAILED", "SKIPPED"]
PERIODS = ["FY", "Q1", "Q2", "Q3", "Q4", "H1", "H2", "9M"]


def schemas() -> dict[str, Schema]:
    section = _obj({"code": _s(), "name": _s()})
    division = _obj({"code": _s(), "name": _s(), "sector": section})
    group = _obj({"code": _s(), "name": _s(), "industry_group": division})
    isic_class = _obj({"code": _s(), "name": _s(), "industry": group})
    minimal = {
        "id": _i(), "name": _s(), "tagline": _s(), "isins": _array(_s()), "lei": _s(),
        "sub_industry_code": _s(nullable=True), "oics_code": _s(nullable=True), "country_code": _s(),
        "date_public": _s("date", nullable=True),
    }
    company = {
        **minimal,
        "description": _s(), "description_last_updated": _s("date-time", nullable=True),
        "isin_count": _i(), "primary_isin": _s(nullable=True), "address": _s(), "city": _s(), "zip_code": _s(),
        "sector": {**section, "nullable": True}, "industry_group": {**division, "nullable": True},
        "industry": {**group, "nullable": True}, "sub_industry": {**isic_class, "nullable": True},
        "oics": {"type": "object", "nullable": True},
        "ir_link": _s(nullable=True), "homepage_link": _s(nullable=True), "logo": _s(nullable=True),
        "date_ipo": _s("date", nullable=True), "main_stock_exchange": _s(nullable=True),
        "is_listed": {"type": "boolean", "nullable": True},
        "listing_status": _s(enum=["LISTED", "DELISTED", "SUSPENDED", "UNKNOWN"]),
        "delisting_date": _s("date", nullable=True), "delisting_reason": _s(),
        **{f"social_{name}": _s(nullable=True) for name in ("facebook", "instagram", "twitter", "linkedin",
                                                            "youtube", "tiktok", "pinterest", "xing", "glassdoor")},
        "year_founded": _s("date", nullable=True), "corporate_video_id": _s(nullable=True),
        "served_area": _s(nullable=True), "headcount": _i(nullable=True), "contact_email": _s(nullable=True),
        "ticker": _s(nullable=True), "local_company_id": _s(nullable=True), "shares_outstanding": _i(nullable=True),
        "designated_sponsor": _array(_obj({"id": _i(), "name": _s()})),
        "listed_stock_exchange": _array(_obj({"id": _i(), "name": _s(), "ticker": _s(), "website": _s()})),
        "stock_index": _array(_obj({"id": _i(), "name": _s(), "ticker": _s(), "isin": _s()})),
        "listings": _array(_obj({"mic": _s(nullable=True), "ticker": _s(), "exchange_name": _s(nullable=True),
                                 "exch_code": _s(nullable=True), "security_type": _s(nullable=True),
                                 "figi": _s(nullable=True)})),
        "legal_status": _s(), "legal_form": _nullable_object({"elf_code": _s(), "name": _s()}),
        "jurisdiction": _nullable_object({"code": _s(), "name": _s()}),
        "legal_address": _s(), "legal_city": _s(), "legal_zip_code": _s(), "is_merged": {"type": "boolean"},
        "merged_into": _nullable_object({"id": _i(), "name": _s()}),
        "predecessors": _array({"type": "object"}), "successors": _array({"type": "object"}),
    }
    category = _obj({"id": _i(), "name": _s(), "sort_order": _i()})
    filing_type = _obj({"id": _i(), "code": _s(), "name": _s(), "description": _s(),
                        "category": {**category, "nullable": True}})
    language = _obj({"id": _i(), "code": _s(), "name": _s()})
    summary = {
        "id": _i(), "title": _s(nullable=True), "release_datetime": _s("date-time", nullable=True),
        "filing_date": _s("date"), "year": _i(), "language": _ref("Language"),
        "document_url": _s(nullable=True), "proxy_url": _s(nullable=True), "viewer_url": _s(nullable=True),
        "company": _ref("CompanyMinimal"), "filing_type": _ref("FilingType"),
        "processing_status": _s(enum=PROCESSING), "file_extension": _s(nullable=True),
        "file_size": _i(nullable=True), "ingestion_mode": _s(enum=["REALTIME", "BACKFILLED"]),
        "source_url": _s(nullable=True), "source_filing_type": _s(nullable=True),
        "source_filing_id": _s(nullable=True),
    }
    summary_required = ["id", "document_url", "proxy_url", "viewer_url", "company", "filing_type",
                        "ingestion_mode", "source_url", "source_filing_type", "source_filing_id"]
    filing = {
        **summary,
        "added_to_platform": _s("date-time"), "updated_date": _s("date-time"),
        "dissemination_datetime": _s("date-time", nullable=True),
        "source": {**_obj({"id": _i(), "name": _s(), "url": _s(nullable=True), "description": _s(),
                           "has_named_speakers": {"type": "boolean", "nullable": True}}), "nullable": True},
        "document": _s(nullable=True), "markdown_url": _s(nullable=True),
        "filing_type_confidence": {"type": "number", "nullable": True},
        "filing_type_reasoning": _s(nullable=True), "language_confidence": {"type": "number", "nullable": True},
        "language_verified_at": _s("date-time", nullable=True), "fiscal_year": _i(nullable=True),
        "fiscal_period": {**_s(enum=PERIODS), "nullable": True},
        "period_ending_date": _s("date", nullable=True),
    }
    filing_required = [name for name in filing if name not in ("title", "release_datetime", "dissemination_datetime",
                                                                 "processing_status", "file_extension", "file_size",
                                                                 "filing_date", "year")]

    def page_of(item: str) -> Schema:
        return _obj({"count": _i(minimum=0), "next": _s(nullable=True), "previous": _s(nullable=True),
                     "results": _array(_ref(item))}, ["count", "results"])

    return {
        "ErrorDetail": {**_obj({"detail": _s()}), "additionalProperties": True},
        "RateLimitError": _obj({
            "detail": _s(), "error": _s(), "retry_after_seconds": _i(), "scope": _s(), "type": _s(),
            "message": _s(), "resolution": _s(), "upgrade_url": _s(), "limit": _i(),
            "interval": _s(enum=["monthly", "annual"]), "resets_on": _s("date")}, ["detail"]),
        "MarkdownNotFound": _obj({"detail": _s(), "processing_status": _s(enum=PROCESSING),
                                  "reason": _s(enum=["not_processed", "no_narrative_content", "content_missing"]),
                                  "retryable": {"type": "boolean"}}),
        "CompanyMinimal": _obj(minimal),
        "Company": _obj(company),
        "FilingCategory": category,
        "FilingType": filing_type,
        "Language": language,
        "FilingSummary": _obj(summary, summary_required),
        "Filing": _obj(filing, filing_required),
        "PaginatedCompanyMinimalList": page_of("CompanyMinimal"),
        "PaginatedFilingSummaryList": page_of("FilingSummary"),
        "PaginatedFilingTypeList": page_of("FilingType"),
    }


# -- parameters and responses --------------------------------------------------------------------------
def _query(name: str, schema: Schema, description: str) -> Schema:
    return {"name": name, "in": "query", "required": False, "schema": schema, "description": description}


def _path(name: str, description: str) -> Schema:
    return {"name": name, "in": "path", "required": True, "schema": _i(minimum=1), "description": description}


def _paging(settings: FilingsSettings) -> list[Schema]:
    return [
        _query("page", _i(minimum=1), "Page number (1-based); a page past the end is 404 `Invalid page.`"),
        _query("page_size", {"type": "integer", "minimum": 1, "maximum": settings.max_page_size},
               f"Results per page (default {settings.default_page_size}, at most {settings.max_page_size})."),
    ]


_INSTANT = {"anyOf": [_s("date-time"), _s("date")]}
_RATE_HEADERS = {
    name: {"schema": _s(), "required": False, "description": description} for name, description in [
        ("X-RateLimit-Burst-Limit", "Burst rate, e.g. `50/second` (informational)."),
        ("X-RateLimit-Monthly-Limit", "The key's allowance (calls a year here), or `Unlimited`."),
        ("X-RateLimit-Monthly-Remaining", "Calls left in the allowance, or `Unlimited`."),
        ("X-RateLimit-Monthly-Unit", "`requests`."),
    ]
}


_json = json_response_spec


def _errors(*statuses: int) -> dict[str, Schema]:
    described = {
        400: "A malformed parameter value.",
        401: "No API key, or an unknown one.",
        403: "The key's tier does not include this resource.",
        404: "Unknown id, or a page past the end (`Invalid page.`).",
        429: "The key's quota is used up (`Retry-After` says until when).",
    }
    found: dict[str, Schema] = {}
    for status in statuses:
        if status == 429:
            found["429"] = _json(_ref("RateLimitError"), described[429], {
                **_RATE_HEADERS, "Retry-After": {"schema": _s(), "required": True,
                                                 "description": "Seconds until the allowance resets."}})
        else:
            found[str(status)] = _json(_ref("ErrorDetail"), described[status],
                                       _RATE_HEADERS if status not in (401,) else None)
    return found


def _ok(schema: Schema, description: str) -> dict[str, Schema]:
    return {"200": _json(schema, description, _RATE_HEADERS)}


def _operation(summary: str, description: str, parameters: list[Schema], responses: dict[str, Schema],
               tag: str) -> Schema:
    return {"tags": [tag], "summary": summary, "description": description, "parameters": parameters,
            "responses": responses}


def document(settings: FilingsSettings) -> dict[str, Any]:
    header = settings.api_key_header
    filing_params = [
        _query("company", {**_i(minimum=0), "maximum": JSON_INT_MAX}, "Internal company id."),
        _query("company_isin", {"type": "string", "minLength": 1}, "Company ISIN (alias `isin`)."),
        _query("lei", {"type": "string", "minLength": 1}, "Company LEI."),
        _query("countries", {"type": "string", "pattern": COUNTRIES_PATTERN},
               "Company country ISO alpha-2 code(s), comma-separated (aliases `country`, `location`)."),
        _query("filing_type", _s(enum=list(FILING_TYPE_CHOICES)),
               "A filing type by name (the seed's filter), code or id, exactly as GET /filing-types/ lists it."),
        _query("type", _s(enum=list(TYPE_CODES)), "One filing type code (the real service's filter)."),
        _query("types", {"type": "string", "pattern": TYPES_PATTERN}, "Filing type codes, comma-separated."),
        _query("language", {"type": "string", "pattern": LANGUAGE_PATTERN}, "Filing language (ISO 639-1)."),
        _query("languages", {"type": "string", "pattern": LANGUAGES_PATTERN},
               "Filing languages (ISO 639-1), comma-separated."),
        _query("release_datetime_from", _INSTANT,
               "Released at or after (inclusive; a date means its start, UTC). Aliases `release_date_from`, "
               "`date_from`."),
        _query("release_datetime_to", _INSTANT,
               "Released at or before (inclusive; a date means its end, UTC). Aliases `release_date_to`, `date_to`."),
        _query("ordering", _s(enum=[f"{sign}{f}" for f in ORDERING_FIELDS for sign in ("", "-")]),
               "Order field; a leading `-` is descending; ties by id in the same direction. Default "
               "`-release_datetime`."),
        _query("view", _s(enum=["summary", "full"]), "`full` returns every field of each filing."),
        *_paging(settings),
    ]
    company_params = [
        _query("countries", {"type": "string", "pattern": COUNTRIES_PATTERN},
               "ISO alpha-2 code(s), comma-separated (aliases `country`, `location`)."),
        _query("sector", {"type": "string", "pattern": ISIC_PATTERNS["sector"]},
               "ISIC section (alias `isic_section`)."),
        _query("industry_group", {"type": "string", "pattern": ISIC_PATTERNS["industry_group"]},
               "ISIC division (alias `isic_division`)."),
        _query("industry", {"type": "string", "pattern": ISIC_PATTERNS["industry"]},
               "ISIC group (alias `isic_group`)."),
        _query("sub_industry", {"type": "string", "pattern": ISIC_PATTERNS["sub_industry"]},
               "ISIC class (alias `isic_class`)."),
        _query("isin", {"type": "string", "minLength": 1}, "ISIN (case-insensitive)."),
        _query("lei", {"type": "string", "minLength": 1}, "LEI (case-insensitive)."),
        _query("ticker", {"type": "string", "minLength": 1}, "Ticker (case- and separator-insensitive)."),
        _query("search", {"type": "string", "maxLength": MAX_SEARCH_LENGTH},
               f"Terms matched against name, LEI, ticker and ISIN; all must match. At most {MAX_SEARCH_LENGTH} "
               "characters (longer is a 400): the fake's bound on a search's work."),
        _query("ordering", _s(enum=[f"{sign}{f}" for f in (*COMPANY_ORDERINGS, "relevance") for sign in ("", "-")]),
               "Order field; a leading `-` is descending. Default `id`."),
        _query("view", _s(enum=["summary", "full"]), "`full` returns every field of each company."),
        *_paging(settings),
    ]
    markdown_200 = {"200": {"description": "The filing's content as Markdown.", "headers": _RATE_HEADERS,
                            "content": {"text/markdown": {"schema": _s()}}}}
    not_converted = _json(_ref("ErrorDetail"), "Unknown id, or the Markdown is not ready: then the body is a "
                                               "MarkdownNotFound and, while retryable, `Retry-After` is set.")
    paths: dict[str, Any] = {
        "/companies/": {"get": _operation(
            "List companies", "Companies of the 44 markets, filtered by location, ISIC and identifiers.",
            company_params, {**_ok(_ref("PaginatedCompanyMinimalList"), "A page of companies."),
                             **_errors(400, 401, 404, 429)}, "companies")},
        "/companies/{company_id}/": {"get": _operation(
            "Retrieve a company", "One company with ISINs, location and ISIC classification.",
            [_path("company_id", "Company id.")],
            {**_ok(_ref("Company"), "The company."), **_errors(401, 404, 429)}, "companies")},
        "/filings/": {"get": _operation(
            "List filings", "Filings filtered by company, type, language, country and release date.",
            filing_params, {**_ok(_ref("PaginatedFilingSummaryList"), "A page of filings."),
                            **_errors(400, 401, 404, 429)}, "filings")},
        "/filings/{filing_id}/": {"get": _operation(
            "Retrieve a filing", "One filing as JSON, or with `format=markdown` its content (Level 2).",
            [_path("filing_id", "Filing id."),
             _query("format", _s(enum=["json", "markdown"]), "`json` (default) or `markdown`.")],
            {"200": {"description": "The filing (JSON), or its Markdown with format=markdown.",
                     "headers": _RATE_HEADERS,
                     "content": {"application/json": {"schema": _ref("Filing")},
                                 "text/markdown": {"schema": _s()}}},
             **_errors(400, 401, 403, 429), "404": not_converted}, "filings")},
        "/filings/{filing_id}/markdown/": {"get": _operation(
            "Retrieve a filing's Markdown", "The processed content (Level 2 or higher).",
            [_path("filing_id", "Filing id."),
             _query("offset", {**_i(minimum=0), "maximum": JSON_INT_MAX}, "Character offset of a window."),
             _query("limit", {"type": "integer", "minimum": 1, "maximum": 200_000}, "Characters of a window.")],
            {**markdown_200, **_errors(400, 401, 403, 429), "404": not_converted}, "filings")},
        "/filings/{filing_id}/document/": {"get": _operation(
            "Download the original document", "A PDF, or a ZIP package for ESEF filings.",
            [_path("filing_id", "Filing id.")],
            {"200": {"description": "The document.", "headers": _RATE_HEADERS,
                     "content": {"application/pdf": {"schema": _s("binary")},
                                 "application/zip": {"schema": _s("binary")}}},
             **_errors(401, 404, 429)}, "filings")},
        "/filing-types/": {"get": _operation(
            "List filing types", "Requires Standard Access (Level 1); free keys get 403.",
            [_query("search", {"type": "string", "maxLength": MAX_SEARCH_LENGTH},
                    f"Substring of name, code or description (at most {MAX_SEARCH_LENGTH} characters)."),
             _query("category", {**_i(minimum=0), "maximum": JSON_INT_MAX}, "Filing category id."), *_paging(settings)],
            {**_ok(_ref("PaginatedFilingTypeList"), "A page of filing types."),
             **_errors(400, 401, 403, 404, 429)}, "filing-types")},
        "/filing-types/{type_id}/": {"get": _operation(
            "Retrieve a filing type", "Requires Standard Access (Level 1).", [_path("type_id", "Type id.")],
            {**_ok(_ref("FilingType"), "The filing type."), **_errors(401, 403, 404, 429)}, "filing-types")},
        **control_paths(),
    }
    return {
        "openapi": "3.0.3",
        "info": {"title": "Financial filings API (contract fake)", "version": "1.4-fake",
                 "description": "A stateful fake of the FinancialReports filings API. Send the API key in the "
                                f"`{header}` header. Tiers: {', '.join(TIERS)}; filing types: "
                                f"{', '.join(t.code for t in TYPES)}."},
        "components": {"schemas": schemas(),
                       "securitySchemes": {"ApiKeyAuth": {"type": "apiKey", "in": "header", "name": header}}},
        "security": [{"ApiKeyAuth": []}],
        "tags": [{"name": "companies"}, {"name": "filings"}, {"name": "filing-types"}],
        "paths": paths,
    }


def control_paths() -> dict[str, Any]:
    error = {"type": "object", "properties": {"error": _s(), "message": _s()}, "required": ["error", "message"]}
    key_in = {"type": "object", "required": ["tier"], "additionalProperties": False, "properties": {
        "tier": _s(enum=list(TIERS)), "quota": {**_i(nullable=True, minimum=0), "maximum": 2**40,
                                                "description": "Calls a year; null = unlimited; omitted = tier's"}}}
    key_out = _obj({"api_key": _s(), "tier": _s(enum=list(TIERS)), "quota": _i(nullable=True)})
    company_in = {"type": "object", "required": ["name", "country_code"], "properties": {
        "name": _s(), "country_code": _s(enum=sorted({m.code for m in MARKETS} | {m.code.lower() for m in MARKETS})),
        "isins": _array(_s()), "lei": _s(), "ticker": _s(),
        "sub_industry_code": _s(), "tagline": _s(), "city": _s(), "date_ipo": _s("date"),
        "year_founded": _s("date")}}
    filing_in = {"type": "object", "required": ["company"], "properties": {
        "company": _i(), "filing_type": _s(), "language": _s(), "title": _s(),
        "release_datetime": _s("date-time"), "markdown": _s()}}

    def op(summary: str, responses: dict[str, Any], body: Schema | None = None) -> Schema:
        operation: Schema = {"tags": [CONTROL_TAG], "summary": summary, "security": [], "responses": responses}
        if body is not None:
            operation["requestBody"] = {"required": True, "content": {"application/json": {"schema": body}}}
        return operation

    return {
        "/_fake/keys": {
            "get": op("API keys with tier, quota and calls used this year",
                      {"200": _json({"type": "object"}, "The keys.")}),
            "post": op("Create an API key", {"201": _json(key_out, "The new key."), "400": _json(error, "Bad body.")},
                       key_in),
        },
        "/_fake/companies": {"post": {**op("Add a company", {"201": _json(_ref("Company"), "The company."),
                                                             "400": _json(error, "Bad body."),
                                                             "409": _json(error, "ISIN or LEI already taken.")},
                                           company_in),
                                      ACCEPTANCE_BEYOND_SCHEMA: "ISIN and LEI check digits"}},
        "/_fake/filings": {"post": {**op("Publish a filing at the current virtual time (or at release_datetime)",
                                         {"201": _json(_ref("Filing"), "The filing."),
                                          "400": _json(error, "Bad body.")}, filing_in),
                                    ACCEPTANCE_BEYOND_SCHEMA: "company must be the id of an existing company"}},
    }
