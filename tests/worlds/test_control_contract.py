"""The worlds' control operations keep their documented contract (schemathesis), and a world's
own OpenAPI document serves it under its base URL."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.schemathesis_harness import run_operation

from .conftest import make_root

OPERATIONS = ["GET /_fake/worlds", "DELETE /_fake/worlds", "GET /_fake/worlds/{world_id}",
              "DELETE /_fake/worlds/{world_id}"]


@pytest.mark.parametrize("label", OPERATIONS)
def test_world_operations_keep_their_contract(label: str) -> None:
    fake = make_root("member-export")

    def existing_world_half_the_time(case: Any, existing: bool) -> None:
        fake.world("known")
        if existing and case.path_parameters and "world_id" in case.path_parameters:
            case.path_parameters["world_id"] = "known"

    assert run_operation(fake, label, max_examples=15, tweak=existing_world_half_the_time,
                         with_control_plane=True) >= 1


def test_a_world_documents_itself_under_its_base(service: str) -> None:
    fake = make_root(service)
    document = fake.client().get("/_w/docs-1/openapi.json").json()
    assert document["servers"][0]["url"].endswith("/_w/docs-1")
    assert "/_fake/worlds" not in document["paths"]  # worlds do not nest
    assert "/_fake/worlds" in fake.openapi()["paths"]
