"""OpenAPI 3.0 document, generated from the route table (the same table as routes and /llms.txt).

Accurate enough to validate every answer against: each status an operation can give is listed,
with the cost header on every response, and the body schemas follow the reference's models.
"""

from __future__ import annotations

from typing import Any

from fakes.kernel.openapi import json_response_spec

from .bodycheck import ACCOUNT_IN, COMPANY_IN, PERSON_IN, PURCHASE_IN
from .operations import OPERATIONS, Operation, Param
from .settings import PLANS, EnrichmentSettings

Schema = dict[str, Any]
STR: Schema = {"type": "string"}
NSTR: Schema = {"type": "string", "nullable": True}
INT: Schema = {"type": "integer"}
NINT: Schema = {"type": "integer", "nullable": True}
BOOL: Schema = {"type": "boolean"}
ERROR: Schema = {"type": "object", "properties": {"error": STR}, "required": ["error"]}
CONTROL_ERROR: Schema = {"type": "object", "properties": {"error": STR, "message": STR},
                         "required": ["error", "message"]}


def obj(properties: dict[str, Schema], required: list[str] | None = None) -> Schema:
    schema: Schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def arr(items: Schema) -> Schema:
    return {"type": "array", "items": items}


ADDRESS = obj({"address_type": {"type": "string", "enum": ["HEADQUARTERS", "REGISTERED", "BRANCH", "MAILING", "OTHER"]},
               "line1": NSTR, "line2": NSTR, "city": NSTR, "state": NSTR, "postal_code": NSTR,
               "country_code": NSTR, "country": NSTR, "is_primary": BOOL})
LISTING = {**obj({"stock_symbol": STR, "ipo_date": STR, "isin": STR, "figi": STR, "cusip": STR, "lei": STR,
                  "cik": STR, "sic_code": STR, "revenue_usd": INT, "revenue_captured_at": STR, "ebitda_usd": INT,
                  "ebitda_captured_at": STR}), "nullable": True}
DETAILS = obj({
    "websites": arr(STR), "description": STR, "industry": INT, "company_type": STR, "founded_year": INT,
    "specialties": arr(STR), "name": STR, "tagline": STR, "logo_url": STR, "cover_pic_url": NSTR,
    "facebook_url": NSTR, "twitter_url": NSTR, "instagram_url": NSTR, "employee_count": INT,
    "employee_count_range_min": INT, "employee_count_range_max": INT, "follower_count": INT,
    "following_count": INT, "addresses": arr(ADDRESS),
    "executives": arr(obj({"name": STR, "title": STR, "role": STR, "person_profile_url": NSTR})),
    "public_listing": LISTING, "similar_companies": STR, "updates": STR, "funding": STR,
}, ["websites", "name", "logo_url", "executives"])
INVESTOR = obj({"name": STR, "website": NSTR, "type": {"type": "string", "enum": ["company", "angel"]},
                "amount_usd": NINT})
FUNDING = obj({"website": STR, "total_funds_raised_usd": NINT, "credit_cost": {"type": "number"},
               "funding_rounds": arr(obj({"round_type": STR, "date": STR, "amount_usd": NINT,
                                          "investors": arr(INVESTOR)})),
               "error": STR, "error_code": {"type": "string", "enum": ["no_funding_data", "service_temp_unavailable"]}},
              ["funding_rounds"])
UPDATE = obj({"url": STR, "title": STR, "description": NSTR, "image_url": NSTR, "timestamp": STR,
              "source": {"type": "string", "enum": ["blog", "x", "youtube"]}})
UPDATES = obj({"blogs": arr(STR), "x_profile": NSTR, "youtube_channels": arr(STR), "updates": arr(UPDATE),
               "timestamp": STR}, ["updates"])
COMPANY_ITEM = obj({"name": STR, "description": NSTR, "tagline": NSTR, "website": STR, "company_logo_url": STR,
                    "id": STR, "industry": NINT, "specialties": arr(STR), "x_profile": NSTR})
CUSTOMERS = obj({"customers": arr(COMPANY_ITEM), "investors": arr(COMPANY_ITEM),
                 "partner_platforms": arr(COMPANY_ITEM), "next_page": NSTR},
                ["customers", "investors", "partner_platforms", "next_page"])
COMPETITORS = obj({"competitors": arr(obj({"company_details_url": STR, "website": STR, "competition_reason": {
    "type": "string", "enum": ["organic_keyword_overlap", "product_overlap"]}}, ["website", "competition_reason"]))},
    ["competitors"])
PRODUCTS = obj({"products": arr(obj({"name": STR, "tagline": NSTR, "description": NSTR, "categories": arr(STR),
                                     "tags": arr(STR), "structured_features": {"type": "object"},
                                     "freeform_features": arr(STR), "pricing": {"type": "object", "nullable": True},
                                     "integrations": arr(STR), "platforms": arr(STR), "source_urls": arr(STR)}))},
               ["products"])
PERSON = obj({
    "id": STR, "slug": STR, "profile_pic_url": NSTR, "first_name": STR, "middle_name": NSTR, "last_name": NSTR,
    "full_name": STR, "bio": NSTR, "follower_count": NINT, "following_count": NINT, "country": NSTR, "city": NSTR,
    "state": NSTR, "x_handle": NSTR, "x_profile_url": NSTR, "personal_website": NSTR,
    "work_experience": arr(obj({"role": STR, "company_name": STR, "company_website": NSTR, "description": NSTR,
                                "start_date": NSTR, "end_date": NSTR})),
    "education": arr(obj({"major": NSTR, "school": STR, "start_date": NSTR, "end_date": NSTR})),
}, ["id", "first_name", "full_name", "work_experience"])
SIMILAR = obj({"target": PERSON, "attempted_searches": arr(obj({"employer_website": STR, "role": STR})),
               "similar_people": arr(PERSON), "credit_cost": {"type": "number"}},
              ["target", "attempted_searches", "similar_people"])
EMPLOYEES = obj({"employees": arr(obj({"first_name": STR, "last_name": STR, "role": STR, "company_website": STR,
                                       "company_details": STR, "person_profile": STR, "work_email": STR}))},
                ["employees"])
SETTINGS = obj({"monitor_blog": BOOL, "monitor_x": BOOL, "monitor_website": BOOL, "monitor_youtube": BOOL,
                "frequency_days": {"type": "integer", "minimum": 1, "maximum": 30}})
SETTINGS_IN = {**SETTINGS, "additionalProperties": False}
TARGET = obj({"id": STR, "website_url": STR, "settings": SETTINGS, "last_polled_at": {**NSTR, "format": "date-time"},
              "is_baseline_complete": BOOL, "created_at": {"type": "string", "format": "date-time"}},
             ["id", "website_url", "settings"])
FEED_COMMON: dict[str, Schema] = {
    "id": STR, "name": STR, "is_public": BOOL, "is_suspended": BOOL,
    "suspension_reason": {"type": "string", "nullable": True, "enum": ["insufficient_credits", "manual", None]},
    "rss_url": STR, "email_notifications": {"type": "string", "enum": ["skip", "on_updates"]},
    "created_at": {"type": "string", "format": "date-time"}}
FEED = obj({**FEED_COMMON, "targets": arr(TARGET)}, ["id", "name", "is_suspended", "rss_url", "targets"])
FEED_LIST = obj({"feeds": arr(obj({**FEED_COMMON, "target_count": INT}, ["id", "target_count"]))}, ["feeds"])
MESSAGE = obj({"message": STR}, ["message"])
TARGET_IN: Schema = {"type": "object", "additionalProperties": False, "required": ["website_url"], "properties": {
    "website_url": {"type": "string", "minLength": 1, "maxLength": 2048}, "settings": SETTINGS_IN}}
BODIES: dict[str, Schema] = {
    "CreateFeed": {"type": "object", "additionalProperties": False, "required": ["targets"], "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 200},
        "targets": {"type": "array", "minItems": 1, "maxItems": 20, "items": TARGET_IN},
        "is_public": BOOL, "email_notifications": {"type": "string", "enum": ["skip", "on_updates"]}}},
    "UpdateFeed": {"type": "object", "additionalProperties": False, "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 200}, "is_public": BOOL, "is_suspended": BOOL,
        "suspension_reason": {"type": "string", "enum": ["manual"]},
        "email_notifications": {"type": "string", "enum": ["skip", "on_updates"]}}},
    "AddTarget": TARGET_IN,
    "UpdateTarget": {"type": "object", "additionalProperties": False, "required": ["settings"],
                     "properties": {"settings": SETTINGS_IN}},
}
#: the operations whose live lookups can fail for a while (503; funding: 200 with error_code instead)
TRANSIENT = ("work_email", "person_profile", "similar_people", "employee_search", "product_listing")
ANSWERS: dict[str, Schema] = {
    "company_details": DETAILS, "employee_count": obj({"employee_count": INT}, ["employee_count"]),
    "company_funding": FUNDING, "company_updates": UPDATES, "company_website": obj({"website": STR}, ["website"]),
    "customer_listing": CUSTOMERS, "competitor_listing": COMPETITORS, "product_listing": PRODUCTS,
    "person_profile": PERSON, "work_email": obj({"work_email": NSTR}, ["work_email"]), "similar_people": SIMILAR,
    "employee_search": EMPLOYEES,
    "disposable_email": obj({"email": STR, "is_disposable_email": BOOL, "is_free_email": BOOL},
                            ["email", "is_disposable_email", "is_free_email"]),
    "credit_balance": obj({"credit_balance": {"type": "number", "minimum": 0}, "credit_balance_exact": STR},
                          ["credit_balance"]),
    "list_feeds": FEED_LIST, "create_feed": FEED, "get_feed": FEED, "update_feed": FEED, "delete_feed": MESSAGE,
    "add_target": TARGET, "update_target": TARGET, "remove_target": MESSAGE,
}


def _parameter(param: Param) -> dict[str, Any]:
    schema: Schema
    if param.kind == "boolean":
        schema = {"type": "boolean"}
    elif param.kind == "integer":
        schema = {"type": "integer", "minimum": param.minimum, "maximum": param.maximum}
    elif param.enum:
        schema = {"type": "string", "enum": list(param.enum)}
    else:
        schema = {"type": "string", "maxLength": param.max_length}
        if param.required:
            schema["minLength"] = 1
        if param.pattern:
            schema["pattern"] = f"^{param.pattern}$"
    return {"name": param.name, "in": "query", "required": param.required, "description": param.description,
            "schema": schema}


def _operation(op: Operation, settings: EnrichmentSettings, *, alias: bool = False) -> dict[str, Any]:
    cost_header = {settings.cost_header: {"required": True, "description": "credits charged for this call",
                                          "schema": {"type": "string", "pattern": "^[0-9]+(\\.[0-9])?$"}}}
    limits = {"X-RateLimit-Limit": {"schema": {"type": "string"}},
              "X-RateLimit-Remaining": {"schema": {"type": "string"}},
              "X-RateLimit-Reset": {"schema": {"type": "string"}, "description": "unix seconds of the virtual clock"}}

    def error(description: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        return json_response_spec(ERROR, description, {**cost_header, **(extra or {})})

    if op.media_type == "application/json":
        status = "201" if op.name in ("create_feed", "add_target") else "200"
        ok = json_response_spec(ANSWERS[op.name], "OK", {**cost_header, **limits})
    else:
        status = "200"
        ok = {"description": "OK", "headers": {**cost_header, **limits},
              "content": {op.media_type: {"schema": {"type": "string", "format": "binary"
                                                     if op.media_type == "image/png" else "string"}}}}
    responses: dict[str, Any] = {
        status: ok,
        "400": error("missing or invalid parameter (never charged)"),
        "401": error("missing or unknown API key" if op.name != "feed_rss" else "private feed without its token"),
        "403": error("out of credits (nothing charged), or the trial has ended"),
        "404": error("unknown company, person, feed or target"),
        "429": error("rate limited", {"Retry-After": {"required": True, "schema": {"type": "string"}}, **limits}),
    }
    responses["410"] = error("this path is retired (setting retired_paths; never charged)")
    if op.name in TRANSIENT:
        responses["503"] = error("a live lookup failed for now (setting transient_failure_share; never charged): "
                                 "retry after Retry-After", {"Retry-After": {"required": True,
                                                                             "schema": {"type": "string"}}})
    if op.name == "person_profile":
        ok["headers"][settings.enrichment_status_header] = {
            "description": "v2 paths: pending (the fast profile; the detailed one is being enriched) or complete",
            "schema": {"type": "string", "enum": ["pending", "complete"]}}
    if op.body:
        responses["409"] = error("conflict: a website twice in one feed, or the feed is full")
        responses["413"] = error("body too large")
    operation: dict[str, Any] = {
        "operationId": op.name + ("_api" if alias else ""), "summary": op.summary,
        "description": f"Cost: {op.cost}. Rate-limit bucket: {op.bucket}. Read timeout: {op.timeout_s} s."
                       + (f" MCP tool: {op.tool}." if op.tool else ""),
        "tags": [op.tag], "parameters": [_parameter(p) for p in op.params if not p.deprecated] + [
            {"name": name, "in": "path", "required": True, "schema": {"type": "string", "maxLength": 100}}
            for name in op.path_params],
        "responses": responses,
    }
    if op.name == "feed_rss":
        operation["security"] = []
    if op.body:
        operation["requestBody"] = {"required": op.body != "UpdateFeed", "content": {
            "application/json": {"schema": {"$ref": f"#/components/schemas/{op.body}"}}}}
    return operation


def openapi_document(settings: EnrichmentSettings, title: str) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for op in OPERATIONS:
        # the real service's /api paths run the same handlers: listed on the operation, not repeated (every
        # documented operation costs the contract suite a schemathesis run)
        operation = _operation(op, settings, alias=False)
        operation["x-also-served-at"] = list(op.real_paths)
        operation["description"] += f" Also served at {', '.join(op.real_paths)}."
        paths.setdefault(op.seed_path, {})[op.method.lower()] = operation
    paths.update(control_paths())
    return {
        "openapi": "3.0.3",
        "info": {"title": title, "version": "1", "description":
                 "Company and person enrichment billed in credits (contract fake). Every operation answers at the "
                 "seed's path listed here and at the real service's /api paths (x-also-served-at). MCP over SSE "
                 "at /mcp/sse?api_key=..."},
        "components": {"securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer"}}, "schemas": BODIES},
        "security": [{"bearerAuth": []}],
        "tags": [{"name": "data", "description": "Company and person data"},
                 {"name": "monitor", "description": "Monitoring feeds"}],
        "paths": paths,
    }


def control_paths() -> dict[str, Any]:
    from fakes.kernel.openapi import CONTROL_TAG

    account = {"type": "object", "properties": {"api_key": STR, "plan": {"type": "string", "enum": list(PLANS)},
                                                "balance": {"type": "number"}}, "required": ["api_key", "plan"]}

    def op(summary: str, responses: dict[str, Any], body: Schema | None = None,
           params: tuple[str, ...] = ()) -> dict[str, Any]:
        spec: dict[str, Any] = {"tags": [CONTROL_TAG], "summary": summary, "security": [], "responses": responses}
        if body is not None:
            spec["requestBody"] = {"required": True, "content": {"application/json": {"schema": body}}}
        if params:
            spec["parameters"] = [{"name": p, "in": "path", "required": True, "schema": {"type": "string"}}
                                  for p in params]
        return spec

    err = json_response_spec(CONTROL_ERROR, "refused")
    anything = json_response_spec({"type": "object"})
    return {
        "/_fake/accounts": {"post": op("Create an account and its API key (credits rounded to 0.1)", {
            "201": json_response_spec(account), "400": err, "409": json_response_spec(CONTROL_ERROR, "key taken")},
            ACCOUNT_IN)},
        "/_fake/accounts/{api_key}": {"get": op("Balance, expiries, plan and usage", {
            "200": json_response_spec(account), "404": err}, params=("api_key",))},
        "/_fake/accounts/{api_key}/purchases": {"post": op("Buy a credit pack now (virtual time)", {
            "201": anything, "400": err, "404": err}, PURCHASE_IN, params=("api_key",))},
        "/_fake/companies": {"post": op("Add or change a company (keyed by its website)", {
            "201": anything, "400": err}, COMPANY_IN)},
        "/_fake/people": {"post": op("Add a person at a known company", {
            "201": anything, "400": err, "404": json_response_spec(CONTROL_ERROR, "unknown employer")}, PERSON_IN)},
    }
