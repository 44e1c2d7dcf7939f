"""The HTTP surface: envelope, errors in `{"detail": ...}`, documents, Markdown, filing types."""

from __future__ import annotations

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fakes.filings import FilingsFake


def test_envelope_has_absolute_next_and_previous_that_keep_other_parameters(client: httpx.Client) -> None:
    first = client.get("/filings/", params={"language": "en", "page_size": 5}).json()
    assert set(first) == {"count", "next", "previous", "results"}
    assert first["previous"] is None and len(first["results"]) == 5
    assert first["next"] == "http://testserver/filings/?language=en&page_size=5&page=2"
    second = client.get(first["next"]).json()
    assert second["previous"] == "http://testserver/filings/?language=en&page_size=5"  # page 1 has no page=
    third = client.get(second["next"]).json()
    assert third["previous"] == "http://testserver/filings/?language=en&page_size=5&page=2"
    ids = [f["id"] for page in (first, second, third) for f in page["results"]]
    assert len(set(ids)) == 15


def test_default_order_is_newest_release_first(client: httpx.Client) -> None:
    results = client.get("/filings/").json()["results"]
    assert len(results) == 50  # the default page size
    times = [f["release_datetime"] for f in results]
    assert times == sorted(times, reverse=True)


def test_page_past_the_end_is_invalid_page(client: httpx.Client) -> None:
    count = client.get("/filings/", params={"page_size": 100}).json()["count"]
    last = -(-count // 100)
    assert client.get("/filings/", params={"page_size": 100, "page": last}).json()["next"] is None
    for page in (last + 1, 0, "x", ""):
        response = client.get("/filings/", params={"page_size": 100, "page": page})
        assert (response.status_code, response.json()) == (404, {"detail": "Invalid page."})
    empty = client.get("/filings/", params={"company": 999_999}).json()  # page 1 of nothing is fine
    assert empty == {"count": 0, "next": None, "previous": None, "results": []}


@pytest.mark.parametrize("params", [
    {"page_size": "0"}, {"page_size": "ten"}, {"release_datetime_from": "yesterday"},
    {"release_datetime_to": "2024-02-30"}, {"release_datetime_from": "2024-01-01T10:00+25:00"},
    {"filing_type": "Annual Reports"}, {"type": "10-Q"}, {"types": "10-K,,IR"}, {"company": "abc"},
    {"countries": "Germany"}, {"language": "eng"}, {"view": "everything"}, {"company_isin": " "},
    {"fiscal_year": "twenty"}, {"fiscal_period": "Q5"}, {"on_watchlist": "maybe"}, {"ingestion_mode": "LATE"},
    {"period_ending_date": "2024-13-01"}, {"category": "one"},
])
def test_bad_filter_values_are_400_with_a_detail(client: httpx.Client, params: dict[str, str]) -> None:
    response = client.get("/filings/", params=params)
    assert response.status_code == 400, response.text
    assert set(response.json()) == {"detail"} and response.json()["detail"]


@pytest.mark.parametrize("params", [{"sector": "KK"}, {"industry": "64"}, {"countries": "D"},
                                    {"listing_status": "GONE"}, {"on_watchlist": "2"}])
def test_bad_company_filters_are_400(client: httpx.Client, params: dict[str, str]) -> None:
    assert client.get("/companies/", params=params).status_code == 400


def test_max_page_size_is_accepted(client: httpx.Client) -> None:
    assert len(client.get("/filings/", params={"page_size": 100}).json()["results"]) == 100


def test_authentication_errors(fake: FilingsFake) -> None:
    with fake.client() as anonymous:
        for headers in ({}, {"X-API-Key": "nope"}, {"Authorization": "Bearer nope"}):
            response = anonymous.get("/filings/", headers=headers)
            assert response.status_code == 401
            assert response.json() == {"detail": "Authentication credentials were not provided or are invalid."}
        key = fake.create_key("free")
        assert anonymous.get("/companies/", headers={"Authorization": f"Bearer {key}"}).status_code == 200
        assert anonymous.get("/companies/", headers={"X-API-Key": key}).status_code == 200


def test_api_key_header_is_a_setting() -> None:
    fake = FilingsFake(seed=0, scale="small", api_key_header="X-Custom-Key")
    key = fake.create_key("standard")
    with fake.client() as http:
        assert http.get("/companies/", headers={"X-Custom-Key": key}).status_code == 200
        assert http.get("/companies/", headers={"X-API-Key": key}).status_code == 401
    assert fake.openapi()["components"]["securitySchemes"]["ApiKeyAuth"]["name"] == "X-Custom-Key"


def test_unknown_ids_are_404_not_found(enterprise: httpx.Client) -> None:
    client = enterprise
    for path in ("/companies/999999/", "/filings/0/", "/filings/999999999/", "/filing-types/99/",
                 "/filings/999999/markdown/", "/filings/999999/document/"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert response.json()["detail"]
    assert client.get("/companies/abc/").status_code == 404


def test_future_filings_are_not_there_yet(fake: FilingsFake, client: httpx.Client) -> None:
    visible = client.get("/filings/").json()["count"]
    assert client.get(f"/filings/{visible}/").status_code == 200
    assert client.get(f"/filings/{visible + 1}/").status_code == 404
    fake.advance(7 * 86400)  # the live feed: generated filings keep being released
    assert client.get(f"/filings/{visible + 1}/").status_code == 200
    assert client.get("/filings/").json()["count"] > visible


def test_live_feed_can_be_frozen() -> None:
    fake = FilingsFake(seed=0, scale="small", live_feed=False)
    fake.advance(30 * 86400)
    with fake.client(headers=fake.auth_headers()) as http:
        assert http.get("/filings/").json()["count"] == 3000


def test_filing_detail_has_the_clients_required_fields(client: httpx.Client) -> None:
    summary = client.get("/filings/", params={"page_size": 1}).json()["results"][0]
    detail = client.get(f"/filings/{summary['id']}/").json()
    for name in ("id", "company", "filing_type", "language", "filing_date", "title", "release_datetime",
                 "document_url", "year", "ingestion_mode", "added_to_platform", "markdown_url", "fiscal_year"):
        assert name in detail
    assert detail["company"]["id"] == summary["company"]["id"]
    assert detail["filing_type"]["category"]["name"]
    assert client.get(f"/filings/{summary['id']}/", params={"format": "pdf"}).status_code == 400


def test_markdown_is_level2_and_the_same_by_both_routes(fake: FilingsFake) -> None:
    filing_id = 2000
    level2 = {"X-API-Key": fake.create_key("level2")}
    with fake.client() as http:
        text = http.get(f"/filings/{filing_id}/markdown/", headers=level2)
        assert text.status_code == 200 and text.headers["content-type"].startswith("text/markdown")
        assert text.text.startswith("# ") and "|---|" in text.text
        again = http.get(f"/filings/{filing_id}/", params={"format": "markdown"}, headers=level2)
        assert again.text == text.text
        window = http.get(f"/filings/{filing_id}/markdown/", params={"offset": 2, "limit": 10}, headers=level2)
        assert window.text == text.text[2:12]
        for tier in ("free", "standard"):
            refused = http.get(f"/filings/{filing_id}/markdown/", headers={"X-API-Key": fake.create_key(tier)})
            assert refused.status_code == 403
            assert "requires a **Level 2** Plan" in refused.json()["detail"]
        assert http.get(f"/filings/{filing_id}/", params={"format": "markdown"},
                        headers={"X-API-Key": fake.create_key("standard")}).status_code == 403


def test_markdown_of_a_fresh_filing_is_not_ready_yet(fake: FilingsFake) -> None:
    published = fake.add_filing(company=7, filing_type="ER", markdown="# Results\n")
    assert published["processing_status"] == "PENDING" and published["markdown_url"] is None
    key = {"X-API-Key": fake.create_key("enterprise")}
    with fake.client(headers=key) as http:
        response = http.get(f"/filings/{published['id']}/markdown/")
        assert response.status_code == 404
        body = response.json()
        assert body["processing_status"] == "PENDING" and body["retryable"] is True
        assert body["reason"] == "not_processed" and int(response.headers["Retry-After"]) == 900
        fake.advance(int(response.headers["Retry-After"]))
        assert http.get(f"/filings/{published['id']}/markdown/").text == "# Results\n"
        assert http.get(f"/filings/{published['id']}/").json()["processing_status"] == "COMPLETED"


def test_documents_are_a_pdf_or_an_esef_zip(client: httpx.Client) -> None:
    pdf = client.get("/filings/", params={"type": "10-K", "page_size": 1}).json()["results"][0]
    response = client.get(pdf["document_url"])
    assert response.headers["content-type"] == "application/pdf" and response.content.startswith(b"%PDF-")
    esef = client.get("/filings/", params={"type": "10-K-ESEF", "page_size": 1}).json()["results"][0]
    package = client.get(esef["document_url"])
    assert package.headers["content-type"] == "application/zip" and package.content.startswith(b"PK")


def test_filing_types_need_standard_access(fake: FilingsFake) -> None:
    with fake.client() as http:
        free = http.get("/filing-types/", headers={"X-API-Key": fake.create_key("free")})
        assert free.status_code == 403
        assert free.json() == {"detail": "Your current plan (Free) does not permit access. Access to filing types "
                                         "requires **Standard Access** (Level 1) or higher."}
        standard = {"X-API-Key": fake.create_key("standard")}
        listed = http.get("/filing-types/", headers=standard).json()
        assert listed["count"] == 13 and {t["code"] for t in listed["results"]} >= {"10-K", "IR", "ER"}
        assert http.get("/filing-types/", params={"search": "ESEF"}, headers=standard).json()["count"] == 1
        assert http.get("/filing-types/1/", headers=standard).json()["name"] == "Annual Report"


def test_companies_detail_and_full_view(client: httpx.Client) -> None:
    listed = client.get("/companies/", params={"countries": "FR", "page_size": 2}).json()
    assert listed["count"] >= 2 and all(c["country_code"] == "FR" for c in listed["results"])
    company = client.get(f"/companies/{listed['results'][0]['id']}/").json()
    assert company["sub_industry"]["industry"]["industry_group"]["sector"]["code"] == company["sector"]["code"]
    assert company["isins"][0].startswith("FR") and len(company["lei"]) == 20
    full = client.get("/companies/", params={"countries": "FR", "page_size": 2, "view": "full"}).json()
    assert full["results"][0] == company


def test_aliases_of_the_real_and_the_seeds_names(client: httpx.Client) -> None:
    def ids(params: dict[str, str]) -> list[int]:
        return [f["id"] for f in client.get("/filings/", params={**params, "page_size": 100}).json()["results"]]

    assert ids({"filing_type": "Annual Report"}) == ids({"type": "10-K"}) == ids({"filing_type": "1"})
    assert ids({"countries": "DE"}) == ids({"country": "DE"}) == ids({"location": "de"})
    assert ids({"release_datetime_from": "2025-12-01"}) == ids({"date_from": "2025-12-01T00:00:00Z"})
    company = client.get("/companies/", params={"page_size": 1}).json()["results"][0]
    assert ids({"company_isin": company["isins"][0]}) == ids({"isin": company["isins"][0].lower()}) == ids(
        {"company": str(company["id"])})
    assert client.get("/companies/", params={"isic_section": "K"}).json() == client.get(
        "/companies/", params={"sector": "K"}).json()


def test_unmodelled_real_filters_are_ignored_with_a_journal_warning(fake: FilingsFake,
                                                                     client: httpx.Client) -> None:
    assert client.get("/filings/", params={"min_confidence": "0.9"}).status_code == 200
    warnings = fake.journal_entries()[-1]["warnings"]
    assert warnings and "min_confidence" in warnings[0]


PARAMS = ["company", "company_isin", "isin", "lei", "filing_type", "type", "types", "language", "languages",
          "countries", "country", "release_datetime_from", "release_datetime_to", "date_to", "ordering", "view",
          "page", "page_size", "sector", "industry_group", "industry", "sub_industry", "ticker", "search", "format",
          "offset", "limit", "category"]


@settings(max_examples=150, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(["/filings/", "/companies/", "/filing-types/", "/filings/5/", "/filings/5/markdown/",
                             "/companies/5/"]),
       params=st.dictionaries(st.sampled_from(PARAMS), st.one_of(
           st.text(max_size=30), st.integers(-10**30, 10**30).map(str),
           st.sampled_from(["9999-12-31", "0001-01-01T00:00:00+23:59", "2024-02-29T23:59:60Z", "-id", "10-K,IR"])),
           max_size=5))
def test_no_input_makes_a_server_error(enterprise: httpx.Client, path: str, params: dict[str, str]) -> None:
    response = enterprise.get(path, params=params)
    assert response.status_code < 500, response.text
    if response.status_code >= 400:
        assert isinstance(response.json()["detail"], str)
