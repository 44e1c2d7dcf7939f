"""Each service page's settings table lists exactly the settings the code has (`fakes list
--settings`), with the defaults the code has, where the page writes a number."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from fakes import registry

ROOT = Path(__file__).resolve().parents[1]
UNITS = {"KiB": 1024, "MiB": 1024**2, "GiB": 1024**3}


def settings_rows(service: str) -> list[tuple[list[str], str]]:
    """(setting names, default cell) of each row of the page's "## Settings" table."""
    text = (ROOT / "docs" / "services" / f"{service}.md").read_text()
    found = re.search(r"^## Settings.*?(?=^## |\Z)", text, re.S | re.M)
    assert found, f"docs/services/{service}.md has no Settings section"
    rows = []
    for line in found.group(0).splitlines():
        if line.startswith("| `"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            rows.append((re.findall(r"`([a-z][a-z0-9_]*)`", cells[0]), cells[1] if len(cells) > 1 else ""))
    return rows


def number(text: str) -> float | None:
    """``"10,000"``, ``"200 MiB"``, ``"0 (off)"``, ``"5"`` -> the number; None when it is not one."""
    match = re.fullmatch(r"`?(-?[\d,]*\.?\d+)`?\s*(KiB|MiB|GiB)?(\s*\(.*\))?", text.strip())
    if not match:
        return None
    return float(match[1].replace(",", "")) * UNITS.get(match[2] or "", 1)


@pytest.mark.parametrize("service", registry.service_names())
def test_the_settings_table_lists_every_setting(service: str) -> None:
    documented = [name for names, _ in settings_rows(service) for name in names]
    declared = [row["name"] for row in registry.fake_class(service).settings_class.describe()]
    assert sorted(set(documented)) == sorted(declared), (
        f"docs/services/{service}.md: missing {sorted(set(declared) - set(documented))}, "
        f"not settings {sorted(set(documented) - set(declared))}")


@pytest.mark.parametrize("service", registry.service_names())
def test_the_settings_table_shows_the_defaults(service: str) -> None:
    defaults: dict[str, Any] = {row["name"]: row["default"]
                                for row in registry.fake_class(service).settings_class.describe()}
    checked = 0
    for names, cell in settings_rows(service):
        parts = [cell] if len(names) == 1 else re.split(r"\s*/\s*|,\s+", cell)
        if len(parts) != len(names):
            continue  # one description for several settings: no default per setting to compare
        for name, part in zip(names, parts, strict=True):
            shown, actual = number(part), defaults[name]
            if shown is None or isinstance(actual, bool) or not isinstance(actual, int | float):
                continue
            assert shown == actual, f"docs/services/{service}.md shows {name} = {part!r}; its default is {actual!r}"
            checked += 1
    assert checked, f"docs/services/{service}.md: no default could be compared"
