"""A scenario step declares the client rules it breaks on purpose (tests/scenarios compares every
registered scenario's declarations with its fake's verdicts)."""

from __future__ import annotations

from scenarios.runner import Run, Scenario, run_scenario

from .judged import JudgedFake


def _flow(run: Run) -> None:
    with run.step("a careful call"):
        run.check(run.request("GET", "/thing").status_code == 200, "answers 200")
    with run.step("a bad call, to show the answer", expect_verdicts=["judged/bad"]):
        run.check(run.request("GET", "/thing", params={"bad": "1"}).status_code == 200, "answers 200 anyway")


def test_declared_verdicts_are_in_the_report_and_match_the_fakes() -> None:
    fake = JudgedFake()
    report = run_scenario(Scenario("judged-demo", "judged", "", _flow), fake.client())
    assert report.passed, report.render()
    assert report.expected_verdicts() == {"judged/bad"} == {v["id"] for v in fake.verdicts()}
    assert "PASS a bad call, to show the answer  (breaks on purpose: judged/bad)" in report.render()
    assert [s["expected_verdicts"] for s in report.to_dict()["steps"]] == [[], ["judged/bad"]]

