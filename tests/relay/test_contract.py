"""Schemathesis on the relay's own OpenAPI document, in process, with a team token configured on
the schema (tests/contract runs the same operations too). Zero failures: no 5xx of the relay's
own, documented statuses, content types and bodies, invalid input refused."""

from __future__ import annotations

import os
from typing import Any

import pytest
from schemathesis.core import NOT_SET

from fakes.relay import RelayFake
from tests.support.schemathesis_harness import operation_labels, run_operation

EXAMPLES = int(os.environ.get("FAKES_TEST_RELAY_CONTRACT_EXAMPLES", "40"))
KNOWN_IDS = ["mailscout.people.email.find", "firmdata.companies.enrich", "proxy.email.verify",
             "https://api.firmdata.example/v1/companies/enrich"]


def _point_at_real_records(case: Any, known: bool) -> None:
    """Half of the time a catalogue id or upstream URL that exists, with its example input."""
    if not known or not case.path_parameters:
        return
    for name in ("target", "entry_id"):
        if isinstance(case.path_parameters.get(name), str):
            case.path_parameters[name] = KNOWN_IDS[len(str(case.path_parameters[name])) % len(KNOWN_IDS)]
            if name == "target":
                case.query = {**(case.query or {}), "domain": "northwind.com", "first_name": "Ada",
                              "last_name": "Lovelace", "email": "ada@northwind.com"}
                if case.path_parameters[name] == "proxy.email.verify" and case.body is not NOT_SET:
                    # a routed id takes a JSON object body (treg's 400 otherwise), which the one
                    # request schema of /call/{target} cannot say for one kind of target
                    case.body, case.media_type = {"email": "ada@northwind.com"}, "application/json"
    org_id = case.path_parameters.get("org_id")
    if isinstance(org_id, int) and not isinstance(org_id, bool):  # a negative case keeps its bad value
        case.path_parameters["org_id"] = 1


def _call_and_catalogue_labels() -> list[str]:
    """The operations whose cases need pointing at real ids (the call, the catalogue, the connector);
    the account surface runs in tests/contract on the same document, once."""
    document = RelayFake(seed=0).openapi()["paths"]
    return [label for label in operation_labels(RelayFake(seed=0))
            if "accounts" not in document[label.split(" ", 1)[1]][label.split(" ", 1)[0].lower()].get("tags", [])]


@pytest.mark.parametrize("label", _call_and_catalogue_labels())
def test_operation_keeps_its_documented_contract(label: str) -> None:
    fake = RelayFake(seed=0)
    assert run_operation(fake, label, max_examples=EXAMPLES, tweak=_point_at_real_records) >= 1


def test_document_names_the_token_header_of_the_setting() -> None:
    assert RelayFake().openapi()["components"]["securitySchemes"]["RelayToken"]["name"] == "X-Proxy-Token"
    treg = RelayFake(header_prefix="X-Treg").openapi()
    assert treg["components"]["securitySchemes"]["RelayToken"]["name"] == "X-Treg-Token"
    assert {"/call/{target}", "/catalog/search", "/catalog/endpoints/{entry_id}", "/catalog/platforms", "/balance",
            "/calls/{call_ref}", "/llms.txt", "/use-cases", "/use-cases.md", "/install.sh", "/mcp/v2/",
            "/_fake/teams", "/_fake/upstreams", "/_fake/saturation"} <= set(treg["paths"])
