"""Routed ids take their identity as a JSON object body, as treg does (its package's
``application/call/route.py`` reads the body as a JSON object, "expects a JSON object body"
otherwise; ``domain/catalog/routing/synthetic.py`` declares routed ids as POST with a JSON body):
over HTTP with the route headers, through the MCP connector's ``call`` tool at ``/mcp/`` and
``/mcp/v2/``, and through the official command-line client's ``treg call <id> --data``. The query
form keeps working."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from fakes.relay import RelayFake
from fakes.relay.upstreams import UpstreamRequest, UpstreamResponse

from .test_official_cli import _treg, cli

FIND = "/call/treg.people.email.find"
ADA = {"domain": "northwind.com", "first_name": "Ada", "last_name": "Lovelace"}


@pytest.fixture
def fake() -> RelayFake:
    return RelayFake(seed=0, header_prefix="X-Treg")


@pytest.fixture
def token(fake: RelayFake) -> str:
    return str(fake.create_team()["token"])


def test_a_routed_id_reads_its_identity_from_a_json_body(fake: RelayFake, token: str) -> None:
    with fake.client(headers={"X-Treg-Token": token}) as http:
        found = http.post(FIND, json=ADA)
        assert found.status_code == 200, found.text
        assert found.json()["output"]["email"] == "ada.lovelace@northwind.com"
        assert found.headers["X-Treg-Served-By"] == "mailscout.people.email.find"
        assert found.headers["X-Treg-Cost-Micro"] == "8900"
        by_query = http.get(FIND, params=ADA)  # the query form keeps working
        assert by_query.status_code == 200 and by_query.json()["output"] == found.json()["output"]
        overridden = http.post(FIND, params={**ADA, "domain": "gone.invalid"}, json=ADA)  # the body wins
        assert overridden.json()["_treg"]["outcome"] == "hit"
    assert fake.team_info("team_1")["balance_micro"] == 1_000_000 - 3 * 8_900


def test_the_route_headers_bound_a_call_with_a_body(fake: RelayFake, token: str) -> None:
    with fake.client(headers={"X-Treg-Token": token}) as http:
        excluded = http.post(FIND, json=ADA, headers={"X-Treg-Route-Exclude": "mailscout"})
        assert excluded.status_code == 200
        assert excluded.headers["X-Treg-Served-By"] == "peoplegraph.people.email.find"
        assert excluded.headers["X-Treg-Cost-Micro"] == "12000"
        capped = http.post(FIND, json=ADA, headers={"X-Treg-Route-Max-Cost": "0.005"})
        assert capped.status_code == 402 and capped.json()["error"] == "route_max_cost"
        missed = http.post(FIND, json={**ADA, "domain": "gone.invalid"}, headers={"X-Treg-Route-Waterfall": "0"})
        assert missed.status_code == 200 and len(missed.json()["_treg"]["tried"]) == 1
    assert fake.team_info("team_1")["balance_micro"] == 1_000_000 - 12_000


def test_a_body_that_is_not_a_json_object_is_treg_s_400(fake: RelayFake, token: str) -> None:
    with fake.client(headers={"X-Treg-Token": token}) as http:
        for body in (b"[1, 2]", b"not json", b'"ada"', b'{"domain": NaN}'):
            refused = http.post(FIND, content=body, headers={"content-type": "application/json"})
            assert refused.status_code == 400, body
            assert refused.json()["detail"] == "treg.people.email.find expects a JSON object body"
            assert refused.headers["X-Treg-Error"] == "1"
        nested = http.post(FIND, json={**ADA, "domain": {"name": "northwind.com"}})
        assert nested.status_code == 400 and nested.json()["parameter"] == "domain"
        incomplete = http.post(FIND, json={"domain": "northwind.com"})
        assert incomplete.status_code == 422 and incomplete.json()["error"] == "identity_incomplete"
        assert incomplete.json()["variants"] == [["domain", "first_name", "last_name"]]
    assert fake.team_info("team_1")["balance_micro"] == 1_000_000  # nothing charged


def test_the_candidate_is_sent_the_identity_as_its_query(fake: RelayFake, token: str) -> None:
    seen: list[UpstreamRequest] = []

    def mailscout(request: UpstreamRequest) -> UpstreamResponse:
        seen.append(request)
        return UpstreamResponse(200, [("content-type", "application/json")],
                                json.dumps({"email": "ada@northwind.com", "status": "verified"}).encode())

    fake.register_upstream("mailscout", mailscout)
    with fake.client(headers={"X-Treg-Token": token}) as http:
        assert http.post(FIND, json=ADA).json()["output"]["email"] == "ada@northwind.com"
    (sent,) = seen
    assert (sent.method, sent.path, sent.body) == ("GET", "/v1/email/find", b"")
    assert sent.query == "domain=northwind.com&first_name=Ada&last_name=Lovelace"
    assert "content-type" not in dict(sent.headers)


def test_the_catalogue_declares_routed_ids_as_post_with_a_json_body(fake: RelayFake) -> None:
    with fake.client() as http:
        page = http.get("/catalog/endpoints/treg.people.email.find").json()
    endpoint = page["endpoint"]
    assert (endpoint["method"], endpoint["path"]) == ("POST", "/people.email.find")
    assert endpoint["input"]["bodyType"] == "json" and set(endpoint["input"]["body"]) == set(ADA)
    assert "JSON body" in page["call_template"]


async def _mcp_call(url: str, token: str, arguments: dict[str, Any]) -> Any:
    async with httpx2.AsyncClient(headers={"X-Treg-Token": token}) as http, \
            streamable_http_client(url, http_client=http) as streams, \
            ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        return await session.call_tool("call", arguments)


@pytest.mark.parametrize("path", ["/mcp/", "/mcp/v2/"])
def test_the_connector_s_call_tool_sends_a_routed_body(fake: RelayFake, token: str, path: str) -> None:
    with fake.serve() as url:
        result = asyncio.run(_mcp_call(url + path, token, {"endpoint_id": "treg.people.email.find", "body": ADA}))
        excluded = asyncio.run(_mcp_call(url + path, token, {"endpoint_id": "treg.people.email.find",
                                                             "body": {**ADA, "domain": "gone.invalid"}}))
    answer = result.structured_content
    assert answer["status"] == 200 and answer["cost_micro"] == 8_900
    assert answer["body"]["output"]["email"] == "ada.lovelace@northwind.com"
    assert excluded.structured_content["body"]["_treg"]["outcome"] == "miss"


def test_the_official_cli_sends_a_routed_body_with_data(tmp_path: Path) -> None:
    _treg()  # skips without the client
    fake = RelayFake(header_prefix="X-Treg", clock="real")
    with fake.serve() as url:
        run = cli(url, fake.demo_credentials()["token"], tmp_path)
        called = run("call", "treg.people.email.find", "--data", json.dumps(ADA))
        assert called.returncode == 0, called.stdout + called.stderr
        assert "ada.lovelace@northwind.com" in called.stdout and "$0.0089" in called.stderr
        excluded = run("call", "treg.people.email.find", "--data", json.dumps(ADA),
                       "--header", "X-Treg-Route-Exclude: mailscout")
        assert excluded.returncode == 0 and "$0.012" in excluded.stderr, excluded.stdout + excluded.stderr
    assert fake.team_info("team_1")["balance_micro"] == 1_000_000 - 8_900 - 12_000
