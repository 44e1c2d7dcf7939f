"""Routes of a team's credentials: ``/secrets``, ``/tools`` (local-run grants and reports),
``/skills``, ``/bundles``, provider connections (``/oauth/*``, ``/connections/*``), and the
provider table ``treg upload`` matches keys against (``/providers.json``)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from fakes.kernel.http import JSONBytesResponse, base_url

from . import connections, keys, localrun, schemas, skills
from .http import accounts_of, client_of, member, model_of, ok, path_int, read_body
from .identity import require_can_register
from .routes_auth import page


async def secrets(request: Request) -> Response:
    caller = member(request)
    if request.method == "GET":
        return ok(keys.list_secrets(caller))
    body = await read_body(request, schemas.SECRET)
    require_can_register(caller)
    return ok(keys.create_secret(accounts_of(request), caller, body))


async def secret(request: Request) -> Response:
    caller, secret_id = member(request), path_int(request, "secret_id")
    if request.method == "DELETE":
        return ok(keys.delete_secret(accounts_of(request), caller, secret_id))
    body = await read_body(request, schemas.SECRET_UPDATE)
    return ok(keys.update_secret(accounts_of(request), caller, secret_id, body))


async def tools(request: Request) -> Response:
    caller = member(request)
    if request.method == "GET":
        return ok(keys.list_tools(caller))
    body = await read_body(request, schemas.TOOL)
    require_can_register(caller)
    return ok(keys.create_tool(accounts_of(request), caller, body))


async def tool_by_name(request: Request) -> Response:
    return ok(keys.tool_by_name(member(request), request.path_params["name"]))


async def tool(request: Request) -> Response:
    caller, tool_id = member(request), path_int(request, "tool_id")
    if request.method == "DELETE":
        return ok(keys.delete_tool(accounts_of(request), caller, tool_id))
    body = await read_body(request, schemas.TOOL_UPDATE)
    return ok(keys.update_tool(accounts_of(request), caller, tool_id, body))


async def grant(request: Request) -> Response:
    caller = member(request)
    body = await read_body(request, schemas.GRANT, optional=True)
    acc = accounts_of(request)
    from .. import callguard

    def check_guards(member: Any, tool: Any) -> None:
        callguard.check_deny(member, tool.host, "", "", tool.project_id)
        callguard.check_member_cap(acc.model, member, acc.now())

    return ok(localrun.grant(acc, caller, request.path_params["name"], list(body.get("argv", [])), client_of(request),
                             check_guards))


async def run_report(request: Request) -> Response:
    caller = member(request)
    body = await read_body(request, schemas.RUN_REPORT)
    return ok(localrun.run_report(accounts_of(request), caller, request.path_params["name"], body))


async def register_skill(request: Request) -> Response:
    caller = member(request)
    body = await read_body(request, schemas.SKILL)
    return ok(skills.register(accounts_of(request), caller, body))


async def analyze(request: Request) -> Response:
    caller = member(request)
    return ok(skills.analyze(caller, await read_body(request, schemas.SKILL_ANALYZE)))


async def import_skills(request: Request) -> Response:
    caller = member(request)
    return ok(skills.import_folder(accounts_of(request), caller, await read_body(request, schemas.SKILL_IMPORT)))


async def bundles(request: Request) -> Response:
    return ok(skills.listing(member(request)))


async def bundle_by_name(request: Request) -> Response:
    caller = member(request)
    return ok(skills.get(caller, caller.team.org.bundle_named(request.path_params["name"])))


async def bundle(request: Request) -> Response:
    caller, bundle_id = member(request), path_int(request, "bundle_id")
    if request.method == "GET":
        return ok(skills.get(caller, caller.team.org.bundles.get(bundle_id)))
    if request.method == "DELETE":
        return ok(skills.delete(accounts_of(request), caller, bundle_id))
    body = await read_body(request, schemas.BUNDLE_UPDATE)
    return ok(skills.update(caller, bundle_id, body.get("recipe")))


# -- connections -----------------------------------------------------------------------------------------
async def oauth_providers(request: Request) -> Response:
    accounts = accounts_of(request)  # a function of the catalogue's providers: kept until it changes
    return JSONBytesResponse(model_of(request).rendered(("oauth-providers",), lambda: connections.listing(accounts)))


async def oauth_start(request: Request) -> Response:
    caller = member(request)
    body = await read_body(request, schemas.OAUTH_START)
    return ok(connections.start(accounts_of(request), caller, body, f"{base_url(request)}/oauth/callback"))


async def oauth_callback(request: Request) -> Response:
    query = request.query_params
    status, headline, sub = connections.callback(accounts_of(request), query.get("state", ""), query.get("code", ""),
                                                 query.get("error", ""))
    return page(headline, sub, status=status)


async def oauth_status(request: Request) -> Response:
    return ok(connections.status(accounts_of(request), member(request), request.path_params["state"]))


async def list_connections(request: Request) -> Response:
    return ok(connections.connections(accounts_of(request), member(request)))


async def resources(request: Request) -> Response:
    caller, secret_id = member(request), path_int(request, "secret_id")
    return ok(connections.resources(accounts_of(request), caller, secret_id))


async def resource(request: Request) -> Response:
    caller, secret_id = member(request), path_int(request, "secret_id")
    body = await read_body(request, schemas.RESOURCE)
    return ok(connections.set_resource(accounts_of(request), caller, secret_id, body["resource_ref"],
                                       body.get("resource_name", "")))


async def connect_token(request: Request) -> Response:
    caller = member(request)
    body = await read_body(request, schemas.TOKEN_CONNECT)
    return ok(connections.connect_token(accounts_of(request), caller, body["provider"], body["token"]))


async def extra_credential(request: Request) -> Response:
    caller, secret_id = member(request), path_int(request, "secret_id")
    body = await read_body(request, schemas.EXTRA_CREDENTIAL)
    return ok(connections.extra_credential(accounts_of(request), caller, secret_id, body["value"]))


async def revoke_connection(request: Request) -> Response:
    caller, secret_id = member(request), path_int(request, "secret_id")
    return ok(connections.revoke(accounts_of(request), caller, secret_id))


async def providers_json(request: Request) -> Response:
    """The table ``treg upload`` matches a project's environment variables against: each catalogue
    provider by the words of its name, with its base URL and how its key is sent."""
    model = model_of(request)

    def table() -> dict[str, Any]:
        rows = [{"provider": p["display_name"], "tokens": [p["service"].upper().replace("-", "_")],
                 "base_url": f"https://{p['host']}", "auth": {"shape": "bearer"}}
                for p in model.all_providers() if not p.get("runs_on_relay")]
        return {"version": 10_000, "providers": rows}

    return JSONBytesResponse(model.rendered(("providers.json",), table))  # kept until the catalogue changes


ROUTES: list[BaseRoute] = [
    Route("/secrets", secrets, methods=["GET", "POST"]),
    Route("/secrets/{secret_id}", secret, methods=["PATCH", "DELETE"]),
    Route("/tools", tools, methods=["GET", "POST"]),
    Route("/tools/by-name/{name}", tool_by_name, methods=["GET"]),
    Route("/tools/{name}/grant", grant, methods=["POST"]),
    Route("/tools/{name}/run-report", run_report, methods=["POST"]),
    Route("/tools/{tool_id}", tool, methods=["PATCH", "DELETE"]),
    Route("/skills", register_skill, methods=["POST"]),
    Route("/skills/analyze", analyze, methods=["POST"]),
    Route("/skills/import", import_skills, methods=["POST"]),
    Route("/bundles", bundles, methods=["GET"]),
    Route("/bundles/by-name/{name}", bundle_by_name, methods=["GET"]),
    Route("/bundles/{bundle_id}", bundle, methods=["GET", "PATCH", "DELETE"]),
    Route("/oauth/providers", oauth_providers, methods=["GET"]),
    Route("/oauth/start", oauth_start, methods=["POST"]),
    Route("/oauth/callback", oauth_callback, methods=["GET"]),
    Route("/oauth/status/{state}", oauth_status, methods=["GET"]),
    Route("/connections", list_connections, methods=["GET"]),
    Route("/connections/token", connect_token, methods=["POST"]),
    Route("/connections/{secret_id}/resources", resources, methods=["GET"]),
    Route("/connections/{secret_id}/resource", resource, methods=["POST"]),
    Route("/connections/{secret_id}/extra-credential", extra_credential, methods=["POST"]),
    Route("/connections/{secret_id}", revoke_connection, methods=["DELETE"]),
    Route("/providers.json", providers_json, methods=["GET"]),
]
