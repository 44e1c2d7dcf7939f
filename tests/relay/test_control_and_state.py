"""The control plane over HTTP (teams, tools, secrets, top-ups, upstreams, saturation, catalogue
additions), another served fake as an upstream, and state export/import/reset."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from fakes import registry
from fakes.member_export import MemberExportFake
from fakes.relay import RelayFake


@pytest.fixture
def control(fake: RelayFake) -> httpx.Client:
    return fake.client()


def test_teams_tools_secrets_topup_and_ledger(fake: RelayFake, control: httpx.Client) -> None:
    created = control.post("/_fake/teams", json={"balance_micro": 5_000})
    assert created.status_code == 201
    team = created.json()
    assert team["balance_micro"] == 5_000 and team["token"].startswith("proxy_")
    assert control.post("/_fake/teams", json={}).json()["balance_micro"] == 1_000_000
    tid = team["team_id"]
    assert control.post(f"/_fake/teams/{tid}/tools", json={"provider": "mailscout", "key": "k"}).status_code == 201
    assert control.post(f"/_fake/teams/{tid}/secrets", json={"provider": "firmdata", "secret": "s"}).status_code == 201
    topped = control.post(f"/_fake/teams/{tid}/topup", json={"amount_micro": 20_000})
    assert topped.status_code == 200 and topped.json()["balance_micro"] == 25_000
    with fake.client(headers={"X-Proxy-Token": team["token"]}) as http:
        http.get("/call/jobsignal.companies.jobs.list", params={"domain": "northwind.com"})
    info = control.get(f"/_fake/teams/{tid}").json()
    assert info["tools"] == ["mailscout"] and info["secrets"] == ["firmdata"]
    assert [row["kind"] for row in info["ledger"]] == ["grant", "topup", "call"]
    assert info["ledger"][-1]["amount_micro"] == -20_000 and info["balance_micro"] == 5_000


@pytest.mark.parametrize(("path", "body", "status"), [
    ("/_fake/teams", {"balance_micro": -1}, 400),
    ("/_fake/teams", {"balance_micro": 1.5}, 400),
    ("/_fake/teams", {"colour": "red"}, 400),
    ("/_fake/teams/team_99/tools", {"provider": "mailscout", "key": "k"}, 404),
    # the team exists: a 404 would say it does not (issue 32 item 6, schemathesis's stateful phase)
    ("/_fake/teams/team_1/tools", {"provider": "nope", "key": "k"}, 409),
    ("/_fake/teams/team_1/secrets", {"provider": "nope", "secret": "s"}, 409),
    ("/_fake/teams/team_1/tools", {"provider": "mailscout"}, 400),
    ("/_fake/teams/team_1/topup", {"amount_micro": 0}, 400),
    ("/_fake/upstreams", {"provider": "mailscout"}, 400),
    ("/_fake/upstreams", {"provider": "mailscout", "responses": []}, 400),
    ("/_fake/upstreams", {"provider": "mailscout", "responses": [{"status": 99}]}, 400),
    ("/_fake/upstreams", {"provider": "mailscout", "fake": "nothing-served"}, 404),
    ("/_fake/providers", {"provider": "Bad Name"}, 400),
    ("/_fake/providers", {"provider": "mailscout"}, 409),
    ("/_fake/catalog/entries", {"id": "nope.a.b", "path": "/x"}, 404),
    ("/_fake/catalog/entries", {"id": "mailscout.x.y", "path": "x"}, 400),
])
def test_bad_control_bodies_are_refused_and_change_nothing(fake: RelayFake, control: httpx.Client, path: str,
                                                           body: dict[str, Any], status: int) -> None:
    fake.create_team()
    before = fake.export_state()
    response = control.post(path, json=body)
    assert response.status_code == status, response.text
    assert response.json()["error"] and response.json()["message"]
    assert fake.export_state() == before


def test_canned_upstream_table_answers_verbatim(fake: RelayFake, team: dict[str, Any], control: httpx.Client) -> None:
    table = [{"method": "GET", "path": "/v1/companies/enrich", "status": 200, "headers": {"X-Upstream": "canned"},
              "body": {"name": "Canned Co", "domain": "canned.example"}},
             {"method": "*", "path": "*", "status": 503, "body": "down for maintenance"}]
    assert control.post("/_fake/upstreams", json={"provider": "firmdata", "responses": table}).status_code == 201
    with fake.client(headers={"X-Proxy-Token": team["token"]}) as http:
        hit = http.get("/call/firmdata.companies.enrich", params={"domain": "anything.com"})
        down = http.get("/call/firmdata.companies.people.list", params={"domain": "anything.com"})
    assert hit.json() == {"name": "Canned Co", "domain": "canned.example"}
    assert hit.headers["X-Upstream"] == "canned" and hit.headers["X-Proxy-Cost-Micro"] == "10000"
    assert down.status_code == 503 and down.text == "down for maintenance"
    assert down.headers["X-Proxy-Cost-Micro"] == "0"


def test_another_served_fake_stands_behind_a_provider(fake: RelayFake, team: dict[str, Any],
                                                      control: httpx.Client, monkeypatch: pytest.MonkeyPatch) -> None:
    neighbour = MemberExportFake(seed=0)
    monkeypatch.setitem(registry.LIVE_FAKES, "member-export", neighbour)
    assert control.post("/_fake/providers", json={"provider": "dma", "host": "api.dma.example"}).status_code == 201
    assert control.post("/_fake/catalog/entries", json={
        "id": "dma.health.get", "method": "GET", "path": "/_fake/health", "params": {},
        "cost": {"type": "per_call", "value": 1_500}}).status_code == 201
    assert control.post("/_fake/upstreams", json={"provider": "dma", "fake": "member-export"}).status_code == 201
    with fake.client(headers={"X-Proxy-Token": team["token"]}) as http:
        answer = http.get("/call/dma.health.get")
        by_url = http.get("/call/https://api.dma.example/_fake/health")
    assert answer.status_code == 200 and answer.json() == {"service": "member-export", "status": "ok"}
    assert answer.headers["X-Proxy-Cost-Micro"] == "1500"
    assert by_url.json()["service"] == "member-export"


def test_python_asgi_upstream(fake: RelayFake, team: dict[str, Any]) -> None:
    neighbour = MemberExportFake(seed=0)
    fake.register_upstream("jobsignal", app=neighbour.app)
    with fake.client(headers={"X-Proxy-Token": team["token"]}) as http:
        answer = http.get("/call/https://api.jobsignal.example/_fake/clock")
    assert answer.status_code == 404  # uncatalogued path on the relay key: no published price
    fake.add_tool(team["team_id"], "jobsignal", "own")
    with fake.client(headers={"X-Proxy-Token": team["token"]}) as http:
        answer = http.get("/call/https://api.jobsignal.example/_fake/clock")
    assert answer.status_code == 200 and answer.json()["mode"] == "manual"


def test_saturation_over_http(fake: RelayFake, control: httpx.Client) -> None:
    assert control.put("/_fake/saturation", json={"saturated": True, "retry_after_s": 3}).json()["saturated"] is True
    assert control.put("/_fake/saturation", json={"saturated": "yes"}).status_code == 400
    assert control.put("/_fake/saturation", json={"max_in_flight": -1}).status_code == 400
    assert control.get("/_fake/saturation").json()["retry_after_s"] == 3


def test_state_round_trip_and_reset(fake: RelayFake, team: dict[str, Any], client: httpx.Client) -> None:
    client.get("/call/firmdata.companies.enrich", params={"domain": "northwind.com"},
               headers={"Idempotency-Key": "k"})
    fake.register_canned_upstream("mailscout", [{"status": 200, "body": {"ok": True}}])
    fake.add_provider(provider="extra")
    state = fake.export_state()
    fresh = RelayFake(seed=0)
    fresh.import_state(state)
    assert fresh.export_state()["model"] == state["model"]
    with fresh.client(headers={"X-Proxy-Token": team["token"]}) as http:
        replay = http.get("/call/firmdata.companies.enrich", params={"domain": "northwind.com"},
                          headers={"Idempotency-Key": "k"})
        assert replay.headers["X-Proxy-Idempotent-Replay"] == "true"
        assert http.get("/call/mailscout.email.verify", params={"email": "a@b.c"}).json() == {"ok": True}
    assert fresh.team_info(team["team_id"])["balance_micro"] == 990_000 - 3_000
    with pytest.raises(Exception, match="invalid state"):
        fresh.import_state({**state, "model": {**state["model"], "teams": [{"team_id": 5}]}})
    fake.reset()
    assert fake.model.teams == {}
    with fake.client(headers={"X-Proxy-Token": team["token"]}) as http:
        assert http.get("/balance").status_code == 401


def test_serve_prints_a_team_token_with_one_dollar(fake: RelayFake) -> None:
    demo = fake.demo_credentials()
    assert demo["balance"].startswith("$1.00")
    with fake.client(headers={"X-Proxy-Token": demo["token"]}) as http:
        assert http.get("/balance").json()["balance_micro"] == 1_000_000
    assert fake.demo_credentials() == demo  # one demo team per model


@pytest.mark.parametrize("change", ["call_seq_huge", "call_seq_negative", "record_after_call_seq"])
def test_imported_call_numbers_that_later_calls_could_not_record_are_refused(change: str) -> None:
    """Call records live in the slot of their call number: a state whose numbers a later call could
    not record (past the ids' 10 hex digits, negative, a record after ``call_seq``) is a 400 at import,
    never a 500 or a lost record later."""
    fake = RelayFake(seed=0)
    team = fake.create_team()
    with fake.client(headers={"X-Proxy-Token": team["token"]}) as http:
        http.get("/call/firmdata.companies.enrich", params={"domain": "northwind.com"})
        state = http.get("/_fake/state").json()
    model = state["model"]
    if change == "call_seq_huge":
        model["call_seq"] = 2**63 - 1
    elif change == "call_seq_negative":
        model["call_seq"] = -5
    else:
        model["calls"].append({**model["calls"][0], "call_id": fake.model.calls.id_prefix + "ffffffffff"})
    fresh = RelayFake(seed=0)
    with fresh.client() as http:
        answer = http.put("/_fake/state", json=state)
        assert answer.status_code == 400 and answer.json()["error"] == "invalid_state"
        model.update(call_seq=1, calls=model["calls"][:1])  # the same state, made consistent, imports
        assert http.put("/_fake/state", json=state).status_code == 200
        call = http.get("/call/firmdata.companies.enrich", params={"domain": "northwind.com"},
                        headers={"X-Proxy-Token": team["token"]})
        record = http.get(f"/calls/{call.headers['X-Proxy-Call-Id']}", headers={"X-Proxy-Token": team["token"]})
        assert call.status_code == 200 and record.status_code == 200


def test_a_new_team_never_takes_an_imported_teams_id_or_token() -> None:
    fake = RelayFake(seed=0)
    first = fake.create_team()
    state = fake.model.to_state()
    state["team_seq"] = 0  # behind the imported team_1
    fresh = RelayFake(seed=0)
    fresh.model.load_state(state)
    made = fresh.create_team()
    assert made["team_id"] == "team_2" and made["token"] != first["token"]
    assert fresh.team_info("team_1")["balance_micro"] == 1_000_000
