"""The walk of a vendor's API document (``--document``): a small hand-written one here (the suite
reads no vendor file), the fake's own served ``/openapi.json`` as a URL, and, opt-in, the vendors'
published documents from a directory named by FAKES_TEST_VENDOR_DOCS."""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from fakes.conform import ConformOptions, conform
from fakes.conform.document import Document, DocumentError
from fakes.kernel.fake import Fake

from .drift import Plant
from .test_conform import SMALL, key_of, stand_in

STATUSES = ["PENDING", "QUEUED", "PROCESSING", "COMPLETED", "FAILED", "SKIPPED"]
#: a vendor document as a vendor writes one: its own names for paths and parameters, an enum, a
#: declared header, security in components
VENDOR_DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "A filings API", "version": "1"},
    "components": {
        "securitySchemes": {"ApiKeyAuth": {"type": "apiKey", "in": "header", "name": "X-API-Key"}},
        "schemas": {"FilingSummary": {"type": "object", "properties": {
            "id": {"type": "integer"}, "title": {"type": "string"},
            "processing_status": {"type": "string", "enum": STATUSES}}}},
        "parameters": {"FilingId": {"name": "filing", "in": "path", "required": True, "schema": {"type": "integer"}}},
    },
    "security": [{"ApiKeyAuth": []}],
    "paths": {
        "/filings/": {"get": {
            "parameters": [{"name": "page_size", "in": "query", "schema": {"type": "integer"}}],
            "responses": {"200": {
                "headers": {"X-RateLimit-Burst-Limit": {"schema": {"type": "string"}}},
                "content": {"application/json": {"schema": {"type": "object", "properties": {
                    "results": {"type": "array", "items": {"$ref": "#/components/schemas/FilingSummary"}}}}}}}}}},
        "/filings/{filing}/": {"parameters": [{"$ref": "#/components/parameters/FilingId"}],
                               "get": {"responses": {"200": {"description": "a filing"}}}},
        "/countries/": {"get": {"responses": {"200": {"description": "countries"}}}},
        "/watchlist/companies/": {"post": {"requestBody": {"content": {"application/json": {"schema": {
            "type": "object", "required": ["company_id"], "properties": {"company_id": {"type": "integer"}}}}}},
            "responses": {"201": {"description": "added"}}}},
    },
}


def walk(fake: Fake, url: str, document: str, **options: Any) -> Any:
    return conform(ConformOptions("filings", url, credentials={"api_key": key_of(fake)}, document=document,
                                  settings=SMALL, scenarios=[], max_calls=1000, **options))


def test_a_vendor_document_in_yaml_is_walked_with_its_own_names(tmp_path: Path) -> None:
    path = tmp_path / "vendor.yaml"
    path.write_text(yaml.safe_dump(VENDOR_DOCUMENT, sort_keys=False))
    with stand_in(seed=1, **SMALL) as (fake, url):
        report = walk(fake, url, str(path))
    results = {r.operation: r for r in report.operations}
    assert list(results) == ["GET /filings/", "GET /filings/{filing}/", "GET /countries/", "POST /watchlist/companies/"]
    assert results["POST /watchlist/companies/"].reason == "walk: a write: runs only with --allow-writes"
    assert {op: r.status for op, r in results.items() if r.status != "not run"} == {
        "GET /countries/": "same", "GET /filings/": "same", "GET /filings/{filing}/": "same"}
    assert report.document == str(path)


def test_the_document_s_enums_and_declared_headers_catch_drift(tmp_path: Path) -> None:
    path = tmp_path / "vendor.json"
    path.write_text(yaml.safe_dump(VENDOR_DOCUMENT, sort_keys=False))  # YAML is a superset of JSON: read either way
    plants = (Plant("GET", r"/filings/", lowercase="processing_status"),
              Plant("GET", r"/filings/", drop_header="x-ratelimit-burst-limit"))
    with stand_in(*plants, **SMALL) as (fake, url):
        report = walk(fake, url, str(path))
    [filings] = [r for r in report.operations if r.operation == "GET /filings/"]
    assert [d.kind for d in filings.differences] == ["header-extra", "enum"]
    assert "(not in the document)" in filings.differences[1].real and "'completed'" in filings.differences[1].real


def test_writes_take_their_body_from_the_document_and_ids_from_the_side(tmp_path: Path) -> None:
    path = tmp_path / "vendor.json"
    path.write_text(yaml.safe_dump(VENDOR_DOCUMENT, sort_keys=False))
    with stand_in(**SMALL) as (fake, url):
        report = walk(fake, url, str(path), allow_writes=True)
        [added] = [e for e in fake.journal_entries() if e["method"] == "POST"]
    assert added["status"] == 201 and '"company_id":' in added["request"]["body"]
    assert {r.operation: r.status for r in report.operations}["POST /watchlist/companies/"] == "same"


def test_the_fake_s_own_served_document_by_url() -> None:
    with stand_in(**SMALL) as (fake, url):
        report = walk(fake, url, f"{url}/openapi.json", operations=["GET /countries/*", "GET /languages/*"])
    assert {r.operation: r.status for r in report.operations} == {
        "GET /countries/": "same", "GET /languages/": "same", "GET /countries/{id}/": "same",
        "GET /languages/{id}/": "same"}
    assert report.document.endswith("/openapi.json")


def test_a_document_that_cannot_be_read_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "broken.yaml").write_text("paths: [unclosed")
    (tmp_path / "other.json").write_text('{"swagger": "2.0"}')
    with pytest.raises(DocumentError, match="neither JSON nor YAML"):
        Document.load(str(tmp_path / "broken.yaml"))
    with pytest.raises(DocumentError, match="not an OpenAPI document"):
        Document.load(str(tmp_path / "other.json"))
    with pytest.raises(DocumentError, match="cannot read the document"):
        Document.load(str(tmp_path / "missing.json"))


def test_operations_are_matched_most_literal_first() -> None:
    document = Document({"paths": {"/videos/{videoId}": {"get": {}}, "/videos/upload": {"get": {}},
                                   "/items/": {"get": {}}}})
    assert document.operation_key("GET", "/videos/upload") == "GET /videos/upload"
    assert document.operation_key("GET", "/videos/vi123") == "GET /videos/{videoId}"
    assert document.operation_key("GET", "/items") == "GET /items/"  # a trailing slash is no other operation
    assert document.operation_key("GET", "/other/vi4blUQJFrYWbaG44NChkH27/x") == "GET /other/{id}/x"


VENDOR_DOCS = os.environ.get("FAKES_TEST_VENDOR_DOCS")
#: (service, the vendor's document, the fake's settings): each vendor's published document
VENDORS = [("video", "apivideo_oas.yaml", {}), ("filings", "financialreports_openapi.snapshot.json", SMALL),
           ("enrichment", "ninjapear_rebuilt_from_client_1.6.0.json", {}),
           ("relay", "treg_openapi_generated.json", {})]


@pytest.mark.skipif(not VENDOR_DOCS, reason="opt-in: FAKES_TEST_VENDOR_DOCS=<directory of the vendors' documents>")
@pytest.mark.parametrize(("service", "name", "settings"), VENDORS, ids=[v[0] for v in VENDORS])
def test_a_vendor_s_whole_document_finds_no_false_alarm(service: str, name: str, settings: dict[str, Any]) -> None:
    """Each vendor's whole published document, walked with writes against a stand-in of another
    seed: every operation both sides answer compares the same."""
    path = Path(str(VENDOR_DOCS)) / name
    if not path.exists():
        pytest.skip(f"{path} is not there")
    with stand_in(service=service, seed=1, **settings) as (fake, url):
        credentials = {}
        for header, value in fake.auth_headers().items():
            scheme, _, rest = value.partition(" ")
            if header.lower() != "authorization":
                credentials["api_key"] = value
            elif scheme.lower() == "basic":
                credentials["api_key"] = base64.b64decode(rest).decode().split(":")[0]
            else:
                credentials["api_key"] = credentials["access_token"] = rest
        report = conform(ConformOptions(service, url, credentials=credentials, document=str(path), settings=settings,
                                        scenarios=[], allow_writes=True, max_calls=10_000))
    assert report.count("differs") == 0, report.render()
    assert report.count("same") >= 15, report.render()
