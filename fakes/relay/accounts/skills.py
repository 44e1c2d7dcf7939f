"""Skills and their bundles (treg ``src/treg/api.py``: ``_register_skill_bundle`` 7632-7687,
``analyze_skill_folder`` 7741-7776, ``import_skill_folder`` 7779-7838, bundles 7850-7936; the
classifier ``src/treg/skills.py`` ``_classify`` 153-).

A skill is a recipe (its SKILL.md) with companion files, secrets and tools, registered at once as a
bundle. An uploaded folder (``/skills/analyze``, ``/skills/import``: ``{files: [{path, content}]}``)
is classified the simple way: each directory with a ``SKILL.md`` is a skill; with a ``treg.json``
naming a ``base_url`` it is a ``contract`` (its ``secrets`` read from their ``file`` in the folder or
their ``env`` variable in the folder's ``.env`` or the given ``env_values``; a source not found is a
gap), otherwise ``recipe_only``. Deviations: a binding naming a secret the skill does not declare,
or two secrets of one name, is 409 here (treg: 422).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from fakes.kernel.errors import ServiceError

from ..teams import Membership
from .identity import require_can_register
from .keys import can_manage, check_bindings, check_cli, public_base_url, secret_view, tool_view
from .ladder import refresh_ladder
from .orgdata import Bundle, SecretRow, ToolRow

if TYPE_CHECKING:
    from .identity import Accounts

_SECRET_DIR = re.compile(r"(^|/)\.secrets?(/|$)")
MAX_FILES, MAX_FILE, MAX_TOTAL = 600, 2 * 1024 * 1024, 20 * 1024 * 1024


def clean_files(files: dict[str, Any]) -> dict[str, str]:
    """Companion files minus traversal, SKILL.md (the recipe) and anything under a secret directory."""
    clean = {}
    for raw, content in (files or {}).items():
        path = str(raw).replace("\\", "/")
        if not path or path.startswith("/") or ".." in path.split("/") or path == "SKILL.md":
            continue
        if _SECRET_DIR.search(path) or not isinstance(content, str):
            continue
        clean[path] = content
    return clean


def bundle_view(member: Membership, bundle: Bundle) -> dict[str, Any]:
    org = member.team.org
    return {"id": bundle.bundle_id, "name": bundle.name, "owner": bundle.owner, "recipe": bundle.recipe,
            "files": bundle.files,
            "tools": [tool_view(t) for t in org.tools.values() if t.bundle_id == bundle.bundle_id],
            "secrets": [secret_view(s) for s in org.secrets.values() if s.bundle_id == bundle.bundle_id]}


def register(acc: Accounts, member: Membership, body: dict[str, Any]) -> dict[str, Any]:
    require_can_register(member)
    org = member.team.org
    if org.sandbox:
        raise ServiceError(403, "skill import is disabled in the sandbox", code="forbidden")
    names = [s["local_name"] for s in body.get("secrets", [])]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ServiceError(409, f"duplicate secret local_name(s): {dupes}", code="conflict")
    tool_names = [t["name"] for t in body.get("tools", [])]
    if any(org.tool_named(n) is not None for n in tool_names) or len(set(tool_names)) != len(tool_names):
        raise ServiceError(409, "a tool name in this skill already exists in this org", code="conflict")
    now = acc.now()
    staged_secrets: dict[str, SecretRow] = {}
    for number, spec in enumerate(body.get("secrets", [])):
        staged_secrets[spec["local_name"]] = SecretRow(-1 - number, spec["local_name"], member.email,
                                                       spec.get("kind", "env"), spec["value"], now)
    staged_tools = []
    for spec in body.get("tools", []):
        host = public_base_url(spec["base_url"])
        bindings = []
        for raw in spec.get("bindings", []):
            binding = dict(raw)
            local = binding.pop("secret", None)
            if local is not None:
                if local not in staged_secrets:
                    raise ServiceError(409, f"binding references unknown secret {local!r}", code="conflict")
                binding["secret_id"] = local
            bindings.append(binding)
        cli = dict(spec["cli"]) if spec.get("cli") else None
        if cli:
            cli["inject"] = [dict(e) for e in cli.get("inject") or []]
            for entry in cli["inject"]:
                local = entry.pop("secret", None)
                if local is not None:
                    if local not in staged_secrets:
                        raise ServiceError(409, f"cli.inject references unknown secret {local!r}", code="conflict")
                    entry["secret_id"] = local
            check_cli(cli)
        staged_tools.append((spec, host, bindings, cli))
    # every check passed: number and store everything at once
    bundle = Bundle(acc.next("bundle"), body["name"], member.email, body.get("recipe", ""),
                    clean_files(body.get("files", {})), now)
    org.bundles[bundle.bundle_id] = bundle
    ids: dict[str, int] = {}
    for local, secret in staged_secrets.items():
        secret.secret_id, secret.bundle_id = acc.next("secret"), bundle.bundle_id
        org.secrets[secret.secret_id] = secret
        ids[local] = secret.secret_id
    for spec, host, bindings, cli in staged_tools:
        for binding in [*bindings, *((cli or {}).get("inject") or [])]:
            if isinstance(binding.get("secret_id"), str):
                binding["secret_id"] = ids[binding["secret_id"]]
        try:
            check_bindings(member, bindings)
        except ServiceError:
            _undo(org, bundle)
            raise
        tool = ToolRow(acc.next("tool"), spec["name"], member.email, spec["base_url"], host, bindings, now,
                       health_check=spec.get("health_check"), examples=list(spec.get("examples") or []), cli=cli,
                       bundle_id=bundle.bundle_id)
        org.tools[tool.tool_id] = tool
    refresh_ladder(acc.model, member.team)
    return bundle_view(member, bundle)


def _undo(org: Any, bundle: Bundle) -> None:
    for secret_id in [k for k, s in org.secrets.items() if s.bundle_id == bundle.bundle_id]:
        del org.secrets[secret_id]
    for tool_id in [k for k, t in org.tools.items() if t.bundle_id == bundle.bundle_id]:
        del org.tools[tool_id]
    del org.bundles[bundle.bundle_id]


def _folders(files: list[dict[str, Any]]) -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """(skill directory -> its files by relative path, the .env's variables)."""
    if len(files) > MAX_FILES:  # treg _check_upload_size (api.py:7699-7706)
        raise ServiceError(413, f"too many files (max {MAX_FILES})", code="too_large")
    if sum(len(f.get("content", "").encode("utf-8", "ignore")) for f in files) > MAX_TOTAL:
        raise ServiceError(413, "upload too large (max 20 MB total)", code="too_large")
    by_path = {f["path"].replace("\\", "/").lstrip("/"): f.get("content", "") for f in files
               if len(f.get("content", "").encode("utf-8", "ignore")) <= MAX_FILE}  # bigger ones skipped (:7719)
    env = {}
    for path, content in by_path.items():
        if path.rsplit("/", 1)[-1] == ".env":
            for line in content.splitlines():
                name, sep, value = line.strip().removeprefix("export ").partition("=")
                if sep and name.strip() and not name.startswith("#"):
                    env[name.strip()] = value.strip().strip("'\"")
    skills: dict[str, dict[str, str]] = {}
    for path in by_path:
        if path.rsplit("/", 1)[-1] in ("SKILL.md", "skill.md") and ".." not in path.split("/"):
            root = path.rsplit("/", 1)[0] if "/" in path else ""
            prefix = f"{root}/" if root else ""
            skills[root or "skill"] = {p[len(prefix):]: c for p, c in by_path.items() if p.startswith(prefix)}
    return skills, env


def _classify(name: str, files: dict[str, str], env: dict[str, str]) -> dict[str, Any]:
    skill: dict[str, Any] = {"name": name.rsplit("/", 1)[-1], "kind": "recipe_only", "base_url": None,
                             "secrets": [], "gaps": [], "bindings": [], "cli": None, "files": files}
    raw = files.get("treg.json")
    if raw is None:
        return skill
    try:
        contract = json.loads(raw)
        if not isinstance(contract, dict):
            raise ValueError("not an object")
    except ValueError as exc:
        return {**skill, "kind": "skip", "gaps": [f"bad treg.json: {exc}"]}
    if not contract.get("base_url"):
        return skill
    skill.update(kind="contract", base_url=contract["base_url"], bindings=contract.get("bindings") or [],
                 cli=contract.get("cli"))
    for secret in contract.get("secrets") or []:
        if not isinstance(secret, dict) or not isinstance(secret.get("name"), str):
            continue
        source = "file" if isinstance(secret.get("file"), str) else "env" if isinstance(secret.get("env"), str) else ""
        if not source:
            skill["gaps"].append(f"secret {secret['name']!r} has neither a file nor an env source")
            continue
        ref = secret[source]
        present = (ref.lstrip("./") in files or ref in files) if source == "file" else ref in env
        skill["secrets"].append({"name": secret["name"], "source": source, "ref": ref, "present": present})
        if not present:
            skill["gaps"].append(f"needs {source} {ref} — not found")
    if not skill["bindings"] and not skill["cli"]:
        skill["gaps"].append("treg.json has no bindings (tool would have no auth)")
    return skill


def analyze(member: Membership, body: dict[str, Any]) -> dict[str, Any]:
    require_can_register(member)
    if member.team.org.sandbox:
        raise ServiceError(403, "skill import is disabled in the sandbox", code="forbidden")
    folders, env = _folders(body.get("files", []))
    existing = {b.name for b in member.team.org.bundles.values()}
    out = []
    for name, files in sorted(folders.items()):
        skill = _classify(name, files, env)
        out.append({"name": skill["name"], "kind": skill["kind"], "base_url": skill["base_url"],
                    "secrets": skill["secrets"], "gaps": skill["gaps"], "ready": not skill["gaps"],
                    "already": skill["name"] in existing, "cli": skill["cli"],
                    "recipe_chars": len(files.get("SKILL.md", files.get("skill.md", "")))})
    return {"skills": out}


def import_folder(acc: Accounts, member: Membership, body: dict[str, Any]) -> dict[str, Any]:
    """Register the selected (else every ready) skill of an uploaded folder; one result per skill,
    a failure of one never stops the others."""
    require_can_register(member)
    if member.team.org.sandbox:
        raise ServiceError(403, "skill import is disabled in the sandbox", code="forbidden")
    folders, env = _folders(body.get("files", []))
    env.update(body.get("env_values") or {})
    org = member.team.org
    results = []
    for name, files in sorted(folders.items()):
        skill = _classify(name, files, env)
        if body.get("select") and skill["name"] not in body["select"]:
            continue
        if skill["gaps"]:
            if not body.get("select"):
                continue
            results.append({"name": skill["name"], "ok": False, "error": "; ".join(skill["gaps"])})
            continue
        if org.bundle_named(skill["name"]) or org.tool_named(skill["name"]):
            results.append({"name": skill["name"], "ok": False, "skipped": True, "error": "already registered"})
            continue
        secrets = [{"local_name": s["name"], "value": (files.get(s["ref"].lstrip("./")) or files.get(s["ref"], "")
                                                        if s["source"] == "file" else env.get(s["ref"], "")).strip()}
                   for s in skill["secrets"]]
        payload = {"name": skill["name"], "recipe": files.get("SKILL.md", files.get("skill.md", "")),
                   "files": {p: c for p, c in files.items() if p not in ("SKILL.md", "skill.md")},
                   "secrets": secrets,
                   "tools": [] if skill["kind"] == "recipe_only" else [
                       {"name": skill["name"], "base_url": skill["base_url"], "bindings": skill["bindings"],
                        "cli": skill["cli"]}]}
        try:
            register(acc, member, payload)
            results.append({"name": skill["name"], "ok": True, "kind": skill["kind"]})
        except ServiceError as exc:
            results.append({"name": skill["name"], "ok": False, "error": exc.message})
    return {"results": results}


# -- bundles ---------------------------------------------------------------------------------------------
def allowed(member: Membership, bundle: Bundle) -> bool:
    if member.role == "owner" or member.tool_access is None:
        return True
    names = set(member.tool_access)
    return bundle.name in names or any(t.name in names for t in member.team.org.tools.values()
                                       if t.bundle_id == bundle.bundle_id)


def listing(member: Membership) -> list[dict[str, Any]]:
    return [{"id": b.bundle_id, "name": b.name, "owner": b.owner} for b in member.team.org.bundles.values()
            if allowed(member, b)]


def get(member: Membership, bundle: Bundle | None) -> dict[str, Any]:
    if bundle is None:
        raise ServiceError(404, "bundle not found", code="not_found")
    if not allowed(member, bundle):
        raise ServiceError(403, f"you don't have access to the skill {bundle.name!r} in this team — an admin can "
                                "grant it", code="forbidden")
    return bundle_view(member, bundle)


def update(member: Membership, bundle_id: int, recipe: str | None) -> dict[str, Any]:
    bundle = member.team.org.bundles.get(bundle_id)
    if bundle is None:
        raise ServiceError(404, "bundle not found", code="not_found")
    if not can_manage(member, bundle.owner):
        raise ServiceError(403, "only the creator or an admin can edit this recipe", code="forbidden")
    if recipe is not None:
        bundle.recipe = recipe
    return bundle_view(member, bundle)


def delete(acc: Accounts, member: Membership, bundle_id: int) -> dict[str, Any]:
    org = member.team.org
    bundle = org.bundles.get(bundle_id)
    if bundle is None:
        raise ServiceError(404, "bundle not found", code="not_found")
    if not can_manage(member, bundle.owner):
        raise ServiceError(403, "only the creator or an admin can delete this bundle", code="forbidden")
    mine = {s.secret_id for s in org.secrets.values() if s.bundle_id == bundle_id}
    outside = [t for t in org.tools.values() if t.bundle_id != bundle_id]
    used = {b.get("secret_id") for t in outside for b in t.bindings}
    used |= {e.get("secret_id") for t in outside for e in (t.cli or {}).get("inject") or []}
    if mine & used:
        raise ServiceError(409, "a bundle secret is referenced by a tool outside this bundle", code="conflict")
    _undo(org, bundle)
    refresh_ladder(acc.model, member.team)
    return {"deleted": bundle_id}
