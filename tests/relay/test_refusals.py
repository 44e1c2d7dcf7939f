"""The relay's own refusals: 402 and 503 bodies and headers exactly, the web firewall's 403 and
the base64 remedy, bad input (always a 4xx with ``detail``), and the renamed headers."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

import httpx
import pytest

from fakes.relay import RelayFake, UpstreamRequest, UpstreamResponse

from .conftest import balance

ENRICH = "/call/firmdata.companies.enrich"
ALERT = "/call/jobsignal.alerts.create"  # a POST entry, per_call $0.001


def test_402_body_and_headers_exactly(fake: RelayFake) -> None:
    team = fake.create_team(balance_micro=5_000)
    with fake.client(headers={"X-Proxy-Token": team["token"]}) as http:
        response = http.get(ENRICH, params={"domain": "northwind.com"})
    assert response.status_code == 402
    body = response.json()
    assert set(body) == {"detail", "error", "balance_micro", "estimated_cost_micro", "topup_url"}
    assert body["error"] == "insufficient_balance"
    assert body["balance_micro"] == 5_000 and body["estimated_cost_micro"] == 10_000
    assert body["topup_url"] == "/app#billing"
    assert isinstance(body["detail"], str) and "$0.0100" in body["detail"] and "$0.0050" in body["detail"]
    assert response.headers["X-Proxy-Error"] == "1"
    assert response.headers["X-Proxy-Call-Id"].startswith("call_")
    assert response.headers["content-type"] == "application/json"
    assert "X-Proxy-Cost-Micro" not in response.headers
    assert balance(fake, team) == 5_000  # nothing billed


def test_402_forwards_nothing(fake: RelayFake) -> None:
    seen: list[UpstreamRequest] = []
    fake.register_upstream("firmdata", lambda r: seen.append(r) or UpstreamResponse(200, [], b"{}"))
    team = fake.create_team(balance_micro=0)
    with fake.client(headers={"X-Proxy-Token": team["token"]}) as http:
        assert http.get(ENRICH, params={"domain": "northwind.com"}).status_code == 402
    assert seen == []


def test_402_nested_under_detail_as_the_real_service() -> None:
    fake = RelayFake(error_envelope="detail")
    team = fake.create_team(balance_micro=1)
    with fake.client(headers={"X-Proxy-Token": team["token"]}) as http:
        body = http.get(ENRICH, params={"domain": "northwind.com"}).json()
    assert set(body) == {"detail"}
    assert body["detail"]["error"] == "insufficient_balance"
    assert body["detail"]["balance_micro"] == 1 and body["detail"]["estimated_cost_micro"] == 10_000
    assert body["detail"]["topup_url"] == "/app#billing" and body["detail"]["message"]


def test_503_switch_body_and_retry_after_exactly(fake: RelayFake, team: dict[str, Any],
                                                 client: httpx.Client) -> None:
    fake.set_saturation(saturated=True, retry_after_s=7)
    response = client.get(ENRICH, params={"domain": "northwind.com"})
    assert response.status_code == 503
    body = response.json()
    assert set(body) == {"proxy_saturated", "detail", "retry_after_s"}
    assert body["proxy_saturated"] is True and body["retry_after_s"] == 7 and body["detail"]
    assert response.headers["Retry-After"] == "7"
    assert response.headers["X-Proxy-Error"] == "1" and "X-Proxy-Call-Id" in response.headers
    assert "X-Proxy-Cost-Micro" not in response.headers
    assert balance(fake, team) == 1_000_000
    fake.set_saturation(saturated=False)
    assert client.get(ENRICH, params={"domain": "northwind.com"}).status_code == 200


def test_503_from_calls_per_second_on_the_clock(fake: RelayFake, team: dict[str, Any], client: httpx.Client) -> None:
    fake.set_saturation(max_per_second=3)
    statuses = [client.get(ENRICH, params={"domain": "northwind.com"}).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 503]
    fake.advance(1)
    assert client.get(ENRICH, params={"domain": "northwind.com"}).status_code == 200
    assert balance(fake, team) == 1_000_000 - 4 * 10_000


def test_503_from_calls_in_flight(fake: RelayFake, team: dict[str, Any]) -> None:
    asyncio.run(_in_flight(fake, team))


async def _in_flight(fake: RelayFake, team: dict[str, Any]) -> None:
    release = asyncio.Event()

    async def slow(request: UpstreamRequest) -> UpstreamResponse:
        await release.wait()
        return UpstreamResponse(200, [("content-type", "application/json")], b'{"name": "x"}')

    fake.register_upstream("firmdata", slow)
    fake.set_saturation(max_in_flight=2)
    async with fake.async_client(headers={"X-Proxy-Token": team["token"]}) as http:
        first = [asyncio.create_task(http.get(ENRICH, params={"domain": "northwind.com"})) for _ in range(2)]
        await asyncio.sleep(0.05)
        third = await http.get(ENRICH, params={"domain": "northwind.com"})
        release.set()
        assert [r.status_code for r in await asyncio.gather(*first)] == [200, 200]
    assert third.status_code == 503 and "in flight" in third.json()["detail"]


def test_default_thresholds_take_20_calls_at_one_instant(fake: RelayFake, team: dict[str, Any]) -> None:
    asyncio.run(_twenty_at_once(fake, team))


async def _twenty_at_once(fake: RelayFake, team: dict[str, Any]) -> None:
    async with fake.async_client(headers={"X-Proxy-Token": team["token"]}) as http:
        answers = await asyncio.gather(*[http.get(ENRICH, params={"domain": "northwind.com"}) for _ in range(20)])
    assert {a.status_code for a in answers} == {200}


@pytest.mark.parametrize("body", [b"SELECT name FROM users WHERE id = 1", b"<script>alert(1)</script>",
                                  b'{"q": "1 UNION SELECT password"}', b"<html><body>hi</body></html>"])
def test_firewall_blocks_sql_or_html_with_an_html_page_and_no_relay_headers(
        fake: RelayFake, team: dict[str, Any], client: httpx.Client, body: bytes) -> None:
    response = client.post(ALERT, params={"domain": "northwind.com"}, content=body)
    assert response.status_code == 403
    assert response.headers["content-type"].startswith("text/html")
    assert response.text.lstrip().lower().startswith("<!doctype html>")
    assert not [name for name in response.headers if name.lower().startswith("x-proxy")]
    assert balance(fake, team) == 1_000_000
    assert len(fake.model.calls) == 0  # the relay never saw it


def test_base64_body_passes_the_firewall_and_reaches_the_upstream_decoded(
        fake: RelayFake, team: dict[str, Any], client: httpx.Client) -> None:
    seen: list[bytes] = []

    def upstream(request: UpstreamRequest) -> UpstreamResponse:
        seen.append(request.body)
        return UpstreamResponse(201, [("content-type", "application/json")], b'{"id": "a1"}')

    fake.register_upstream("jobsignal", upstream)
    sql = b"SELECT name FROM users WHERE id = 1"
    response = client.post(ALERT, params={"domain": "northwind.com"}, content=base64.b64encode(sql),
                           headers={"X-Proxy-Body-Encoding": "base64"})
    assert response.status_code == 201
    assert seen == [sql]
    assert response.headers["X-Proxy-Cost-Micro"] == "1000"


@pytest.mark.parametrize("encoded", [b"not base64!!", b"QUJ", b"%%%"])
def test_malformed_base64_is_400(fake: RelayFake, team: dict[str, Any], client: httpx.Client, encoded: bytes) -> None:
    response = client.post(ALERT, params={"domain": "northwind.com"}, content=encoded,
                           headers={"X-Proxy-Body-Encoding": "base64"})
    assert response.status_code == 400
    assert "X-Proxy-Body-Encoding" in response.json()["detail"]
    assert response.headers["X-Proxy-Error"] == "1" and "X-Proxy-Call-Id" in response.headers
    assert balance(fake, team) == 1_000_000


def test_unknown_body_encoding_is_400(client: httpx.Client) -> None:
    response = client.post(ALERT, params={"domain": "northwind.com"}, content=b"x",
                           headers={"X-Proxy-Body-Encoding": "rot13"})
    assert response.status_code == 400


def test_missing_token_unknown_id_and_missing_parameter(fake: RelayFake, client: httpx.Client) -> None:
    with fake.client() as anonymous:
        no_token = anonymous.get(ENRICH, params={"domain": "northwind.com"})
    assert no_token.status_code == 401 and "X-Proxy-Token" in no_token.json()["detail"]
    assert "X-Proxy-Call-Id" in no_token.headers
    unknown = client.get("/call/mailscout.people.email.fnd")
    assert unknown.status_code == 404
    assert unknown.json()["error"] == "unknown_endpoint"
    assert "mailscout.people.email.find" in unknown.json()["did_you_mean"]
    missing = client.get("/call/mailscout.people.email.find", params={"domain": "northwind.com"})
    assert missing.status_code == 400
    assert missing.json()["detail"] == "mailscout.people.email.find requires --query first_name=<value>"


@pytest.mark.parametrize("path", ["/call/", "/call/%00", "/call/%2e%2e", "/call/http://", "/call/https:/",
                                  "/call/" + "a." * 500, "/call/http://[::1", "/catalog/endpoints/%ff",
                                  "/calls/x", "/catalog/search?limit=0", "/catalog/search?limit=abc",
                                  "/orgs/99/balance", "/orgs/1/balance?limit=abc", "/tools/nope", "/tools/nope.md"])
def test_bad_input_is_a_4xx_with_detail_never_a_5xx(client: httpx.Client, path: str) -> None:
    for method in ("GET", "POST"):
        response = client.request(method, path, content=b"\xff\xfe")
        assert 400 <= response.status_code < 500, (method, path, response.status_code, response.text)
        if response.headers.get("content-type", "").startswith("application/json"):
            assert "detail" in response.json()


def test_header_prefix_renames_every_relay_header() -> None:
    fake = RelayFake(header_prefix="X-Treg")
    team = fake.create_team()
    with fake.client(headers={"X-Treg-Token": team["token"]}) as http:
        response = http.get("/call/treg.people.email.find",
                            params={"domain": "northwind.com", "first_name": "Ada", "last_name": "Lovelace"})
        assert response.status_code == 200
        assert response.headers["X-Treg-Cost-Micro"] == "8900"
        assert response.headers["X-Treg-Served-By"] == "mailscout.people.email.find"
        assert response.headers["X-Treg-Call-Id"].startswith("call_")
        assert not [name for name in response.headers if name.lower().startswith("x-proxy")]
        replay = [http.get("/call/mailscout.email.verify", params={"email": "a@northwind.com"},
                           headers={"Idempotency-Key": "k"}) for _ in range(2)][1]
        assert replay.headers["X-Treg-Idempotent-Replay"] == "true"
        assert http.get("/call/firmdata.companies.enrich", headers={"X-Proxy-Token": team["token"]}
                        ).headers["X-Treg-Error"] == "1"
    with fake.client(headers={"X-Proxy-Token": team["token"]}) as http:
        assert http.get("/call/firmdata.companies.enrich", params={"domain": "northwind.com"}).status_code == 401


def test_documented_5xx_are_deliberate_and_nothing_else_is(fake: RelayFake, team: dict[str, Any],
                                                          client: httpx.Client) -> None:
    """What the invariant harness accepts as a 5xx: the saturation 503, the relay's own 502/504 and
    an upstream's own 5xx passed on; never the kernel's safety-net 500 or a 4xx refusal."""
    def deliberate(response: httpx.Response) -> bool:
        return fake.deliberate_5xx(response.status_code, response.headers, response.content)

    fake.set_saturation(saturated=True)
    saturated = client.get(ENRICH, params={"domain": "northwind.com"})
    assert saturated.status_code == 503 and deliberate(saturated)
    fake.set_saturation(saturated=False)
    timed_out = client.get(ENRICH, params={"domain": "fail-timeout.example"})
    assert timed_out.status_code == 504 and deliberate(timed_out)
    upstream_500 = client.get(ENRICH, params={"domain": "fail-500.example"})
    assert upstream_500.status_code == 500 and "X-Proxy-Error" not in upstream_500.headers
    assert deliberate(upstream_500)

    def broken(request: UpstreamRequest) -> UpstreamResponse:
        raise RuntimeError("the user's upstream is broken")

    fake.register_upstream("firmdata", broken)
    failed = client.get(ENRICH, params={"domain": "northwind.com"})
    assert failed.status_code == 502 and deliberate(failed)
    assert not fake.deliberate_5xx(500, {"content-type": "application/json"},
                                   b'{"detail": "internal error in the fake", "error": "internal"}')
    refused = client.get(ENRICH)  # missing parameter: a 400 of the relay's own
    assert refused.status_code == 400
    assert not fake.deliberate_5xx(503, {"X-Proxy-Call-Id": "c", "X-Proxy-Error": "1"}, b'{"detail": "x"}')


def test_an_awaited_upstream_holds_the_estimate_and_a_simulated_call_holds_nothing(
        fake: RelayFake, team: dict[str, Any]) -> None:
    asyncio.run(_holds(fake, team))


async def _holds(fake: RelayFake, team: dict[str, Any]) -> None:
    release = asyncio.Event()

    async def slow(request: UpstreamRequest) -> UpstreamResponse:
        await release.wait()
        return UpstreamResponse(200, [("content-type", "application/json")], b'{"name": "x"}')

    async with fake.async_client(headers={"X-Proxy-Token": team["token"]}) as http:
        simulated = await http.get(ENRICH, params={"domain": "northwind.com"})  # answered at once
        assert simulated.status_code == 200 and fake.team_info(team["team_id"])["holds_micro"] == 0
        assert balance(fake, team) == 1_000_000 - 10_000
        fake.register_upstream("firmdata", slow)
        pending = asyncio.create_task(http.get(ENRICH, params={"domain": "northwind.com"}))
        await asyncio.sleep(0.05)
        held = fake.team_info(team["team_id"])
        assert held["holds_micro"] == 10_000 and held["balance_micro"] == 1_000_000 - 10_000
        assert fake.model.saturation.in_flight == 1
        release.set()
        assert (await pending).status_code == 200
    after = fake.team_info(team["team_id"])
    assert after["holds_micro"] == 0 and after["balance_micro"] == 1_000_000 - 20_000
    assert fake.model.saturation.in_flight == 0


def test_amounts_a_ledger_cannot_keep_are_refused_before_anything_changes(fake: RelayFake) -> None:
    """Balances and amounts live in 64-bit ledger arrays: anything past 2**62 micro-USD is refused
    where it comes in (Python API, imported state, settings), never by a later call."""
    from fakes.kernel.settings import SettingsError
    from fakes.relay.ledger import MAX_AMOUNT

    team = fake.create_team()
    teams_before = len(fake.model.teams)
    with pytest.raises(ValueError, match="under"):
        fake.create_team(balance_micro=MAX_AMOUNT)
    assert len(fake.model.teams) == teams_before and fake.model.team_seq == teams_before
    with pytest.raises(ValueError, match="top-up"):
        fake.topup(team["team_id"], MAX_AMOUNT - 1)
    assert balance(fake, team) == 1_000_000 and len(fake.model.team(team["team_id"]).ledger) == 1
    with pytest.raises(SettingsError, match="start_balance_micro"):
        RelayFake(overrides={"start_balance_micro": str(10**12 + 1)})


def test_an_upstream_answering_an_impossible_status_is_the_relays_502(fake: RelayFake) -> None:
    team = fake.create_team()
    fake.register_upstream("firmdata", lambda request: UpstreamResponse(10**20, [], b"{}"))
    with fake.client(headers={"X-Proxy-Token": team["token"]}) as http:
        response = http.get(ENRICH, params={"domain": "northwind.com"})
    assert response.status_code == 502 and response.json()["error"] == "upstream_failed"
    assert balance(fake, team) == 1_000_000
