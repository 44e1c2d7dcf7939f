"""The documentation stays honest: README's cheap commands run (`fakes list`, `fakes openapi NAME`,
`fakes scenarios list`, and any other documented command that only prints), every link resolves,
every documented `fakes`, `fakes scenarios` and `fakes bench` command parses, and no page points
outside the repository. The Python examples run in tests/test_doc_examples.py."""

from __future__ import annotations

import itertools
import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from fakes import registry
from fakes.kernel.cli import build_parser
from scenarios.bench.cli import build_parser as bench_parser
from scenarios.runner import discover
from tests.support.serving import VENV_BIN, clean_env

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
#: documented commands that only print, cheap enough to run in the suite
PRINTING = ("fakes list", "fakes openapi ", "fakes scenarios list", "fakes --version", "fakes --help",
            "fakes serve --help")


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


def printing_commands() -> list[tuple[str, str]]:
    """Every documented command that only prints, as written (a `> file` redirection kept), and
    README's synopsis expanded: `fakes list [--settings] [--rules]` with each option, `fakes
    openapi NAME` for every service."""
    found = []
    for page in PAGES:
        for block in blocks(page, "bash", "sh", "shell", "console"):
            for line in block.splitlines():
                line = re.split(r"\s+#", line, maxsplit=1)[0].strip().removeprefix("$ ")
                if line.startswith(PRINTING):
                    found.append((page_id(page), line))
    synopsis = re.search(r"^```\n(fakes serve \[.*?)^```", README.read_text(), re.S | re.M)
    assert synopsis, "README's synopsis (a fence without a language, from `fakes serve [...`) is gone"
    for line in synopsis[1].splitlines():
        words = re.split(r"\s+#", line, maxsplit=1)[0].split()
        if line.startswith("fakes list"):
            options = [word.strip("[]") for word in words[2:]]
            found += [("README.md", " ".join(["fakes", "list", *chosen]))
                      for count in range(len(options) + 1) for chosen in itertools.combinations(options, count)]
        elif line.startswith("fakes openapi NAME"):
            found += [("README.md", f"fakes openapi {name}") for name in registry.service_names()]
    return sorted(set(found))


def test_the_synopsis_is_found() -> None:
    commands = [line for _, line in printing_commands()]
    assert {"fakes list", "fakes list --settings", "fakes list --rules", "fakes scenarios list"} <= set(commands)
    assert {f"fakes openapi {name}" for name in registry.service_names()} <= set(commands)


@pytest.mark.parametrize(("page", "line"), printing_commands())
def test_documented_printing_commands_run(page: str, line: str, tmp_path: Path) -> None:
    env = clean_env({"PATH": f"{VENV_BIN}:{clean_env().get('PATH', '')}"})
    env.pop("PYTHONPATH", None)  # the installed package, as a user's shell has it
    result = subprocess.run(["bash", "-euc", line], cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=60, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, f"{page}: `{line}` exits {result.returncode}: {result.stderr[-2000:]}"
    redirected = re.search(r">\s*(\S+)$", line)
    output = (tmp_path / redirected[1]).read_text() if redirected else result.stdout
    words = shlex.split(line.split(">")[0])
    if words[1] == "list":
        for name in registry.service_names():
            cls = registry.fake_class(name)
            assert f"{name:<15} port {cls.default_port}" in output
            if "--settings" in words:
                assert all(f"{name}.{row['name']} = " in output for row in cls.settings_class.describe())
            if "--rules" in words:
                assert all(rule.id in output for rule in cls.client_rules)
    elif words[1] == "openapi":
        document = json.loads(output)
        assert document["openapi"].startswith("3.") and document["paths"], f"{page}: `{line}`"
        assert document["info"]["title"].startswith(registry.fake_class(words[2]).title.split(" (")[0])
    elif words[1:3] == ["scenarios", "list"]:
        assert all(name in output for name, scenario in discover().items()), output
    else:
        assert output.strip(), f"{page}: `{line}` printed nothing"
