"""The MCP connector through the official SDK's own client (streamable HTTP, over a socket)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from fakes.relay import RelayFake

from .conftest import balance


async def _session_calls(url: str, headers: dict[str, str], calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async with httpx2.AsyncClient(headers=headers) as http, \
            streamable_http_client(url + "/mcp/v2/", http_client=http) as streams, \
            ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        results: list[Any] = [await session.list_tools()]
        for name, arguments in calls:
            results.append(await session.call_tool(name, arguments))
        return results


def _run(fake: RelayFake, headers: dict[str, str], calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    with fake.serve() as url:
        return asyncio.run(_session_calls(url, headers, calls))


def test_tools_are_listed_with_reads_separated_from_writes(fake: RelayFake, team: dict[str, Any]) -> None:
    (tools,) = _run(fake, {"X-Proxy-Token": team["token"]}, [])
    by_name = {tool.name: tool for tool in tools.tools}
    assert set(by_name) == {"catalog_search", "catalog_get", "call", "balance"}
    for name in ("catalog_search", "catalog_get", "balance"):
        assert by_name[name].annotations.read_only_hint is True
    assert by_name["call"].annotations.read_only_hint is False
    assert "idempotency_key" in by_name["call"].input_schema["properties"]


def test_catalogue_tools_expose_only_curated_entries(fake: RelayFake, team: dict[str, Any]) -> None:
    _, found, detail, hidden = _run(fake, {"X-Proxy-Token": team["token"]}, [
        ("catalog_search", {"query": "email find", "limit": 5}),
        ("catalog_get", {"endpoint_id": "mailscout.people.email.find"}),
        ("catalog_get", {"endpoint_id": fake.model.search("weather", 1)["results"][0]["id"]}),
    ])
    ids = [row["id"] for row in found.structured_content["results"]]
    assert "mailscout.people.email.find" in ids
    assert all(fake.model.entry(i)["curated"] for i in ids)
    assert detail.structured_content["endpoint"]["cost"]["value"] == 8_900
    assert hidden.is_error


def test_call_is_metered_like_call_and_supports_idempotency(fake: RelayFake, team: dict[str, Any]) -> None:
    params = {"domain": "northwind.com"}
    _, first, replay, money = _run(fake, {"Authorization": f"Bearer {team['token']}"}, [
        ("call", {"endpoint_id": "firmdata.companies.enrich", "params": params, "idempotency_key": "m1"}),
        ("call", {"endpoint_id": "firmdata.companies.enrich", "params": params, "idempotency_key": "m1"}),
        ("balance", {}),
    ])
    assert first.structured_content["status"] == 200
    assert first.structured_content["cost_micro"] == 10_000 and first.structured_content["cost_usd"] == 0.01
    assert first.structured_content["body"]["domain"] == "northwind.com"
    assert replay.structured_content["replayed"] is True
    assert money.structured_content["balance_micro"] == 990_000
    assert balance(fake, team) == 990_000


def test_writes_need_write_true_and_refusals_drop_the_topup_url(fake: RelayFake) -> None:
    poor = fake.create_team(balance_micro=10)
    _, write, allowed, broke = _run(fake, {"X-Proxy-Token": poor["token"]}, [
        ("call", {"endpoint_id": "jobsignal.alerts.create", "params": {"domain": "northwind.com"}}),
        ("call", {"endpoint_id": "jobsignal.alerts.create", "params": {"domain": "northwind.com"}, "write": True}),
        ("call", {"endpoint_id": "firmdata.companies.enrich", "params": {"domain": "northwind.com"}}),
    ])
    assert write.is_error and "write=true" in write.content[0].text
    assert allowed.structured_content["status"] == 402  # $0.001 > 10 micro
    assert broke.structured_content["status"] == 402
    assert "topup_url" not in broke.structured_content["body"]
    assert broke.structured_content["body"]["estimated_cost_micro"] == 10_000


def test_the_connector_needs_a_token(fake: RelayFake) -> None:
    with fake.client() as http:
        refused = http.post("/mcp/v2/", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert refused.status_code == 401 and "detail" in refused.json()
        described = http.get("/mcp/v2/")
    assert described.status_code == 200 and described.json()["transport"] == "streamable-http"
    with fake.client(headers={"X-Proxy-Token": fake.create_team()["token"]}) as http:
        listed = http.post("/mcp/v2/", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert listed.status_code == 200 and len(listed.json()["result"]["tools"]) == 4
        bad = http.post("/mcp/v2/", content=b"[1, 2]", headers={"content-type": "application/json"})
        assert bad.status_code == 400 and bad.json()["error"]["code"] == -32600


def test_a_repeated_initialize_is_answered_as_the_sdk_answered_it(fake: RelayFake, team: dict[str, Any]) -> None:
    """The connector keeps the SDK's answer to an initialize it saw (the same bytes give the same
    answer in a stateless session); any other initialize, and every other method, runs the SDK."""
    headers = {"X-Proxy-Token": team["token"], "accept": "application/json, text/event-stream"}

    def hello(ident: int, version: str) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": ident, "method": "initialize",
                "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}

    with fake.client() as client:
        first = client.post("/mcp/v2/", json=hello(1, "2025-06-18"), headers=headers)
        again = client.post("/mcp/v2/", json=hello(1, "2025-06-18"), headers=headers)
        other = client.post("/mcp/v2/", json=hello(7, "2025-03-26"), headers=headers)
        refused = client.post("/mcp/v2/", json=hello(1, "2025-06-18"), headers={"accept": "application/json"})
    assert first.status_code == again.status_code == other.status_code == 200
    assert again.content == first.content and again.headers == first.headers
    from fakes.relay.mcp import _INITIALIZED
    kept = _INITIALIZED[fake.mcp_server]  # what the SDK answered, kept per Accept and body
    assert len(kept) == 2 and all(accept.startswith(b"application/json") for accept, _ in kept)
    assert first.json()["id"] == 1 and first.json()["result"]["protocolVersion"] == "2025-06-18"
    assert other.json()["id"] == 7 and other.json()["result"]["protocolVersion"] == "2025-03-26"
    assert refused.status_code == 401  # the token is checked before anything kept is sent
