"""Planned calls (fakes/relay/plans.py) answer exactly as the full pipeline does: the same random
sequence of calls, credential changes, top-ups, saturation switches and clock moves gives the same
answers (status, headers, body) and the same exported state with plans and without them."""

from __future__ import annotations

import os
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from fakes.relay import RelayFake

EXAMPLES = int(os.environ.get("FAKES_STATEFUL_EXAMPLES", "25"))

#: repeated GET calls: hits, misses, per-result, unpriced, routed, failures, a URL target
CALLS: list[tuple[str, dict[str, str]]] = [
    ("firmdata.companies.enrich", {"domain": "northwind.com"}),
    ("firmdata.companies.enrich", {"domain": "x.invalid"}),
    ("mailscout.people.email.find", {"domain": "northwind.com", "first_name": "Ada", "last_name": "Lovelace"}),
    ("mailscout.email.verify", {"email": "ada@northwind.com"}),
    ("mailscout.email.verify", {"email": "fail-503@northwind.com"}),
    ("profilescope.companies.employees.list", {"domain": "northwind.com", "limit": "7"}),
    ("profilescope.people.posts.list", {"profile_url": "https://p.example/x"}),
    ("proxy.people.email.find", {"domain": "northwind.com", "first_name": "Ada", "last_name": "Lovelace"}),
    ("https://api.firmdata.example/v1/companies/enrich", {"domain": "northwind.com"}),
]

#: calls are most of a sequence and repeat (a plan is made by a call and used by its repeats)
_CALL = st.tuples(st.just("call"), st.sampled_from([0, 0, 0, 1, 2, 3, 3, *range(len(CALLS))]),
                  st.sampled_from([0, 0, 1]))
ACTIONS = st.one_of(
    _CALL, _CALL, _CALL, _CALL, _CALL, _CALL,
    st.tuples(st.just("tool"), st.sampled_from(["firmdata", "mailscout", "profilescope"]), st.integers(0, 1)),
    st.tuples(st.just("secret"), st.sampled_from(["firmdata", "mailscout"]), st.integers(0, 1)),
    st.tuples(st.just("topup"), st.sampled_from([1, 5_000, 50_000]), st.integers(0, 1)),
    st.tuples(st.just("saturate"), st.booleans(), st.integers(0, 0)),
    st.tuples(st.just("advance"), st.sampled_from([0.5, 1, 30, 61]), st.integers(0, 0)),
)


def _run(planned: bool, start: list[int], actions: list[tuple[Any, ...]]) -> tuple[list[Any], dict[str, Any], int]:
    fake = RelayFake(seed=0, clock="manual", overrides={"upstream_rate_limit": "4", "max_per_second": "6"})
    used = [0]
    if planned:
        answer = fake.model.answer_planned

        def counted(*args: Any) -> Any:
            result = answer(*args)
            used[0] += result is not None
            return result

        fake.model.answer_planned = counted  # type: ignore[method-assign, assignment]
    else:
        fake.model.remember_plan = lambda *args, **kwargs: None  # type: ignore[method-assign]
    teams = [fake.create_team(balance_micro=amount) for amount in start]
    answers: list[Any] = []
    with fake.client() as http:
        for action, what, which in actions:
            team = teams[which % len(teams)]
            if action == "call":
                target, params = CALLS[what]
                response = http.get(f"/call/{target}", params=params, headers={"X-Proxy-Token": team["token"]})
                answers.append((response.status_code, sorted(response.headers.items()), response.content))
            elif action == "tool":
                fake.add_tool(team["team_id"], what, "own-key")
            elif action == "secret":
                fake.add_secret(team["team_id"], what, "stored-secret")
            elif action == "topup":
                fake.topup(team["team_id"], what)
            elif action == "saturate":
                fake.set_saturation(saturated=what)
            else:
                fake.advance(what)
    return answers, fake.model.to_state(), used[0]


@settings(max_examples=EXAMPLES, deadline=None, derandomize=not os.environ.get("FAKES_HYPOTHESIS_EXPLORE"),
          suppress_health_check=list(HealthCheck), database=None)
@given(start=st.lists(st.sampled_from([1_000_000, 30_000, 12_000, 0]), min_size=1, max_size=2),
       actions=st.lists(ACTIONS, min_size=4, max_size=40))
def test_planned_calls_answer_as_the_full_pipeline(start: list[int], actions: list[tuple[Any, ...]]) -> None:
    with_plans, state, used = _run(True, start, actions)
    without, expected_state, _ = _run(False, start, actions)
    assert with_plans == without
    assert state == expected_state
    event(f"planned calls: {min(used, 3)}{'+' if used > 3 else ''}")


def _walk(seed: int, length: int) -> tuple[list[int], list[tuple[Any, ...]]]:
    """A seeded sequence of mostly repeated calls, with tools, secrets, top-ups, saturation and time."""
    rng = random.Random(seed)
    actions: list[tuple[Any, ...]] = []
    for _ in range(length):
        roll = rng.random()
        if roll < 0.7:
            actions.append(("call", rng.choice([0, 0, 0, 2, 3, 3, 5, *range(len(CALLS))]), rng.choice([0, 0, 1])))
        elif roll < 0.74:
            actions.append(("tool", rng.choice(["firmdata", "mailscout", "profilescope"]), rng.randint(0, 1)))
        elif roll < 0.77:
            actions.append(("secret", rng.choice(["firmdata", "mailscout"]), rng.randint(0, 1)))
        elif roll < 0.82:
            actions.append(("topup", rng.choice([1, 5_000, 50_000]), rng.randint(0, 1)))
        elif roll < 0.84:
            actions.append(("saturate", rng.random() < 0.4, 0))
        else:
            actions.append(("advance", rng.choice([0.5, 1, 1, 30, 61]), 0))
    return [rng.choice([1_000_000, 60_000, 25_000]), rng.choice([40_000, 12_000])], actions


def test_random_walks_answer_as_the_full_pipeline() -> None:
    planned = 0
    for seed in range(16):
        start, actions = _walk(seed, 120)
        with_plans, state, used = _run(True, start, actions)
        without, expected_state, _ = _run(False, start, actions)
        assert with_plans == without, f"walk {seed}"
        assert state == expected_state, f"walk {seed}"
        planned += used
    assert planned > 150  # the walks do exercise plans (221 of their 1,347 calls when written)


@pytest.mark.parametrize(("pause", "statuses", "planned"), [
    (True, [200] * 5 + [402] + [200] * 4 + [429], 7),
    (False, [200] * 5 + [402] + [200] + [503] * 4, 4),
])
def test_a_repeated_call_is_answered_from_its_plan(pause: bool, statuses: list[int], planned: int) -> None:
    """Fixed sequences the property above need not draw: repeats take the planned path (on the
    relay's key and on an own tool) and give way to the full pipeline for a 402, the provider's 429
    (4 calls a minute here) and the relay's 503 (6 calls a second), answering as without plans."""
    actions: list[tuple[Any, ...]] = [("call", 0, 0)] * 3 + [("tool", "firmdata", 0), ("call", 0, 0),
                                                              ("call", 0, 0), ("call", 3, 1), ("topup", 50_000, 1)]
    actions += [("advance", 1, 0)] * pause + [("call", 3, 1)] * 5
    with_plans, state, used = _run(True, [1_000_000, 2_000], actions)
    without, expected_state, _ = _run(False, [1_000_000, 2_000], actions)
    assert with_plans == without and state == expected_state
    assert [status for status, _, _ in with_plans] == statuses
    assert used == planned


def test_a_planned_answer_sends_the_header_list_the_pipelines_headers_make() -> None:
    """A route sends a planned answer with its repeated headers encoded once (routes.planned_response):
    the same list, in the same order, as the headers the full pipeline's answer carries (also what
    a call through the model gets, e.g. the connector's)."""
    from fakes.relay.routes import RawResponse, planned_response

    fake = RelayFake(seed=0, clock="manual")
    model = fake.model
    for token, target in ((fake.create_team(balance_micro=10_000_000)["token"], "firmdata.companies.enrich"),
                          (fake.create_team(balance_micro=10_000_000)["token"], "mailscout.email.verify")):
        query = "domain=northwind.com" if target.startswith("firm") else "email=ada%40northwind.com"
        with fake.client() as http:  # the first call makes the plan
            assert http.get(f"/call/{target}?{query}", headers={model.h.token: token}).status_code == 200
        for _ in range(3):
            answer = model.call_planned(target, query, token)
            assert answer is not None
            status, limits, call_id, cost, body = answer
            sent = planned_response(model.h, *answer)
            expected = RawResponse(status, model.planned_headers(limits, call_id, cost), body)
            assert (sent.status_code, sent.raw_headers, sent.body) == (expected.status_code, expected.raw_headers,
                                                                        expected.body)
            assert dict(sent.raw_headers)[model.h.call_id_b] == call_id.encode() and cost is not None
