"""A team's credentials: secrets (values stored, never shown) and tools (an upstream base URL with
credential bindings), as treg keeps them (``src/treg/api.py``: ``create_secret`` 7065-7079,
``update_secret`` 7092-7126, ``delete_secret`` 7129-7149, ``create_tool`` 7291-7320,
``_validate_bindings`` 7198-7250, ``list_tools`` 7323-7329, ``delete_tool`` 7386-7398).

The credential ladder reads them (:mod:`.ladder`); their local runs are in :mod:`.localrun`.
"""

from __future__ import annotations

import ipaddress
import json
import socket
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from fakes.kernel.errors import ServiceError
from fakes.kernel.saferegex import UnsafeRegex, compile_guarded

from ..teams import Membership
from .ladder import refresh_ladder
from .orgdata import SecretRow, ToolRow
from .people import role_at_least

if TYPE_CHECKING:
    from .identity import Accounts

INJECTORS = ("env", "cli_auth", "secret_file", "oauth")  # treg injectors.py
AUTH_MECHANISMS = ("env", "argv", "config_file", "device")


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
                compile_guarded(pattern)
            except UnsafeRegex as exc:  # invalid, or one whose matching could hold the server
                problem = f"cli.deny pattern {pattern!r} {exc}"
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
