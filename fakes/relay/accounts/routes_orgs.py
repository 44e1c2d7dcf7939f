"""Routes of teams: ``/orgs`` and everything under ``/orgs/{org_id}`` (members, agents, invites,
projects, pins, deny rules, budgets, usage, balance, settings), ``/invites/*``, ``/usage/me``,
``/agents/checkin``. Thin: the caller, the body, the model's answer."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from fakes.kernel.errors import ServiceError

from . import invites, members, orgs, policy, schemas
from .http import (
    accounts_of,
    client_of,
    credentials,
    identity,
    invalid,
    member,
    model_of,
    ok,
    path_int,
    query_int,
    read_body,
)


def _org(request: Request) -> int:
    return path_int(request, "org_id")


async def create_org(request: Request) -> Response:
    user = identity(request)
    body = await read_body(request, schemas.ORG)
    acc = accounts_of(request)
    answer = orgs.create(acc, user, body["name"])
    from . import billing

    billing.redeem_referral(acc, user, acc.model.teams[f"team_{answer['org_id']}"],
                            request.cookies.get(f"{model_of(request).settings.relay_name}_ref"))
    return ok(answer)


async def list_orgs(request: Request) -> Response:
    user = identity(request)
    token, _, org = credentials(request)
    acc = accounts_of(request)
    return ok(orgs.rows(acc, user, orgs.current_team(acc, token, org)))


async def delete_org(request: Request) -> Response:
    caller, org_id = member(request), _org(request)
    confirm = request.query_params.get("confirm")
    if not confirm:
        raise invalid(["query", "confirm"], "Field required", "missing")
    return ok(orgs.delete(accounts_of(request), caller, org_id, confirm))


async def leave(request: Request) -> Response:
    caller = member(request)
    return ok(orgs.leave(accounts_of(request), caller, _org(request)))


async def settings(request: Request) -> Response:
    caller, org_id = member(request), _org(request)
    if request.method == "GET":
        return ok(orgs.settings_view(accounts_of(request), caller, org_id))
    body = await read_body(request, schemas.ORG_SETTINGS)
    return ok(orgs.set_settings(accounts_of(request), caller, org_id, body))


async def public_token(request: Request) -> Response:
    caller = member(request)
    return ok(orgs.public_token(accounts_of(request), caller, _org(request), request.method == "POST"))


async def balance(request: Request) -> Response:
    caller, org_id = member(request), _org(request)
    limit, offset = query_int(request, "limit", 20), query_int(request, "offset", 0)
    assert limit is not None and offset is not None
    return ok(orgs.balance(accounts_of(request), caller, org_id, limit, offset))


async def usage(request: Request) -> Response:
    caller, org_id = member(request), _org(request)
    days = query_int(request, "days", 30)
    assert days is not None
    return ok(orgs.usage(accounts_of(request), caller, org_id, days))


async def tag_keys(request: Request) -> Response:
    return ok(orgs.tag_keys(member(request), _org(request)))


async def usage_by_tag(request: Request) -> Response:
    caller, org_id = member(request), _org(request)
    days = query_int(request, "days", 30)
    assert days is not None
    return ok(orgs.usage_by_tag(accounts_of(request), caller, org_id, request.query_params.get("key"), days))


async def my_usage(request: Request) -> Response:
    return ok(orgs.my_usage(accounts_of(request), member(request)))


# -- members and agents ----------------------------------------------------------------------------------
async def list_members(request: Request) -> Response:
    return ok(members.listing(accounts_of(request), member(request), _org(request)))


async def member_cap(request: Request) -> Response:
    caller, org_id, user_id = member(request), _org(request), path_int(request, "user_id")
    body = await read_body(request, schemas.CAP)
    return ok(members.set_cap(caller, org_id, user_id, body["daily_call_cap"]))


async def member_access(request: Request) -> Response:
    caller, org_id, user_id = member(request), _org(request), path_int(request, "user_id")
    body = await read_body(request, schemas.ACCESS)
    return ok(members.set_access(caller, org_id, user_id, body))


async def member_one(request: Request) -> Response:
    caller, org_id, user_id = member(request), _org(request), path_int(request, "user_id")
    if request.method == "DELETE":
        return ok(members.remove(accounts_of(request), caller, org_id, user_id))
    body = await read_body(request, schemas.ROLE_IN)
    return ok(members.set_role(caller, org_id, user_id, body["role"]))


async def agents(request: Request) -> Response:
    caller, org_id = member(request), _org(request)
    if request.method == "GET":
        return ok(members.agents(accounts_of(request), caller, org_id))
    body = await read_body(request, schemas.AGENT)
    return ok(members.create_agent(accounts_of(request), caller, org_id, body))


async def observed(request: Request) -> Response:
    return ok(members.observed(accounts_of(request), member(request), _org(request)))


async def revoke_agent(request: Request) -> Response:
    caller, org_id, user_id = member(request), _org(request), path_int(request, "user_id")
    return ok(members.revoke_agent(accounts_of(request), caller, org_id, user_id))


async def checkin(request: Request) -> Response:
    caller = member(request)
    return ok(members.checkin(accounts_of(request), caller, client_of(request)))


# -- invites ---------------------------------------------------------------------------------------------------
async def org_invites(request: Request) -> Response:
    caller, org_id = member(request), _org(request)
    if request.method == "GET":
        return ok(invites.listing(accounts_of(request), caller, org_id))
    body = await read_body(request, schemas.INVITE)
    return ok(invites.create(accounts_of(request), caller, org_id, body))


async def revoke_invite(request: Request) -> Response:
    caller, org_id, invite_id = member(request), _org(request), path_int(request, "invite_id")
    return ok(invites.revoke(accounts_of(request), caller, org_id, invite_id))


async def accept_invite(request: Request) -> Response:
    body = await read_body(request, schemas.ACCEPT)
    return ok(invites.accept_code(accounts_of(request), body["code"], body["email"]))


async def my_invites(request: Request) -> Response:
    return ok(invites.mine(accounts_of(request), identity(request)))


async def accept_mine(request: Request) -> Response:
    user, invite_id = identity(request), path_int(request, "invite_id")
    return ok(invites.accept_mine(accounts_of(request), user, invite_id))


async def accept_teammate(request: Request) -> Response:
    caller = member(request)
    body = await read_body(request, schemas.TEAMMATE)
    return ok(invites.accept_teammate(accounts_of(request), caller, body["email"]))


# -- policy -------------------------------------------------------------------------------------------------
async def projects(request: Request) -> Response:
    caller, org_id = member(request), _org(request)
    if request.method == "GET":
        return ok(policy.projects(caller, org_id))
    body = await read_body(request, schemas.PROJECT)
    return ok(policy.create_project(accounts_of(request), caller, org_id, body["name"]))


async def delete_project(request: Request) -> Response:
    caller, org_id, project_id = member(request), _org(request), path_int(request, "project_id")
    return ok(policy.delete_project(accounts_of(request), caller, org_id, project_id))


async def pins(request: Request) -> Response:
    caller, org_id = member(request), _org(request)
    if request.method == "GET":
        return ok(policy.pins(caller, org_id))
    if request.method == "DELETE":
        capability = request.query_params.get("capability", "")
        if not capability:
            raise invalid(["query", "capability"], "Field required", "missing")
        if len(capability) > 200:
            raise invalid(["query", "capability"], "String should have at most 200 characters", "string_too_long")
        return ok(policy.clear_pin(accounts_of(request), caller, org_id, capability))
    body = await read_body(request, schemas.PIN)
    return ok(policy.set_pin(accounts_of(request), caller, org_id, body["capability"], body["provider"]))


async def deny(request: Request) -> Response:
    caller, org_id = member(request), _org(request)
    if request.method == "GET":
        return ok(policy.rules(caller, org_id))
    body = await read_body(request, schemas.DENY)
    return ok(policy.create_rule(accounts_of(request), caller, org_id, body))


async def delete_rule(request: Request) -> Response:
    caller, org_id, rule_id = member(request), _org(request), path_int(request, "rule_id")
    return ok(policy.delete_rule(accounts_of(request), caller, org_id, rule_id))


async def cli_deny(request: Request) -> Response:
    return ok(policy.cli_deny(member(request), _org(request)))


async def budgets(request: Request) -> Response:
    caller, org_id = member(request), _org(request)
    return ok(policy.budgets(caller, org_id, request.query_params.get("dim")))


async def budget(request: Request) -> Response:
    caller, org_id = member(request), _org(request)
    dim = request.path_params["dim"]
    value = request.path_params.get("val", "*")
    if request.method == "DELETE":
        return ok(policy.delete_budget(accounts_of(request), caller, org_id, dim, value))
    body = await read_body(request, schemas.TAG_BUDGET)
    import re

    if not re.fullmatch(r"[a-z0-9_]{1,32}", dim):
        raise ServiceError(404, f"{dim!r} is not a tag key the relay records (1-32 of [a-z0-9_])", code="not_found")
    return ok(policy.set_budget(accounts_of(request), caller, org_id, dim, value, body))


ROUTES: list[BaseRoute] = [
    Route("/orgs", create_org, methods=["POST"]),
    Route("/orgs", list_orgs, methods=["GET"]),
    Route("/orgs/{org_id}", delete_org, methods=["DELETE"]),
    Route("/orgs/{org_id}/leave", leave, methods=["POST"]),
    Route("/orgs/{org_id}/settings", settings, methods=["GET", "PATCH"]),
    Route("/orgs/{org_id}/public-token", public_token, methods=["POST", "DELETE"]),
    Route("/orgs/{org_id}/balance", balance, methods=["GET"]),
    Route("/orgs/{org_id}/usage", usage, methods=["GET"]),
    Route("/orgs/{org_id}/usage/by-tag", usage_by_tag, methods=["GET"]),
    Route("/orgs/{org_id}/tag-keys", tag_keys, methods=["GET"]),
    Route("/usage/me", my_usage, methods=["GET"]),
    Route("/orgs/{org_id}/members", list_members, methods=["GET"]),
    Route("/orgs/{org_id}/members/{user_id}/cap", member_cap, methods=["PATCH"]),
    Route("/orgs/{org_id}/members/{user_id}/access", member_access, methods=["PATCH"]),
    Route("/orgs/{org_id}/members/{user_id}", member_one, methods=["PATCH", "DELETE"]),
    Route("/orgs/{org_id}/agents", agents, methods=["GET", "POST"]),
    Route("/orgs/{org_id}/agents/observed", observed, methods=["GET"]),
    Route("/orgs/{org_id}/agents/{user_id}", revoke_agent, methods=["DELETE"]),
    Route("/agents/checkin", checkin, methods=["POST"]),
    Route("/orgs/{org_id}/invites", org_invites, methods=["GET", "POST"]),
    Route("/orgs/{org_id}/invites/{invite_id}", revoke_invite, methods=["DELETE"]),
    Route("/invites/accept", accept_invite, methods=["POST"]),
    Route("/invites/mine", my_invites, methods=["GET"]),
    Route("/invites/{invite_id}/accept", accept_mine, methods=["POST"]),
    Route("/onboard/accept-teammate", accept_teammate, methods=["POST"]),
    Route("/orgs/{org_id}/projects", projects, methods=["GET", "POST"]),
    Route("/orgs/{org_id}/projects/{project_id}", delete_project, methods=["DELETE"]),
    Route("/orgs/{org_id}/pins", pins, methods=["GET", "POST", "DELETE"]),
    Route("/orgs/{org_id}/deny", deny, methods=["GET", "POST"]),
    Route("/orgs/{org_id}/deny/{rule_id}", delete_rule, methods=["DELETE"]),
    Route("/orgs/{org_id}/policy/cli-deny", cli_deny, methods=["GET"]),
    Route("/orgs/{org_id}/budgets", budgets, methods=["GET"]),
    Route("/orgs/{org_id}/budgets/{dim}", budget, methods=["PUT"]),
    Route("/orgs/{org_id}/budgets/{dim}/{val}", budget, methods=["PUT", "DELETE"]),
]
