"""treg's call semantics beyond a plain GET: every method, encoded request bodies, routed calls and
their headers, asynchronous providers, trial pools, retired entries, teams picked by X-Treg-Org,
and the MCP connector under /mcp/ as well as /mcp/v2/."""

from __future__ import annotations

import base64
import gzip

import httpx
import pytest

from fakes.relay import RelayFake
from fakes.relay.upstreams import UpstreamRequest, UpstreamResponse

ROUTED = "/call/treg.companies.enrich"
DOMAIN = {"domain": "northwind.com"}


@pytest.fixture
def fake() -> RelayFake:
    return RelayFake(seed=0, header_prefix="X-Treg", trial_allowance=2)


@pytest.fixture
def seen(fake: RelayFake) -> list[UpstreamRequest]:
    requests: list[UpstreamRequest] = []

    def upstream(request: UpstreamRequest) -> UpstreamResponse:
        requests.append(request)
        return UpstreamResponse(200, [("content-type", "application/json")], b'{"ok": true}')

    fake.register_upstream("jobsignal", upstream)
    return requests


def _identity(http: httpx.Client, email: str = "ada@northwind.com") -> str:
    code = http.post("/auth/email/start", json={"email": email}).json()["dev_code"]
    token: str = http.post("/auth/email/verify", json={"email": email, "code": code}).json()["token"]
    http.cookies.clear()
    return token


def _team(http: httpx.Client, name: str = "Northwind") -> dict[str, str]:
    made = http.post("/orgs", json={"name": name}, headers={"X-Treg-Token": _identity(http)}).json()
    return {"X-Treg-Token": made["token"]}


def test_every_method_reaches_the_upstream_with_its_body(fake: RelayFake, seen: list[UpstreamRequest]) -> None:
    with fake.client() as http:
        owner = _team(http)
        key = http.post("/secrets", json={"name": "js", "value": "js-key"}, headers=owner).json()["id"]
        http.post("/tools", json={"name": "jobs", "base_url": "https://api.jobsignal.example",
                                  "bindings": [{"secret_id": key, "format": "Bearer {secret}"}]}, headers=owner)
        for method in ("PUT", "PATCH", "DELETE"):
            answer = http.request(method, "/call/https://api.jobsignal.example/v1/alerts/7", content=b'{"on": 1}',
                                  headers={**owner, "content-type": "application/json"})
            assert answer.status_code == 200 and "X-Treg-Cost-Micro" not in answer.headers
            assert (seen[-1].method, seen[-1].path, seen[-1].body) == (method, "/v1/alerts/7", b'{"on": 1}')
            assert dict(seen[-1].headers)["authorization"] == "Bearer js-key"


def test_encoded_bodies_are_decoded_and_a_callers_own_encoding_is_relayed(fake: RelayFake,
                                                                          seen: list[UpstreamRequest]) -> None:
    body = b'{"domain": "northwind.com"}'
    call = "/call/jobsignal.alerts.create"
    with fake.client() as http:
        owner = {**_team(http), "content-type": "application/json"}
        for encoding, sent in (("gzip", gzip.compress(body)), ("base64+gzip", base64.b64encode(gzip.compress(body))),
                               ("base64", base64.b64encode(body))):
            answer = http.post(call, params=DOMAIN, content=sent, headers={**owner, "X-Treg-Body-Encoding": encoding})
            assert answer.status_code == 200 and seen[-1].body == body
            assert "content-encoding" not in dict(seen[-1].headers)
        http.post(call, params=DOMAIN, content=gzip.compress(body), headers={**owner, "Content-Encoding": "gzip"})
        assert dict(seen[-1].headers)["content-encoding"] == "gzip" and gzip.decompress(seen[-1].body) == body
        broken = http.post(call, params=DOMAIN, content=b"not gzip", headers={**owner, "X-Treg-Body-Encoding": "gzip"})
        assert broken.status_code == 400 and len(seen) == 4


def test_a_routed_call_is_wrapped_and_obeys_its_route_headers(fake: RelayFake) -> None:
    with fake.client() as http:
        owner = _team(http)
        hit = http.get(ROUTED, params=DOMAIN, headers=owner)
        assert hit.headers["X-Treg-Served-By"] == "firmdata.companies.enrich"  # the cheapest
        assert hit.headers["X-Treg-Route-Outcome"] == "hit" and hit.headers["X-Treg-Providers-Tried"] == "firmdata"
        wrapped = hit.json()
        assert set(wrapped) == {"output", "raw", "_treg"} and wrapped["output"]["domain"] == "northwind.com"
        assert wrapped["_treg"]["tier"] == "platform" and wrapped["_treg"]["charged_micro"] == 10_000
        other = http.get(ROUTED, params=DOMAIN, headers={**owner, "X-Treg-Route-Exclude": "firmdata"})
        assert other.json()["_treg"]["provider"] == "peoplegraph" and other.headers["X-Treg-Cost-Micro"] == "15000"
        preferred = http.get(ROUTED, params=DOMAIN, headers={**owner, "X-Treg-Route-Prefer": "peoplegraph"})
        assert preferred.json()["_treg"]["provider"] == "peoplegraph"
        missed = http.get(ROUTED, params={"domain": "gone.invalid"}, headers=owner).json()
        assert missed["_treg"]["outcome"] == "miss" and [t["provider"] for t in missed["_treg"]["tried"]] == [
            "firmdata", "peoplegraph"] and missed["_treg"]["charged_micro"] == 0
        alone = http.get(ROUTED, params={"domain": "gone.invalid"}, headers={**owner, "X-Treg-Route-Waterfall": "0"})
        assert len(alone.json()["_treg"]["tried"]) == 1
        before = http.get("/balance", headers=owner).json()["balance_micro"]
        capped = http.get(ROUTED, params=DOMAIN, headers={**owner, "X-Treg-Route-Max-Cost": "0.005"})
        assert capped.status_code == 402 and capped.json()["error"] == "route_max_cost"
        assert http.get(ROUTED, params=DOMAIN, headers={**owner, "X-Treg-Route-Max-Cost": "x"}).status_code == 400
        assert http.get("/balance", headers=owner).json()["balance_micro"] == before


def test_an_asynchronous_provider_answers_202_and_is_settled_when_the_task_completes(fake: RelayFake) -> None:
    with fake.client() as http:
        owner = _team(http)
        submitted = http.post("/call/firmdata.reports.create", params=DOMAIN, headers=owner)
        assert submitted.status_code == 202 and submitted.headers["X-Treg-Reserved-Micro"] == "50000"
        task = submitted.json()
        assert task["status"] == "pending" and task["poll"]["endpoint_id"] == "firmdata.reports.get"
        balance = http.get("/balance", headers=owner).json()
        assert balance["holds_micro"] == 50_000
        poll = {"task_id": task["task_id"]}
        assert http.get("/call/firmdata.reports.get", params=poll, headers=owner).json()["status"] == "pending"
        fake.advance(fake.model.settings.async_task_s)
        done = http.get("/call/firmdata.reports.get", params=poll, headers=owner).json()
        assert done["status"] == "complete" and done["result"]["domain"] == "northwind.com"
        after = http.get("/balance", headers=owner).json()
        assert after["holds_micro"] == 0 and after["balance_micro"] == balance["balance_micro"] - 50_000
        stranger = _team(http, "Contoso")  # a task is only its team's
        assert http.get("/call/firmdata.reports.get", params=poll, headers=stranger).status_code == 404


def test_trial_pools_have_a_daily_cap_and_retired_entries_answer_410(fake: RelayFake) -> None:
    quote = "/call/quotely.stocks.quote.get"
    with fake.client() as http:
        owner = _team(http)
        answers = [http.get(quote, params={"symbol": "ACME"}, headers=owner) for _ in range(3)]
        assert [a.status_code for a in answers] == [200, 200, 429]
        assert answers[2].json()["error"] == "trial_allowance_reached"
        assert http.get("/call/quotely.stocks.symbols.search", params={"q": "acme"}, headers=owner).status_code == 200
        fake.advance(86_400)
        assert http.get(quote, params={"symbol": "ACME"}, headers=owner).status_code == 200
        retired = http.get("/call/firmdata.companies.legacy.enrich", params=DOMAIN, headers=owner)
        assert retired.status_code == 410 and retired.json()["superseded_by"] == "firmdata.companies.enrich"
        assert retired.json()["detail"].endswith("Use firmdata.companies.enrich instead.")


def test_an_identity_token_picks_its_team_with_x_treg_org(fake: RelayFake) -> None:
    with fake.client() as http:
        ident = _identity(http)
        first = http.post("/orgs", json={"name": "Northwind"}, headers={"X-Treg-Token": ident}).json()
        second = http.post("/orgs", json={"name": "Contoso"}, headers={"X-Treg-Token": ident}).json()
        for made in (first, second):
            headers = {"X-Treg-Token": ident, "X-Treg-Org": str(made["org_id"])}
            http.get("/call/firmdata.companies.enrich", params=DOMAIN, headers=headers)
        for made in (first, second):
            calls = http.get("/calls", headers={"X-Treg-Token": made["token"]}).json()
            assert len(calls["items"] if isinstance(calls, dict) else calls) == 1
        unknown = http.get("/call/firmdata.companies.enrich", params=DOMAIN,
                           headers={"X-Treg-Token": ident, "X-Treg-Org": "999"})
        assert unknown.status_code == 400 and unknown.json()["error"] == "choose_org"  # treg api.py:4312-4315
        http.post("/orgs", json={"name": "Fabrikam"}, headers={"X-Treg-Token": _identity(http, "bo@fabrikam.com")})
        foreign = http.get("/call/firmdata.companies.enrich", params=DOMAIN,
                           headers={"X-Treg-Token": ident, "X-Treg-Org": "3"})
        assert foreign.status_code == 403  # not a member of this org (api.py:4321)


def test_the_mcp_connector_answers_under_mcp_and_mcp_v2(fake: RelayFake) -> None:
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "t", "version": "1"}}}
    with fake.client() as http:
        owner = {**_team(http), "accept": "application/json, text/event-stream"}
        for path in ("/mcp/", "/mcp/v2/"):
            answer = http.post(path, json=hello, headers=owner)
            assert answer.status_code == 200 and answer.json()["result"]["serverInfo"]["name"] == "relay"
