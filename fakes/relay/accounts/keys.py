"""A team's credentials: secrets (values stored, never shown) and tools (an upstream base URL with
credential bindings), as treg keeps them (``src/treg/api.py``: ``create_secret`` 7065-7079,
``update_secret`` 7092-7126, ``delete_secret`` 7129-7149, ``create_tool`` 7291-7320,
``_validate_bindings`` 7198-7250, ``list_tools`` 7323-7329, ``delete_tool`` 7386-7398,
``grant_local_run`` 7464-7558, ``report_local_run`` 7561-7600).

The credential ladder reads them: a team tool on a provider's host is rung 1 (``own_tool``), a
secret tagged with the provider or named exactly like it is rung 2 (``secret``; treg
``_marketplace_secret`` 9594-9606). :func:`refresh_ladder` keeps the team's lookup tables in step
after every change, so a repeated call still answers from its plan.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from fakes.kernel.errors import ServiceError

from ..teams import RESOLVE
from .identity import require_can_register
from .orgdata import Activity, SecretRow, ToolRow
from .people import Membership, role_at_least

if TYPE_CHECKING:
    from ..model import RelayModel
    from ..teams import Team
    from .identity import Accounts

INJECTORS = ("env", "cli_auth", "secret_file", "oauth")  # treg injectors.py
AUTH_MECHANISMS = ("env", "argv", "config_file", "device")
VERDICTS = ("ok", "credential_invalid", "unknown_error")  # treg localrun.py
_SECRET_ARG = re.compile(r"\b(?:sk|pk|rk|ghp|gho|ghs|glpat|AKIA|AIza|xox[baprs])[A-Za-z0-9_\-]{6,}\b"
                         r"|\b[A-Za-z0-9_\-]{24,}\b")


def secret_view(secret: SecretRow) -> dict[str, Any]:
    return {"id": secret.secret_id, "name": secret.name, "kind": secret.kind, "owner": secret.owner,
            "bundle_id": secret.bundle_id}


def tool_view(tool: ToolRow) -> dict[str, Any]:
    cli = tool.cli
    return {"id": tool.tool_id, "name": tool.name, "owner": tool.owner, "base_url": tool.base_url, "host": tool.host,
            "bindings": tool.bindings, "health_check": tool.health_check, "examples": tool.examples, "cli": cli,
            "server_runnable": bool(cli) and (cli or {}).get("auth_mechanism", "env") in ("env", "argv"),
            "project_id": tool.project_id, "bundle_id": tool.bundle_id}


# -- access (treg _tool_allowed / _project_allowed / _can_manage) ------------------------------------
def tool_usable(member: Membership, tool: ToolRow) -> bool:
    if member.role == "owner":
        return True
    tools_ok = member.tool_access is None or tool.name in member.tool_access
    projects_ok = member.project_access is None or tool.project_id is None or tool.project_id in member.project_access
    return tools_ok and projects_ok


def require_tool_use(member: Membership, tool: ToolRow) -> None:
    if member.role != "owner" and member.tool_access is not None and tool.name not in member.tool_access:
        raise ServiceError(403, f"you don't have access to the tool {tool.name!r} in this team — an admin can "
                                "grant it (dashboard → Team, or `treg org access <you> --tools …`)", code="forbidden")
    if not tool_usable(member, tool):
        raise ServiceError(403, f"the tool {tool.name!r} belongs to a project you're not scoped to — an admin can "
                                "grant it", code="forbidden")


def can_manage(member: Membership, owner: str) -> bool:
    return role_at_least(member.role, "admin") or owner == member.email


def visible_secret_ids(member: Membership) -> set[int] | None:
    """treg ``_visible_secret_ids``: a tool-restricted member sees only the keys of their tools."""
    if member.role == "owner" or member.tool_access is None:
        return None
    ids: set[int] = set()
    for tool in member.team.org.tools.values():
        if tool_usable(member, tool):
            ids |= {b["secret_id"] for b in tool.bindings if isinstance(b.get("secret_id"), int)}
            ids |= {e["secret_id"] for e in (tool.cli or {}).get("inject") or [] if isinstance(e.get("secret_id"), int)}
    return ids


# -- secrets ---------------------------------------------------------------------------------------------
def create_secret(acc: Accounts, member: Membership, body: dict[str, Any]) -> dict[str, Any]:
    org = member.team.org
    bundle_id = body.get("bundle_id")
    if bundle_id is not None and bundle_id not in org.bundles:
        raise ServiceError(404, f"bundle_id {bundle_id} not found in this org", code="not_found")
    secret = SecretRow(acc.next("secret"), body["name"], member.email, body.get("kind", "env"), body["value"],
                       acc.now(), bundle_id=bundle_id)
    org.secrets[secret.secret_id] = secret
    refresh_ladder(acc.model, member.team)
    return secret_view(secret)


def list_secrets(member: Membership) -> list[dict[str, Any]]:
    visible = visible_secret_ids(member)
    return [secret_view(s) for s in member.team.org.secrets.values() if visible is None or s.secret_id in visible]


def owned_secret(member: Membership, secret_id: int, verb: str) -> SecretRow:
    secret = member.team.org.secrets.get(secret_id)
    if secret is None:
        raise ServiceError(404, "secret not found", code="not_found")
    if not can_manage(member, secret.owner):
        raise ServiceError(403, f"only the creator or an admin can {verb} this secret", code="forbidden")
    return secret


def update_secret(acc: Accounts, member: Membership, secret_id: int, fields: dict[str, Any]) -> dict[str, Any]:
    secret = owned_secret(member, secret_id, "edit")
    for name in ("name", "value", "kind"):
        if name in fields and fields[name] is None:
            raise ServiceError(422, f"{name} cannot be null", code="validation_error")
    if "kind" in fields and fields["kind"] != secret.kind:
        if fields["kind"] in ("oauth", "secret_file") and not _is_json_object(fields.get("value", secret.value)):
            raise ServiceError(422, f"kind {fields['kind']!r} needs a JSON value", code="validation_error")
        secret.health_status, secret.health_detail, secret.health_checked_ms = "unknown", "", None
    if "value" in fields:  # a rotation invalidates the last health verdict
        secret.health_status, secret.health_detail, secret.health_checked_ms = "unknown", "", None
    for name in ("name", "value", "kind"):
        if name in fields:
            setattr(secret, name, fields[name])
    refresh_ladder(acc.model, member.team)
    return secret_view(secret)


def delete_secret(acc: Accounts, member: Membership, secret_id: int) -> dict[str, Any]:
    secret = owned_secret(member, secret_id, "delete")
    tools = member.team.org.tools.values()
    if any(b.get("secret_id") == secret_id for t in tools for b in t.bindings):
        raise ServiceError(409, "secret is referenced by a tool binding", code="conflict")
    if any(e.get("secret_id") == secret_id for t in tools for e in (t.cli or {}).get("inject") or []):
        raise ServiceError(409, "secret is referenced by a tool's local-run (cli) profile", code="conflict")
    del member.team.org.secrets[secret.secret_id]
    refresh_ladder(acc.model, member.team)
    return {"deleted": secret_id}


def _is_json_object(text: str) -> bool:
    import json

    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


# -- tools -------------------------------------------------------------------------------------------------
def public_base_url(base_url: str) -> str:
    """The host of a tool's base URL, refused (422) when the relay must not reach it (treg
    ``_require_public_base_url``: loopback, private, link-local, ``.local``/``.internal``)."""
    try:
        parts = urlsplit(base_url)
        host = (parts.hostname or "").lower()
    except ValueError:
        raise ServiceError(403, "base_url is not a URL the relay can reach", code="not_allowed") from None
    refused = parts.scheme not in ("http", "https") or not host or host == "localhost" or host.endswith(
        (".local", ".internal"))
    if not refused:
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            try:
                address = ipaddress.ip_address(socket.inet_aton(host))  # 127.1, 0x7f000001: parsed, no lookup
            except (OSError, ValueError, UnicodeError):
                address = None
        refused = address is not None and (address.is_loopback or address.is_private or address.is_link_local
                                           or address.is_reserved or address.is_multicast)
    if refused:
        raise ServiceError(403, "base_url must be a public http(s) address — loopback, private, link-local, and "
                                "cloud-metadata hosts are refused", code="not_allowed")
    return parts.netloc.lower()


def check_bindings(member: Membership, bindings: list[dict[str, Any]], keep: frozenset[int] = frozenset()) -> None:
    """treg ``_validate_bindings``: known injector, ``{secret}``-only format, a secret of this team the
    caller owns (or an admin), and no two bindings writing the same header or query name."""
    org = member.team.org
    for binding in bindings:
        if binding.get("platform_setting"):
            raise ServiceError(403, "a binding may not name a platform_setting — the relay's own credentials are "
                                    "server-managed", code="not_allowed")
        if binding.get("injector", "env") not in INJECTORS:
            raise ServiceError(422, f"unknown injector {binding.get('injector')!r}", code="validation_error")
        fmt = binding.get("format", "{secret}")
        try:
            if not isinstance(fmt, str):
                raise ValueError(fmt)
            fmt.format(secret="x")
        except (KeyError, IndexError, ValueError):
            raise ServiceError(403, f"invalid binding format {fmt!r} — use only {{secret}}",
                               code="not_allowed") from None
        for key in ("name", "secret_field"):
            if key in binding and not (isinstance(binding[key], str) and binding[key]):
                raise ServiceError(422, f"binding {key} must be a non-empty string", code="validation_error")
        if binding.get("location", "header") not in ("header", "query"):
            raise ServiceError(422, "binding location must be 'header' or 'query'", code="validation_error")
        secret_id = binding.get("secret_id")
        secret = org.secrets.get(secret_id) if isinstance(secret_id, int) and not isinstance(secret_id, bool) else None
        if secret is None:
            raise ServiceError(404, f"binding secret_id {secret_id} not found", code="not_found")
        if secret_id not in keep and not (secret.owner == member.email or role_at_least(member.role, "admin")):
            raise ServiceError(403, f"you can only bind a secret you own — secret {secret_id} belongs to another "
                                    "member (ask an org admin to wire up a shared-key tool)", code="forbidden")
    for location in ("query", "header"):
        names = [str(b.get("name", "Authorization")).lower() if location == "header" else b.get("name", "Authorization")
                 for b in bindings if b.get("location", "header") == location]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ServiceError(409, f"duplicate {location} binding name(s): {dupes}", code="conflict")


def check_cli(cli: Any) -> None:
    """A local-run profile's shape (treg localrun ``validate_cli_profile``), 422 when malformed."""
    if cli is None:
        return
    problem = ""
    if not isinstance(cli, dict):
        problem = "cli must be an object"
    elif any(k in cli and not isinstance(cli[k], bool) for k in ("enabled", "deny_defaults", "beta")):
        problem = "cli.enabled, cli.deny_defaults and cli.beta must be booleans"
    elif "auth_mechanism" in cli and cli["auth_mechanism"] not in AUTH_MECHANISMS:
        problem = f"cli.auth_mechanism must be one of {AUTH_MECHANISMS}"
    elif not isinstance(cli.get("inject", []), list) or not all(
            isinstance(e, dict) and e.get("via", "env") in ("env", "argv") for e in cli.get("inject", [])):
        problem = "cli.inject must be a list of {via: env|argv, name, secret|secret_id}"
    elif not isinstance(cli.get("deny", []), list) or not all(isinstance(p, str) for p in cli.get("deny", [])):
        problem = "cli.deny must be a list of patterns"
    else:
        for pattern in cli.get("deny", []):
            try:
                re.compile(pattern)
            except re.error:
                problem = f"cli.deny pattern {pattern!r} is not a valid regular expression"
    if problem:
        raise ServiceError(403, problem, code="not_allowed")


def resolve_project(member: Membership, ref: Any) -> int | None:
    """A project by slug or id in this team (404 otherwise); None or "" = team-wide."""
    if ref is None or ref == "":
        return None
    found = member.team.org.project_ref(ref)
    if found is None:
        raise ServiceError(404, f"no project {ref!r} in this team", code="not_found")
    return found


def create_tool(acc: Accounts, member: Membership, body: dict[str, Any]) -> dict[str, Any]:
    org = member.team.org
    if body.get("bindings") is not None:
        bindings = [dict(b) for b in body["bindings"]]
    elif body.get("secret_id") is not None:
        bindings = [{"secret_id": body["secret_id"], "injector": body.get("injector", "env"),
                     "location": body.get("auth_in", "header"), "name": body.get("auth_name", "Authorization"),
                     "format": body.get("auth_format", "Bearer {secret}"),
                     "secret_field": body.get("secret_field", "access_token")}]
    else:
        bindings = []  # a public upstream needing no credential
    host = public_base_url(body["base_url"])
    check_bindings(member, bindings)
    if body.get("bundle_id") is not None and body["bundle_id"] not in org.bundles:
        raise ServiceError(404, f"bundle_id {body['bundle_id']} not found in this org", code="not_found")
    check_cli(body.get("cli"))
    project_id = resolve_project(member, body.get("project"))
    if org.tool_named(body["name"]) is not None:
        raise ServiceError(409, f"tool name {body['name']!r} already exists in this org", code="conflict")
    tool = ToolRow(acc.next("tool"), body["name"], member.email, body["base_url"], host, bindings, acc.now(),
                   health_check=body.get("health_check"), examples=list(body.get("examples") or []),
                   cli=body.get("cli"), bundle_id=body.get("bundle_id"), project_id=project_id)
    org.tools[tool.tool_id] = tool
    refresh_ladder(acc.model, member.team)
    return tool_view(tool)


def list_tools(member: Membership) -> list[dict[str, Any]]:
    return [tool_view(t) for t in member.team.org.tools.values() if tool_usable(member, t)]


def tool_by_name(member: Membership, name: str) -> dict[str, Any]:
    tool = member.team.org.tool_named(name)
    if tool is None:
        raise ServiceError(404, "tool not found", code="not_found")
    require_tool_use(member, tool)
    return tool_view(tool)


def update_tool(acc: Accounts, member: Membership, tool_id: int, fields: dict[str, Any]) -> dict[str, Any]:
    tool = member.team.org.tools.get(tool_id)
    if tool is None:
        raise ServiceError(404, "tool not found", code="not_found")
    if not can_manage(member, tool.owner):
        raise ServiceError(403, "only the creator or an admin can edit this tool", code="forbidden")
    keep = frozenset(b["secret_id"] for b in tool.bindings if isinstance(b.get("secret_id"), int))
    host = public_base_url(fields["base_url"]) if fields.get("base_url") is not None else tool.host
    if fields.get("bindings") is not None:
        check_bindings(member, fields["bindings"], keep)
    if "cli" in fields:
        check_cli(fields["cli"])
    project_id = resolve_project(member, fields["project"]) if "project" in fields else tool.project_id
    if fields.get("base_url") is not None:
        tool.base_url, tool.host = fields["base_url"], host
    if fields.get("bindings") is not None:
        tool.bindings = [dict(b) for b in fields["bindings"]]
    for name in ("health_check", "examples", "cli"):
        if name in fields and (fields[name] is not None or name == "cli"):
            setattr(tool, name, fields[name] if name != "examples" else list(fields[name]))
    tool.project_id = project_id
    refresh_ladder(acc.model, member.team)
    return tool_view(tool)


def delete_tool(acc: Accounts, member: Membership, tool_id: int) -> dict[str, Any]:
    tool = member.team.org.tools.get(tool_id)
    if tool is None:
        raise ServiceError(404, "tool not found", code="not_found")
    if not can_manage(member, tool.owner):
        raise ServiceError(403, "only the creator or an admin can delete this tool", code="forbidden")
    del member.team.org.tools[tool_id]
    refresh_ladder(acc.model, member.team)
    return {"deleted": tool_id}


# -- local runs --------------------------------------------------------------------------------------------
def redact_argv(argv: list[str]) -> list[str]:
    """Credentials typed inline are masked before the argv is kept (treg ``_redact_argv_list``)."""
    out, mask_next = [], False
    for arg in argv:
        if mask_next:
            out.append("***")
            mask_next = False
            continue
        if re.fullmatch(r"--?(token|password|passwd|pass|pwd|api[-_]?key|secret|auth|bearer|credential)s?", arg, re.I):
            out.append(arg)
            mask_next = True
            continue
        arg = re.sub(r"(--?(token|password|api[-_]?key|secret|auth|credential)s?)=\S+", r"\1=***", arg, flags=re.I)
        out.append(_SECRET_ARG.sub("***", arg))
    return out


def grant(acc: Accounts, member: Membership, name: str, argv: list[str], client: str,
          check_cap: Any) -> dict[str, Any]:
    """treg ``grant_local_run``: the process material for one local run of a tool's CLI (the
    secret values its profile injects), audited; refused by the tool ACL, the member's local-run
    switch, the daily cap, or the profile's deny patterns (403, audited as a refusal)."""
    require_can_register(member)
    org = member.team.org
    tool = org.tool_named(name)
    if tool is None:
        raise ServiceError(404, "tool not found", code="not_found")
    require_tool_use(member, tool)
    if member.role != "owner" and not member.local_run_enabled:
        raise ServiceError(403, "local execution is disabled for you — run on the server instead (`treg run "
                                "--server`), or ask an admin to enable local runs for your account", code="forbidden")
    check_cap(member)
    profile = tool.cli
    if not profile:
        raise ServiceError(409, f"the relay doesn't know how to inject credentials into {tool.name!r}. Add a \"cli\" "
                                "block to the skill's treg.json", code="conflict")
    if not profile.get("enabled"):
        raise ServiceError(403, f"local runs are disabled for {tool.name!r} — an owner/admin can enable them: treg "
                                f"tool update {tool.name} --local-run on", code="forbidden")
    joined = " ".join(argv)
    for pattern in profile.get("deny") or []:
        if re.search(pattern, joined):
            _audit(acc, member, tool.name, "DENY", " ".join(redact_argv(argv)), 403, client)
            raise ServiceError(403, f"denied by the skill: pattern {pattern!r}. The skill's creator controls this "
                                    "list (cli.deny in treg.json).", code="forbidden")
    items = []
    bound = [b["secret_id"] for b in tool.bindings if isinstance(b.get("secret_id"), int)]
    for entry in profile.get("inject") or []:
        secret_id = entry.get("secret_id") if isinstance(entry.get("secret_id"), int) else (bound[0] if bound else None)
        secret = org.secrets.get(secret_id) if secret_id is not None else None
        if secret is None:
            raise ServiceError(409, f"{tool.name}: a secret the cli profile injects is missing", code="conflict")
        items.append({"via": entry.get("via", "env"), "name": entry.get("name", ""), "value": secret.value})
    audit_id = _audit(acc, member, tool.name, "GRANT", " ".join(redact_argv(argv)), 200, client)
    return {"bin": profile.get("bin", tool.name), "inject": items, "ttl_seconds": None,
            "install": profile.get("install"), "noninteractive": profile.get("noninteractive") or [],
            "warnings": list(profile.get("warnings") or []), "errors": profile.get("errors") or [],
            "redact_output": False, "audit_id": audit_id}


def run_report(acc: Accounts, member: Membership, name: str, body: dict[str, Any]) -> dict[str, Any]:
    require_can_register(member)
    if body["verdict"] not in VERDICTS:
        raise ServiceError(422, f"verdict must be one of {VERDICTS}", code="validation_error")
    org = member.team.org
    granted = next((a for a in org.activity if a.activity_id == body["audit_id"]), None)
    if granted is None or granted.method != "GRANT" or granted.tool != name or granted.email != member.email:
        raise ServiceError(404, "no matching grant for that audit_id", code="not_found")
    tool = org.tool_named(name)
    if tool is None:
        raise ServiceError(404, "tool not found", code="not_found")
    marked = []
    if body["verdict"] == "credential_invalid":
        bound = [b["secret_id"] for b in tool.bindings if isinstance(b.get("secret_id"), int)]
        injected = (tool.cli or {}).get("inject") or []
        for secret_id in {e.get("secret_id", bound[0] if bound else None) for e in injected}:
            secret = org.secrets.get(secret_id) if isinstance(secret_id, int) else None
            if secret is not None and secret.kind != "param":
                secret.health_status = "invalid"
                secret.health_detail = f"local run of {tool.name} reported an auth failure (exit {body['exit_code']})"
                secret.health_checked_ms = acc.now()
                marked.append(secret.name)
    _audit(acc, member, tool.name, "REPORT", f"exit={body['exit_code']} verdict={body['verdict']}", 200, "")
    return {"ok": True, "marked_invalid": marked}


def _audit(acc: Accounts, member: Membership, tool: str, method: str, detail: str, status: int, client: str) -> int:
    number = acc.next("activity")
    member.team.org.add_activity(Activity(number, "local_run", member.email, tool, method, detail[:500], status,
                                          acc.now(), client))
    return number


# -- the ladder ----------------------------------------------------------------------------------------------
def refresh_ladder(model: RelayModel, team: Team) -> None:
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
