"""One timed request per public operation (the benchmark's ``operations`` part, ``fakes/kernel/benchops.py``).

The operations act for the benchmark team of :meth:`RelayFake.auth_headers` (a large balance, its
calls not rate-limited by the simulated providers), signed in as its owner where an operation takes
an identity token or a browser session. What an operation consumes (a login to poll or approve, an
invite to accept, a secret to delete, a checkout to pay, a code to verify) is made by its untimed
``prepare``; an operation whose body or headers name what was made gets them from a dict the
``prepare`` fills in (the benchmark sends the operation's ``json`` and ``headers`` as they are then).

This module holds the stage (the team, its owner's identity, a teammate, a tool, a secret, a call)
and the call, catalogue, connector, page and sign-in operations; the team, key and money operations
are in :mod:`fakes.relay.accounts.bench`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlencode

import httpx

from fakes.kernel.benchops import BenchOperation

from .accounts import bench as accounts_bench

if TYPE_CHECKING:
    from . import RelayFake

ECHO_HOST = "https://echo.bench.example"
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


class Stage:
    """The benchmark's teams and what their operations need, made once through the fake's own API.

    Two teams: the quiet one of :meth:`RelayFake.auth_headers` (its calls, reads and the updates
    of what it keeps), and a busy one of the same owner taking every operation that adds to a team
    (invites, members, agents, projects, rules, keys, skills, checkouts), so that what 200 runs of
    those add does not slow the lists and calls timed on the quiet one."""

    def __init__(self, fake: RelayFake) -> None:
        self.fake = fake
        self.h = fake.model.h
        self.auth = dict(fake.auth_headers())
        member = fake.model.by_token[self.auth[self.h.token]]
        member.team.upstream_rate_limited = False
        self.org = member.team.number
        self.owner_email = member.email
        self.numbers = itertools.count(1)
        self.identity, session = self.sign_in(self.owner_email)
        self.owner = {self.h.token: self.identity, self.h.org: str(self.org)}
        self.browser = {"cookie": f"{fake.settings.relay_name}_session={session}"}
        busy = self.post("/orgs", {"name": "Bench churn"}, headers={self.h.token: self.identity})
        self.busy_org, self.busy = busy["org_id"], {self.h.token: busy["token"]}
        fake.model.by_token[busy["token"]].team.upstream_rate_limited = False
        self.secret_id = self.post("/secrets", {"name": "bench-echo-key", "value": "echo-key"})["id"]
        self.tool = self.post("/tools", {"name": "bench-echo", "base_url": ECHO_HOST, "secret_id": self.secret_id,
                                         "cli": {"enabled": True, "bin": "bench", "inject": [
                                             {"via": "env", "name": "BENCH_KEY", "secret_id": self.secret_id}]}})
        self.mate_id = self.join("mate", quiet=True)["user_id"]
        answer = self.request("GET", "/call/firmdata.companies.enrich?domain=northwind.com")
        self.call_id = answer.headers[self.h.call_id]

    # -- helpers for prepare --------------------------------------------------------------------
    def next(self, stem: str) -> str:
        return f"{stem}-{next(self.numbers)}"

    def request(self, method: str, path: str, body: Any = None, headers: Mapping[str, str] | None = None,
                **kwargs: Any) -> httpx.Response:
        """A request of the quiet team (``headers`` add to or replace its token)."""
        with self.fake.client() as http:
            return http.request(method, path, json=body, headers={**self.auth, **(headers or {})}, **kwargs)

    def post(self, path: str, body: Any = None, headers: Mapping[str, str] | None = None) -> Any:
        answer = self.request("POST", path, body, headers)
        if answer.status_code >= 300:
            raise RuntimeError(f"bench stage: POST {path} answered {answer.status_code}: {answer.text[:300]}")
        return answer.json()

    def churn(self, path: str, body: Any = None) -> Any:
        """A POST of the busy team; ``{org}`` in ``path`` is its number."""
        return self.post(path.format(org=self.busy_org), body, headers=self.busy)

    def address(self) -> dict[str, str]:
        """A new client address (the e-mail code's throttle counts per address)."""
        number = next(self.numbers)
        return {"x-forwarded-for": f"10.{number // 62_500 % 250}.{number // 250 % 250}.{number % 250}"}

    def sign_in(self, email: str) -> tuple[str, str]:
        """(identity token, browser session) of ``email``."""
        with self.fake.client() as http:
            code = http.post("/auth/email/start", json={"email": email}, headers=self.address()).json()["dev_code"]
            token: str = http.post("/auth/email/verify", json={"email": email, "code": code}).json()["token"]
            session = http.cookies.get(f"{self.fake.settings.relay_name}_session") or ""
        return token, session

    def invite(self, email: str, role: str = "member", *, quiet: bool = False) -> dict[str, Any]:
        """An invite of the busy team (or the quiet one): its ``code``, and its ``id``."""
        found: dict[str, Any] = (self.post(f"/orgs/{self.org}/invites", {"email": email, "role": role}) if quiet
                                 else self.churn("/orgs/{org}/invites", {"email": email, "role": role}))
        invite = next(i for i in self.fake.model.accounts.invites.values() if i.code == found["code"])
        return {**found, "id": invite.invite_id}

    def join(self, stem: str, *, quiet: bool = False) -> dict[str, Any]:
        """A new teammate of the busy team (or the quiet one): its ``user_id``, ``token`` and ``email``."""
        email = f"{self.next(stem)}@bench.example"
        code = self.invite(email, quiet=quiet)["code"]
        joined: dict[str, Any] = self.post("/invites/accept", {"code": code, "email": email}, headers={})
        return {**joined, "email": email, "user_id": self.fake.model.by_token[joined["token"]].user.user_id}


def bench_operations(fake: RelayFake) -> list[BenchOperation]:
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
        BenchOperation("provider_page", "GET", "/tools/firmdata", template="/tools/{provider}"),
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
