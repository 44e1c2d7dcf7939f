"""What an app (or its test) does with the fake's OAuth pages: read the consent form, submit it,
read the redirect. Only the standard library's HTML parser, as a test without a browser would."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx

from fakes.member_export import MemberExportFake

AUTHORIZATION = "/oauth/v2/authorization"
ACCESS_TOKEN = "/oauth/v2/accessToken"
INTROSPECT = "/oauth/v2/introspectToken"
REDIRECT = "http://localhost:8765/callback"
SCOPE = "r_dma_portability_self_serve"


@dataclass
class ConsentForm:
    action: str = ""
    hidden: dict[str, str] = field(default_factory=dict)
    members: list[str] = field(default_factory=list)     # the picker's options (member ids)
    decisions: list[str] = field(default_factory=list)   # the buttons' values
    scopes: list[str] = field(default_factory=list)


class _FormParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.form = ConsentForm()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = {name: value or "" for name, value in attrs}
        if tag == "form":
            self.form.action = attr.get("action", "")
        elif tag == "input" and attr.get("type") == "hidden":
            self.form.hidden[attr["name"]] = attr.get("value", "")
        elif tag == "option":
            self.form.members.append(attr.get("value", ""))
        elif tag == "button" and attr.get("name") == "decision":
            self.form.decisions.append(attr.get("value", ""))
        elif tag == "li" and "data-scope" in attr:
            self.form.scopes.append(attr["data-scope"])


def parse_consent(html: str) -> ConsentForm:
    parser = _FormParser()
    parser.feed(html)
    return parser.form


def auth_params(client_id: str, *, redirect_uri: str = REDIRECT, scope: str = SCOPE,
                state: str | None = "state-1", **extra: str) -> dict[str, str]:
    params = {"response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri, "scope": scope, **extra}
    if state is not None:
        params["state"] = state
    return params


def query_of(location: str) -> dict[str, str]:
    return {name: values[0] for name, values in parse_qs(urlsplit(location).query).items()}


def login(client: httpx.Client, params: dict[str, str], member_id: str | None = None,
          decision: str = "allow") -> httpx.Response:
    """Open the consent page as a browser would and press a button (picking ``member_id``)."""
    page = client.get(AUTHORIZATION, params=params)
    assert page.status_code == 200, page.text
    form = parse_consent(page.text)
    data = dict(form.hidden)
    if member_id is not None:
        data["member_id"] = member_id
    data["decision"] = decision
    return client.post(form.action, data=data)


def code_for(client: httpx.Client, app: dict[str, Any], member_id: str, **param_changes: str) -> str:
    answer = login(client, auth_params(app["client_id"], **param_changes), member_id)
    assert answer.status_code == 303, answer.text
    return query_of(answer.headers["location"])["code"]


def exchange(client: httpx.Client, app: dict[str, Any], code: str, **changes: str) -> httpx.Response:
    form = {"grant_type": "authorization_code", "code": code, "client_id": app["client_id"],
            "client_secret": app["client_secret"], "redirect_uri": REDIRECT, **changes}
    return client.post(ACCESS_TOKEN, data={name: value for name, value in form.items() if value is not None})


def introspect(client: httpx.Client, app: dict[str, Any], access_token: str, **changes: str) -> httpx.Response:
    form = {"token": access_token, "client_id": app["client_id"], "client_secret": app["client_secret"], **changes}
    return client.post(INTROSPECT, data=form)


def new_app(fake: MemberExportFake, **fields: Any) -> dict[str, Any]:
    return fake.register_application(redirect_uris=[REDIRECT], name=fields.pop("name", "Portability Test App"),
                                     **fields)
