"""docs/testing.md lists the scenarios the code knows: the table of `fakes scenarios list` and the
table of what each scenario creates and how far it moves the clock (measured: each scenario runs
in process here). Both are written by ``python -m tests.scenarios.test_docs`` (the second keeps
its hand-written "creates" column); the suite fails while the page and the code differ."""

from __future__ import annotations

from pathlib import Path

import pytest

from fakes import registry
from scenarios.runner import Scenario, discover, duration_text, run_scenario

PAGE = Path(__file__).resolve().parents[2] / "docs" / "testing.md"
TOOL = "`python -m tests.scenarios.test_docs`"
LIST = (f"<!-- scenario list: generated from `fakes scenarios list` by {TOOL}; do not edit by hand -->",
        "<!-- end of scenario list -->")
EFFECTS = (f"<!-- scenario effects: the clock column is measured by {TOOL}; write the creates column -->",
           "<!-- end of scenario effects -->")
UNDESCRIBED = "(say what it creates)"


def project_scenarios() -> dict[str, Scenario]:
    """The scenarios of the project's own services (the page lists them; a service registered from
    elsewhere, such as the notes template in tests/kernel/test_example_notes.py, is not on it)."""
    return {name: scenario for name, scenario in discover().items()
            if registry.SERVICES[scenario.service].startswith("fakes.")}


def clock_moved(scenario: Scenario) -> str:
    """How far a run of ``scenario`` moves a fresh in-process fake's clock, as its report says."""
    cls = registry.fake_class(scenario.service)
    fake = cls(seed=0, **cls.settings_for_tests())
    with fake.client() as client:
        report = run_scenario(scenario, client)
    assert report.passed, report.render()
    return duration_text(report.clock_moved_s) if report.clock_moved_s else "nothing"


def list_table() -> str:
    rows = [f"| `{name}` | {scenario.service} | {scenario.summary} |" for name, scenario in project_scenarios().items()]
    return "\n".join(["| scenario | service | flow |", "|---|---|---|", *rows])


def section(marks: tuple[str, str]) -> str:
    text = PAGE.read_text()
    return text[text.index(marks[0]) + len(marks[0]):text.index(marks[1])].strip()


def documented_effects() -> dict[str, tuple[str, str]]:
    """{scenario: (creates, moves the clock by)} as the page's table says."""
    found = {}
    for line in section(EFFECTS).splitlines()[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        found[cells[0].strip("`")] = (cells[1], cells[2])
    return found


def effects_table(measured: dict[str, str]) -> str:
    known = documented_effects()
    rows = [f"| `{name}` | {known.get(name, (UNDESCRIBED, ''))[0]} | {moved} |" for name, moved in measured.items()]
    return "\n".join(["| scenario | creates | moves the clock by |", "|---|---|---|", *rows])


def test_the_scenario_list_is_the_codes() -> None:
    assert section(LIST) == list_table(), f"docs/testing.md lists other scenarios than the code: run {TOOL}"


@pytest.mark.parametrize("name", list(project_scenarios()))
def test_the_effects_table_says_what_each_scenario_does(name: str) -> None:
    documented = documented_effects()
    assert name in documented, f"docs/testing.md does not say what {name} creates: run {TOOL}, then describe it"
    creates, moved = documented[name]
    assert creates and creates != UNDESCRIBED, f"docs/testing.md: say what {name} creates"
    assert moved == clock_moved(project_scenarios()[name]), (
        f"docs/testing.md: {name} moves the clock by another amount: run {TOOL}")


def test_the_effects_table_names_no_other_scenario() -> None:
    assert set(documented_effects()) <= set(project_scenarios()), "docs/testing.md describes a scenario that is gone"


def write_tables() -> None:
    text = PAGE.read_text()
    measured = {name: clock_moved(scenario) for name, scenario in project_scenarios().items()}
    for marks, table in ((LIST, list_table()), (EFFECTS, effects_table(measured))):
        head, rest = text.split(marks[0], 1)
        _, tail = rest.split(marks[1], 1)
        text = f"{head}{marks[0]}\n{table}\n{marks[1]}{tail}"
    PAGE.write_text(text)


if __name__ == "__main__":
    write_tables()
    print(f"wrote the scenario tables of {PAGE}")
    undescribed = [name for name, (creates, _) in documented_effects().items() if creates == UNDESCRIBED]
    if undescribed:
        print(f"now say what these create: {', '.join(undescribed)}")
