"""docs/verdicts.md lists every client rule of every registered service, as the code declares it.

Regenerate the table after adding or changing a rule: ``python -m tests.verdicts.test_docs``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fakes import registry
from fakes.kernel.verdicts import SEVERITIES, rules_markdown

PAGE = Path(__file__).resolve().parents[2] / "docs" / "verdicts.md"
START = "<!-- rules table: generated from the registry by `python -m tests.verdicts.test_docs`; do not edit by hand -->"
END = "<!-- end of rules table -->"


def fake_classes() -> list[type]:
    return [registry.fake_class(name) for name in registry.service_names()]


def current_table() -> str:
    text = PAGE.read_text()
    return text[text.index(START) + len(START):text.index(END)].strip()


def test_every_service_declares_well_formed_rules() -> None:
    seen: set[str] = set()
    for cls in fake_classes():
        for rule in cls.client_rules:
            assert re.fullmatch(rf"{re.escape(cls.name)}/[a-z0-9]+(-[a-z0-9]+)*", rule.id), rule.id
            assert rule.severity in SEVERITIES and rule.explanation and rule.source, rule
            assert rule.id not in seen, f"{rule.id} is declared twice"
            seen.add(rule.id)


def test_the_rules_table_is_the_registry_s() -> None:
    try:
        classes = fake_classes()
    except Exception as exc:  # a service being written does not import yet
        pytest.skip(f"not every registered service imports: {exc!r}")
    assert current_table() == rules_markdown(classes), (
        "docs/verdicts.md is out of step with the declared client rules: run `python -m tests.verdicts.test_docs`")


def write_table() -> None:
    text = PAGE.read_text()
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    PAGE.write_text(f"{head}{START}\n{rules_markdown(fake_classes())}\n{END}{tail}")


if __name__ == "__main__":
    write_table()
    print(f"wrote the rules table of {PAGE}")
