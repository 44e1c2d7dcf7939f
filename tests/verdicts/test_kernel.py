"""The verdict machinery of the kernel: counts outside the journal ring, control plane, silencing."""

from __future__ import annotations

import subprocess
import sys

import pytest

from fakes.kernel.settings import SettingsError
from fakes.kernel.verdicts import render_verdicts, serve_summary
from tests.support.schemathesis_harness import run_operation

from .judged import JudgedFake


def test_verdicts_count_per_rule_with_first_and_last_request() -> None:
    fake = JudgedFake()
    client = fake.client()
    client.get("/thing", params={"bad": "1", "n": "1"})
    fake.advance(60)
    client.get("/thing")
    client.get("/thing", params={"bad": "1", "waste": "1", "n": "3"})
    bad, waste = fake.verdicts()
    assert (bad["id"], bad["severity"], bad["count"]) == ("judged/bad", "error", 2)
    assert bad["explanation"] == "Never send bad=1." and bad["source"] == "tests/verdicts/judged.py"
    assert bad["first"] == {"method": "GET", "path": "/thing", "query": "bad=1&n=1", "status": 200, "seq": 1,
                            "epoch_ms": 1_767_603_600_000, "time": "2026-01-05T09:00:00Z", "detail": "bad=1 sent"}
    assert bad["last"]["query"] == "bad=1&waste=1&n=3" and bad["last"]["seq"] == 3
    assert bad["last"]["time"] == "2026-01-05T09:01:00Z"
    assert (waste["id"], waste["count"], waste["first"]["detail"]) == ("judged/waste", 1, "")
    assert [v["id"] for v in fake.verdicts("error")] == ["judged/bad"]
    entries = fake.journal_entries()
    assert [e["warnings"] for e in entries] == [["judged/bad: bad=1 sent"], [], ["judged/bad: bad=1 sent",
                                                                                 "judged/waste"]]
    assert fake.journal.warnings() == ["judged/bad: bad=1 sent", "judged/bad: bad=1 sent", "judged/waste"]


def test_verdicts_survive_more_requests_than_the_journal_holds() -> None:
    fake = JudgedFake(journal_size=10)
    client = fake.client()
    client.get("/thing", params={"bad": "1"})
    for _ in range(50):
        client.get("/thing", params={"waste": "1"})
    assert len(fake.journal) == 10 and fake.journal.total == 51
    assert fake.journal_entries(warnings_only=True)[0]["seq"] == 42  # the bad request fell off long ago
    verdicts = {v["id"]: v for v in fake.verdicts()}
    assert verdicts["judged/bad"]["count"] == 1 and verdicts["judged/bad"]["first"]["seq"] == 1
    assert verdicts["judged/waste"]["count"] == 50
    assert fake.verdict_log.total() == 51


def test_control_plane_reads_filters_and_clears() -> None:
    fake = JudgedFake()
    client = fake.client()
    client.get("/thing", params={"bad": "1", "waste": "1"})
    body = client.get("/_fake/verdicts").json()
    assert [v["id"] for v in body["verdicts"]] == ["judged/bad", "judged/waste"]
    assert body["offences"] == 2 and body["silenced"] == []
    assert [r["id"] for r in body["rules"]] == ["judged/bad", "judged/waste"]
    assert [v["id"] for v in client.get("/_fake/verdicts", params={"severity": "warning"}).json()["verdicts"]] == [
        "judged/waste"]
    refused = client.get("/_fake/verdicts", params={"severity": "fatal"})
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_parameter"
    assert client.delete("/_fake/verdicts").json() == {"cleared": True}
    assert fake.verdicts() == [] and client.get("/_fake/verdicts").json()["offences"] == 0
    assert len(fake.journal) == 1  # clearing verdicts leaves the journal alone
    assert "/_fake/verdicts" in fake.openapi()["paths"]
    assert set(fake.openapi()["paths"]["/_fake/verdicts"]) == {"get", "delete"}


def test_reset_and_state_import_leave_verdicts_alone() -> None:
    fake = JudgedFake()
    client = fake.client()
    client.get("/thing", params={"bad": "1"})
    state = fake.export_state()
    assert "verdicts" not in state and "judged/bad" not in str(state)
    fake.reset()
    assert [v["id"] for v in fake.verdicts()] == ["judged/bad"]
    fake.import_state(state)
    assert [v["count"] for v in fake.verdicts()] == [1]


def test_silencing_by_id_glob_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(fake: JudgedFake) -> list[str]:
        fake.client().get("/thing", params={"bad": "1", "waste": "1"})
        return [v["id"] for v in fake.verdicts()]

    assert broken(JudgedFake(silence_rules=["judged/waste"])) == ["judged/bad"]
    assert broken(JudgedFake(silence_rules="judged/*")) == []
    assert broken(JudgedFake(silence_rules=["other/thing", "*/bad"])) == ["judged/waste"]  # other services: ignored
    monkeypatch.setenv("FAKES_SILENCE_RULES", "judged/bad, judged/waste")
    silenced = JudgedFake()
    assert broken(silenced) == [] and silenced.client().get("/_fake/verdicts").json()["silenced"] == [
        "judged/bad", "judged/waste"]
    assert broken(JudgedFake(silence_rules=[])) == ["judged/bad", "judged/waste"]  # the argument wins
    assert silenced.journal_entries()[0]["warnings"] == ["judged/bad: bad=1 sent", "judged/waste"]


def test_silencing_an_unknown_rule_is_refused() -> None:
    with pytest.raises(SettingsError, match="judged has no such rule; known: judged/bad, judged/waste"):
        JudgedFake(silence_rules=["judged/typo"])
    with pytest.raises(SettingsError, match="a rule id is SERVICE/RULE"):
        JudgedFake(silence_rules=["bad"])


def test_worlds_keep_their_own_verdicts_and_inherit_silencing() -> None:
    fake = JudgedFake(silence_rules=["judged/waste"])
    world = fake.world("w1")
    world.client().get("/thing", params={"bad": "1", "waste": "1"})
    assert fake.verdicts() == [] and [v["id"] for v in world.verdicts()] == ["judged/bad"]
    summary = serve_summary({"judged": fake})
    assert "judged: no client rule broken" in summary
    assert "judged (world w1): 1 rule broken (1 error) - judged/bad x1" in summary


def test_rendered_report_names_rule_explanation_source_and_request() -> None:
    fake = JudgedFake()
    client = fake.client()
    client.get("/thing", params={"bad": "1"})
    client.get("/thing", params={"bad": "1", "again": "1"})
    text = render_verdicts(fake.verdicts())
    assert text.splitlines() == [
        "judged/bad [error] broken 2 times",
        "    why:    Never send bad=1.",
        "    source: tests/verdicts/judged.py",
        "    first:  GET /thing?bad=1 -> 200 at 2026-01-05T09:00:00Z (journal #1): bad=1 sent",
        "    last:   GET /thing?bad=1&again=1 -> 200 at 2026-01-05T09:00:00Z (journal #2): bad=1 sent",
    ]


def test_serve_refuses_a_rule_of_no_service() -> None:
    result = subprocess.run([sys.executable, "-m", "fakes", "serve", "--silence-rule", "nope/x"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "silence rule 'nope/x': a rule id is SERVICE/RULE" in result.stderr
    typo = subprocess.run([sys.executable, "-m", "fakes", "serve", "--only", "filings", "--silence-rule",
                           "filings/typo"], capture_output=True, text=True, timeout=60)
    assert typo.returncode == 2 and "filings has no such rule" in typo.stderr


@pytest.mark.parametrize("label", ["GET /_fake/verdicts", "DELETE /_fake/verdicts"])
def test_the_verdicts_operations_keep_their_documented_contract(label: str) -> None:
    fake = JudgedFake()
    fake.client().get("/thing", params={"bad": "1"})  # something to list
    assert run_operation(fake, label, max_examples=25, with_control_plane=True) >= 1
