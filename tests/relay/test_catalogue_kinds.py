"""Catalogue pages say what treg's say (its package's ``domain/catalog/store.py`` ``endpoint_view``
and ``cost_view``, ``routers/call.py`` ``_attach_async_descriptor``): the asynchronous entry's page
and its submission's ``X-Treg-Async`` carry treg's static ``async`` descriptor, which the official
client's ``treg call --await`` follows; a $0 trial-pool entry's price carries
``trial_calls_per_team_day``; a retired entry's page shows its status and search leaves it out. The
control plane makes entries of each kind."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from fakes.relay import RelayFake

from .test_official_cli import _treg, cli


@pytest.fixture
def fake() -> RelayFake:
    return RelayFake(seed=0, header_prefix="X-Treg", trial_allowance=2)


def _page(http: httpx.Client, entry_id: str) -> dict[str, Any]:
    answer = http.get(f"/catalog/endpoints/{entry_id}")
    assert answer.status_code == 200, answer.text
    endpoint: dict[str, Any] = answer.json()["endpoint"]
    return endpoint


def test_the_async_entry_carries_treg_s_descriptor_on_its_page_and_in_x_treg_async(fake: RelayFake) -> None:
    team = fake.create_team()
    with fake.client(headers={"X-Treg-Token": team["token"]}) as http:
        descriptor = _page(http, "firmdata.reports.create")["async"]
        assert descriptor["id_from"] == "task_id"
        assert descriptor["poll"] == {"endpoint": "firmdata.reports.get", "param": {"in": "queryParams",
                                                                                    "name": "task_id"}}
        assert descriptor["status"]["path"] == "status" and descriptor["status"]["success"] == ["complete"]
        assert descriptor["result"] == {"path": "result"}
        assert _page(http, "firmdata.companies.enrich")["async"] is None
        submitted = http.post("/call/firmdata.reports.create", params={"domain": "northwind.com"})
        assert submitted.status_code == 202
        assert json.loads(submitted.headers["X-Treg-Async"]) == descriptor
        task_id = submitted.json()[descriptor["id_from"]]  # what --await reads, the way it reads it
        fake.advance(fake.model.settings.async_task_s)
        poll = descriptor["poll"]
        done = http.get(f"/call/{poll['endpoint']}", params={poll["param"]["name"]: task_id})
        assert done.json()[descriptor["status"]["path"]] in descriptor["status"]["success"]


def test_a_trial_pool_price_carries_its_daily_allowance(fake: RelayFake) -> None:
    with fake.client() as http:
        assert _page(http, "quotely.stocks.quote.get")["cost"]["trial_calls_per_team_day"] == 2
        assert "trial_calls_per_team_day" not in _page(http, "firmdata.companies.enrich")["cost"]
        listed = http.get("/catalog/search", params={"q": "stock quote"}).json()["results"]
        assert next(r for r in listed if r["id"] == "quotely.stocks.quote.get")["cost"]["trial_calls_per_team_day"] == 2


def test_a_retired_entry_shows_its_status_and_search_leaves_it_out(fake: RelayFake) -> None:
    with fake.client() as http:
        retired = _page(http, "firmdata.companies.legacy.enrich")
        assert retired["status"] == "retired" and retired["superseded_by"] == "firmdata.companies.enrich"
        assert retired["status_note"]
        assert _page(http, "firmdata.companies.enrich")["status"] is None
        for query in ("legacy enrich", "firmdata companies enrich legacy", ""):
            found = http.get("/catalog/search", params={"q": query, "limit": 100}).json()
            assert "firmdata.companies.legacy.enrich" not in [r["id"] for r in found["results"]], query
        everything = http.get("/catalog/search", params={"limit": 1}).json()["total"]
        assert everything == len(fake.model.all_entries()) - 1  # the one retired entry


def test_the_control_plane_makes_async_trial_pool_and_retired_entries(fake: RelayFake) -> None:
    team = fake.create_team()
    with fake.client() as http:
        assert http.post("/_fake/providers", json={"provider": "tickr", "trial_allowance": 1}).status_code == 201
        params = {"symbol": {"type": "string", "required": True, "example": "ACME"}}
        made = [http.post("/_fake/catalog/entries", json=body) for body in (
            {"id": "tickr.quotes.get", "path": "/quote", "params": params, "cost": {"type": "per_call", "value": 0}},
            {"id": "firmdata.jobs.status", "path": "/jobs/status", "kind": "async_poll",
             "params": {"task_id": {"type": "string", "required": True}}, "cost": {"type": "free", "value": 0}},
            {"id": "firmdata.jobs.create", "method": "POST", "path": "/jobs", "kind": "async",
             "poll": "firmdata.jobs.status", "interval": 1, "params": params,
             "cost": {"type": "per_success", "value": 5_000}},
            {"id": "tickr.quotes.old", "path": "/v0/quote", "params": params, "cost": {"type": "per_call", "value": 0},
             "status": "retired", "superseded_by": "tickr.quotes.get", "status_note": "v0 is off."})]
        # (the async pair belongs to firmdata: a paid entry of the trial pool would count against its allowance)
        assert [m.status_code for m in made] == [201] * 4, [m.text for m in made]
        assert _page(http, "tickr.quotes.get")["cost"]["trial_calls_per_team_day"] == 1
        assert _page(http, "firmdata.jobs.create")["async"]["poll"]["endpoint"] == "firmdata.jobs.status"
        assert _page(http, "firmdata.jobs.create")["async"]["interval"] == 1
        assert _page(http, "tickr.quotes.old")["status"] == "retired"
        assert "tickr.quotes.old" not in [r["id"] for r in http.get("/catalog/search", params={"q": "tickr"}
                                                                    ).json()["results"]]
        refused = [http.post("/_fake/catalog/entries", json=body) for body in (
            {"id": "firmdata.jobs.again", "path": "/again", "kind": "async"},
            {"id": "firmdata.jobs.again", "path": "/again", "kind": "async", "poll": "tickr.quotes.get"},
            {"id": "firmdata.jobs.again", "path": "/again", "kind": "async", "poll": "firmdata.jobs.nowhere"},
            {"id": "firmdata.jobs.again", "path": "/again", "poll": "firmdata.jobs.status"},
            {"id": "firmdata.jobs.again", "path": "/again", "status": "gone"},
            {"id": "firmdata.jobs.again", "path": "/again", "superseded_by": "tickr.quotes.get"})]
        assert [r.status_code for r in refused] == [400, 400, 404, 400, 400, 400], [r.text for r in refused]
        assert http.post("/_fake/providers", json={"provider": "tickr2", "trial_allowance": 0}).status_code == 400

        owner = {"X-Treg-Token": team["token"]}
        quotes = [http.get("/call/tickr.quotes.get", params={"symbol": "ACME"}, headers=owner) for _ in range(2)]
        assert [q.status_code for q in quotes] == [200, 429]
        assert http.get("/call/tickr.quotes.old", params={"symbol": "ACME"}, headers=owner).status_code == 410
        submitted = http.post("/call/firmdata.jobs.create", params={"symbol": "ACME"}, headers=owner)
        assert submitted.status_code == 202
        assert json.loads(submitted.headers["X-Treg-Async"])["poll"]["endpoint"] == "firmdata.jobs.status"
        state = http.get("/_fake/state").json()
    copy = RelayFake(seed=0, header_prefix="X-Treg", trial_allowance=2)
    copy.import_state(state)
    with copy.client() as http:
        assert _page(http, "firmdata.jobs.create")["async"]["interval"] == 1
        assert _page(http, "tickr.quotes.get")["cost"]["trial_calls_per_team_day"] == 1
        assert _page(http, "tickr.quotes.old")["status"] == "retired"


def test_the_official_cli_awaits_an_async_call_and_shows_the_descriptor(tmp_path: Path) -> None:
    _treg()  # skips without the client
    fake = RelayFake(header_prefix="X-Treg", clock="real", async_task_s=1)
    fake.add_entry(id="firmdata.reports.quick", method="POST", path="/v1/reports/quick", kind="async",
                   poll="firmdata.reports.get", interval=1, params={"domain": {"type": "string", "required": True}},
                   cost={"type": "per_success", "value": 50_000})
    with fake.serve() as url:
        run = cli(url, fake.demo_credentials()["token"], tmp_path)
        shown = run("catalog", "get", "firmdata.reports.create")
        assert shown.returncode == 0 and "task_id" in shown.stdout and "firmdata.reports.get" in shown.stdout, \
            shown.stdout + shown.stderr
        awaited = run("call", "firmdata.reports.quick", "-p", "domain=northwind.com", "--await", "--timeout", "30")
        assert awaited.returncode == 0, awaited.stdout + awaited.stderr
        assert '"status":"complete"' in awaited.stdout.replace(" ", "") and "result:" in awaited.stderr
        assert "northwind.com" in awaited.stderr
