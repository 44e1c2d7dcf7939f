"""Properties: over any call sequence the balance never goes negative and equals the initial
balance minus the sum of reported costs; a state machine over teams, tools, secrets and calls."""

from __future__ import annotations

import os
from typing import Any

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, invariant, precondition, rule

from fakes.relay import RelayFake

EXAMPLES = int(os.environ.get("FAKES_STATEFUL_EXAMPLES", "25"))

#: (path, params) of calls that hit, miss, fail upstream, or are refused
CALLS: list[tuple[str, str, dict[str, str]]] = [
    ("GET", "/call/mailscout.people.email.find", {"domain": "northwind.com", "first_name": "Ada",
                                                  "last_name": "Lovelace"}),
    ("GET", "/call/mailscout.people.email.find", {"domain": "x.invalid", "first_name": "A", "last_name": "B"}),
    ("GET", "/call/mailscout.people.email.find", {"domain": "acme.com", "first_name": "Kim", "last_name": "Ode"}),
    ("GET", "/call/mailscout.email.verify", {"email": "ada@northwind.com"}),
    ("GET", "/call/mailscout.email.verify", {"email": "fail-503@northwind.com"}),
    ("GET", "/call/mailscout.email.verify", {"email": "fail-429@northwind.com"}),
    ("GET", "/call/mailscout.email.verify", {"email": "fail-timeout@northwind.com"}),
    ("GET", "/call/firmdata.companies.lookalikes.search", {"domain": "northwind.com"}),
    ("GET", "/call/profilescope.companies.employees.list", {"domain": "northwind.com", "limit": "7"}),
    ("GET", "/call/profilescope.people.posts.list", {"profile_url": "https://p.example/x"}),
    ("GET", "/call/proxy.people.email.find", {"domain": "northwind.com", "first_name": "Ada",
                                              "last_name": "Lovelace"}),
    ("POST", "/call/jobsignal.alerts.create", {"domain": "northwind.com"}),
    ("GET", "/call/https://api.firmdata.example/v1/companies/enrich", {"domain": "northwind.com"}),
    ("GET", "/call/nope.nothing.here", {}),
]


def _cost(response: httpx.Response) -> int:
    """What the relay reported it charged (a replay reports the original cost but charges nothing)."""
    if response.headers.get("X-Proxy-Idempotent-Replay") == "true":
        return 0
    return int(response.headers.get("X-Proxy-Cost-Micro", "0"))


@settings(max_examples=EXAMPLES, deadline=None, derandomize=not os.environ.get("FAKES_HYPOTHESIS_EXPLORE"),
          suppress_health_check=list(HealthCheck), database=None)
@given(start=st.integers(min_value=0, max_value=120_000),
       steps=st.lists(st.tuples(st.integers(0, len(CALLS) - 1), st.sampled_from([None, "k1", "k2"]),
                                st.sampled_from([0, 0, 1, 61])), max_size=25))
def test_balance_never_negative_and_equals_start_minus_reported_costs(
        start: int, steps: list[tuple[int, str | None, int]]) -> None:
    fake = RelayFake(seed=0)
    team = fake.create_team(balance_micro=start)
    reported = 0
    with fake.client(headers={"X-Proxy-Token": team["token"]}) as http:
        for index, key, wait in steps:
            method, path, params = CALLS[index]
            headers = {"Idempotency-Key": key} if key else {}
            response = http.request(method, path, params=params, headers=headers)
            if response.status_code >= 500 and "X-Proxy-Error" in response.headers:
                assert response.status_code in (502, 503, 504)  # the relay's own 5xx are documented ones
            reported += _cost(response)
            current = fake.team_info(team["team_id"])
            assert current["balance_micro"] >= 0
            assert current["holds_micro"] == 0
            assert current["balance_micro"] == start - reported
            fake.advance(wait)


class RelayMachine(RuleBasedStateMachine):
    """Teams get tools and secrets, top up and call; the model's books must always balance."""

    teams = Bundle("teams")

    @initialize()
    def start(self) -> None:
        self.fake = RelayFake(seed=0)
        self.expected: dict[str, int] = {}
        self.own: dict[str, set[str]] = {}
        self.http = self.fake.client()

    def teardown(self) -> None:
        self.http.close()

    @rule(target=teams, balance=st.integers(0, 60_000))
    def create_team(self, balance: int) -> str:
        team = self.fake.create_team(balance_micro=balance)
        self.expected[team["team_id"]] = balance
        self.own[team["team_id"]] = set()
        return str(team["token"]) + "|" + str(team["team_id"])

    @rule(team=teams, provider=st.sampled_from(["mailscout", "firmdata", "profilescope"]), secret=st.booleans())
    def register_credential(self, team: str, provider: str, secret: bool) -> None:
        team_id = team.split("|")[1]
        if secret:
            self.fake.add_secret(team_id, provider, "s")
        else:
            self.fake.add_tool(team_id, provider, "k")
        self.own[team_id].add(provider)

    @rule(team=teams, amount=st.integers(1, 50_000))
    def topup(self, team: str, amount: int) -> None:
        team_id = team.split("|")[1]
        self.fake.topup(team_id, amount)
        self.expected[team_id] += amount

    @rule(team=teams, index=st.integers(0, len(CALLS) - 1), key=st.sampled_from([None, "a", "b"]))
    def call(self, team: str, index: int, key: str | None) -> None:
        token, team_id = team.split("|")
        method, path, params = CALLS[index]
        headers = {"X-Proxy-Token": token, **({"Idempotency-Key": key} if key else {})}
        before = self.expected[team_id]
        response = self.http.request(method, path, params=params, headers=headers)
        cost = _cost(response)
        self.expected[team_id] -= cost
        assert "X-Proxy-Call-Id" in response.headers
        provider = self.fake.model.calls.get(response.headers["X-Proxy-Call-Id"], {}).get("provider")
        if provider in self.own[team_id] and response.headers.get("X-Proxy-Idempotent-Replay") != "true":
            assert "X-Proxy-Cost-Micro" not in response.headers  # own credentials are never metered
        if response.status_code == 402:
            body: dict[str, Any] = response.json()
            assert body["estimated_cost_micro"] > body["balance_micro"] == before
        record = self.http.get(f"/calls/{response.headers['X-Proxy-Call-Id']}", headers={"X-Proxy-Token": token})
        if record.status_code == 200 and not record.json()["replayed"]:
            assert record.json()["cost_micro"] == cost

    @precondition(lambda self: bool(getattr(self, "expected", None)))
    @rule(seconds=st.sampled_from([1, 60, 86_400]))
    def wait(self, seconds: int) -> None:
        self.fake.advance(seconds)

    @invariant()
    def books_balance(self) -> None:
        for team_id, expected in getattr(self, "expected", {}).items():
            info = self.fake.team_info(team_id)
            assert info["balance_micro"] == expected >= 0
            assert info["holds_micro"] == 0
            assert sum(row["amount_micro"] for row in info["ledger"]) == expected


TestRelayMachine = RelayMachine.TestCase
TestRelayMachine.settings = settings(max_examples=EXAMPLES, stateful_step_count=20, deadline=None,
                                     derandomize=not os.environ.get("FAKES_HYPOTHESIS_EXPLORE"),
                                     suppress_health_check=list(HealthCheck), database=None)
