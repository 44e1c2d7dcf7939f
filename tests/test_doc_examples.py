"""Every Python example of the documentation runs as written, the way a user runs it.

Each fenced ```python block of README.md, docs/*.md and docs/services/*.md is written to a file
in a fresh temporary directory and run in a subprocess that sees only the installed package (no
checkout on its path, no FAKES_* variable): a block that defines ``def test_...`` functions is a
test file and must pass under pytest (with the plugin's fixtures, ``--strict-markers``); any
other block is a script and must exit with status 0. A snippet that needs a served fake serves it
itself (``with fake.serve() as base_url:``), as a user's code does.

A block that is not runnable on purpose (a method out of its class, a fragment of a route) says
so on the line right above it, visibly in the page's source: ``<!-- not run: the reason -->``.
The reason is required; the suite lists each such block as a test of its own. A test file that
shows how a failure reads says so likewise, ``<!-- fails on purpose: the reason -->``: each of its
tests must fail (not error), with the AssertionError the page prints after it.

The notes template (examples/notes/README.md) is followed from outside the checkout: the folder
is copied into an empty project with the page's own commands, and its snippets run there.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.serving import VENV_BIN, clean_env, free_port, health, running

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs" / "services").glob("*.md"))]
TEMPLATE_PAGE = ROOT / "examples" / "notes" / "README.md"
FENCE = re.compile(r"^(?P<indent>\s*)```(?P<info>[^`\s]*)")
PYTHON = {"python", "py", "python3"}
NOT_RUN = re.compile(r"^\s*<!--\s*not run\b:?(?P<reason>.*?)-->\s*$")
FAILS = re.compile(r"^\s*<!--\s*fails on purpose\b:?(?P<reason>.*?)-->\s*$")
TEST_FUNCTION = re.compile(r"^(?:async )?def test_", re.M)
TIMEOUT_S = 120.0


@dataclass(frozen=True)
class Example:
    page: Path
    line: int  # of the opening fence, 1-based
    code: str
    not_run: str | None  # the reason given above a block that is not run on purpose
    fails: str | None = None  # the reason given above a test file whose tests fail on purpose
    shown_failure: str = ""  # the first ``E   AssertionError`` line of the page's next block

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    @property
    def is_test_file(self) -> bool:
        return TEST_FUNCTION.search(self.code) is not None

    @property
    def file_name(self) -> str:
        """The file it is written to: ``# conftest.py`` on its first line names it; else a name
        unique across pages, so that many test files can share one pytest run."""
        first = self.code.split("\n", 1)[0]
        named = re.fullmatch(r"#\s*(\w+\.py)\b.*", first)
        if named:
            return named[1]
        stem = re.sub(r"\W+", "_", f"{self.page.relative_to(ROOT).with_suffix('')}_{self.line}")
        return f"test_{stem}.py" if self.is_test_file else f"{stem}.py"


def python_examples(page: Path) -> list[Example]:
    """The page's ```python blocks (also indented ones, inside lists), dedented."""
    lines = page.read_text().splitlines()
    found, index = [], 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        indent, end = len(opening["indent"]), index + 1
        while end < len(lines) and not lines[end].strip().startswith("```"):
            end += 1
        if opening["info"] in PYTHON:
            above = next((line for line in reversed(lines[:index]) if line.strip()), "")
            marker, failing = NOT_RUN.match(above), FAILS.match(above)
            code = "\n".join(line[indent:] for line in lines[index + 1:end]) + "\n"
            shown = next((line.split("E", 1)[1].strip() for line in lines[end + 1:]
                          if line.lstrip().startswith("E") and "AssertionError" in line), "") if failing else ""
            found.append(Example(page, index + 1, code, marker["reason"].strip() if marker else None,
                                 failing["reason"].strip() if failing else None, shown))
        index = end + 1
    return found


ALL = [example for page in PAGES for example in python_examples(page)]
SCRIPTS = [example for example in ALL if example.not_run is None and not example.is_test_file]
TEST_FILES = [example for example in ALL if example.not_run is None and example.is_test_file and not example.fails]
FAILING_ON_PURPOSE = [example for example in ALL if example.fails]
NOT_RUN_ON_PURPOSE = [example for example in ALL if example.not_run is not None]


def user_env() -> dict[str, str]:
    """A user's shell: the installed package and its console scripts, not the checkout."""
    env = clean_env()
    env.pop("PYTHONPATH", None)
    env["PATH"] = f"{VENV_BIN}:{env.get('PATH', '')}"
    return env


def run(argv: Sequence[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(argv), cwd=cwd, env=user_env(), capture_output=True, text=True,
                          timeout=TIMEOUT_S, stdin=subprocess.DEVNULL)


def run_script(example: Example, cwd: Path) -> None:
    (cwd / example.file_name).write_text(example.code)
    result = run([sys.executable, example.file_name], cwd)
    assert result.returncode == 0, (f"{example.name} does not run as written (exit {result.returncode}):\n"
                                    f"{result.stdout[-2000:]}{result.stderr[-4000:]}")


def run_test_files(examples: Sequence[Example], cwd: Path) -> None:
    """One pytest run over the examples' test files; each of their test functions must pass."""
    for example in examples:
        (cwd / example.file_name).write_text(example.code)
    result = run([sys.executable, "-m", "pytest", "-rA", "-p", "no:cacheprovider", "--strict-markers",
                  *(example.file_name for example in examples)], cwd)
    passed = set(re.findall(r"^PASSED (\S+)", result.stdout, re.M))
    for example in examples:
        for test in re.findall(r"^(?:async )?def (test_\w+)", example.code, re.M):
            assert f"{example.file_name}::{test}" in passed, (
                f"{example.name}: {test} does not pass as written:\n{result.stdout[-5000:]}{result.stderr[-2000:]}")


def test_the_pages_have_examples_of_both_kinds() -> None:
    assert len(SCRIPTS) >= 10 and len(TEST_FILES) >= 3, [example.name for example in ALL]


@pytest.mark.parametrize("example", SCRIPTS, ids=lambda example: example.name)
def test_script_example_runs(example: Example, tmp_path: Path) -> None:
    run_script(example, tmp_path)


def test_test_file_examples_pass(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")  # this directory is the rootdir, whatever is above
    run_test_files(TEST_FILES, tmp_path)


@pytest.mark.parametrize("example", FAILING_ON_PURPOSE, ids=lambda example: example.name)
def test_a_failing_example_fails_as_the_page_shows(example: Example, tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / example.file_name).write_text(example.code)
    result = run([sys.executable, "-m", "pytest", "-rA", "-p", "no:cacheprovider", "--strict-markers",
                  example.file_name], tmp_path)
    failed = set(re.findall(r"^FAILED (\S+)", result.stdout, re.M))
    for test in re.findall(r"^(?:async )?def (test_\w+)", example.code, re.M):
        assert f"{example.file_name}::{test}" in failed, f"{example.name}: {test} should fail:\n{result.stdout[-4000:]}"
    assert len(example.fails.split()) >= 3, f"{example.name}: `<!-- fails on purpose: ... -->` needs a reason"
    assert example.shown_failure and example.shown_failure in result.stdout, (
        f"{example.name}: the page shows {example.shown_failure!r}; pytest printed:\n{result.stdout[-4000:]}")


@pytest.mark.parametrize("example", NOT_RUN_ON_PURPOSE, ids=lambda example: example.name)
def test_a_block_not_run_says_why(example: Example) -> None:
    assert example.not_run and len(example.not_run.split()) >= 3, (
        f"{example.name}: `<!-- not run: ... -->` needs a reason (what the fragment is, where it lives)")


# -- the notes template, copied into a project of one's own ---------------------------------------
RUNNER_IMPORT = ("from .runner import Run, Scenario", "from fakes.scenarios.runner import Run, Scenario")


def test_the_notes_template_works_copied_into_a_project_of_ones_own(tmp_path: Path) -> None:
    """Follow examples/notes/README.md's "Try it" outside the checkout: its commands copy the
    folder (from a checkout named contract-fakes) into your-project, where its snippets run: the
    scripts, the conftest and test file under pytest, the serve script, the copied scenario."""
    text = TEMPLATE_PAGE.read_text()
    commands = re.findall(r"```bash\n(.*?)```", text, re.S)
    assert len(commands) == 1 and "cp -r contract-fakes/examples/notes your-project/notes" in commands[0]
    (tmp_path / "contract-fakes").symlink_to(ROOT)
    project = tmp_path / "your-project"
    project.mkdir()
    copied = run(["bash", "-euc", commands[0]], tmp_path)
    assert copied.returncode == 0, copied.stderr

    # the scenario's one line to change, as the page says
    assert " ".join(RUNNER_IMPORT[1].split()) in " ".join(text.split())
    scenario = project / "notes_ready.py"
    assert RUNNER_IMPORT[0] in scenario.read_text()
    scenario.write_text(scenario.read_text().replace(*RUNNER_IMPORT))

    examples = python_examples(TEMPLATE_PAGE)
    files = {example.file_name: example for example in examples if example.code.startswith("# ")}
    assert sorted(files) == ["conftest.py", "serve_notes.py", "test_notes.py"], sorted(files)
    scripts = [example for example in examples if example.file_name not in files]
    assert len(scripts) == 2 and "from notes_ready import SCENARIO" in scripts[1].code
    for example in scripts:
        run_script(example, project)

    (project / "conftest.py").write_text(files["conftest.py"].code)
    run_test_files([files["test_notes.py"]], project)

    (project / "serve_notes.py").write_text(files["serve_notes.py"].code)
    port = free_port()
    with running([sys.executable, "serve_notes.py", "--port", str(port)], user_env(), project) as server:
        server.wait_until_up([f"http://127.0.0.1:{port}/_fake/health"])
        assert health(f"http://127.0.0.1:{port}/_fake/health")["service"] == "notes"
        assert health(f"http://127.0.0.1:{port}/notes") == {"notes": []}
        code, _ = server.terminate(signal.SIGINT)  # Ctrl-C
        assert code == 0, server.describe()
        assert "notes: no client rule broken" in server.stdout, server.describe()

