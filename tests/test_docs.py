"""The documentation stays honest: README's commands and examples run, every link resolves, every
documented `fakes`, `fakes scenarios` and `fakes bench` command parses, and no page points outside the repository."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from fakes.kernel.cli import build_parser
from scenarios.bench.cli import build_parser as bench_parser
from scenarios.runner import discover

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")

pytest_plugins = ["pytester"]


def blocks(path: Path, *languages: str) -> list[str]:
    pattern = "|".join(re.escape(lang) for lang in languages)
    return re.findall(rf"```(?:{pattern})\n(.*?)```", path.read_text(), re.S)


def page_id(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_readme_opens_with_the_two_commands() -> None:
    first, second = blocks(README, "bash")[:2]
    assert "pip install . && fakes serve" in first
    assert "pip install -e '.[test]' && pytest" in second
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip install -e '.[test]'" in ci and "\npytest -n 2\n" in ci  # CI runs what README says


def test_pytest_fixture_example_runs_as_a_test_file(pytester: pytest.Pytester) -> None:
    example = next(block for block in blocks(README, "python") if "def test_sync_pages_every_connection" in block)
    pytester.makepyfile(test_example=example)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_link_resolves(page: Path) -> None:
    for target in LINK.findall(page.read_text()):
        if target.startswith(("http://", "https://", "mailto:", "#")):
            continue
        file_part = target.split("#", 1)[0]
        assert (page.parent / file_part).exists(), f"{page_id(page)} links to {target}, which does not exist"


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_no_reference_points_outside_the_repository(page: Path) -> None:
    text = page.read_text()
    for dangling in ("../shared", "notes/bench.md", "scenarios/bench.py"):
        assert dangling not in text, f"{page_id(page)} mentions {dangling}"
    assert not re.search(r"\b[Ii]ssue #?\d+", text), f"{page_id(page)} cites an issue number"


def documented_commands(first_word: str) -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        for block in blocks(page, "bash", "sh", "shell", "console"):
            for line in block.splitlines():
                line = re.split(r" #| [|>] ", line, maxsplit=1)[0].strip().removeprefix("$ ")
                if line.startswith(first_word + " "):
                    found.append((page_id(page), line))
    return found


@pytest.mark.parametrize(("page", "line"), documented_commands("fakes"))
def test_documented_fakes_commands_parse(page: str, line: str) -> None:
    try:
        build_parser().parse_args(shlex.split(line)[1:])
    except SystemExit as exc:
        pytest.fail(f"{page}: `{line}` does not parse (exit {exc.code})")


@pytest.mark.parametrize(("page", "line"), documented_commands("python -m scenarios")
                         + documented_commands("fakes scenarios"))
def test_documented_scenario_commands_name_real_scenarios(page: str, line: str) -> None:
    words = shlex.split(line)[2 if line.startswith("fakes ") else 3:]
    if words[:1] == ["run"]:
        assert words[1] == "all" or words[1] in discover(), f"{page}: `{line}` names no scenario"
    else:
        assert words[:1] in (["list"], ["bench"]), f"{page}: `{line}` is no scenarios command"


@pytest.mark.parametrize(("page", "line"), documented_commands("fakes bench")
                         + documented_commands("python -m scenarios bench"))
def test_documented_bench_commands_parse(page: str, line: str) -> None:
    words = shlex.split(line)
    try:
        bench_parser().parse_args(words[2 if words[0] == "fakes" else 4:])
    except SystemExit as exc:
        pytest.fail(f"{page}: `{line}` does not parse (exit {exc.code})")


@pytest.mark.parametrize("page", [p for p in PAGES if blocks(p, "python")], ids=page_id)
def test_in_process_examples_run(page: Path) -> None:
    for block in blocks(page, "python"):
        if block.startswith("from fakes") and "..." not in block:
            exec(compile(block, str(page), "exec"), {})
