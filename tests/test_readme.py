"""The README's examples run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"

pytest_plugins = ["pytester"]


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_readme_opens_with_the_two_commands() -> None:
    text = README.read_text()
    blocks = re.findall(r"```bash\n(.*?)```", text, re.S)
    assert "pip install . && fakes serve" in blocks[0]
    assert "pip install -e '.[test]' && pytest" in blocks[1]
    ci = (README.parent / ".ci" / "run").read_text()
    assert "pip install -e '.[test]'" in ci and "\npytest -n 2\n" in ci  # CI runs what README says


def test_pytest_fixture_example_runs_as_a_test_file(pytester: pytest.Pytester) -> None:
    example = next(block for block in python_blocks() if "def test_sync_pages_every_connection" in block)
    pytester.makepyfile(test_example=example)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_in_process_examples_run() -> None:
    for block in python_blocks():
        if block.startswith("from fakes.member_export import MemberExportFake") or \
                block.startswith("from fakes.filings import FilingsFake"):
            exec(compile(block, "README.md", "exec"), {})
