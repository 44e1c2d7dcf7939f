"""One timed request per public operation (the benchmark's ``operations`` part, ``fakes/kernel/benchops.py``).

The operations act for the benchmark team of :meth:`RelayFake.auth_headers` (a large balance, its
calls not rate-limited by the simulated providers), signed in as its owner where an operation takes
an identity token or a browser session. What an operation consumes (a login to poll or approve, an
invite to accept, a secret to delete, a checkout to pay, a code to verify) is made by its untimed
``prepare``; an operation whose body or headers name what was made gets them from a dict the
``prepare`` fills in (the benchmark sends the operation's ``json`` and ``headers`` as they are then).

This module holds the call, catalogue, connector, page and sign-in operations; the stage they act
on (the team, its owner's identity, a teammate, a tool, a secret, a call) is in
:mod:`fakes.relay.benchstage`, the team, key and money operations in :mod:`fakes.relay.accounts.bench`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, cast
from urllib.parse import urlencode

import httpx

from fakes.kernel.benchops import BenchOperation

from .accounts import bench as accounts_bench
from .benchstage import BenchedRelay, Stage

MCP_HELLO = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "bench", "version": "1"}}}


class Form:
    """A form body a ``prepare`` fills in: httpx sends an iterable of bytes as it is when sent."""

    def __init__(self) -> None:
        self.fields: dict[str, str] = {}

    def __iter__(self) -> Iterator[bytes]:
        yield urlencode(self.fields).encode()

    def body(self) -> bytes:
        return cast(bytes, self)  # what BenchOperation.content is typed as; httpx takes the iterable


def bench_operations(fake: BenchedRelay) -> list[BenchOperation]:
    stage = Stage(fake)
    return [*call_operations(stage), *catalogue_operations(stage), *auth_operations(stage),
            *accounts_bench.operations(stage)]


def call_operations(stage: Stage) -> list[BenchOperation]:
    echo = f"/call/{stage.tool['name']}/things/7"
    json_type = {"content-type": "application/json"}
    return [
        BenchOperation("call_get", "GET", "/call/firmdata.companies.enrich?domain=northwind.com",
                       template="/call/{target}"),
        BenchOperation("call_post", "POST", "/call/jobsignal.alerts.create?domain=northwind.com",
                       template="/call/{target}", content=b'{"domain": "northwind.com"}', headers=json_type,
                       expect=(201,)),
        BenchOperation("call_put", "PUT", echo, template="/call/{target}", content=b'{"on": true}', headers=json_type),
        BenchOperation("call_patch", "PATCH", echo, template="/call/{target}", content=b'{"on": 1}', headers=json_type),
        BenchOperation("call_delete", "DELETE", echo, template="/call/{target}"),
        BenchOperation("call_options", "OPTIONS", echo, template="/call/{target}"),
        BenchOperation("mcp_get", "GET", "/mcp/", expect=(200, 405)),
        BenchOperation("mcp_post", "POST", "/mcp/", json=MCP_HELLO,
                       headers={"accept": "application/json, text/event-stream"}),
        BenchOperation("mcp_v2_get", "GET", "/mcp/v2/", expect=(200, 405)),
        BenchOperation("mcp_v2_post", "POST", "/mcp/v2/", json=MCP_HELLO,
                       headers={"accept": "application/json, text/event-stream"}),
        BenchOperation("balance", "GET", "/balance"),
        BenchOperation("calls", "GET", "/calls?limit=20"),
        BenchOperation("call_one", "GET", f"/calls/{stage.call_id}", template="/calls/{call_ref}"),
        BenchOperation("runs", "GET", "/runs"),
    ]


def catalogue_operations(stage: Stage) -> list[BenchOperation]:
    pages = ["/", "/app", "/llms.txt", "/use-cases", "/use-cases.md", "/workflows", "/workflows.md", "/install.sh",
             "/meta", "/health", "/providers.json", "/skills/samples", "/oauth/providers"]
    return [
        BenchOperation("catalog_search", "GET", "/catalog/search?q=company%20enrichment&limit=10"),
        BenchOperation("catalog_endpoint", "GET", "/catalog/endpoints/firmdata.companies.enrich",
                       template="/catalog/endpoints/{entry_id}"),
        BenchOperation("catalog_access", "GET", "/catalog/endpoints/firmdata.companies.enrich/access",
                       template="/catalog/endpoints/{entry_id}/access"),
        BenchOperation("catalog_platforms", "GET", "/catalog/platforms"),
        BenchOperation("catalog_platform", "GET", "/catalog/platforms/firmdata", template="/catalog/platforms/{slug}"),
        BenchOperation("provider_page", "GET", "/tools/firmdata", template="/tools/{tool_id}"),
        *[BenchOperation(f"page {path}", "GET", path) for path in pages],
    ]


def auth_operations(stage: Stage) -> list[BenchOperation]:
    h = stage.h
    owner, browser = stage.owner, stage.browser
    relay = stage.fake.settings.relay_name
    approve: dict[str, Any] = {}
    start_email: dict[str, Any] = {}
    start_where: dict[str, str] = {}
    verify: dict[str, Any] = {}
    revoking: dict[str, str] = {}
    user: dict[str, Any] = {}
    signin: dict[str, str] = {}
    login_form, invite_form = Form(), Form()

    def new_login() -> Mapping[str, str]:
        started = stage.post("/auth/cli/start", headers={})
        login_form.fields = {"login_id": started["login_id"], "code": started["code"],
                             "email": f"{stage.next('page')}@bench.example"}
        approve.update(login_id=started["login_id"], code=started["code"])
        return {"login_id": started["login_id"]}

    def email_code() -> Mapping[str, str]:
        email = f"{stage.next('verify')}@bench.example"
        code = stage.post("/auth/email/start", {"email": email}, headers=stage.address())["dev_code"]
        verify.update(email=email, code=code)
        return {}

    def new_start() -> Mapping[str, str]:
        start_email["email"] = f"{stage.next('start')}@bench.example"
        start_where.update(stage.address())
        return {}

    def fresh_identity() -> Mapping[str, str]:
        revoking[h.token] = stage.sign_in(f"{stage.next('revoke')}@bench.example")[0]
        return {}

    def new_user() -> Mapping[str, str]:
        user["email"] = f"{stage.next('user')}@bench.example"
        return {}

    def oauth_state(provider: str) -> Callable[[], Mapping[str, str]]:
        def prepare() -> Mapping[str, str]:
            location = httpx.URL(stage.request("GET", f"/auth/{provider}", headers={}).headers["location"])
            signin["cookie"] = f"{relay}_oauth_state={location.params['state']}"
            return {"code": location.params["code"], "state": location.params["state"]}
        return prepare

    def invite_link() -> Mapping[str, str]:
        email = f"{stage.next('link')}@bench.example"
        stage.invite(email)
        link = next(m["link"] for m in stage.fake.outbox() if m.get("to") == email and m.get("link"))
        token = httpx.URL(link).params["t"]
        invite_form.fields = {"t": token}
        return {"t": token}

    form = {"content-type": "application/x-www-form-urlencoded"}
    return [
        BenchOperation("cli_start", "POST", "/auth/cli/start", auth=False),
        BenchOperation("cli_poll", "GET", "/auth/cli/poll?login_id={login_id}", template="/auth/cli/poll",
                       auth=False, prepare=new_login),
        BenchOperation("cli_orgs", "GET", "/auth/cli/orgs", headers=browser, auth=False),
        BenchOperation("cli_approve", "POST", "/auth/cli/approve", json=approve, headers=browser, auth=False,
                       prepare=new_login),
        BenchOperation("login_page", "GET", "/login?cli={login_id}", template="/login", auth=False,
                       prepare=new_login),
        BenchOperation("login_submit", "POST", "/login", content=login_form.body(), headers=form, auth=False,
                       prepare=new_login),
        BenchOperation("github_signin", "GET", "/auth/github", auth=False, expect=(302,)),
        BenchOperation("github_callback", "GET", "/auth/github/callback?code={code}&state={state}",
                       template="/auth/github/callback", auth=False, headers=signin, prepare=oauth_state("github"),
                       expect=(302,)),
        BenchOperation("google_signin", "GET", "/auth/google", auth=False, expect=(302,)),
        BenchOperation("google_callback", "GET", "/auth/google/callback?code={code}&state={state}",
                       template="/auth/google/callback", auth=False, headers=signin, prepare=oauth_state("google"),
                       expect=(302,)),
        BenchOperation("me", "GET", "/auth/me", headers=owner, auth=False),
        BenchOperation("logout", "POST", "/auth/logout", headers=browser, auth=False),
        BenchOperation("email_start", "POST", "/auth/email/start", json=start_email, headers=start_where,
                       auth=False, prepare=new_start),
        BenchOperation("email_verify", "POST", "/auth/email/verify", json=verify, auth=False, prepare=email_code),
        BenchOperation("invite_signin", "GET", "/auth/invite-signin?t={t}", template="/auth/invite-signin",
                       auth=False, prepare=invite_link),
        BenchOperation("invite_signin_confirm", "POST", "/auth/invite-signin", content=invite_form.body(),
                       headers=form, auth=False, prepare=invite_link, expect=(303,)),
        BenchOperation("cli_token", "GET", "/auth/cli-token", headers=owner, auth=False),
        BenchOperation("revoke_tokens", "POST", "/auth/revoke-tokens", headers=revoking, auth=False,
                       prepare=fresh_identity),
        BenchOperation("register_user", "POST", "/users", json=user, auth=False, prepare=new_user),
    ]
