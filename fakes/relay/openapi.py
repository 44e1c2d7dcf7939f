"""The relay's OpenAPI 3.0 document: calls, catalogue, balance, call records, indexes, connector.

``/call/{target}`` answers with whatever the upstream answered (any status, any content type), so
its success and upstream answers are a ``default`` response; the relay's own refusals are listed.
"""

from __future__ import annotations

from typing import Any

from fakes.kernel.openapi import CONTROL_TAG, beyond_schema, json_response_spec

from . import bodies
from .accounts import openapi as accounts_openapi
from .settings import RelaySettings

Schema = dict[str, Any]
_STR: Schema = {"type": "string"}
_INT: Schema = {"type": "integer"}
_BOOL: Schema = {"type": "boolean"}
_OBJ: Schema = {"type": "object"}


def _obj(properties: dict[str, Schema], required: list[str] | None = None) -> Schema:
    return {"type": "object", "properties": properties,
            "required": list(properties) if required is None else required}


def _text(media: str, description: str = "OK") -> dict[str, Any]:
    return {"description": description, "content": {media: {"schema": _STR}}}


def document(settings: RelaySettings) -> dict[str, Any]:
    p = settings.header_prefix
    error = _obj({"detail": _STR, "error": _STR}, ["detail"])
    insufficient = (_obj({"detail": _STR, "error": _STR, "balance_micro": _INT, "estimated_cost_micro": _INT,
                          "topup_url": _STR})
                    if settings.error_envelope == "flat" else
                    _obj({"detail": _obj({"error": _STR, "message": _STR, "balance_micro": _INT,
                                          "estimated_cost_micro": _INT, "topup_url": _STR},
                                         ["error", "balance_micro", "estimated_cost_micro", "topup_url"])}))
    saturated = _obj({"proxy_saturated": _BOOL, "detail": _STR, "retry_after_s": _INT})
    call_id_header = {f"{p}-Call-Id": {"schema": _STR, "description": "id of this call (GET /calls/{call_id})"}}
    security: list[dict[str, list[str]]] = [{"RelayToken": []}]
    unauthorized = json_response_spec(error, "missing or unknown token")
    client_error = json_response_spec(error, "a request the relay cannot serve (none for a well-formed GET)")

    def refusal(description: str, schema: Schema = error) -> dict[str, Any]:
        return json_response_spec(schema, description, call_id_header)

    call_responses = {
        "200": {"description": "the upstream's success, verbatim", "headers": call_id_header,
                "content": {"*/*": {"schema": {}}}},
        "default": {"description": "the upstream's answer, verbatim (status, headers, body); "
                                   f"{p}-Cost-Micro on metered calls, {p}-Idempotent-Replay on replays",
                    "headers": call_id_header, "content": {"*/*": {"schema": {}}}},
        "202": {"description": "an asynchronous provider accepted the call: a task to poll (the estimate stays "
                               f"held; {p}-Reserved-Micro and {p}-Async name them)", "headers": call_id_header,
                "content": {"application/json": {"schema": _OBJ}}},
        "400": refusal("missing required parameter, another method than the entry's, a malformed encoded body, "
                       "or a malformed route header"),
        "401": refusal("missing or unknown token"),
        "402": refusal("the balance does not cover the estimated cost; nothing billed or forwarded", insufficient),
        "403": _text("text/html", "blocked by the web firewall in front of the relay (SQL or HTML in the body); "
                                  "no relay headers"),
        "404": refusal("unknown catalogue id, unknown upstream host, or no published price and no own key"),
        "409": refusal("two of the team's tools on one host match the URL equally"),
        "410": refusal("the catalogue entry is retired (its successor is named)"),
        "422": refusal("the Idempotency-Key was used for a different request, or a malformed tags header"),
        "429": refusal("a cap: the member's calls a day, a tag's budget, the team's daily spend, a trial pool's "
                       "allowance (the provider's own 429 passes through verbatim)"),
        "502": refusal("a registered upstream failed"),
        "503": json_response_spec(saturated, "the relay is saturated; retry after Retry-After seconds",
                                  {**call_id_header, "Retry-After": {"schema": _INT}}),
        "504": refusal("the upstream timed out (never billed)"),
    }
    # Idempotency-Key and the body-encoding header are described in words, not declared as header
    # parameters: declared ones make schemathesis treat the configured token as generated
    call_parameters = [
        {"name": "target", "in": "path", "required": True, "schema": _STR,
         "description": "a catalogue id (provider.area.action) or a full upstream URL"},
    ]
    call_headers = (f" Optional headers: Idempotency-Key (a retry with the same key and request is replayed), "
                    f"{p}-Body-Encoding: base64, gzip or base64+gzip (the relay decodes the body), {p}-Org (the team "
                    f"of an identity token), {p}-Meta: k=v,... (the caller's tags), {p}-Route-Max-Cost (USD), "
                    f"{p}-Route-Exclude, {p}-Route-Prefer and {p}-Route-Waterfall (routed capabilities).")
    endpoint_view: Schema = {"type": "object", "properties": {"id": _STR, "provider": _STR, "method": _STR,
                                                              "cost": {"type": "object", "nullable": True}}}
    balance = _obj({"team_id": _STR, "team_name": _STR, "balance_micro": _INT, "holds_micro": _INT,
                    "balance_usd": {"type": "number"}}, ["team_id", "balance_micro", "holds_micro"])
    text_pages = {
        "/llms.txt": ("the setup brief", "text/plain"),
        "/use-cases": ("providers per job on price and measured success rate", "text/plain"),
        "/use-cases.md": ("the use cases as Markdown", "text/markdown"),
        "/workflows": ("chained jobs with receipts", "text/plain"),
        "/workflows.md": ("the workflows as Markdown", "text/markdown"),
        "/install.sh": ("installer of the command-line client (downloads nothing)", "text/x-shellscript"),
    }
    paths: dict[str, Any] = {
        "/call/{target}": {
            "parameters": call_parameters,
            "get": {"summary": "Call a catalogue entry or an upstream URL", "description": call_headers.strip(),
                    "security": security,
                    "responses": call_responses},
            **{method: {"summary": f"Call with {method.upper()} (the body is forwarded unchanged)",
                        "description": call_headers.strip(), "security": security,
                        "requestBody": {"required": False,
                                        "description": "forwarded unchanged; a routed id (<relay>.<capability>) "
                                                       "reads its identity from a JSON object body",
                                        "content": {"application/json": {"schema": {}},
                                                                       "application/octet-stream": {"schema": {}}}},
                        "responses": call_responses} for method in ("post", "put", "patch", "delete")},
            "options": {"summary": "Call with OPTIONS", "description": call_headers.strip(), "security": security,
                        "responses": call_responses},
        },
        "/catalog/search": {"get": {
            "summary": "Search the catalogue",
            "parameters": [{"name": "q", "in": "query", "required": False, "schema": _STR},
                           {"name": "limit", "in": "query", "required": False,
                            "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 25}}],
            "responses": {"200": json_response_spec(_obj({"query": _STR, "count": _INT, "total": _INT,
                                                          "results": {"type": "array", "items": endpoint_view},
                                                          "hints": {"type": "array", "items": _STR}})),
                          "400": json_response_spec(error, "bad limit")}}},
        "/catalog/endpoints/{entry_id}": {"get": {
            "summary": "One entry: price, call template, example response",
            "parameters": [{"name": "entry_id", "in": "path", "required": True, "schema": _STR}],
            "responses": {"200": json_response_spec(_obj({"endpoint": endpoint_view, "provider": _OBJ,
                                                          "siblings": {"type": "array", "items": endpoint_view},
                                                          "call_template": _STR, "example_response": {},
                                                          "hints": {"type": "array", "items": _STR}},
                                                         ["endpoint", "call_template", "example_response"])),
                          "404": json_response_spec(error, "no such entry")}}},
        "/catalog/endpoints/{entry_id}/access": {"get": {
            "summary": "How a call would be served for the token's team (tool, credential, platform, none)",
            "parameters": [{"name": "entry_id", "in": "path", "required": True, "schema": _STR}],
            "responses": {"200": json_response_spec(_obj({"tier": {"type": "string", "enum": [
                "tool", "credential", "platform", "none"]}, "detail": _STR,
                "estimated_cost_micro": {"type": "integer", "nullable": True},
                "estimated_cost_usd": {"type": "number", "nullable": True}})),
                "404": json_response_spec(error, "no such entry")}}},
        "/catalog/platforms": {"get": {"summary": "Providers and their endpoint counts", "responses": {
            "200": json_response_spec(_obj({"platforms": {"type": "array", "items": _OBJ}})), "4XX": client_error}}},
        "/balance": {"get": {"summary": "The team's balance in micro-USD", "security": security,
                             "responses": {"200": json_response_spec(balance), "401": unauthorized}}},
        "/mcp/v2/": {
            "get": {"summary": "What the connector is (name, transport, tools)", "tags": ["mcp"],
                    "responses": {"200": json_response_spec(_obj({"name": _STR, "transport": _STR, "tools": {
                        "type": "array", "items": _STR}}, ["name", "transport", "tools"])),
                        "405": json_response_spec(error, "not a connector method")}},
            "post": {
                "summary": "The MCP connector (streamable HTTP, stateless, JSON answers): JSON-RPC with tools "
                           "catalog_search, catalog_get, call and balance (see the MCP specification)",
                "tags": ["mcp"], "security": security,
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "additionalProperties": False, "required": ["jsonrpc", "method"],
                    "properties": {"jsonrpc": {"type": "string", "enum": ["2.0"]},
                                   "id": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
                                   "method": _STR, "params": _OBJ}}}}},
                "responses": {"200": json_response_spec(_obj({"jsonrpc": _STR, "id": {}, "result": _OBJ,
                                                              "error": _OBJ}, ["jsonrpc"]),
                                                        "the JSON-RPC answer (a result or a JSON-RPC error)"),
                              "202": {"description": "a notification (no id) was accepted"},
                              "400": json_response_spec(_OBJ, "not a valid JSON-RPC message"),
                              "401": unauthorized}}},
    }
    paths.update(accounts_openapi.paths(error, security))
    # treg serves a provider's page and its tools (by id) at the same path: one path item, whose GET
    # names the parameter as a provider's slug
    paths["/tools/{tool_id}"]["get"] = {
        "summary": "A provider's endpoints as plain text (append .md for Markdown)",
        "parameters": [{"name": "tool_id", "in": "path", "required": True, "schema": _STR,
                        "description": "here a provider's slug (PATCH and DELETE take a tool's id)"}],
        "responses": {"200": {"description": "OK", "content": {"text/plain": {"schema": _STR},
                                                               "text/markdown": {"schema": _STR}}},
                      "404": json_response_spec(error, "no such provider")}}
    paths["/mcp/"] = paths["/mcp/v2/"]  # treg's own path; the seed's /mcp/v2/ too
    paths["/catalog/platforms/{slug}"] = {"get": {
        "summary": "One provider's entries, grouped by capability",
        "parameters": [{"name": "slug", "in": "path", "required": True, "schema": _STR},
                       {"name": "include_hidden", "in": "query", "required": False,
                        "schema": {"type": "integer", "enum": [0, 1]}}],
        "responses": {"200": json_response_spec(_obj({"platform": _OBJ, "capabilities": {
            "type": "array", "items": _OBJ}}, ["platform", "capabilities"])),
            "404": json_response_spec(error, "no such provider"),
            "422": json_response_spec(_obj({"detail": {}}, ["detail"]), "include_hidden is not 0 or 1")}}}
    paths.update(_control_paths())
    for path, (summary, media) in text_pages.items():
        paths[path] = {"get": {"summary": summary, "responses": {"200": _text(media), "4XX": client_error}}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Call relay (contract fake)", "version": "fake",
                 "description": "One token, a prepaid balance in integer micro-USD, about 2,900 catalogued "
                                "endpoints answered by simulated upstreams in process."},
        "paths": paths,
        "components": {"securitySchemes": {"RelayToken": {"type": "apiKey", "in": "header", "name": f"{p}-Token"}}},
        "tags": [{"name": "mcp", "description": "The MCP connector"},
                 {"name": "accounts", "description": "treg's account surface: sign-in, teams, keys, billing"}],
    }


def _control_paths() -> dict[str, Any]:
    control_error = _obj({"error": _STR, "message": _STR})
    team_id = [{"name": "team_id", "in": "path", "required": True, "schema": _STR}]

    session = [{"name": "session_id", "in": "path", "required": True, "schema": _STR}]
    provider = [{"name": "provider", "in": "path", "required": True, "schema": _STR}]

    def op(summary: str, body: Schema | None, status: str = "200", extra: list[Any] | None = None, *,
           array: bool = False, more: tuple[str, ...] = ()) -> dict[str, Any]:
        answer = {"type": "array", "items": _OBJ} if array else _OBJ
        operation: dict[str, Any] = {"tags": [CONTROL_TAG], "summary": summary, "security": [], "responses": {
            status: json_response_spec(answer), "400": json_response_spec(control_error, "bad body"),
            "404": json_response_spec(control_error, "no such team, provider, fake, login or checkout"),
            "409": json_response_spec(control_error, "a provider, host or entry id that is taken; a team's tool "
                                                     "or secret for a provider the catalogue lacks"),
            **{code: json_response_spec(control_error, "refused") for code in more}}}
        if body is not None:
            operation["requestBody"] = {"required": True, "content": {"application/json": {"schema": body}}}
        if extra:
            operation["parameters"] = extra
        return operation

    upstreams = op("Answer a provider with a canned table or another served fake", bodies.UPSTREAM, "201")
    upstreams.update(beyond_schema("canned header names must be HTTP tokens and integers in a canned body must "
                                   "fit 64 bits (OpenAPI 3.0 has no propertyNames, and an untyped body no bounds)",
                                   "responses.headers", "responses.body"))
    return {
        "/_fake/teams": {"post": op("Create a team with a token (balance defaults to $1.00)", bodies.TEAM, "201")},
        "/_fake/teams/{team_id}": {"get": op("A team: balance, holds, tools, secrets, ledger", None, extra=team_id)},
        "/_fake/teams/{team_id}/tools": {"post": op("Register the team's own key for a provider", bodies.TOOL, "201",
                                                    team_id)},
        "/_fake/teams/{team_id}/secrets": {"post": op("Store a secret for a provider", bodies.SECRET, "201",
                                                      team_id)},
        "/_fake/teams/{team_id}/topup": {"post": op("Add micro-USD to the balance", bodies.TOPUP, extra=team_id)},
        "/_fake/upstreams": {"post": upstreams},
        "/_fake/upstreams/requests": {
            "get": op("What each upstream was sent: method, host, path, query, headers, body (decoded from the "
                      "body-encoding header; a caller's own Content-Encoding kept)", None),
            "delete": op("Forget the logged upstream requests", None)},
        "/_fake/upstreams/{provider}/requests": {
            "get": op("What one provider's upstream was sent", None, extra=provider),
            "delete": op("Forget what one provider's upstream was sent", None, extra=provider)},
        "/_fake/upstreams/recording": {
            "get": op("Whether the simulated providers' requests are logged too", None),
            "put": op("Log the simulated providers' requests too (or stop)", bodies.RECORDING)},
        "/_fake/saturation": {
            "get": op("The saturation switch and thresholds", None),
            "put": op("Set the switch or thresholds", bodies.SATURATION)},
        "/_fake/providers": {"post": op("Add a provider (409: the name or host is taken)", bodies.PROVIDER, "201")},
        "/_fake/catalog/entries": {"post": op("Add a catalogue entry (404: its provider does not exist; 409: the id "
                                              "is taken)", bodies.ENTRY, "201")},
        "/_fake/logins": {"get": op("CLI logins waiting for the browser (id, pairing code, approved)", None,
                                    array=True)},
        "/_fake/logins/{login_id}/approve": {"post": op(
            "The browser side of `treg login`: sign in as the address and approve (400: the code or team is "
            "refused; 404: no such login)", bodies.LOGIN_APPROVE, extra=[
                {"name": "login_id", "in": "path", "required": True, "schema": _STR}], more=("401", "403"))},
        "/_fake/outbox": {"get": op("The mail the relay would have sent: sign-in codes and invites", None,
                                    array=True)},
        "/_fake/checkouts": {"get": op("Checkouts: top-ups and card captures, with their status", None,
                                       array=True)},
        "/_fake/checkouts/{session_id}/pay": {"post": op("The payer finishes the checkout (the balance is credited)",
                                                         None, extra=session)},
        "/_fake/checkouts/{session_id}/cancel": {"post": op("The payer abandons the checkout", None, extra=session)},
        "/_fake/connects/{state}/consent": {"post": op(
            "The user's answer on a provider's consent screen (grant, default true)", bodies.CONSENT,
            extra=[{"name": "state", "in": "path", "required": True, "schema": _STR}])},
    }
