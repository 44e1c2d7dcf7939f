"""Local runs of a team tool's CLI, as treg grants and audits them (``src/treg/api.py``:
``grant_local_run`` 7464-7558, ``report_local_run`` 7561-7600): the process material for one run
(the secret values its profile injects), refused by the tool's access list, the member's local-run
switch, the daily cap or the profile's deny patterns, and the run's report (an auth failure marks
the secrets it injected invalid)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from fakes.kernel.errors import ServiceError
from fakes.kernel.saferegex import compile_guarded

from .identity import require_can_register
from .keys import require_tool_use
from .orgdata import Activity

if TYPE_CHECKING:
    from ..teams import Membership
    from .identity import Accounts

VERDICTS = ("ok", "credential_invalid", "unknown_error")  # treg localrun.py
_SECRET_ARG = re.compile(r"\b(?:sk|pk|rk|ghp|gho|ghs|glpat|AKIA|AIza|xox[baprs])[A-Za-z0-9_\-]{6,}\b"
                         r"|\b[A-Za-z0-9_\-]{24,}\b")


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
          check_guards: Any) -> dict[str, Any]:
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
    check_guards(member, tool)  # treg: the team's deny rules on the tool's host, then the daily cap
    profile = tool.cli
    if not profile:
        raise ServiceError(409, f"the relay doesn't know how to inject credentials into {tool.name!r}. Add a \"cli\" "
                                "block to the skill's treg.json", code="conflict")
    if not profile.get("enabled"):
        raise ServiceError(403, f"local runs are disabled for {tool.name!r} — an owner/admin can enable them: treg "
                                f"tool update {tool.name} --local-run on", code="forbidden")
    joined = " ".join(argv)
    for pattern in profile.get("deny") or []:
        if compile_guarded(pattern).search(joined):  # no exponential shapes: checked on upload and import
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
