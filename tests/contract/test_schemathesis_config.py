"""The repository's schemathesis.toml (what `st run` reads against a fake) spares positive data
acceptance exactly where a document says why a schema-valid request may be refused
(``x-acceptance-beyond-schema``): no operation more, none less, in any service. A service's block is
the ``[[project]]`` of its document's title; the top-level block holds the kernel's operations."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from fakes import registry
from fakes.kernel.openapi import ACCEPTANCE_BEYOND_SCHEMA, control_paths
from tests.hardening.harness import make_fake

CONFIG = tomllib.loads((Path(__file__).resolve().parents[2] / "schemathesis.toml").read_text())
SPARED = {"positive_data_acceptance": {"enabled": False}}


def _marked(paths: dict[str, Any]) -> set[str]:
    return {f"{method.upper()} {path}" for path, item in paths.items() for method, operation in item.items()
            if isinstance(operation, dict) and ACCEPTANCE_BEYOND_SCHEMA in operation}


def _spared(block: dict[str, Any]) -> set[str]:
    names: set[str] = set()
    for entry in block["operations"]:
        assert entry["checks"] == SPARED and set(entry) == {"include-name", "checks"}, entry
        names.update(entry["include-name"])
    return names


def test_the_default_block_spares_the_kernels_marked_operations() -> None:
    assert _spared(CONFIG) == _marked(control_paths())


@pytest.mark.parametrize("service", registry.service_names())
def test_the_services_block_spares_the_operations_its_document_marks(service: str) -> None:
    document = make_fake(service).openapi()
    blocks = [project for project in CONFIG["project"] if project["title"] == document["info"]["title"]]
    assert len(blocks) <= 1, f"one [[project]] titled {document['info']['title']!r}"
    # a service without a block of its own (a service of the user's) gets the top-level one
    assert _spared(blocks[0] if blocks else CONFIG) == _marked(document["paths"])
