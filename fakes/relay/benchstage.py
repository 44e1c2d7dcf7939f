"""The benchmark's stage (``fakes/kernel/benchops.py``): the teams and what their operations need,
made once through the fake's own API, below both modules of operations (:mod:`fakes.relay.bench`,
:mod:`fakes.relay.accounts.bench`) that act on it.

The fake is read as :class:`BenchedRelay`, what the stage and the operations use of it, never as
:class:`fakes.relay.RelayFake`, which imports the operations.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any, Protocol

import httpx

from .model import RelayModel
from .settings import RelaySettings

ECHO_HOST = "https://echo.bench.example"


class BenchedRelay(Protocol):
    """What the stage and the operations use of the fake: its model and settings, the benchmark
    team's headers, a client, and the browser's and mailbox's control methods."""

    model: RelayModel
    settings: RelaySettings

    def auth_headers(self) -> dict[str, str]: ...

    def client(self, **kwargs: Any) -> httpx.Client: ...

    def outbox(self) -> list[dict[str, Any]]: ...

    def consent(self, state: str, grant: bool = True) -> dict[str, Any]: ...

    def pay_checkout(self, session_id: str) -> dict[str, Any]: ...


class Stage:
    """The benchmark's teams and what their operations need, made once through the fake's own API.

    Two teams: the quiet one of :meth:`RelayFake.auth_headers` (its calls, reads and the updates
    of what it keeps), and a busy one of the same owner taking every operation that adds to a team
    (invites, members, agents, projects, rules, keys, skills, checkouts), so that what 200 runs of
    those add does not slow the lists and calls timed on the quiet one."""

    def __init__(self, fake: BenchedRelay) -> None:
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
