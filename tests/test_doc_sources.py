"""Every source a user is pointed at is one they can open: each client rule cites the vendor's
public documentation (a URL) or a page of this repository (a section that exists), and no page,
rule, setting or dashboard file names a path outside the repository or the project's internal
notes (the seeds and reference notes the fakes were built from are not shipped)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from examples.notes import NotesFake
from fakes import registry
from fakes.kernel.fake import Fake

ROOT = Path(__file__).resolve().parents[1]
#: what a user cannot open: paths outside the checkout, the internal notes and their sections
UNOPENABLE = re.compile("|".join([
    r"/work/", r"\.\./shared", r"vendor-walk", r"real-apis\.md", r"clients\.md", r"anchors\.md", r"vendor-specs",
    r"\bseed[ `]*00\d", r"\b\d{3}_[0-9a-f]{16}\.txt", r"\breference [A-E](\.\d)?\b", r"\breference notes\b",
]), re.I)
URL = re.compile(r"https://[^\s)'\"]+")
REPO_PAGE = re.compile(r"\b((?:docs|examples)/[\w./-]+\.md|README\.md|CONTRIBUTING\.md)(#[\w-]+)?")
#: these files state the patterns above in order to check them
CHECKERS = {"tests/test_doc_sources.py", "tests/test_docs.py"}


def fakes() -> list[type[Fake]]:
    return [registry.fake_class(name) for name in registry.service_names()] + [NotesFake]


def slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    return {slug(line.lstrip("#")) for line in page.read_text().splitlines() if line.startswith("#")}


def tracked_text_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [path for path in listed.splitlines()
            if path.endswith((".py", ".md", ".html", ".js", ".css", ".yaml", ".yml", ".toml", ".txt", ".cfg"))
            or path.startswith((".ci/", "docker/")) or Path(path).name in (".gitignore", ".dockerignore")]


@pytest.mark.parametrize("fake_class", fakes(), ids=lambda cls: cls.name)
def test_every_rule_cites_a_source_a_user_can_open(fake_class: type[Fake]) -> None:
    for rule in fake_class.client_rules:
        assert not UNOPENABLE.search(rule.source), f"{rule.id} cites {rule.source!r}"
        pages = REPO_PAGE.findall(rule.source)
        assert URL.search(rule.source) or pages, f"{rule.id} cites neither a URL nor a page: {rule.source!r}"
        for page, anchor in pages:
            assert (ROOT / page).is_file(), f"{rule.id} cites {page}, which does not exist"
            if anchor:
                assert anchor[1:] in anchors(ROOT / page), f"{rule.id} cites {page}{anchor}: no such section"


@pytest.mark.parametrize("fake_class", fakes(), ids=lambda cls: cls.name)
def test_settings_and_explanations_name_nothing_a_user_cannot_open(fake_class: type[Fake]) -> None:
    for rule in fake_class.client_rules:
        assert not UNOPENABLE.search(rule.explanation), f"{rule.id}: {rule.explanation!r}"
    for row in fake_class.settings_class.describe():
        assert not UNOPENABLE.search(str(row.get("help", ""))), f"{fake_class.name}.{row['name']}: {row}"


def test_no_file_names_a_path_outside_the_repository() -> None:
    found = []
    for path in tracked_text_files():
        if path in CHECKERS or not (ROOT / path).is_file():
            continue
        for number, line in enumerate((ROOT / path).read_text(errors="replace").splitlines(), 1):
            match = UNOPENABLE.search(line)
            if match and (path.endswith(".md") or path.startswith(("fakes/", "docker/", "scenarios/", ".ci/"))
                          or match.group(0).lower() in ("/work/", "../shared")):
                found.append(f"{path}:{number}: {match.group(0)!r} in {line.strip()[:120]}")
    assert not found, "sources a user cannot open:\n" + "\n".join(found)
