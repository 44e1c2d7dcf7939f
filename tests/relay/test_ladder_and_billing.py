"""The credential ladder (own tool, stored secret, relay's key) and every billing rule, each with
the cost header, the call record and the balance checked."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from fakes.relay import RelayFake, UpstreamRequest, UpstreamResponse

from .conftest import balance

FIND = "/call/mailscout.people.email.find"
FIND_HIT = {"domain": "northwind.com", "first_name": "Ada", "last_name": "Lovelace"}  # the example input
FIND_MISS = {"domain": "nobody.invalid", "first_name": "No", "last_name": "One"}
VERIFY = "/call/mailscout.email.verify"  # per_call $0.003


def _record(client: httpx.Client, response: httpx.Response) -> dict[str, Any]:
    found = client.get(f"/calls/{response.headers['X-Proxy-Call-Id']}")
    assert found.status_code == 200, found.text
    keys = ("call_id", "endpoint_id", "provider", "credential", "status", "cost_micro", "billed", "replayed")
    return {k: found.json()[k] for k in keys}


def _capture(fake: RelayFake, provider: str) -> list[UpstreamRequest]:
    """Put the simulated upstream of ``provider`` behind a recorder."""
    seen: list[UpstreamRequest] = []
    simulated = fake.model.simulated

    def recorder(request: UpstreamRequest) -> UpstreamResponse:
        seen.append(request)
        return simulated.answer(fake.model.entry_for_route(provider, request.method, request.path), provider,
                                request, fake.clock.now_ms())

    fake.register_upstream(provider, recorder)
    return seen


# -- the ladder ---------------------------------------------------------------------------------
def test_rung_three_relay_key_is_billed_at_the_catalogue_price(fake: RelayFake, team: dict[str, Any],
                                                               client: httpx.Client) -> None:
    seen = _capture(fake, "mailscout")
    response = client.get(FIND, params=FIND_HIT)
    assert response.status_code == 200
    assert response.headers["X-Proxy-Cost-Micro"] == "8900"
    assert balance(fake, team) == 1_000_000 - 8_900
    record = _record(client, response)
    assert record == {"call_id": response.headers["X-Proxy-Call-Id"], "endpoint_id": "mailscout.people.email.find",
                      "provider": "mailscout", "credential": "relay_key", "status": 200, "cost_micro": 8900,
                      "billed": True, "replayed": False}
    assert ("authorization", "Bearer relay-key-mailscout") in seen[0].headers


def test_rung_one_own_tool_wins_and_is_never_metered(fake: RelayFake, team: dict[str, Any],
                                                     client: httpx.Client) -> None:
    seen = _capture(fake, "mailscout")
    fake.add_secret(team["team_id"], "mailscout", "sec-2")
    fake.add_tool(team["team_id"], "mailscout", "own-key-1")  # both: the tool wins
    response = client.get(FIND, params=FIND_HIT)
    assert response.status_code == 200
    assert "X-Proxy-Cost-Micro" not in response.headers
    assert balance(fake, team) == 1_000_000
    assert _record(client, response)["credential"] == "own_tool"
    assert _record(client, response)["billed"] is False
    assert ("authorization", "Bearer own-key-1") in seen[0].headers


def test_rung_two_stored_secret_is_injected_and_not_metered(fake: RelayFake, team: dict[str, Any],
                                                            client: httpx.Client) -> None:
    seen = _capture(fake, "mailscout")
    fake.add_secret(team["team_id"], "mailscout", "sec-2")
    response = client.get(FIND, params=FIND_HIT)
    assert response.status_code == 200
    assert "X-Proxy-Cost-Micro" not in response.headers
    assert balance(fake, team) == 1_000_000
    assert _record(client, response)["credential"] == "secret"
    assert ("authorization", "Bearer sec-2") in seen[0].headers


def test_the_token_never_reaches_the_upstream(fake: RelayFake, team: dict[str, Any], client: httpx.Client) -> None:
    seen = _capture(fake, "mailscout")
    client.get(FIND, params=FIND_HIT, headers={"Idempotency-Key": "k", "X-Custom": "kept"})
    names = {name for name, _ in seen[0].headers}
    assert "x-proxy-token" not in names and "idempotency-key" not in names
    assert "x-custom" in names
    assert not any(team["token"] in value for _, value in seen[0].headers)


def test_unpriced_endpoint_is_refused_on_the_relay_key_and_served_on_an_own_key(
        fake: RelayFake, team: dict[str, Any], client: httpx.Client) -> None:
    refused = client.get("/call/profilescope.people.posts.list", params={"profile_url": "https://p.example/in/x"})
    assert refused.status_code == 404
    body = refused.json()
    assert body["error"] == "no_published_price"
    assert "refused, not served free" in body["detail"] and "own key" in body["detail"]
    assert refused.headers["X-Proxy-Error"] == "1" and "X-Proxy-Call-Id" in refused.headers
    assert balance(fake, team) == 1_000_000
    fake.add_tool(team["team_id"], "profilescope", "mine")
    served = client.get("/call/profilescope.people.posts.list", params={"profile_url": "https://p.example/in/x"})
    assert served.status_code == 200
    assert "X-Proxy-Cost-Micro" not in served.headers


def test_routed_capability_picks_the_cheapest_usable_provider(fake: RelayFake, team: dict[str, Any],
                                                              client: httpx.Client) -> None:
    response = client.get("/call/proxy.people.email.find", params=FIND_HIT)
    assert response.headers["X-Proxy-Served-By"] == "mailscout.people.email.find"  # $0.0089 beats $0.012
    assert response.headers["X-Proxy-Cost-Micro"] == "8900"
    fake.add_tool(team["team_id"], "peoplegraph", "own")  # an own key costs the team nothing: it wins
    again = client.get("/call/proxy.people.email.find", params=FIND_HIT)
    assert again.headers["X-Proxy-Served-By"] == "peoplegraph.people.email.find"
    assert "X-Proxy-Cost-Micro" not in again.headers


# -- billing rules ------------------------------------------------------------------------------
@pytest.mark.parametrize(("path", "params", "price"), [
    ("/call/mailscout.people.email.find", FIND_HIT, 8_900),
    ("/call/mailscout.email.verify", {"email": "ada@northwind.com"}, 3_000),
    ("/call/peoplegraph.people.match.email", FIND_HIT, 26_000),
    ("/call/peoplegraph.people.enrich", {"email": "ada.lovelace@northwind.com"}, 28_000),
    ("/call/firmdata.companies.enrich", {"domain": "northwind.com"}, 10_000),
    ("/call/firmdata.companies.people.list", {"domain": "northwind.com"}, 25_000),
    ("/call/firmdata.companies.lookalikes.search", {"domain": "northwind.com"}, 49_000),
    ("/call/jobsignal.companies.jobs.list", {"domain": "northwind.com"}, 20_000),
    ("/call/profilescope.people.email.from-profile",
     {"profile_url": "https://profiles.example/in/ada-lovelace"}, 19_000),
])
def test_the_seed_rate_table_is_billed_exactly(fake: RelayFake, team: dict[str, Any], client: httpx.Client,
                                               path: str, params: dict[str, str], price: int) -> None:
    response = client.get(path, params=params)
    assert response.status_code == 200, response.text
    assert response.headers["X-Proxy-Cost-Micro"] == str(price)
    assert balance(fake, team) == 1_000_000 - price


def test_a_lookup_that_finds_nothing_is_free(fake: RelayFake, team: dict[str, Any], client: httpx.Client) -> None:
    response = client.get(FIND, params=FIND_MISS)
    assert response.status_code == 404  # the upstream's own "no match", verbatim
    assert response.headers["X-Proxy-Cost-Micro"] == "0"
    assert _record(client, response)["billed"] is False
    empty = client.get("/call/firmdata.companies.people.list", params={"domain": "nobody.invalid"})
    assert empty.status_code == 200 and empty.json()["results"] == []
    assert empty.headers["X-Proxy-Cost-Micro"] == "0"  # even per_call: a miss is free
    assert balance(fake, team) == 1_000_000


def test_per_result_bills_the_rows_returned(fake: RelayFake, team: dict[str, Any], client: httpx.Client) -> None:
    response = client.get("/call/profilescope.companies.employees.list", params={"domain": "northwind.com",
                                                                                 "limit": "3"})
    rows = len(response.json()["results"])
    assert 1 <= rows <= 3
    assert response.headers["X-Proxy-Cost-Micro"] == str(2_000 * rows)
    assert balance(fake, team) == 1_000_000 - 2_000 * rows


@pytest.mark.parametrize("status", [500, 502, 503, 401, 402, 403, 405, 407, 408, 429])
def test_upstream_errors_and_refusals_are_relayed_verbatim_and_not_billed(
        fake: RelayFake, team: dict[str, Any], client: httpx.Client, status: int) -> None:
    response = client.get(VERIFY, params={"email": f"fail-{status}@northwind.com"})
    assert response.status_code == status
    assert "X-Proxy-Error" not in response.headers  # the upstream's answer, not the relay's
    assert response.headers["X-Proxy-Cost-Micro"] == "0"
    if status >= 500:
        assert response.headers["content-type"].startswith("text/plain")  # a bare 5xx, no JSON detail
    assert balance(fake, team) == 1_000_000


def test_other_upstream_4xx_on_a_per_call_entry_is_billed(fake: RelayFake, team: dict[str, Any],
                                                          client: httpx.Client) -> None:
    response = client.get(VERIFY, params={"email": "fail-400@northwind.com"})
    assert response.status_code == 400
    assert response.headers["X-Proxy-Cost-Micro"] == "3000"


def test_upstream_timeout_is_the_relays_504_and_not_billed(fake: RelayFake, team: dict[str, Any],
                                                           client: httpx.Client) -> None:
    response = client.get(VERIFY, params={"email": "fail-timeout@northwind.com"})
    assert response.status_code == 504
    assert response.json()["error"] == "upstream_timeout" and response.json()["detail"]
    assert "X-Proxy-Cost-Micro" not in response.headers
    assert balance(fake, team) == 1_000_000


def test_dropped_connection_of_a_registered_upstream_is_not_billed(fake: RelayFake, team: dict[str, Any],
                                                                   client: httpx.Client) -> None:
    def broken(request: UpstreamRequest) -> UpstreamResponse:
        raise ConnectionResetError("peer went away")

    fake.register_upstream("mailscout", broken)
    response = client.get(VERIFY, params={"email": "ada@northwind.com"})
    assert response.status_code == 502 and "detail" in response.json()
    assert balance(fake, team) == 1_000_000
    assert fake.team_info(team["team_id"])["holds_micro"] == 0


def test_upstream_rate_limit_is_relayed_with_its_headers(team: dict[str, Any]) -> None:
    fake = RelayFake(upstream_rate_limit=2)
    token = fake.create_team()["token"]
    with fake.client(headers={"X-Proxy-Token": token}) as http:
        answers = [http.get(VERIFY, params={"email": "ada@northwind.com"}) for _ in range(3)]
        assert [a.status_code for a in answers] == [200, 200, 429]
        assert answers[2].headers["Retry-After"] == "60"
        assert answers[2].headers["X-RateLimit-Remaining"] == "0"
        assert answers[2].headers["X-Proxy-Cost-Micro"] == "0"
        fake.advance(60)
        assert http.get(VERIFY, params={"email": "ada@northwind.com"}).status_code == 200


def test_url_passthrough_resolves_the_host_to_its_provider(fake: RelayFake, team: dict[str, Any],
                                                           client: httpx.Client) -> None:
    response = client.get("/call/https://api.mailscout.example/v1/email/verify", params={"email": "a@northwind.com"})
    assert response.status_code == 200
    assert response.headers["X-Proxy-Cost-Micro"] == "3000"
    assert _record(client, response)["endpoint_id"] == "mailscout.email.verify"
    unknown = client.get("/call/https://api.elsewhere.test/v1/x")
    assert unknown.status_code == 404 and unknown.json()["error"] == "unknown_upstream_host"
    assert "X-Proxy-Call-Id" in unknown.headers
    uncatalogued = client.get("/call/https://api.mailscout.example/v9/secret")
    assert uncatalogued.status_code == 404 and uncatalogued.json()["error"] == "no_published_price"
    fake.add_tool(team["team_id"], "mailscout", "k")
    own = client.get("/call/https://api.mailscout.example/v9/secret")
    assert own.status_code == 404 and own.json()["error"] == "not_found"  # now the upstream's own 404
    assert "X-Proxy-Error" not in own.headers


def test_the_sample_request_is_never_rate_limited_while_other_teams_keep_the_limit() -> None:
    fake = RelayFake(upstream_rate_limit=2)
    method, path = fake.sample_request()
    with fake.client(headers=fake.auth_headers()) as http:
        assert {http.request(method, path).status_code for _ in range(20)} == {200}  # at one virtual instant
    other = fake.create_team()["token"]
    with fake.client(headers={"X-Proxy-Token": other}) as http:  # the benchmark team's calls were not counted
        assert [http.request(method, path).status_code for _ in range(3)] == [200, 200, 429]
    exported = fake.export_state()
    restored = RelayFake(upstream_rate_limit=2)
    restored.import_state(exported)  # the lift is the team's own state: it survives export and import
    assert restored.export_state() == exported
    with restored.client(headers=fake.auth_headers()) as http:
        assert {http.request(method, path).status_code for _ in range(5)} == {200}
    assert fake.settings.upstream_rate_limit == 2
