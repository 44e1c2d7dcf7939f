"""The fake's OpenAPI 3.0 document: every public operation, parameter and response shape.

Shapes follow the official ``financial-reports-generated-client``'s models (its required and
nullable fields); parameter schemas come from :mod:`~fakes.filings.params`, the same patterns the
parser enforces, so a schema-valid request is never refused and an invalid one always is.
"""

from __future__ import annotations

from typing import Any

from fakes.kernel.http import JSON_INT_MAX
from fakes.kernel.openapi import ACCEPTANCE_BEYOND_SCHEMA, CONTROL_TAG, NOT_BLANK, beyond_schema

from . import openapi_extra
from .catalogue.directory import COMPANY_ORDERINGS
from .catalogue.filing_types import TYPES
from .catalogue.isic import CLASS_INDEX
from .catalogue.markets import LANGUAGES, MARKETS
from .extras import OWNER_ACTIONS
from .filingparams import (
    FILING_TYPE_CHOICES,
    IDS_PATTERN,
    INGESTION_MODES,
    LANGUAGE_PATTERN,
    LANGUAGES_PATTERN,
    TYPE_CODES,
    TYPES_PATTERN,
)
from .filingparams import (
    PERIODS as FISCAL_PERIODS,
)
from .keys import TIERS
from .merges import PATTERNS as MERGE_PATTERNS
from .oas import (
    GUARD,
    RATE_HEADERS,
    Schema,
    _json,
    errors,
    id_filter,
    lenient,
    ok,
    paging,
    query,
    word_filter,
)
from .oas import array as _array
from .oas import i as _i
from .oas import obj as _obj
from .oas import path as _oas_path
from .oas import ref as _ref
from .oas import s as _s
from .params import COUNTRIES_PATTERN, ISIC_PATTERNS, LISTING_STATUSES, MAX_SEARCH_LENGTH
from .params import NOT_BLANK as ASCII_NOT_BLANK
from .query import ORDERING_FIELDS
from .settings import FilingsSettings


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
        "fiscal_period": _s(nullable=True, enum=PERIODS),
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
_INSTANT = lenient({"anyOf": [_s("date-time"), _s("date")]})
_DAY = lenient(_s("date"))
_TEXT = {"type": "string", "maxLength": MAX_SEARCH_LENGTH}


def _operation(summary: str, description: str, parameters: list[Schema], responses: dict[str, Schema],
               tag: str) -> Schema:
    return {"tags": [tag], "summary": summary, "description": description, "parameters": parameters,
            "responses": responses}


def _path(name: str, description: str) -> Schema:
    return _oas_path(name, description)


def filing_parameters(settings: FilingsSettings) -> list[Schema]:
    instants = [query(f"{name}_{end}", _INSTANT, f"{label} at or {'after' if end == 'from' else 'before'} (inclusive; "
                      "any form Django reads: `Z`, `+0000`, `+00:00` or no offset (UTC), or a date: its start / end)")
                for name, label in (("release_datetime", "Released"), ("added_to_platform", "Reached the platform"),
                                    ("updated_date", "Last updated")) for end in ("from", "to")]
    return [
        id_filter("company", "Internal company id."),
        query("company_isin", lenient({"type": "string", "pattern": ASCII_NOT_BLANK}), "Company ISIN (alias `isin`)."),
        query("lei", lenient({"type": "string", "pattern": ASCII_NOT_BLANK}), "Company LEI."),
        query("countries", lenient({"type": "string", "pattern": COUNTRIES_PATTERN}),
              "Company country ISO alpha-2 code(s), comma-separated (aliases `country`, `location`)."),
        query("filing_type", lenient(_s(enum=list(FILING_TYPE_CHOICES))),
              "A filing type by name (the seed's filter), code or id, exactly as GET /filing-types/ lists it."),
        query("type", lenient(_s(enum=list(TYPE_CODES))), "One filing type code (the real service's filter)."),
        query("types", lenient({"type": "string", "pattern": TYPES_PATTERN}), "Filing type codes, comma-separated."),
        query("category", lenient({"type": "string", "pattern": IDS_PATTERN}), "Filing category id(s)."),
        query("categories", lenient({"type": "string", "pattern": IDS_PATTERN}),
              "Filing category ids, comma-separated."),
        query("extensions", _TEXT, "File extensions (`PDF`, `ZIP`), comma-separated."),
        query("source_filing_type", _TEXT, "The source's own type label (a filing type's name)."),
        query("language", lenient({"type": "string", "pattern": LANGUAGE_PATTERN}), "Filing language (ISO 639-1)."),
        query("languages", lenient({"type": "string", "pattern": LANGUAGES_PATTERN}),
              "Filing languages (ISO 639-1), comma-separated."),
        query("source", lenient({"type": "string", "pattern": IDS_PATTERN}), "A source id (see /sources/)."),
        query("sources", lenient({"type": "string", "pattern": IDS_PATTERN}), "Source ids, comma-separated."),
        *instants,
        query("ingestion_mode", lenient(_s(enum=list(INGESTION_MODES))), "`REALTIME` or `BACKFILLED`."),
        query("fiscal_year", lenient(_i(minimum=0, maximum=9999)), "The fiscal year a report covers."),
        query("fiscal_period", lenient(_s(enum=list(FISCAL_PERIODS))), "The fiscal period a report covers."),
        query("period_ending_date", _DAY, "The reported period ends on this day."),
        query("period_ending_date_from", _DAY, "The reported period ends on or after this day."),
        query("period_ending_date_to", _DAY, "The reported period ends on or before this day."),
        query("search", _TEXT, f"Words (at most {MAX_SEARCH_LENGTH} characters), each in the title or the company's "
                               "name (case-insensitive)."),
        word_filter("on_watchlist", "Only (true) or not (false) companies on the caller's watchlist."),
        query("listing_status", lenient(_s(enum=list(LISTING_STATUSES))), "The company's listing status."),
        word_filter("include_companions", "Accepted; no filing here has companions."),
        word_filter("include_predecessors", "Accepted; no company here has predecessors."),
        query("ordering", {"type": "string"},
              f"Order field ({', '.join(ORDERING_FIELDS)}); a leading `-` is descending; ties by id in the same "
              "direction; terms that name no field are ignored. Default `-release_datetime`."),
        query("view", lenient(_s(enum=["summary", "full"])), "`full` returns every field of each filing."),
        *paging(settings),
    ]


def company_parameters(settings: FilingsSettings) -> list[Schema]:
    return [
        query("countries", lenient({"type": "string", "pattern": COUNTRIES_PATTERN}),
              "ISO alpha-2 code(s), comma-separated (aliases `country`, `location`)."),
        query("sector", lenient({"type": "string", "pattern": ISIC_PATTERNS["sector"]}),
              "ISIC section (alias `isic_section`)."),
        query("industry_group", lenient({"type": "string", "pattern": ISIC_PATTERNS["industry_group"]}),
              "ISIC division (alias `isic_division`)."),
        query("industry", lenient({"type": "string", "pattern": ISIC_PATTERNS["industry"]}),
              "ISIC group (alias `isic_group`)."),
        query("sub_industry", lenient({"type": "string", "pattern": ISIC_PATTERNS["sub_industry"]}),
              "ISIC class (alias `isic_class`)."),
        query("isin", _s(), "ISIN (case-insensitive)."),
        query("lei", _s(), "LEI (case-insensitive)."),
        query("ticker", _s(), "Ticker (case- and separator-insensitive)."),
        query("search", _TEXT, f"Terms matched against name, LEI, ticker and ISIN; all must match. At most "
                               f"{MAX_SEARCH_LENGTH} characters (longer is a 400): the fake's bound on a search's "
                               "work."),
        word_filter("on_watchlist", "Only (true) or not (false) companies on the caller's watchlist."),
        query("listing_status", lenient(_s(enum=list(LISTING_STATUSES))), "Listing status (every company is LISTED)."),
        query("ordering", {"type": "string"},
              f"Order field ({', '.join((*COMPANY_ORDERINGS, 'relevance'))}); a leading `-` is descending; terms "
              "that name no field are ignored. Default `id`."),
        query("view", lenient(_s(enum=["summary", "full"])), "`full` returns every field of each company."),
        *paging(settings),
    ]


def document(settings: FilingsSettings) -> dict[str, Any]:
    header = settings.api_key_header
    markdown_200 = {"200": {"description": "The filing's content as Markdown.", "headers": RATE_HEADERS,
                            "content": {"text/markdown": {"schema": _s()}}}}
    not_converted = _json(_ref("ErrorDetail"), "Unknown id, or the Markdown is not ready: then the body is a "
                                               "MarkdownNotFound and, while retryable, `Retry-After` is set.")
    any_id = {"type": "string", "pattern": "^[^/]+$"}
    paths: dict[str, Any] = {
        "/companies/": {"get": _operation(
            "List companies", "Companies of the 44 markets, filtered by location, ISIC and identifiers.",
            company_parameters(settings), {**ok(_ref("PaginatedCompanyMinimalList"), "A page of companies."),
                                           **errors(400, *GUARD, 404)}, "companies")},
        "/companies/{company_id}/": {"get": _operation(
            "Retrieve a company", "One company with ISINs, location and ISIC classification.",
            [_oas_path("company_id", "Company id (anything that names none is `Not found.`).", any_id)],
            {**ok(_ref("Company"), "The company."), **errors(*GUARD, 404)}, "companies")},
        "/filings/": {"get": _operation(
            "List filings", "Filings filtered by company, type, language, country, fiscal period, release date "
                            "and title words.",
            filing_parameters(settings), {**ok(_ref("PaginatedFilingSummaryList"), "A page of filings."),
                                          **errors(400, *GUARD, 404)}, "filings")},
        "/filings/{filing_id}/": {"get": _operation(
            "Retrieve a filing", "One filing as JSON, or with `format=markdown` its content (Level 2).",
            [_oas_path("filing_id", "Filing id (anything that names none is `Not found.`).", any_id),
             query("format", _s(enum=["json", "markdown"]), "`json` (default) or `markdown`.")],
            {"200": {"description": "The filing (JSON), or its Markdown with format=markdown.",
                     "headers": RATE_HEADERS,
                     "content": {"application/json": {"schema": _ref("Filing")},
                                 "text/markdown": {"schema": _s()}}},
             **errors(400, *GUARD), "404": not_converted}, "filings")},
        "/filings/{filing_id}/markdown/": {"get": _operation(
            "Retrieve a filing's Markdown", "The processed content (Level 2 or higher); `X-Total-Chars` is its "
                                            "length, `X-Next-Offset` where the next window starts.",
            [_path("filing_id", "Filing id."),
             query("offset", {**_i(minimum=0), "maximum": JSON_INT_MAX}, "Character offset of a window."),
             query("limit", {"type": "integer", "minimum": 1, "maximum": 200_000}, "Characters of a window.")],
            {**markdown_200, **errors(400, *GUARD), "404": not_converted}, "filings")},
        "/filings/{filing_id}/document/": {"get": _operation(
            "Download the original document", "A PDF, or a ZIP package for ESEF filings.",
            [_path("filing_id", "Filing id.")],
            {"200": {"description": "The document.", "headers": RATE_HEADERS,
                     "content": {"application/pdf": {"schema": _s("binary")},
                                 "application/zip": {"schema": _s("binary")}}},
             **errors(*GUARD, 404)}, "filings")},
        "/filing-types/": {"get": _operation(
            "List filing types", "Requires Standard Access (Level 1); free keys get 403.",
            [query("search", _TEXT, f"Substring of name, code or description (at most {MAX_SEARCH_LENGTH} "
                                    "characters)."),
             query("category", lenient({**_i(minimum=0), "maximum": JSON_INT_MAX}), "Filing category id."),
             *paging(settings)],
            {**ok(_ref("PaginatedFilingTypeList"), "A page of filing types."),
             **errors(400, *GUARD, 404)}, "filing-types")},
        "/filing-types/{type_id}/": {"get": _operation(
            "Retrieve a filing type", "Requires Standard Access (Level 1).", [_path("type_id", "Type id.")],
            {**ok(_ref("FilingType"), "The filing type."), **errors(*GUARD, 404)}, "filing-types")},
        **openapi_extra.paths(settings),
        **control_paths(),
    }
    return {
        "openapi": "3.0.3",
        "info": {"title": "Financial filings API (contract fake)", "version": "1.4-fake",
                 "description": "A stateful fake of the FinancialReports filings API. Send the API key in the "
                                f"`{header}` header. Tiers: {', '.join(TIERS)}; filing types: "
                                f"{', '.join(t.code for t in TYPES)}."},
        "components": {"schemas": {**schemas(), **openapi_extra.schemas()},
                       "securitySchemes": {"ApiKeyAuth": {"type": "apiKey", "in": "header", "name": header}}},
        "security": [{"ApiKeyAuth": []}],
        "tags": [{"name": name} for name in ("companies", "filings", "filing-types", "reference", "financials",
                                             "watchlist", "webhooks", "account")],
        "paths": paths,
    }


def _text(most: int) -> Schema:
    """A control body's text: 1 to ``most`` characters, not only white space."""
    return {"type": "string", "minLength": 1, "maxLength": most, "pattern": NOT_BLANK}


def control_paths() -> dict[str, Any]:
    error = {"type": "object", "properties": {"error": _s(), "message": _s()}, "required": ["error", "message"]}
    key_in = {"type": "object", "required": ["tier"], "additionalProperties": False, "properties": {
        "tier": _s(enum=list(TIERS)), "quota": {**_i(nullable=True, minimum=0), "maximum": 2**40,
                                                "description": "Calls a year; null = unlimited; omitted = tier's"}}}
    key_out = _obj({"api_key": _s(), "tier": _s(enum=list(TIERS)), "quota": _i(nullable=True)})
    # what fakes.filings.userdata checks, field by field (its texts are stripped: not blank)
    company_in = {"type": "object", "required": ["name", "country_code"], "additionalProperties": False,
                  "properties": {
                      "name": _text(500), "country_code": _s(enum=sorted({m.code for m in MARKETS}
                                                                         | {m.code.lower() for m in MARKETS})),
                      "isins": {**_array(_s(), min_items=1), "description": "valid ISINs (check digit)"},
                      "lei": {**_s(), "description": "a valid LEI (ISO 17442 check digits)"},
                      "ticker": _text(20), "sub_industry_code": _s(enum=sorted(CLASS_INDEX)), "tagline": _text(500),
                      "city": _text(100), "date_ipo": _s("date"), "year_founded": _s("date")}}
    filing_in = {"type": "object", "required": ["company"], "additionalProperties": False, "properties": {
        "company": {**_i(), "description": "a company's id (no such company: 404)"},
        "filing_type": {"anyOf": [_s(enum=list(FILING_TYPE_CHOICES)),
                                  _i(minimum=1, maximum=len(TYPES))], "description": "a type's name, code or id"},
        "language": _s(enum=sorted({lang.code for lang in LANGUAGES} | {lang.code.upper() for lang in LANGUAGES})),
        "title": _text(4000), "release_datetime": {**_s("date-time"), "description": "from 1970 to the end of 9999"},
        "markdown": _s(nullable=True)}}

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
                                      **beyond_schema("ISIN and LEI check digits", "isins", "lei")}},
        "/_fake/filings": {"post": {**op("Publish a filing at the current virtual time (or at release_datetime)",
                                         {"201": _json(_ref("Filing"), "The filing."),
                                          "400": _json(error, "Bad body."),
                                          "404": _json(error, "No such company.")}, filing_in),
                                    **beyond_schema("a date-time's year from 1970 to 9999 (a format has no range)",
                                                    "release_datetime")}},
        "/_fake/filings/{filing_id}/rerelease": {"post": {
            **op("Re-release a filing added through the control plane (a new version in its history)",
                 {"200": _json({"type": "object"}, "What changed."), "400": _json(error, "Bad body."),
                  "404": _json(error, "No such user filing."), "409": _json(error, "Too many re-releases.")},
                 {"type": "object", "additionalProperties": False, "properties": {
                     "title": _s(), "filing_type": _s(), "language": _s(), "markdown": _s(),
                     "release_datetime": _s("date-time")}}),
            "parameters": [{"name": "filing_id", "in": "path", "required": True, "schema": _s()}],
            ACCEPTANCE_BEYOND_SCHEMA: "a re-release must change something, to a known type and language"}},
        "/_fake/watchlists": {"post": op(
            "Lock or unlock a key's watchlist (as an administrator)",
            {"200": _json({"type": "object"}, "The watchlist."), "400": _json(error, "Bad body."),
             "404": _json(error, "No such key.")},
            {"type": "object", "required": ["api_key", "locked"], "additionalProperties": False,
             "properties": {"api_key": _s(), "locked": {"type": "boolean"}}})},
        "/_fake/merges": {"post": {**op(
            "Retire a company as a duplicate of another, now",
            {"201": _json(_ref("CompanyMerge"), "The merge."), "400": _json(error, "Bad body."),
             "404": _json(error, "No such company."),
             "409": _json(error, "Either company is already part of a merge.")},
            {"type": "object", "required": ["shell_id", "canonical_id"], "additionalProperties": False,
             "properties": {"shell_id": _i(), "canonical_id": _i(), "pattern": _s(enum=list(MERGE_PATTERNS)),
                            "confidence": {"type": "number", "minimum": 0, "maximum": 1, "nullable": True}}}),
            ACCEPTANCE_BEYOND_SCHEMA: "a company cannot be merged into itself (the two ids must differ)"}},
        "/_fake/merges/{merge_id}/reverse": {"post": {
            **op("Reverse a merge (the shell is a live company again)",
                 {"200": _json(_ref("CompanyMerge"), "The merge."), "404": _json(error, "No such merge."),
                  "409": _json(error, "Already reversed.")}),
            "parameters": [{"name": "merge_id", "in": "path", "required": True, "schema": _s()}]}},
        "/_fake/agents": {"post": op(
            "The owner of an agent account: confirm, fund, login, block or unblock",
            {"200": _json({"type": "object"}, "The account's state."), "400": _json(error, "Bad body."),
             "404": _json(error, "No such account.")},
            {"type": "object", "required": ["email", "action"], "additionalProperties": False,
             "properties": {"email": _s(), "action": _s(enum=list(OWNER_ACTIONS))}})},
        "/_fake/claims": {"post": op(
            "The owner approves a key claim", {"200": _json({"type": "object"}, "Approved."),
                                               "400": _json(error, "Bad body."),
                                               "404": _json(error, "No such claim.")},
            {"type": "object", "required": ["claim_token"], "additionalProperties": False,
             "properties": {"claim_token": _s()}})},
        "/_fake/webhook-deliveries": {"get": op(
            "Every webhook delivery attempt, oldest first, and the events a clock jump dropped",
            {"200": _json({"type": "object"}, "The deliveries.")})},
    }
