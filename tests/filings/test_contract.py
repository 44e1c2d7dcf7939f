"""Schemathesis on the fake's own OpenAPI document, in process, with the caller's key configured
on the schema (so a request schemathesis strips of its key is expected to be refused), plus the
document's own promises: every documented status is reachable. (tests/contract runs the same
operations with more examples; FAKES_TEST_FILINGS_CONTRACT_EXAMPLES raises the count here.)"""

from __future__ import annotations

import os
from typing import Any

import pytest

from fakes.filings import FilingsFake
from tests.support.schemathesis_harness import operation_labels, run_operation

EXAMPLES = int(os.environ.get("FAKES_TEST_FILINGS_CONTRACT_EXAMPLES", "25"))


def _point_at_a_real_record(case: Any, known_id: bool) -> None:
    """Half of the time an id that exists (where the generated id is a valid one)."""
    if known_id and case.path_parameters:
        for name, value in case.path_parameters.items():
            if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
                case.path_parameters[name] = 7


#: the original operations, whose ids the tweak points at real records; tests/contract runs every
#: operation of the document (these too) with more examples
CORE = ("/companies/", "/companies/{company_id}/", "/filings/", "/filings/{filing_id}/",
        "/filings/{filing_id}/markdown/", "/filings/{filing_id}/document/", "/filing-types/",
        "/filing-types/{type_id}/")


@pytest.mark.parametrize("label", [label for label in operation_labels(FilingsFake(seed=0, scale="small"))
                                   if label.split(" ", 1)[1] in CORE])
def test_operation_keeps_its_documented_contract(label: str) -> None:
    fake = FilingsFake(seed=0, scale="small")
    assert run_operation(fake, label, max_examples=EXAMPLES, tweak=_point_at_a_real_record) >= 1


def test_every_documented_status_is_reachable() -> None:
    fake = FilingsFake(seed=0, scale="small", agent_sandbox_calls=1)
    keys = {tier: fake.create_key(tier) for tier in ("free", "standard", "level2", "enterprise")}
    exhausted = fake.create_key("enterprise", quota=0)
    with fake.client() as http:  # an agent whose sandbox is spent (402) and one whose owner blocked it (403)
        unfunded, blocked = (http.post("/agent/signup/", json={"email": f"{name}@example.com", "agent_name": name})
                             .json()["api_key"] for name in ("spent", "blocked"))
        assert http.get("/languages/", headers={"X-API-Key": unfunded}).status_code == 200
    fake.agent_owner("blocked@example.com", "block")
    pending = fake.add_filing(company=3)["id"]
    reached: dict[str, set[str]] = {}
    with fake.client() as http:
        ready = next(f["id"] for f in http.get("/filings/", headers={"X-API-Key": keys["enterprise"]}).json()["results"]
                     if f["processing_status"] == "COMPLETED")

        def hit(path: str, key: str | None, params: dict[str, str] | None = None) -> None:
            headers = {"X-API-Key": key} if key else {}
            response = http.get(path, params=params, headers=headers)
            reached.setdefault(path.split("?")[0], set()).add(str(response.status_code))

        for template, sample in [("/companies/", "/companies/"), ("/companies/{company_id}/", "/companies/7/"),
                                 ("/filings/", "/filings/"), ("/filings/{filing_id}/", f"/filings/{ready}/"),
                                 ("/filings/{filing_id}/markdown/", f"/filings/{ready}/markdown/"),
                                 ("/filings/{filing_id}/document/", f"/filings/{ready}/document/"),
                                 ("/filing-types/", "/filing-types/"),
                                 ("/filing-types/{type_id}/", "/filing-types/7/")]:
            hit(sample, keys["enterprise"])
            hit(sample, None)
            hit(sample, keys["free"])
            hit(sample, keys["standard"], {"format": "markdown"})
            hit(sample, exhausted)
            hit(sample, unfunded)
            hit(sample, blocked)
            unknown = sample.replace("/7/", "/999999/").replace(f"/{ready}/", "/999999/")
            hit(unknown, keys["enterprise"])
            hit(sample, keys["enterprise"], {"page_size": "0", "format": "pdf", "limit": "0"})
            hit(sample, keys["enterprise"], {"page": "999"})
            reached[template] = reached.pop(sample, set()) | reached.pop(unknown, set())
        hit(f"/filings/{pending}/markdown/", keys["enterprise"])
        reached["/filings/{filing_id}/markdown/"] |= reached.pop(f"/filings/{pending}/markdown/")
    for path, item in fake.openapi()["paths"].items():
        if path not in CORE:
            continue
        documented = set(item["get"]["responses"])
        assert documented <= reached[path], (path, documented - reached[path])
        assert reached[path] <= documented, (path, reached[path] - documented)


def test_document_describes_the_api_key_and_limits() -> None:
    document = FilingsFake(seed=0, scale="small").openapi()
    assert document["components"]["securitySchemes"]["ApiKeyAuth"] == {"type": "apiKey", "in": "header",
                                                                       "name": "X-API-Key"}
    page_size = next(p for p in document["paths"]["/filings/"]["get"]["parameters"] if p["name"] == "page_size")
    assert "cut to 100" in page_size["description"]
    assert {"/_fake/keys", "/_fake/companies", "/_fake/filings"} <= set(document["paths"])
    listing = document["paths"]["/filings/"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert listing["$ref"] == "#/components/schemas/PaginatedFilingSummaryList"
