"""The request bodies of the account surface, one JSON schema each (treg's pydantic models in
``src/treg/api.py``), used twice: published in the OpenAPI document and checked by the routes
(``fakes.relay.accounts.http.read_body``: a 422 per problem, as FastAPI answers). Unknown fields are
ignored, as pydantic ignores them. Constraints treg checks by hand and a schema can state (roles,
verdicts, tag keys, amounts) are stated here, so a body the schema accepts is refused only for
what the team holds, never for its shape.
"""

from __future__ import annotations

from typing import Any

Schema = dict[str, Any]
STR: Schema = {"type": "string", "maxLength": 10_000}
BOOL: Schema = {"type": "boolean"}
TAG_KEY = r"^[a-z0-9_]{1,32}$"
NOT_BLANK = r"[^\t\n\v\f\r ]"


def obj(properties: dict[str, Schema], required: tuple[str, ...] = ()) -> Schema:
    return {"type": "object", "properties": properties, **({"required": list(required)} if required else {})}


def text(most: int = 500, *, blank: bool = True) -> Schema:
    schema: Schema = {"type": "string", "maxLength": most}
    if not blank:
        schema.update(minLength=1, pattern=NOT_BLANK)
    return schema


def null(schema: Schema) -> Schema:
    """``schema`` or null (an enum lists null too: OpenAPI 3.0.3 lets the enum restrict nullable)."""
    return {**schema, "nullable": True, **({"enum": [*schema["enum"], None]} if "enum" in schema else {})}


def integer(low: int = -(2**53), high: int = 2**53) -> Schema:
    return {"type": "integer", "minimum": low, "maximum": high}


def strings(most: int = 500, items: int = 1000) -> Schema:
    return {"type": "array", "items": text(most), "maxItems": items}


EMAIL = {"type": "string", "minLength": 3, "maxLength": 320, "pattern": r"^[^@]+@[^@]+$"}
ROLE_INVITE = {"type": "string", "enum": ["viewer", "member", "admin"]}
ROLE = {"type": "string", "enum": ["viewer", "member", "admin", "owner"]}
ID = integer(1, 2**53)
#: a skill's file, recipe or .env value: no length of its own (as in treg's SkillFileIn and
#: SkillImportIn); the body cap bounds it, and treg's 600 files / 20 MB are its 413 (skills.py)
CONTENT: Schema = {"type": "string"}
PROJECT_REFS = null({"type": "array", "maxItems": 200,
                     "items": {"anyOf": [text(200), integer(0, 2**53)]}})
OBJECTS = {"type": "array", "maxItems": 100, "items": {"type": "object"}}
#: a credential binding (treg ``_validate_bindings``): a known injector, header or query, a name, a
#: format (whose only placeholder must be ``{secret}``: 403 otherwise), never a platform setting
BINDING_FIELDS: dict[str, Schema] = {
    "injector": {"type": "string", "enum": ["env", "cli_auth", "secret_file", "oauth"]},
    "location": {"type": "string", "enum": ["header", "query"]},
    "name": {"type": "string", "minLength": 1, "maxLength": 200, "pattern": r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"},
    "format": {"type": "string", "maxLength": 500,
               "description": "its only placeholder is {secret} (another is 403)"},
    "secret_field": {"type": "string", "minLength": 1, "maxLength": 200},
    "platform_setting": {"type": "string", "maxLength": 0, "nullable": True}}
BINDINGS = {"type": "array", "maxItems": 8, "items": obj({**BINDING_FIELDS, "secret_id": ID}, ("secret_id",))}
SKILL_BINDINGS = {"type": "array", "maxItems": 8, "items": obj({**BINDING_FIELDS, "secret": text(200),
                                                                   "secret_id": ID})}
CLI_PROFILE = {"type": "object", "nullable": True, "properties": {
    "enabled": BOOL, "deny_defaults": BOOL, "beta": BOOL, "bin": text(200),
    "auth_mechanism": {"type": "string", "enum": ["env", "argv", "config_file", "device"]},
    "inject": {"type": "array", "maxItems": 8, "items": obj({"via": {"type": "string", "enum": ["env", "argv"]},
                                                              "name": text(200), "secret": text(200),
                                                              "secret_id": ID})},
    "deny": {"type": "array", "maxItems": 50, "items": text(500)}}}
USD = {"type": "number", "minimum": 1, "maximum": 2_000}

CLI_APPROVE = obj({"login_id": {"type": "string", "pattern": r"^[A-Za-z0-9_-]{8,128}$"}, "code": null(text(20)),
                   "org": null(text(200))}, ("login_id",))
EMAIL_START = obj({"email": EMAIL}, ("email",))
EMAIL_VERIFY = obj({"email": EMAIL, "code": text(20)}, ("email", "code"))
USER = obj({"email": EMAIL, "webhook_url": null({"type": "string", "maxLength": 2000,
                                                  "pattern": r"^https?://[^/ \t\n\r\f\v]+"})}, ("email",))
ORG = obj({"name": text(200, blank=False)}, ("name",))
INVITE = obj({"email": EMAIL, "role": ROLE_INVITE, "expires_days": integer(-(2**31), 2**31),
              "tool_access": null(strings(200)), "project_access": PROJECT_REFS, "local_run_enabled": BOOL,
              "landing": null({"type": "string", "maxLength": 300,
                               "pattern": r"^/app/(skills|tools)/[A-Za-z0-9][A-Za-z0-9._%-]*$"})}, ("email",))
ACCEPT = obj({"code": text(200), "email": EMAIL}, ("code", "email"))
ONBOARD = obj({"team_name": text(200)})
TEAMMATE = obj({"email": {**EMAIL, "pattern": r"^[^@]+@demo\.treg\.local$"}}, ("email",))
ORG_SETTINGS = obj({"daily_cap_micro": null(integer(0, 10**12)),
                    "budget_dims": null({"type": "array", "maxItems": 3,
                                         "items": {"type": "string", "pattern": TAG_KEY}}),
                    "primary_dim": null({"type": "string", "pattern": TAG_KEY})})
TAG_BUDGET = obj({"daily_cap_micro": null(integer(0, 10**12)), "monthly_cap_micro": null(integer(0, 10**12)),
                  "calls_per_day": null(integer(-1, 10**9)),
                  "status": null({"type": "string", "enum": ["active", "blocked"]}), "note": null(text(500))})
TOPUP = obj({"amount_usd": null({**USD, "minimum": 10})})
AUTO_TOPUP = obj({"enabled": BOOL, "threshold_usd": null(USD), "amount_usd": null({**USD, "minimum": 10}),
                  "monthly_cap_usd": null({**USD, "maximum": 100_000}), "consent": BOOL}, ("enabled",))
CAP = obj({"daily_call_cap": integer(-1, 10**9)}, ("daily_call_cap",))
ACCESS = obj({"tool_access": null(strings(200)), "project_access": PROJECT_REFS, "local_run_enabled": BOOL})
ROLE_IN = obj({"role": ROLE}, ("role",))
AGENT = obj({"name": text(100, blank=False), "role": ROLE_INVITE, "daily_call_cap": integer(-1, 10**9),
             "tool_access": null(strings(200)), "project_access": PROJECT_REFS, "local_run_enabled": BOOL,
             "promoted_member": null(text(320)), "promoted_client": null(text(64)),
             "pinned_tags": null({"type": "object", "maxProperties": 5, "description": "keys: 1-32 of [a-z0-9_] "
                                  "(a key the relay cannot record is 403)", "additionalProperties": {
                 "type": "string", "minLength": 1, "maxLength": 128, "pattern": r"^[A-Za-z0-9._:-]+$"}})},
            ("name",))
PROJECT = obj({"name": {**text(200, blank=False), "pattern": "[A-Za-z0-9]"}}, ("name",))
PIN = obj({"capability": text(200), "provider": text(100)}, ("capability", "provider"))
DENY = {**obj({"host": text(300), "path_prefix": text(1000),
               "method": {"type": "string", "enum": ["", "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS",
                                                     "get", "post", "put", "patch", "delete", "head", "options"]},
               "user_id": null(ID), "project_id": null(ID), "note": text(500)}),
        "anyOf": [{"properties": {"host": {"pattern": NOT_BLANK}}, "required": ["host"]},
                  {"properties": {"path_prefix": {"pattern": NOT_BLANK}}, "required": ["path_prefix"]},
                  {"properties": {"method": {"minLength": 1}}, "required": ["method"]}]}
SECRET = obj({"name": text(200), "value": text(100_000), "kind": text(40), "bundle_id": null(ID)},
             ("name", "value"))
SECRET_UPDATE = obj({"name": null(text(200)), "value": null(text(100_000)), "kind": null(text(40))})
BASE_URL = {"type": "string", "maxLength": 2000,
            "pattern": r"^https?://[A-Za-z0-9]([A-Za-z0-9.-]{0,252})(:[0-9]{1,5})?(/[!-~]*)?$"}
TOOL_FIELDS = {"base_url": BASE_URL, "bindings": null(BINDINGS), "health_check": null({"type": "object"}),
               "examples": null(OBJECTS), "cli": CLI_PROFILE,
               "project": null({"anyOf": [text(200), integer(0, 2**53)]})}
TOOL = obj({"name": text(200, blank=False), "bundle_id": null(ID), "secret_id": null(ID),
            "injector": BINDING_FIELDS["injector"],
            "auth_in": {"type": "string", "enum": ["header", "query"]}, "auth_name": text(200, blank=False),
            "auth_format": text(500), "secret_field": text(200, blank=False), **TOOL_FIELDS}, ("name", "base_url"))
TOOL_UPDATE = obj({**TOOL_FIELDS, "base_url": null(BASE_URL)})
GRANT = obj({"argv": strings(2000, 500)})
RUN_REPORT = obj({"audit_id": ID, "exit_code": integer(-(2**31), 2**31),
                  "verdict": {"type": "string", "enum": ["ok", "credential_invalid", "unknown_error"]}},
                 ("audit_id", "exit_code", "verdict"))
BUNDLE_UPDATE = obj({"recipe": null(CONTENT)})
SKILL_TOOL = obj({"name": text(200, blank=False), "base_url": BASE_URL, "bindings": SKILL_BINDINGS,
                  "health_check": null({"type": "object"}), "examples": OBJECTS, "cli": CLI_PROFILE},
                 ("name", "base_url"))
SKILL = obj({"name": text(200, blank=False), "recipe": CONTENT,
             "files": {"type": "object", "additionalProperties": CONTENT},
             "secrets": {"type": "array", "maxItems": 20, "items": obj(
                 {"local_name": text(200), "value": text(100_000), "kind": text(40)}, ("local_name", "value"))},
             "tools": {"type": "array", "maxItems": 10, "items": SKILL_TOOL}}, ("name",))
FILES = {"type": "array", "items": obj({"path": text(1000), "content": CONTENT}, ("path", "content"))}
SKILL_ANALYZE = obj({"files": FILES})
SKILL_IMPORT = obj({"files": FILES, "select": strings(200, 600),
                    "env_values": {"type": "object", "additionalProperties": CONTENT}})
OAUTH_START = {**obj({"name": text(200), "provider": null(text(100)), "capability": null(text(100)),
                      "connection_id": null(ID), "client_id": text(500), "client_secret": text(500),
                      "auth_uri": text(2000), "token_uri": text(2000), "scopes": strings(500, 100),
                      "redirect_uri": null(text(2000))}),
               "anyOf": [{"required": ["provider"], "properties": {"provider": {"minLength": 1}}},
                         {"required": ["client_id", "client_secret", "name"],
                          "properties": {"client_id": {"minLength": 1}, "client_secret": {"minLength": 1},
                                         "name": {"minLength": 1}}}]}
RESOURCE = obj({"resource_ref": text(500), "resource_name": text(500)}, ("resource_ref",))
TOKEN_CONNECT = obj({"provider": text(100), "token": text(10_000, blank=False)}, ("provider", "token"))
EXTRA_CREDENTIAL = obj({"value": text(10_000, blank=False)}, ("value",))
RUN = obj({"tool": text(200), "args": strings(2000, 500), "timeout_s": null(integer(-(2**31), 2**31))}, ("tool",))
