"""Stateful property test (issue 5): random valid and invalid requests through HTTP, the clock
moving by random amounts, keys of every tier with small quotas, users adding companies and
filings, and the state exported and imported mid-run. After every step:

* pages never overlap or skip: a walk over every page of a query (also one spread over several
  steps while the clock moves, on a query whose window lies in the past) yields exactly the
  brute-force answer, each filing once;
* quota counts are exact: every successful call counts once, every refusal not at all, and the
  fake's count equals the model's; the 429 comes exactly when the allowance is spent;
* every response to bad input is a 4xx whose body is ``{"detail": "..."}``;
* export then import changes nothing that follows (the run continues on the imported fake).
"""

from __future__ import annotations

import os
from typing import Any

import httpx
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, invariant, precondition, rule

from fakes.filings import FilingsFake
from fakes.filings.catalogue.filing_types import TYPES

from .brute import World, expected_filing_ids, world

ORDERINGS = ["release_datetime", "-release_datetime", "id", "-id", "added_to_platform", "-added_to_platform"]
FILTERS = st.fixed_dictionaries({}, optional={
    "type": st.sampled_from([t.code for t in TYPES]),
    "language": st.sampled_from(["en", "de", "sv", "fr"]),
    "countries": st.sampled_from(["DE", "SE,NO", "FR,BE,LU", "GB"]),
    "company": st.integers(1, 220).map(str),
    "release_datetime_from": st.sampled_from(["2025-09-01", "2025-12-15T12:00:00Z", "2026-01-05",
                                              "2025-12-15T13:00:00+0100", "2025-12-15T12:00:00.000000"]),
    "fiscal_year": st.sampled_from(["2023", "2024", "2025"]),
    "search": st.sampled_from(["annual", "results 2024", "holding", "q1", "ag:", "bank report", "buyback",
                               "interim 9m", ": press"]),
})
BAD_PARAMS = st.sampled_from([
    {"page_size": "-1"}, {"release_datetime_to": "31/12/2025"}, {"fiscal_year": "2024.5"},
    {"type": "annual"}, {"filing_type": "Annual"}, {"countries": "DEU"}, {"company": "x1"}, {"page": "0"},
    {"page": "99999"}, {"languages": "en,"}, {"view": "all"},
])
TIER_ACCESS = {"free": {"companies", "filings"}, "standard": {"companies", "filings", "filing-types"},
               "level2": {"companies", "filings", "filing-types", "markdown"},
               "enterprise": {"companies", "filings", "filing-types", "markdown"}}


class FilingsMachine(RuleBasedStateMachine):
    keys = Bundle("keys")

    @initialize()
    def start(self) -> None:
        self.fake = FilingsFake(seed=1, scale="small")
        self.expected_used: dict[str, int] = {}
        self.quotas: dict[str, int | None] = {}
        self.tiers: dict[str, str] = {}
        self._world: World | None = None
        self.walk: dict[str, Any] | None = None
        self.admin = self.fake.auth_headers()
        self.expected_used[self.admin["X-API-Key"]] = 0
        self.quotas[self.admin["X-API-Key"]] = None
        self.tiers[self.admin["X-API-Key"]] = "enterprise"

    # -- helpers -------------------------------------------------------------------------------
    def http(self) -> httpx.Client:
        return self.fake.client()

    def world(self) -> World:
        if self._world is None:
            self._world = world(self.fake)
        return self._world

    def changed(self) -> None:
        self._world = None

    def call(self, key: str, path: str, params: dict[str, str] | None = None, feature: str = "filings",
             bad: bool = False) -> httpx.Response:
        """One API call, checking the tier and quota rules and keeping the expected count."""
        with self.http() as http:
            response = http.get(path, params=params, headers={"X-API-Key": key})
        quota, used = self.quotas[key], self.expected_used[key]
        if feature not in TIER_ACCESS[self.tiers[key]]:
            assert response.status_code == 403, response.text
        elif quota is not None and used >= quota:
            assert response.status_code == 429, response.text
            assert int(response.headers["Retry-After"]) > 0
        elif bad:
            assert 400 <= response.status_code < 500, response.text
        if 200 <= response.status_code < 300:
            self.expected_used[key] += 1
        else:
            body = response.json()
            assert isinstance(body, dict) and isinstance(body.get("detail"), str) and body["detail"], body
            assert 400 <= response.status_code < 500
        return response

    # -- rules ---------------------------------------------------------------------------------
    @rule(target=keys, tier=st.sampled_from(list(TIER_ACCESS)), quota=st.one_of(st.none(), st.integers(0, 6)))
    def create_key(self, tier: str, quota: int | None) -> str:
        with self.http() as http:
            created = http.post("/_fake/keys", json={"tier": tier, "quota": quota})
        assert created.status_code == 201
        key = created.json()["api_key"]
        self.expected_used[key], self.quotas[key], self.tiers[key] = 0, quota, tier
        return str(key)

    @rule(key=keys, params=FILTERS, ordering=st.sampled_from(ORDERINGS), size=st.sampled_from([1, 25, 100]),
          page=st.integers(1, 4))
    def list_one_page(self, key: str, params: dict[str, str], ordering: str, size: int, page: int) -> None:
        query = {**params, "ordering": ordering, "page_size": str(size), "page": str(page)}
        response = self.call(key, "/filings/", query)
        if response.status_code == 200:
            expected = expected_filing_ids(self.world(), _with_bounds(query))
            assert response.json()["count"] == len(expected)
            assert [f["id"] for f in response.json()["results"]] == expected[(page - 1) * size:page * size]
        elif response.status_code == 404:
            assert response.json() == {"detail": "Invalid page."}

    @rule(params=FILTERS, ordering=st.sampled_from(ORDERINGS), size=st.sampled_from([50, 100]))
    def walk_every_page(self, params: dict[str, str], ordering: str, size: int) -> None:
        """All pages of a query at one instant: each filing exactly once, in order."""
        query = {**params, "ordering": ordering, "page_size": str(size)}
        expected = expected_filing_ids(self.world(), _with_bounds(query))
        seen: list[int] = []
        url: str | None = "/filings/"
        first = True
        while url is not None:
            response = self.call(self.admin["X-API-Key"], url, query if first else None)
            first = False
            assert response.status_code == 200, response.text
            seen += [f["id"] for f in response.json()["results"]]
            url = response.json()["next"]
        assert seen == expected

    @precondition(lambda self: self.walk is None)
    @rule(params=FILTERS, ordering=st.sampled_from(ORDERINGS))
    def start_slow_walk(self, params: dict[str, str], ordering: str) -> None:
        """A walk spread over several steps; its window ends in the past, so time moving on and
        new filings being published must not change it."""
        query = {**params, "ordering": ordering, "page_size": "40", "release_datetime_to": "2026-01-01T00:00:00Z"}
        query.pop("company", None)
        self.walk = {"query": query, "expected": expected_filing_ids(self.world(), _with_bounds(query)),
                     "seen": [], "next": "/filings/", "first": True}

    @precondition(lambda self: self.walk is not None)
    @rule()
    def continue_slow_walk(self) -> None:
        assert self.walk is not None
        walk = self.walk
        response = self.call(self.admin["X-API-Key"], walk["next"], walk["query"] if walk["first"] else None)
        assert response.status_code == 200
        walk["first"] = False
        walk["seen"] += [f["id"] for f in response.json()["results"]]
        walk["next"] = response.json()["next"]
        if walk["next"] is None:
            assert walk["seen"] == walk["expected"]
            self.walk = None
        else:
            assert walk["seen"] == walk["expected"][:len(walk["seen"])]

    @rule(key=keys, params=BAD_PARAMS)
    def bad_input(self, key: str, params: dict[str, str]) -> None:
        response = self.call(key, "/filings/", params, bad=True)
        assert response.status_code != 200

    @rule(key=keys, filing_id=st.integers(1, 3100), kind=st.sampled_from(["json", "markdown", "types"]))
    def read_one(self, key: str, filing_id: int, kind: str) -> None:
        if kind == "types":
            self.call(key, "/filing-types/", feature="filing-types")
        elif kind == "markdown":
            self.call(key, f"/filings/{filing_id}/markdown/", feature="markdown")
        else:
            response = self.call(key, f"/filings/{filing_id}/")
            visible = filing_id <= self.fake.model.visible_count()
            assert response.status_code in ((200, 429) if visible else (404, 429))

    @rule(seconds=st.sampled_from([1, 60, 3600, 86_400, 5 * 86_400]))
    def advance_clock(self, seconds: int) -> None:
        self.fake.advance(seconds)
        self.changed()

    @rule(company=st.integers(1, 220), type_code=st.sampled_from([t.code for t in TYPES]))
    def publish_filing(self, company: int, type_code: str) -> None:
        with self.http() as http:
            response = http.post("/_fake/filings", json={"company": company, "filing_type": type_code})
        assert response.status_code == 201, response.text
        self.changed()

    @rule(country=st.sampled_from(["DE", "FR", "SE"]))
    def add_company(self, country: str) -> None:
        with self.http() as http:
            response = http.post("/_fake/companies", json={"name": f"Added {country} Group", "country_code": country})
        assert response.status_code == 201

    @rule()
    def export_and_import(self) -> None:
        """The run goes on with a fresh fake holding the imported state: nothing may change."""
        probe = {"ordering": "-release_datetime", "page_size": "20"}
        with self.http() as http:
            before = http.get("/filings/", params=probe, headers=self.admin).json()
        self.expected_used[self.admin["X-API-Key"]] += 1  # the probe counts, before the export
        state = self.fake.export_state()
        replacement = FilingsFake(seed=1, scale="small")
        replacement.import_state(state)
        assert replacement.export_state() == state
        self.fake = replacement
        with self.http() as http:
            after = http.get("/filings/", params=probe, headers=self.admin).json()
        self.expected_used[self.admin["X-API-Key"]] += 1
        assert after == before

    # -- invariants ----------------------------------------------------------------------------
    @invariant()
    def quota_counts_are_exact(self) -> None:
        if not hasattr(self, "fake"):
            return
        used = {k["api_key"]: k["used"] for k in self.fake.list_keys()}
        for key, expected in self.expected_used.items():
            assert used[key] == expected, (self.tiers[key], used[key], expected)


def _with_bounds(query: dict[str, str]) -> dict[str, str]:
    """The brute force's epoch bounds for the date filters of a query."""
    from fakes.filings.dates import instant_s

    bounded = dict(query)
    if "release_datetime_from" in query:
        bounded["_from_s"] = str(instant_s(query["release_datetime_from"], end_of_day=False))
    if "release_datetime_to" in query:
        bounded["_to_s"] = str(instant_s(query["release_datetime_to"], end_of_day=True))
    return bounded


# FAKES_STATEFUL_EXAMPLES raises the run count; FAKES_HYPOTHESIS_EXPLORE=1 draws new examples
# instead of the fixed, repeatable ones CI runs.
FilingsMachine.TestCase.settings = settings(
    max_examples=int(os.environ.get("FAKES_STATEFUL_EXAMPLES", "20")), stateful_step_count=30,
    deadline=None, database=None, derandomize=not os.environ.get("FAKES_HYPOTHESIS_EXPLORE"),
    suppress_health_check=[HealthCheck.too_slow])
TestFilingsMachine = FilingsMachine.TestCase
