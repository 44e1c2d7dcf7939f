"""The MCP server through the official SDK's own client, over a real socket (SSE)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from decimal import Decimal
from typing import Any

import httpx
from mcp import ClientSession
from mcp.client.sse import sse_client

from fakes.enrichment import EnrichmentFake

TOOLS = {"get_company_details", "get_customer_listing", "get_employee_count", "check_disposable_email",
         "get_credit_balance", "get_company_logo_url", "list_feeds", "create_feed", "describe_feed", "update_feed",
         "delete_feed", "add_target", "update_target", "remove_target", "consume_feed"}


def with_session(fake: EnrichmentFake, key: str, work: Callable[[ClientSession], Awaitable[Any]]) -> Any:
    with fake.serve() as base_url:
        async def main() -> Any:
            async with sse_client(f"{base_url}/mcp/sse?api_key={key}") as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                return await work(session)
        return asyncio.run(main())


def result_json(result: Any) -> Any:
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


def test_tools_are_listed_with_input_schemas_and_called_with_rest_accounting() -> None:
    fake = EnrichmentFake(seed=0)
    key = fake.create_account("sub_299")["api_key"]

    async def work(session: ClientSession) -> dict[str, Any]:
        tools = (await session.list_tools()).tools
        out: dict[str, Any] = {"tools": {t.name: t.input_schema for t in tools}}
        out["details"] = result_json(await session.call_tool("get_company_details", {"website": "stripe.com"}))
        out["again"] = result_json(await session.call_tool("get_company_details", {"website": "www.stripe.com"}))
        out["count"] = result_json(await session.call_tool("get_employee_count", {"website": "stripe.com"}))
        out["listing"] = result_json(await session.call_tool("get_customer_listing",
                                                             {"website": "stripe.com", "page_size": 2}))
        out["disposable"] = result_json(await session.call_tool("check_disposable_email",
                                                                {"email": "a@mailinator.com"}))
        out["logo"] = result_json(await session.call_tool("get_company_logo_url", {"website": "stripe.com"}))
        out["balance"] = result_json(await session.call_tool("get_credit_balance", {}))
        missing = await session.call_tool("get_company_details", {"website": "gone.invalid"})
        out["missing"] = (missing.is_error, missing.content[0].text)
        return out

    out = with_session(fake, key, work)
    assert set(out["tools"]) >= TOOLS
    assert out["tools"]["get_company_details"]["required"] == ["website"]
    assert out["details"]["name"] and out["details"]["credit_cost"] == "3"
    assert out["again"]["credit_cost"] == "0"  # the same lookup inside the cache window, as over REST
    assert out["count"]["credit_cost"] == "2"
    assert out["listing"]["credit_cost"] == "5"  # 1 + 2 per company of the page
    assert out["disposable"]["is_disposable_email"] is True and out["logo"]["logo_url"].endswith("website=stripe.com")
    assert Decimal(str(out["balance"]["credit_balance"])) == 2990 - 3 - 2 - 5
    assert out["missing"][0] is True and '"status": 404' in out["missing"][1]
    tools_used = [e["path"] for e in fake.journal_entries() if e["method"] == "MCP"]
    assert tools_used[:3] == ["/mcp/tools/get_company_details"] * 2 + ["/mcp/tools/get_employee_count"]


def test_feed_tools_and_consume_feed_return_new_items_once() -> None:
    fake = EnrichmentFake(seed=0)
    key = fake.create_account("sub_299")["api_key"]

    async def work(session: ClientSession) -> dict[str, Any]:
        feed = result_json(await session.call_tool("create_feed", {"targets": [{"website_url": "stripe.com"}],
                                                                   "name": "Watch"}))
        target = result_json(await session.call_tool("add_target", {"feed_id": feed["id"],
                                                                    "website_url": "acme.com"}))
        await session.call_tool("update_target", {"feed_id": feed["id"], "target_id": target["id"],
                                                  "settings": {"frequency_days": 1}})
        fake.advance(7 * 86_400)
        first = result_json(await session.call_tool("consume_feed", {"feed_id": feed["id"]}))
        second = result_json(await session.call_tool("consume_feed", {"feed_id": feed["id"]}))
        described = result_json(await session.call_tool("describe_feed", {"feed_id": feed["id"]}))
        listed = result_json(await session.call_tool("list_feeds", {}))
        await session.call_tool("update_feed", {"feed_id": feed["id"], "is_suspended": True,
                                                "suspension_reason": "manual"})
        await session.call_tool("remove_target", {"feed_id": feed["id"], "target_id": target["id"]})
        deleted = result_json(await session.call_tool("delete_feed", {"feed_id": feed["id"]}))
        return {"feed": feed, "first": first, "second": second, "described": described, "listed": listed,
                "deleted": deleted}

    out = with_session(fake, key, work)
    assert out["feed"]["credit_cost"] == "3"
    assert len(out["first"]["items"]) >= 2 and out["second"]["items"] == []
    assert len(out["described"]["targets"]) == 2 and out["listed"]["feeds"][0]["target_count"] == 2
    assert out["deleted"]["message"] == "Feed deleted."


def test_tools_share_the_rest_rate_limits() -> None:
    fake = EnrichmentFake(seed=0)
    key = fake.create_account("trial")["api_key"]

    async def work(session: ClientSession) -> list[bool]:
        return [(await session.call_tool("get_credit_balance", {})).is_error for _ in range(3)]

    assert with_session(fake, key, work) == [False, False, True]
    statuses = [e["status"] for e in fake.journal_entries() if e["path"] == "/mcp/tools/get_credit_balance"]
    assert statuses == [200, 200, 429]


def test_the_stream_is_refused_without_a_valid_key_and_for_foreign_hosts() -> None:
    fake = EnrichmentFake(seed=0)
    key = fake.create_account("trial")["api_key"]
    with fake.serve() as base_url:
        assert httpx.get(f"{base_url}/mcp/sse").status_code == 401
        refused = httpx.get(f"{base_url}/mcp/sse?api_key=wrong")
        assert refused.status_code == 401 and "error" in refused.json()
        assert refused.headers["x-service-credit-cost"] == "0"
        foreign = httpx.get(f"{base_url}/mcp/sse?api_key={key}", headers={"Host": "evil.example"})
        assert foreign.status_code == 421
        lost = httpx.post(f"{base_url}/mcp/messages/?session_id={'0' * 32}", json={})
        assert lost.status_code == 404
    fake.advance(3 * 86_400)
    with fake.serve() as base_url:
        assert httpx.get(f"{base_url}/mcp/sse?api_key={key}").status_code == 403


def test_docker_and_gateway_host_names_are_accepted() -> None:
    fake = EnrichmentFake(seed=0)
    key = fake.create_account("trial")["api_key"]
    with fake.serve() as base_url:
        for host in ("enrichment:8700", "enrichment.localhost:8700", "fakes:8703", "localhost:8703"):
            with httpx.stream("GET", f"{base_url}/mcp/sse?api_key={key}", headers={"Host": host}) as stream:
                assert stream.status_code == 200, host
                first = next(stream.iter_lines())
                assert first.startswith("event: endpoint"), host


def test_mcp_works_under_a_mount_prefix_as_behind_the_gateway() -> None:
    fake = EnrichmentFake(seed=0, prefix="/enrichment")
    key = fake.create_account("sub_49")["api_key"]

    async def work(session: ClientSession) -> Any:
        return result_json(await session.call_tool("get_company_logo_url", {"website": "stripe.com"}))

    logo = with_session(fake, key, work)
    assert "/enrichment/v1/company/logo?website=stripe.com" in logo["logo_url"]


def test_fakes_and_worlds_share_the_tools_but_not_sessions_keys_or_state() -> None:
    """The tool schemas are built once per process; each fake and each world answers with its own
    model, journal and key bindings, even with sessions open on both at once."""
    from fakes.enrichment import mcp_tools

    fake = EnrichmentFake(seed=0)
    world = fake.world("job-1")
    fake.create_account("sub_49", api_key="key-default")
    world.create_account("sub_299", api_key="key-world")
    other = EnrichmentFake(seed=0)
    other.create_account("payg", credits=7, api_key="key-other")
    server = mcp_tools.SERVER

    async def balance(url: str) -> Any:
        async with sse_client(url) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            first = result_json(await session.call_tool("get_credit_balance", {}))
            await asyncio.sleep(0.05)  # let the other sessions open and call meanwhile
            return first, result_json(await session.call_tool("get_company_details", {"website": "stripe.com"}))

    with fake.serve() as base_url, other.serve() as other_url:
        async def main() -> Any:
            return await asyncio.gather(balance(f"{base_url}/mcp/sse?api_key=key-default"),
                                        balance(f"{base_url}/_w/job-1/mcp/sse?api_key=key-world"),
                                        balance(f"{other_url}/mcp/sse?api_key=key-other"))
        default, in_world, in_other = asyncio.run(main())
        # a key is known only where it was made
        assert httpx.get(f"{base_url}/mcp/sse?api_key=key-world").status_code == 401
        assert httpx.get(f"{base_url}/_w/job-1/mcp/sse?api_key=key-default").status_code == 401
        assert httpx.get(f"{other_url}/mcp/sse?api_key=key-default").status_code == 401
    assert [Decimal(str(b[0]["credit_balance"])) for b in (default, in_world, in_other)] == [Decimal(490),
                                                                                              Decimal(2990),
                                                                                              Decimal(7)]
    assert Decimal(str(world.account("key-world")["balance"])) == 2990 - 3
    assert Decimal(str(fake.account("key-default")["balance"])) == 490 - 3
    for each in (fake, world, other):
        assert [e["path"] for e in each.journal_entries() if e["method"] == "MCP"] == [
            "/mcp/tools/get_credit_balance", "/mcp/tools/get_company_details"]
    assert mcp_tools.SERVER is server  # one server for the process


def test_a_fake_builds_no_mcp_server_until_mcp_is_asked() -> None:
    fake = EnrichmentFake(seed=0)
    gate = fake.mcp_app()
    assert fake.client().get("/v1/company/details?website=stripe.com", headers=fake.auth_headers()).status_code == 200
    assert gate._inner is None  # the REST API never touched the SDK
    assert fake.client().post(f"/mcp/messages/?session_id={'0' * 32}", json={}).status_code == 404
    assert gate._inner is not None


def test_a_stream_refused_for_its_host_is_journaled_as_answered_without_an_error_logged(caplog: Any) -> None:
    """Issue 23 item 5: the SDK's own 421 (and 403 for a foreign Origin) reaches the client, nothing is
    logged as an exception, and the journal records what the client got."""
    fake = EnrichmentFake(seed=0)
    key = fake.create_account("sub_299")["api_key"]
    with fake.serve() as base_url:
        host = httpx.get(f"{base_url}/mcp/sse?api_key={key}", headers={"Host": "evil.example"}, timeout=5)
        origin = httpx.get(f"{base_url}/mcp/sse?api_key={key}", headers={"Origin": "http://evil.example"},
                           timeout=5)
    assert (host.status_code, host.text) == (421, "Invalid Host header")
    assert (origin.status_code, origin.text) == (403, "Invalid Origin header")
    assert host.headers["x-service-credit-cost"] == "0"
    assert [e["status"] for e in fake.journal_entries() if e["path"] == "/mcp/sse"] == [421, 403]
    # (asyncio's "Task was destroyed" records are other tests' SSE streams being collected)
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL") and r.name != "asyncio"], \
        caplog.text
