"""The credential ladder's lookup of a team: a team tool on a provider's host is rung 1
(``own_tool``), a secret tagged with the provider or named exactly like it is rung 2 (``secret``;
treg ``_marketplace_secret``, ``src/treg/api.py`` 9594-9606). :func:`refresh_ladder` keeps the
team's tables in step after every change of its tools, secrets or rules, so a repeated call still
answers from its plan; the control plane's shortcuts set a rung up directly."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..modelview import CatalogueLookup
from ..teams import RESOLVE, Team
from .orgdata import SecretRow, ToolRow

if TYPE_CHECKING:
    from .identity import Accounts


def refresh_ladder(model: CatalogueLookup, team: Team) -> None:
    """The team's rung-1 and rung-2 lookup (provider -> key) from its tools and secrets. A provider
    whose tools need a per-call choice (several on its host, a path-scoped base URL, a project
    scope) maps to ``RESOLVE``: the full pipeline resolves those calls (treg ``_resolve_call``)."""
    org = team.org
    on_host: dict[str, list[ToolRow]] = {}
    for tool in org.tools.values():
        provider = model.provider_for_host(tool.host.split(":")[0])
        if provider is not None:
            on_host.setdefault(provider, []).append(tool)
    tools: dict[str, str] = {}
    for provider, found in on_host.items():
        only = found[0]
        simple = (len(found) == 1 and urlsplit(only.base_url).path in ("", "/") and only.project_id is None
                  and _bearer_only(only))
        tools[provider] = tool_key(org, only) if simple else RESOLVE
    secrets: dict[str, str] = {}
    for secret in sorted(org.secrets.values(), key=lambda s: s.secret_id):  # newest wins
        if secret.provider:
            secrets[secret.provider] = secret.value
    for secret in sorted(org.secrets.values(), key=lambda s: s.secret_id):
        if not secret.provider and model.provider(secret.name) is not None and secret.name not in {
                s.provider for s in org.secrets.values()}:
            secrets[secret.name] = secret.value
    team.tools, team.secrets = tools, secrets
    team.plannable = not org.guarded and not any(model.entry(t.name) is not None for t in org.tools.values())


def _bearer_only(tool: ToolRow) -> bool:
    """Whether the tool injects at most one key as ``Authorization: Bearer`` (the fast path's form)."""
    if len(tool.bindings) > 1:
        return False
    return all(b.get("location", "header") == "header"
               and str(b.get("name", "Authorization")).lower() == "authorization"
               and str(b.get("format", "{secret}")) == "Bearer {secret}" for b in tool.bindings)


def tool_key(org: Any, tool: ToolRow) -> str:
    """The key a tool injects (its first binding's secret), or "" for a tool needing none."""
    for binding in tool.bindings:
        secret = org.secrets.get(binding.get("secret_id"))
        if secret is not None:
            return str(secret.value)
    return ""


# -- the control plane's shortcuts (no HTTP checks: the test sets its own world up) ------------------
def control_tool(acc: Accounts, team: Team, provider: str, host: str, key: str) -> None:
    """Rung 1 for ``provider``: a tool named after it on its host, with ``key`` in a secret of its own
    (a second call replaces the key)."""
    org = team.org
    owner = next(iter(org.members.values())).email if org.members else ""
    tool = org.tool_named(provider)
    if tool is not None and tool.bindings and tool.bindings[0].get("secret_id") in org.secrets:
        org.secrets[tool.bindings[0]["secret_id"]].value = key
    else:
        secret = SecretRow(acc.next("secret"), f"{provider}-key", owner, "env", key, acc.now())
        org.secrets[secret.secret_id] = secret
        binding = {"secret_id": secret.secret_id, "injector": "env", "location": "header", "name": "Authorization",
                   "format": "Bearer {secret}"}
        name = provider if tool is None else f"{provider}-{secret.secret_id}"
        made = ToolRow(acc.next("tool"), name, owner, f"https://{host}", host, [binding], acc.now())
        org.tools[made.tool_id] = made
    refresh_ladder(acc.model, team)


def control_secret(acc: Accounts, team: Team, provider: str, value: str) -> None:
    """Rung 2 for ``provider``: a secret tagged with it (a second call replaces the value)."""
    org = team.org
    found = next((s for s in org.secrets.values() if s.provider == provider), None)
    if found is not None:
        found.value = value
    else:
        owner = next(iter(org.members.values())).email if org.members else ""
        secret = SecretRow(acc.next("secret"), provider, owner, "env", value, acc.now(), provider=provider)
        org.secrets[secret.secret_id] = secret
    refresh_ladder(acc.model, team)
