"""Provider connections (treg ``src/treg/api.py``: ``oauth_providers_list`` 8268-8272,
``oauth_start`` 8275-8350, ``oauth_callback`` 8353-8421, ``list_connections`` 8424-8462,
``connection_resources`` 8548-8667, ``set_connection_resource`` 8670-8708, ``connect_with_token``
8711-8846, ``set_extra_credential`` 8849-8900, ``revoke_connection`` 8903-8931, ``oauth_status``
8934-8946), with the consent simulated: no provider is ever contacted.

The registry (:data:`PROVIDERS`) covers the catalogue's curated providers: some connect by OAuth
consent, some by a pasted key. ``/oauth/start`` answers a ``consent_url``; visiting it is the user's
consent (the provider redirects to ``/oauth/callback`` with a code; ``error=access_denied`` in its
place is a refusal). A connection is a secret tagged with its provider (rung 2 of the ladder) plus
the provider's tool, provisioned on its host (rung 1): the next call of that provider is unbilled.
A pasted key is checked by a simulated probe: one containing ``invalid`` is rejected (422).
Deviations: an unknown provider is 404 and a provider connected the other way is 409 (treg: 422).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from fakes.kernel.errors import ServiceError

from .. import data
from ..teams import Membership, Team
from .formats import iso
from .identity import require_can_register
from .ladder import refresh_ladder
from .orgdata import SecretRow, ToolRow
from .pending import Connect

if TYPE_CHECKING:
    from .identity import Accounts

PENDING_TTL_MS = 30 * 60_000
TOKEN_TTL_MS = 3600_000

#: service -> how it connects: oauth (consent, scopes per capability) or token (a pasted key)
PROVIDERS: dict[str, dict[str, Any]] = {
    "peoplegraph": {"auth_kind": "oauth", "category": "People data", "scopes": {
        "read": ["people.read"], "write": ["people.read", "people.write"]}, "supports_discovery": True,
        "resource_label": "workspace", "resource_plural": "workspaces", "has_identity": True},
    "jobsignal": {"auth_kind": "oauth", "category": "Hiring signals", "scopes": {"read": ["jobs.read"]},
                  "needs_extra_credential": True, "extra_credential_header": "X-Developer-Token",
                  "extra_credential_label": "developer token"},
    "mailscout": {"auth_kind": "token", "category": "Email", "token_label": "API key"},
    "firmdata": {"auth_kind": "token", "category": "Company data", "token_label": "API key"},
    "quotely": {"auth_kind": "token", "category": "Market data", "token_label": "API key"},
}


def listing(acc: Accounts) -> list[dict[str, Any]]:
    rows = []
    for service, spec in PROVIDERS.items():
        known = acc.model.provider(service) or {}
        scopes = spec.get("scopes", {})
        rows.append({"service": service, "display_name": known.get("display_name", service),
                     "category": spec["category"], "summary": f"Connect your own {known.get('display_name', service)}",
                     "scope_detail": {cap: [{"scope": s, "label": s} for s in found] for cap, found in scopes.items()},
                     "capabilities": list(scopes), "default_capability": next(iter(scopes), None),
                     "resource_label": spec.get("resource_label"), "resource_plural": spec.get("resource_plural"),
                     "supports_discovery": bool(spec.get("supports_discovery")),
                     "has_identity": bool(spec.get("has_identity")), "auth_kind": spec["auth_kind"],
                     "token_label": spec.get("token_label"), "token_placeholder": "", "setup_url": None,
                     "setup_action_label": None, "setup_steps": [], "configured": True})
    return rows


def start(acc: Accounts, member: Membership, body: dict[str, Any], callback: str) -> dict[str, Any]:
    require_can_register(member)
    provider = body.get("provider") or ""
    scopes = list(body.get("scopes") or [])
    name = body.get("name") or ""
    if provider:
        spec = PROVIDERS.get(provider)
        if spec is None:
            raise ServiceError(404, f"unknown provider {provider!r} (known: {', '.join(sorted(PROVIDERS))})",
                               code="not_found")
        if spec["auth_kind"] != "oauth":
            raise ServiceError(409, f"{provider} is connected with a pasted key: POST /connections/token",
                               code="conflict")
        capability = body.get("capability") or next(iter(spec["scopes"]))
        if capability not in spec["scopes"]:
            raise ServiceError(404, f"{provider} has no capability {capability!r} (it has: "
                                    f"{', '.join(spec['scopes'])})", code="not_found")
        scopes, name = spec["scopes"][capability], name or provider
    replaces = None
    if body.get("connection_id") is not None:
        target = member.team.org.secrets.get(body["connection_id"])
        if target is None or (target.kind != "oauth" and not target.provider):
            raise ServiceError(404, "unknown connection", code="not_found")
        if provider and target.provider != provider:
            raise ServiceError(409, f"connection {target.secret_id} is {target.provider or 'not a provider connection'}"
                                    f", not {provider}", code="conflict")
        replaces, name = target.secret_id, target.name
    if body.get("redirect_uri") and body["redirect_uri"].rstrip("/") != callback:
        raise ServiceError(403, "redirect_uri must be the relay's own /oauth/callback", code="forbidden")
    state = acc.signer.opaque("connect", acc.next("connect"))
    acc.connects[state] = Connect(member.team.team_id, name, member.email, provider, scopes, callback, acc.now(),
                                  replaces)
    return {"state": state, "consent_url": f"{callback}?state={state}&code={consent_code(acc, state)}",
            "redirect_uri": callback}


def consent_code(acc: Accounts, state: str) -> str:
    return f"code_{data.token_text(acc.model.seed, 'consent', state)}"


def callback(acc: Accounts, state: str, code: str, error: str) -> tuple[int, str, str]:
    """(status, headline, sub line) of the callback page; a granted consent becomes a connection."""
    pending = acc.connects.get(state)
    if pending is None:
        return 404, "Connect failed", "Invalid or expired authorization link."
    if pending.status != "pending":
        return (200, "Connected", "You can close this tab.") if pending.status == "done" else (
            400, "Connect failed", "This authorization already failed. Start the connect again.")
    if pending.created_ms < acc.now() - PENDING_TTL_MS:
        pending.status, pending.detail = "error", "expired"
        return 400, "Connect failed", "This authorization link expired. Start the connect again."
    if error or not code:
        pending.status, pending.detail = "error", (error or "no authorization code")[:200]
        return 400, "Connect failed", "Authorization failed. You can close this tab and try again."
    team = acc.model.teams.get(pending.team_id)
    if team is None or code != consent_code(acc, state):
        pending.status, pending.detail = "error", "token exchange failed"
        return 502, "Connect failed", "Token exchange failed. You can close this tab and try again."
    org = team.org
    blob = json.dumps({"access_token": f"at_{data.token_text(acc.model.seed, 'access', state)}",
                       "refresh_token": f"rt_{data.token_text(acc.model.seed, 'refresh', state)}",
                       "token_type": "Bearer"})
    secret = org.secrets.get(pending.replaces_secret_id) if pending.replaces_secret_id is not None else None
    if secret is None:
        taken = {s.name for s in org.secrets.values()}
        name, number = pending.name, 2
        while name in taken:
            name, number = f"{pending.name}-{number}", number + 1
        secret = SecretRow(acc.next("secret"), name, pending.owner, "oauth", blob, acc.now())
        org.secrets[secret.secret_id] = secret
    secret.value, secret.provider = blob, pending.provider
    secret.granted_scopes = " ".join(pending.scopes)
    secret.expires_ms = acc.now() + TOKEN_TTL_MS
    secret.health_status, secret.health_detail = "ok", "connected"
    spec = PROVIDERS.get(pending.provider, {})
    if spec.get("has_identity"):
        secret.resource_ref = f"users/{data.token_text(acc.model.seed, 'identity', state)[:8]}"
        secret.resource_name = pending.owner
    if pending.provider and not spec.get("needs_extra_credential"):
        provision(acc, team, pending.provider, secret, pending.owner)
    pending.status, pending.secret_id, pending.detail = "done", secret.secret_id, "connected"
    refresh_ladder(acc.model, team)
    return 200, "Connected", "You can close this tab and return to the terminal."


def provision(acc: Accounts, team: Team, provider: str, secret: SecretRow, owner: str,
              extra: list[dict[str, Any]] | None = None) -> None:
    """The provider's own tool on its host, bound to the connection (and an extra credential)."""
    known = acc.model.provider(provider)
    if known is None:
        return
    binding = {"secret_id": secret.secret_id, "injector": "oauth" if secret.kind == "oauth" else "env",
               "location": "header", "name": "Authorization", "format": "Bearer {secret}",
               "secret_field": "access_token"}
    bindings = [binding, *(extra or [])]
    tool = team.org.tool_named(provider)
    if tool is None:
        tool = ToolRow(acc.next("tool"), provider, owner, f"https://{known['host']}", known["host"], bindings,
                       acc.now())
        team.org.tools[tool.tool_id] = tool
    else:
        tool.bindings = bindings


def connection_view(secret: SecretRow, now_ms: int) -> dict[str, Any]:
    state = ("expired" if secret.expires_ms is not None and secret.expires_ms <= now_ms else
             "ok" if secret.expires_ms is None or secret.kind != "oauth" else "refreshable")
    return {"id": secret.secret_id, "name": secret.name, "kind": secret.kind, "provider": secret.provider,
            "resource_name": secret.resource_name, "needs_reconnect": False, "resource_ref": secret.resource_ref,
            "scopes": secret.granted_scopes.split(), "health": secret.health_status,
            "refreshable": secret.kind == "oauth", "expiry_state": state, "expires_at": iso(secret.expires_ms),
            "last_refresh_at": None, "last_error": "", "owner": secret.owner, "created_at": iso(secret.created_ms)}


def connections(acc: Accounts, member: Membership) -> list[dict[str, Any]]:
    org = member.team.org
    rows = []
    for secret in org.secrets.values():
        if secret.kind != "oauth" and not secret.provider:
            continue
        view = connection_view(secret, acc.now())
        spec = PROVIDERS.get(secret.provider)
        if spec is not None and spec["auth_kind"] == "oauth":
            granted = set(secret.granted_scopes.split())
            have = [cap for cap, scopes in spec["scopes"].items() if set(scopes) <= granted]
            view["capabilities"] = have
            view["missing_capabilities"] = [c for c in spec["scopes"] if c not in have]
            if spec.get("needs_extra_credential"):
                view["extra_credential_label"] = spec["extra_credential_label"]
                view["needs_extra_credential"] = org.tool_named(secret.provider) is None
        rows.append(view)
    return sorted(rows, key=lambda c: (c["provider"] or "~", c["name"]))


def owned(member: Membership, secret_id: int) -> SecretRow:
    secret = member.team.org.secrets.get(secret_id)
    if secret is None or (secret.kind != "oauth" and not secret.provider):
        raise ServiceError(404, "unknown connection", code="not_found")
    return secret


def resources(acc: Accounts, member: Membership, secret_id: int) -> dict[str, Any]:
    secret = owned(member, secret_id)
    spec = PROVIDERS.get(secret.provider, {})
    if not spec.get("supports_discovery"):
        raise ServiceError(422, f"{secret.provider or 'this provider'} has nothing to choose between — it acts on "
                                "your whole account", code="validation_error")
    rng = data.rng_for(acc.model.seed, "resources", member.team.team_id, secret.secret_id)
    found = [{"id": f"{spec['resource_plural']}/{rng.randint(100_000, 999_999)}",
              "label": f"{member.team.name} {label}", "raw": {}} for label in ("main", "sandbox", "archive")]
    for row in found:
        row["raw"] = {"id": row["id"], "name": row["label"]}
    secret.health_status, secret.health_detail = "ok", "listed upstream resources"
    return {"provider": secret.provider, "resource_label": spec["resource_label"],
            "resource_plural": spec["resource_plural"], "selected": secret.resource_ref, "resources": found}


def set_resource(acc: Accounts, member: Membership, secret_id: int, ref: str, label: str) -> dict[str, Any]:
    secret = owned(member, secret_id)
    secret.resource_ref, secret.resource_name = ref, label
    return connection_view(secret, acc.now())


def connect_token(acc: Accounts, member: Membership, provider: str, token: str) -> dict[str, Any]:
    require_can_register(member)
    spec = PROVIDERS.get(provider)
    if spec is None:
        raise ServiceError(404, f"unknown provider {provider!r}", code="not_found")
    if spec["auth_kind"] != "token":
        raise ServiceError(409, "this provider is connected by consent, not a token", code="conflict")
    token = token.strip()
    if "invalid" in token.lower():
        raise ServiceError(422, f"{provider} rejected that token (HTTP 401)", code="validation_error")
    org = member.team.org
    secret = next((s for s in org.secrets.values() if s.provider == provider), None)
    if secret is None:
        secret = SecretRow(acc.next("secret"), provider, member.email, "env", token, acc.now(), provider=provider)
        org.secrets[secret.secret_id] = secret
    secret.value = token
    secret.health_status, secret.health_detail, secret.health_checked_ms = "ok", "token verified at connect", acc.now()
    provision(acc, member.team, provider, secret, member.email)
    refresh_ladder(acc.model, member.team)
    return connection_view(secret, acc.now())


def extra_credential(acc: Accounts, member: Membership, secret_id: int, value: str) -> dict[str, Any]:
    require_can_register(member)
    secret = owned(member, secret_id)
    spec = PROVIDERS.get(secret.provider, {})
    if not spec.get("needs_extra_credential"):
        raise ServiceError(409, "this provider needs no extra credential", code="conflict")
    org = member.team.org
    name = f"{secret.provider}-{spec['extra_credential_header']}"
    extra = next((s for s in org.secrets.values() if s.name == name), None)
    if extra is None:
        extra = SecretRow(acc.next("secret"), name, member.email, "env", value.strip(), acc.now())
        org.secrets[extra.secret_id] = extra
    extra.value = value.strip()
    provision(acc, member.team, secret.provider, secret, member.email, [
        {"secret_id": extra.secret_id, "injector": "env", "location": "header",
         "name": spec["extra_credential_header"], "format": "{secret}"}])
    refresh_ladder(acc.model, member.team)
    return {**connection_view(secret, acc.now()), "tool": secret.provider, "ready": True}


def revoke(acc: Accounts, member: Membership, secret_id: int) -> dict[str, Any]:
    require_can_register(member)
    secret = owned(member, secret_id)
    org = member.team.org
    removed = []
    for tool in list(org.tools.values()):
        kept = [b for b in tool.bindings if b.get("secret_id") != secret_id]
        if len(kept) == len(tool.bindings):
            continue
        if tool.name == secret.provider or not kept:
            del org.tools[tool.tool_id]
            removed.append(tool.name)
        else:
            tool.bindings = kept
    del org.secrets[secret_id]
    refresh_ladder(acc.model, member.team)
    return {"deleted": secret_id, "removed_tools": removed}


def status(acc: Accounts, member: Membership, state: str) -> dict[str, Any]:
    pending = acc.connects.get(state)
    if pending is None or pending.team_id != member.team.team_id:
        raise ServiceError(404, "unknown oauth state", code="not_found")
    return {"status": pending.status, "secret_id": pending.secret_id, "detail": pending.detail, "name": pending.name}
