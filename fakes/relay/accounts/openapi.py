"""The account surface in the relay's OpenAPI document: one table row per operation (method, path,
summary, request body schema, answer shape, who may call), expanded into path items with their
parameters, a 2xx, the refusals and the security scheme. The request schemas are the very ones the
routes check (fakes/relay/accounts/schemas.py)."""

from __future__ import annotations

import re
from typing import Any

from fakes.kernel.openapi import json_response_spec

from . import schemas as S

Schema = dict[str, Any]
_ID: Schema = {"type": "integer", "minimum": 1, "maximum": 2**53}
_QUERY_INT: Schema = {"type": "integer", "minimum": -(2**31), "maximum": 2**31}
_PATH_TYPES: dict[str, Schema] = {
    "org_id": _ID, "user_id": _ID, "invite_id": _ID, "project_id": _ID, "rule_id": _ID, "secret_id": _ID,
    "tool_id": _ID, "bundle_id": _ID, "dim": {"type": "string", "pattern": r"^[a-z0-9_]{1,32}$"},
    "val": {"type": "string", "minLength": 1, "maxLength": 128}, "name": {"type": "string", "minLength": 1},
    "state": {"type": "string", "minLength": 1}, "call_ref": {"type": "string", "minLength": 1},
    "session_id": {"type": "string", "minLength": 1}}
OBJECT, ARRAY, HTML = "object", "array", "html"
#: (method, path, summary, body schema (None: no body; a tuple: an optional one), answer, caller, query)
#: caller: member (a team member's token, or an identity token with the org header), identity (any
#: signed-in user), open (nobody), session (a browser session cookie)
OPERATIONS: list[tuple[str, str, str, Any, str, str, dict[str, Schema]]] = [
    ("post", "/auth/cli/start", "Start a CLI login: a login id and the pairing code for the terminal", None, OBJECT,
     "open", {}),
    ("get", "/auth/cli/poll", "The CLI login's identity token, once approved (else status pending)", None, OBJECT,
     "open", {"login_id": {"type": "string"}}),
    ("get", "/auth/cli/orgs", "The signed-in browser's teams, for the login picker", None, OBJECT, "session", {}),
    ("post", "/auth/cli/approve", "Approve a CLI login from a signed-in browser with the pairing code (needs the "
     "browser session)",
     S.CLI_APPROVE, OBJECT, "session", {}),
    ("get", "/auth/github", "Sign in with GitHub (simulated: redirects straight to the callback)", None, HTML,
     "open", {"cli": {"type": "string"}, "login": {"type": "string"}}),
    ("get", "/auth/github/callback", "GitHub's redirect back: a browser session", None, HTML, "open",
     {"code": {"type": "string"}, "state": {"type": "string"}}),
    ("get", "/auth/google", "Sign in with Google (simulated)", None, HTML, "open",
     {"cli": {"type": "string"}, "login_hint": {"type": "string"}}),
    ("get", "/auth/google/callback", "Google's redirect back: a browser session", None, HTML, "open",
     {"code": {"type": "string"}, "state": {"type": "string"}}),
    ("get", "/auth/me", "Who the caller is (and the team a member token is for)", None, OBJECT, "identity", {}),
    ("post", "/auth/logout", "End the browser session", None, OBJECT, "open", {}),
    ("post", "/auth/email/start", "E-mail a one-time sign-in code (its dev_code is in the answer)", S.EMAIL_START,
     OBJECT, "open", {}),
    ("post", "/auth/email/verify", "Sign in with the code: an identity token and a browser session",
     S.EMAIL_VERIFY, OBJECT, "open", {}),
    ("get", "/auth/invite-signin", "An invite link: a confirm page (or the sign-in page for a code)", None, HTML,
     "open", {"code": {"type": "string"}, "t": {"type": "string"}}),
    ("post", "/auth/invite-signin", "Confirm an invite link: the invitee's browser session", None, HTML, "open", {}),
    ("get", "/auth/cli-token", "An identity token; with the org header, that team's Default key", None, OBJECT,
     "identity", {}),
    ("post", "/auth/revoke-tokens", "Revoke every identity token and session of the user (a new one back)", None,
     OBJECT, "identity", {}),
    ("post", "/users", "Register: a user and a team named after the address (its owner token)", S.USER, OBJECT,
     "open", {}),
    ("post", "/orgs", "Create a team the caller owns ($1.00 to start)", S.ORG, OBJECT, "identity", {}),
    ("get", "/orgs", "The caller's teams (the active one marked)", None, ARRAY, "identity", {}),
    ("post", "/orgs/{org_id}/invites", "Invite an address (admin; the code relayed by hand)", S.INVITE, OBJECT,
     "member", {}),
    ("get", "/orgs/{org_id}/invites", "Pending invites (admin)", None, ARRAY, "member", {}),
    ("post", "/invites/accept", "Join with an invite code (registers the address if new)", S.ACCEPT, OBJECT, "open",
     {}),
    ("get", "/invites/mine", "Pending invites to the caller's address", None, ARRAY, "identity", {}),
    ("post", "/onboard/demo", "A demo team with fake teammates and an echo tool", (S.ONBOARD,), OBJECT, "identity",
     {}),
    ("post", "/onboard/skip", "Never offer onboarding again", None, OBJECT, "identity", {}),
    ("post", "/onboard/reset", "Remove the caller's demo teams and demo teammates", None, OBJECT, "identity", {}),
    ("post", "/demo/sandbox", "A login-free sandbox team for the landing page (12 an hour per client)", None,
     OBJECT, "open", {}),
    ("get", "/demo/sandbox/live", "A sandbox's live-wire facts (sandbox tokens only)", None, OBJECT, "member", {}),
    ("get", "/demo/sandbox/skill", "A sandbox exported as a skill (sandbox tokens only)", None, OBJECT, "member", {}),
    ("get", "/skills/samples", "The sample skills the landing page offers", None, ARRAY, "open", {}),
    ("post", "/onboard/seed-tool", "Add the working echo tool to the caller's team", None, OBJECT, "member", {}),
    ("post", "/onboard/accept-teammate", "A demo teammate invited during onboarding joins at once", S.TEAMMATE,
     OBJECT, "member", {}),
    ("post", "/invites/{invite_id}/accept", "Accept an invite to the caller's own address", None, OBJECT,
     "identity", {}),
    ("delete", "/orgs/{org_id}/invites/{invite_id}", "Revoke a pending invite (admin)", None, OBJECT, "member", {}),
    ("get", "/orgs/{org_id}/members", "Members with their caps, access and today's use (admin)", None, ARRAY,
     "member", {}),
    ("get", "/orgs/{org_id}/usage", "Use by member, tool and day, and the spend (admin)", None, OBJECT, "member",
     {"days": _QUERY_INT}),
    ("get", "/orgs/{org_id}/balance", "Balance and holds; credit blocks and ledger for admins", None, OBJECT,
     "member", {"limit": _QUERY_INT, "offset": _QUERY_INT}),
    ("get", "/orgs/{org_id}/tag-keys", "Tag keys seen and budgetable (admin)", None, OBJECT, "member", {}),
    ("get", "/orgs/{org_id}/usage/by-tag", "Spend and calls per value of a tag (admin)", None, OBJECT, "member",
     {"key": {"type": "string"}, "days": _QUERY_INT}),
    ("get", "/orgs/{org_id}/settings", "The team's spend ceiling and tag keys", None, OBJECT, "member", {}),
    ("patch", "/orgs/{org_id}/settings", "Set the spend ceiling and tag keys (admin)", S.ORG_SETTINGS, OBJECT,
     "member", {}),
    ("get", "/orgs/{org_id}/budgets", "Tag budgets set (admin)", None, ARRAY, "member", {"dim": {"type": "string"}}),
    ("put", "/orgs/{org_id}/budgets/{dim}", "A tag key's default budget (admin)", S.TAG_BUDGET, OBJECT, "member", {}),
    ("put", "/orgs/{org_id}/budgets/{dim}/{val}", "One tag value's budget (admin)", S.TAG_BUDGET, OBJECT, "member",
     {}),
    ("delete", "/orgs/{org_id}/budgets/{dim}/{val}", "Drop a tag budget (admin)", None, OBJECT, "member", {}),
    ("get", "/billing", "Billing state: card, auto top-up, this month's automatic charges (admin)", None, OBJECT,
     "member", {}),
    ("post", "/billing/topup", "Start a checkout for a top-up (the balance moves when it is paid)", (S.TOPUP,),
     OBJECT, "member", {}),
    ("post", "/billing/autotopup", "Set auto top-up (consent to switch it on)", S.AUTO_TOPUP, OBJECT, "member", {}),
    ("get", "/billing/history", "Paid top-ups, newest first (admin)", None, OBJECT, "member",
     {"limit": {"type": "integer", "minimum": 1, "maximum": 100}}),
    ("post", "/billing/portal", "A link to the billing portal (after the first payment)", None, OBJECT, "member", {}),
    ("get", "/referrals", "The caller's referral link and the teams it brought", None, OBJECT, "identity", {}),
    ("post", "/referrals/code", "The caller's referral code (made once)", None, OBJECT, "identity", {}),
    ("patch", "/orgs/{org_id}/members/{user_id}/cap", "A member's daily call cap (admin)", S.CAP, OBJECT, "member",
     {}),
    ("patch", "/orgs/{org_id}/members/{user_id}/access", "A member's tool and project access (admin)", S.ACCESS,
     OBJECT, "member", {}),
    ("get", "/usage/me", "The caller's calls today and cap", None, OBJECT, "member", {}),
    ("delete", "/orgs/{org_id}/members/{user_id}", "Remove a member (admin)", None, OBJECT, "member", {}),
    ("patch", "/orgs/{org_id}/members/{user_id}", "Change a member's role (owner)", S.ROLE_IN, OBJECT, "member", {}),
    ("post", "/orgs/{org_id}/leave", "Leave the team", None, OBJECT, "member", {}),
    ("delete", "/orgs/{org_id}", "Delete the team (owner; confirm with its slug)", None, OBJECT, "member",
     {"confirm": {"type": "string", "minLength": 1}}),
    ("post", "/orgs/{org_id}/public-token", "Publish (or rotate) a viewer token that can only call and read",
     None, OBJECT, "member", {}),
    ("delete", "/orgs/{org_id}/public-token", "Revoke the published token", None, OBJECT, "member", {}),
    ("post", "/orgs/{org_id}/agents", "Create (or rotate) an agent's token (admin)", S.AGENT, OBJECT, "member", {}),
    ("get", "/orgs/{org_id}/agents", "Agents with their limits (admin)", None, ARRAY, "member", {}),
    ("post", "/agents/checkin", "An agent's first call as itself", None, OBJECT, "member", {}),
    ("get", "/orgs/{org_id}/agents/observed", "Runtimes seen calling under members' tokens (admin)", None, ARRAY,
     "member", {}),
    ("delete", "/orgs/{org_id}/agents/{user_id}", "Revoke an agent (admin)", None, OBJECT, "member", {}),
    ("post", "/orgs/{org_id}/projects", "Create a project (admin)", S.PROJECT, OBJECT, "member", {}),
    ("get", "/orgs/{org_id}/projects", "The team's projects", None, ARRAY, "member", {}),
    ("delete", "/orgs/{org_id}/projects/{project_id}", "Delete a project (its tools become team-wide)", None,
     OBJECT, "member", {}),
    ("get", "/orgs/{org_id}/pins", "Capabilities pinned to a provider", None, ARRAY, "member", {}),
    ("post", "/orgs/{org_id}/pins", "Pin a capability to a provider (admin)", S.PIN, OBJECT, "member", {}),
    ("delete", "/orgs/{org_id}/pins", "Unpin a capability (admin)", None, OBJECT, "member",
     {"capability": {"type": "string", "minLength": 1, "maxLength": 200}}),
    ("post", "/orgs/{org_id}/deny", "A deny rule (admin)", S.DENY, OBJECT, "member", {}),
    ("get", "/orgs/{org_id}/deny", "Deny rules (admin)", None, ARRAY, "member", {}),
    ("get", "/orgs/{org_id}/policy/cli-deny", "Local-run deny patterns of the team's tools (admin)", None, ARRAY,
     "member", {}),
    ("delete", "/orgs/{org_id}/deny/{rule_id}", "Delete a deny rule (admin)", None, OBJECT, "member", {}),
    ("post", "/secrets", "Store a secret (its value is never shown again)", S.SECRET, OBJECT, "member", {}),
    ("get", "/secrets", "The team's secrets (no values)", None, ARRAY, "member", {}),
    ("patch", "/secrets/{secret_id}", "Rename, rotate or re-kind a secret", S.SECRET_UPDATE, OBJECT, "member", {}),
    ("delete", "/secrets/{secret_id}", "Delete a secret no tool uses", None, OBJECT, "member", {}),
    ("post", "/tools", "Register a tool: a base URL and credential bindings", S.TOOL, OBJECT, "member", {}),
    ("get", "/tools", "The team's tools the caller may use", None, ARRAY, "member", {}),
    ("get", "/tools/by-name/{name}", "A tool by name", None, OBJECT, "member", {}),
    ("patch", "/tools/{tool_id}", "Change a tool", S.TOOL_UPDATE, OBJECT, "member", {}),
    ("delete", "/tools/{tool_id}", "Delete a tool", None, OBJECT, "member", {}),
    ("post", "/tools/{name}/grant", "The material for one local run of a tool's CLI (audited)", (S.GRANT,), OBJECT,
     "member", {}),
    ("post", "/tools/{name}/run-report", "A local run's outcome", S.RUN_REPORT, OBJECT, "member", {}),
    ("post", "/skills", "Register a skill: recipe, files, secrets and tools", S.SKILL, OBJECT, "member", {}),
    ("post", "/skills/analyze", "Classify an uploaded skill folder", S.SKILL_ANALYZE, OBJECT, "member", {}),
    ("post", "/skills/import", "Register the ready skills of an uploaded folder", S.SKILL_IMPORT, OBJECT, "member",
     {}),
    ("get", "/bundles", "The team's skills", None, ARRAY, "member", {}),
    ("get", "/bundles/by-name/{name}", "A skill by name", None, OBJECT, "member", {}),
    ("get", "/bundles/{bundle_id}", "A skill with its tools and secrets", None, OBJECT, "member", {}),
    ("patch", "/bundles/{bundle_id}", "Edit a skill's recipe", S.BUNDLE_UPDATE, OBJECT, "member", {}),
    ("delete", "/bundles/{bundle_id}", "Delete a skill with its tools and secrets", None, OBJECT, "member", {}),
    ("get", "/calls", "The team's calls, newest first, each with its member", None, ARRAY, "member",
     {"limit": _QUERY_INT, "days": _QUERY_INT, "before_id": _QUERY_INT}),
    ("get", "/calls/{call_ref}", "One call by its call id, with its ledger entries", None, OBJECT, "member", {}),
    ("get", "/runs", "Local and server runs of tools' CLIs", None, ARRAY, "member", {"limit": _QUERY_INT}),
    ("get", "/oauth/providers", "Providers one can connect (consent or a pasted key)", None, ARRAY, "open", {}),
    ("post", "/oauth/start", "Start a provider connection: its consent_url", S.OAUTH_START, OBJECT, "member", {}),
    ("get", "/oauth/callback", "The provider's redirect after consent (simulated)", None, HTML, "open",
     {"state": {"type": "string"}, "code": {"type": "string"}, "error": {"type": "string"}}),
    ("get", "/connections", "The team's provider connections", None, ARRAY, "member", {}),
    ("get", "/connections/{secret_id}/resources", "What a connection can act on", None, OBJECT, "member", {}),
    ("post", "/connections/{secret_id}/resource", "Choose what a connection acts on", S.RESOURCE, OBJECT, "member",
     {}),
    ("post", "/connections/token", "Connect a provider with a pasted key (checked first)", S.TOKEN_CONNECT, OBJECT,
     "member", {}),
    ("post", "/connections/{secret_id}/extra-credential", "A provider's second credential", S.EXTRA_CREDENTIAL,
     OBJECT, "member", {}),
    ("delete", "/connections/{secret_id}", "Disconnect (and remove the provider's tool)", None, OBJECT, "member", {}),
    ("get", "/oauth/status/{state}", "Where a connection's consent stands", None, OBJECT, "member", {}),
    ("post", "/health/run", "Probe every credential of the team now", None, OBJECT, "member",
     {"all_orgs": {"type": "boolean"}}),
    ("get", "/health", "Each credential's health", None, ARRAY, "member", {}),
    ("post", "/run", "Run a tool's CLI on the relay (simulated)", S.RUN, OBJECT, "member", {}),
    ("get", "/meta", "What a dashboard needs: the public URL, the sign-in doors, versions", None, OBJECT, "open",
     {}),
    ("get", "/providers.json", "The providers `treg upload` matches environment variables against", None, OBJECT,
     "open", {}),
    ("get", "/checkout/{session_id}", "A simulated checkout page", None, HTML, "open", {}),
    ("post", "/checkout/{session_id}", "Pay (or, with action=cancel, abandon) a simulated checkout", None, HTML,
     "open", {}),
    ("get", "/", "Where sign-in flows land a browser", None, HTML, "open", {}),
    ("get", "/app", "The dashboard's address (a plain page naming the signed-in user)", None, HTML, "open", {}),
    ("get", "/login", "The page `treg login` opens: e-mail and pairing code", None, HTML, "open",
     {"cli": {"type": "string", "pattern": r"^([A-Za-z0-9_-]{8,128})?$"}}),
    ("post", "/login", "The login page's form: sign in and approve the CLI login", None, HTML, "open", {}),
]


def paths(error: Schema, security: list[dict[str, list[str]]]) -> dict[str, Any]:
    loose_error = {"type": "object", "properties": {"detail": {}, "error": {"type": "string"}}, "required": ["detail"]}
    html = {"description": "a page for the browser", "content": {"text/html": {"schema": {"type": "string"}}}}
    out: dict[str, Any] = {}
    for method, path, summary, body, answer, caller, query in OPERATIONS:
        parameters = [{"name": name, "in": "path", "required": True, "schema": _PATH_TYPES[name]}
                      for name in _path_names(path)]
        parameters += [{"name": name, "in": "query", "required": name in ("confirm", "capability"), "schema": schema}
                       for name, schema in query.items()]
        if answer == HTML:
            responses: dict[str, Any] = {"200": html, "302": {"description": "a redirect"},
                                         "303": {"description": "a redirect"}, "400": html, "404": html, "403": html,
                                         "502": html}
        else:
            ok = {"type": "object"} if answer == OBJECT else {"type": "array", "items": {"type": "object"}}
            responses = {"200": json_response_spec(ok)}
            for status, why in (("400", "a request the relay cannot serve"), ("401", "not signed in"),
                                ("403", "not allowed for this caller"), ("404", "no such thing (for this team)"),
                                ("409", "conflicts with what the team holds"), ("410", "expired"),
                                ("413", "too large"), ("422", "a field missing or malformed"),
                                ("429", "too many requests")):
                responses[status] = json_response_spec(loose_error if status == "422" else error, why)
        operation: dict[str, Any] = {"summary": summary, "tags": ["accounts"], "responses": responses}
        if caller in ("member", "identity"):
            operation["security"] = security
        if parameters:
            operation["parameters"] = parameters
        if body is not None:
            schema = body[0] if isinstance(body, tuple) else body
            operation["requestBody"] = {"required": not isinstance(body, tuple),
                                        "content": {"application/json": {"schema": schema}}}
        out.setdefault(path, {})[method] = operation
    return out


def _path_names(path: str) -> list[str]:
    return re.findall(r"{([^}]+)}", path)
