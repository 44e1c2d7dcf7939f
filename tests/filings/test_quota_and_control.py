"""Tiers and quotas (the free tier's 100th and 101st call), the control plane, state export."""

from __future__ import annotations

import httpx
import pytest

from fakes.filings import FilingsFake


def test_free_tier_100th_call_passes_and_101st_is_the_quota_error(fake: FilingsFake) -> None:
    key = fake.create_key("free")
    with fake.client(headers={"X-API-Key": key}) as http:
        for call in range(1, 101):
            response = http.get("/companies/", params={"page_size": 1})
            assert response.status_code == 200, call
            assert response.headers["X-RateLimit-Monthly-Remaining"] == str(100 - call)
            assert response.headers["X-RateLimit-Monthly-Limit"] == "100"
        refused = http.get("/filings/")
        assert refused.status_code == 429
        body = refused.json()
        assert body["detail"].startswith("Request was throttled.") and body["type"] == "quota_limit_exceeded"
        assert body["limit"] == 100 and body["interval"] == "annual" and body["resets_on"] == "2027-01-01"
        retry_after = int(refused.headers["Retry-After"])
        assert retry_after == body["retry_after_seconds"] == 1_798_761_600 - 1_767_603_600  # until 2027-01-01
        assert refused.headers["X-RateLimit-Monthly-Remaining"] == "0"
        assert http.get("/filings/").status_code == 429  # refusals do not count, and do not help
        fake.advance(retry_after)  # a new calendar year: a fresh allowance
        assert http.get("/filings/").status_code == 200
    assert next(k for k in fake.list_keys() if k["api_key"] == key)["used"] == 1


def test_refused_calls_do_not_count(fake: FilingsFake) -> None:
    key = fake.create_key("free", quota=3)
    with fake.client(headers={"X-API-Key": key}) as http:
        assert http.get("/filing-types/").status_code == 403  # tier
        assert http.get("/filings/", params={"view": "nope"}).status_code == 400  # bad input
        assert http.get("/companies/0/").status_code == 404  # unknown id
        for _ in range(3):
            assert http.get("/companies/", params={"page_size": 1}).status_code == 200
        refused = http.get("/companies/")
        assert refused.status_code == 429 and refused.json()["limit"] == 3


def test_enterprise_custom_and_unlimited_quotas(fake: FilingsFake) -> None:
    with fake.client() as http:
        custom = fake.create_key("enterprise", quota=2)
        for expected in (200, 200, 429):
            assert http.get("/filings/", headers={"X-API-Key": custom}).status_code == expected
        unlimited = {"X-API-Key": fake.create_key("enterprise")}
        response = http.get("/filings/", headers=unlimited)
        assert response.headers["X-RateLimit-Monthly-Limit"] == "Unlimited"
        assert response.headers["X-RateLimit-Monthly-Remaining"] == "Unlimited"


def test_tier_defaults_are_settings() -> None:
    fake = FilingsFake(seed=0, scale="small", free_quota=5, standard_quota=7)
    assert {k["tier"]: k["quota"] for k in fake.list_keys()} == {"free": 5, "standard": 7, "level2": None,
                                                                 "enterprise": None}


def test_control_plane_keys(fake: FilingsFake) -> None:
    with fake.client() as http:
        created = http.post("/_fake/keys", json={"tier": "level2", "quota": 10})
        assert created.status_code == 201
        assert created.json()["tier"] == "level2" and created.json()["quota"] == 10
        key = created.json()["api_key"]
        assert http.get("/filings/1/markdown/", headers={"X-API-Key": key}).status_code == 200
        unlimited = http.post("/_fake/keys", json={"tier": "free", "quota": None}).json()
        assert unlimited["quota"] is None
        assert http.post("/_fake/keys", json={"tier": "gold"}).status_code == 400
        assert http.post("/_fake/keys", json={"tier": "free", "quota": -1}).status_code == 400
        assert http.post("/_fake/keys", json={"quota": 1}).status_code == 400
        bad = http.post("/_fake/keys", content=b"{not json")
        assert bad.status_code == 400 and set(bad.json()) == {"error", "message"}
        listed = http.get("/_fake/keys").json()["keys"]
        assert any(k["api_key"] == key and k["used"] == 1 and k["remaining"] == 9 for k in listed)


def test_demo_credentials_are_one_standard_and_one_free_key(fake: FilingsFake) -> None:
    credentials = fake.demo_credentials()
    tiers = {k["api_key"]: k["tier"] for k in fake.list_keys()}
    assert tiers[credentials["standard_api_key"]] == "standard" and tiers[credentials["free_api_key"]] == "free"
    assert FilingsFake(seed=0, scale="small").demo_credentials() == credentials  # stable per seed


def test_user_companies_and_filings_take_part_in_every_query(fake: FilingsFake, enterprise: httpx.Client) -> None:
    created = enterprise.post("/_fake/companies", json={
        "name": "Zephyr Turbines AG", "country_code": "AT", "sub_industry_code": "2811", "ticker": "ZEPH"})
    assert created.status_code == 201, created.text
    company = created.json()
    assert company["id"] > 1_000_000 and company["country_code"] == "AT"
    assert enterprise.get(f"/companies/{company['id']}/").json() == company
    assert [c["id"] for c in enterprise.get("/companies/", params={"ticker": "zeph"}).json()["results"]] == [
        company["id"]]
    assert company["id"] in [c["id"] for c in enterprise.get("/companies/", params={
        "countries": "AT", "industry": "281", "page_size": 100}).json()["results"]]

    newest_before = enterprise.get("/filings/", params={"page_size": 1}).json()["results"][0]
    fake.advance(60)
    published = enterprise.post("/_fake/filings", json={"company": company["id"], "filing_type": "Annual Report",
                                                         "title": "Zephyr Turbines AG: Annual Report 2025"})
    assert published.status_code == 201, published.text
    filing = published.json()
    assert filing["release_datetime"] == "2026-01-05T09:01:00Z" and filing["ingestion_mode"] == "REALTIME"
    newest = enterprise.get("/filings/", params={"page_size": 2}).json()["results"]
    assert [f["id"] for f in newest] == [filing["id"], newest_before["id"]]
    assert [f["id"] for f in enterprise.get("/filings/", params={"company": company["id"]}).json()["results"]] == [
        filing["id"]]
    for params in ({"filing_type": "Annual Report"}, {"countries": "AT"}, {"language": "de"},
                   {"company_isin": company["isins"][0]}, {"release_datetime_from": "2026-01-05T09:01:00Z"}):
        ids = [f["id"] for f in enterprise.get("/filings/", params={**params, "page_size": 100}).json()["results"]]
        assert filing["id"] in ids, params
    assert enterprise.get(f"/filings/{filing['id']}/").json()["title"] == "Zephyr Turbines AG: Annual Report 2025"


def test_backdated_and_scheduled_filings(fake: FilingsFake, enterprise: httpx.Client) -> None:
    late = fake.add_filing(company=3, release_datetime="2025-11-01T10:00:00Z")
    assert late["ingestion_mode"] == "BACKFILLED" and late["added_to_platform"] == "2026-01-05T09:00:00Z"
    scheduled = fake.add_filing(company=3, release_datetime="2026-01-06T10:00:00Z")
    assert enterprise.get(f"/filings/{scheduled['id']}/").status_code == 404
    fake.advance(86400 + 3600)
    assert enterprise.get(f"/filings/{scheduled['id']}/").status_code == 200
    by_added = [f["id"] for f in enterprise.get("/filings/", params={"ordering": "-added_to_platform",
                                                                      "page_size": 100}).json()["results"]]
    assert by_added.index(scheduled["id"]) < by_added.index(late["id"])


@pytest.mark.parametrize(("path", "body"), [
    ("/_fake/companies", {"name": "X"}),
    ("/_fake/companies", {"name": "X", "country_code": "US"}),
    ("/_fake/companies", {"name": "X", "country_code": "DE", "isins": ["DE000000000"]}),
    ("/_fake/companies", {"name": "X", "country_code": "DE", "lei": "12345"}),
    ("/_fake/companies", {"name": "X", "country_code": "DE", "sub_industry_code": "9999"}),
    ("/_fake/companies", {"name": "X", "country_code": "DE", "colour": "red"}),
    ("/_fake/filings", {"company": 1, "filing_type": "Novel"}),
    ("/_fake/filings", {"company": 1, "language": "xx"}),
    ("/_fake/filings", {"company": 1, "release_datetime": "soon"}),
    ("/_fake/filings", {"company": "1"}),
])
def test_control_plane_rejects_bad_bodies(enterprise: httpx.Client, path: str, body: dict[str, object]) -> None:
    response = enterprise.post(path, json=body)
    assert response.status_code == 400, response.text
    assert set(response.json()) == {"error", "message"}


@pytest.mark.parametrize(("path", "body"), [
    ("/_fake/filings", {"company": 999_999}),
    ("/_fake/merges", {"shell_id": 999_999, "canonical_id": 1}),
    ("/_fake/merges", {"shell_id": 1, "canonical_id": 999_999}),
])
def test_a_reference_to_no_company_is_a_404(enterprise: httpx.Client, path: str, body: dict[str, object]) -> None:
    """Issue 32, item 6: a well-formed body naming no company is not a bad body (schemathesis counts
    such a 400 as a schema-valid request refused): the company is not there, and nothing changes."""
    before = enterprise.get("/_fake/state").json()["model"]
    response = enterprise.post(path, json=body)
    assert response.status_code == 404, response.text
    assert response.json()["error"] == "not_found" and "999999" in response.json()["message"]
    assert enterprise.get("/_fake/state").json()["model"] == before


def test_identifiers_must_be_unique(fake: FilingsFake, enterprise: httpx.Client) -> None:
    taken = enterprise.get("/companies/1/").json()
    response = enterprise.post("/_fake/companies", json={"name": "Copy", "country_code": "DE",
                                                         "isins": [taken["isins"][0]]})
    assert response.status_code == 409


def test_state_export_import_is_lossless(fake: FilingsFake, enterprise: httpx.Client) -> None:
    company = fake.add_company(name="Kestrel Bank plc", country_code="IE", sub_industry_code="6419")
    fake.add_filing(company=company["id"], filing_type="ER", markdown="# Q\n")
    key = fake.create_key("free", quota=9)
    with fake.client(headers={"X-API-Key": key}) as http:
        http.get("/companies/")
    state = fake.export_state()
    other = FilingsFake(seed=0, scale="small")
    other.import_state(state)
    assert other.export_state() == state
    with other.client(headers=other.auth_headers()) as http:
        for path in ("/filings/?page_size=5", f"/companies/{company['id']}/", "/filings/?countries=IE"):
            assert http.get(path).json() == enterprise.get(path).json()
    assert next(k for k in other.list_keys() if k["api_key"] == key)["used"] == 1
    with pytest.raises(Exception, match=r"settings\.scale"):  # a state of another catalogue size
        FilingsFake(seed=0, scale="300").import_state(state)


def test_reset_restores_the_seeded_state(fake: FilingsFake) -> None:
    before = fake.export_state()
    fake.add_company(name="Temp", country_code="SE")
    fake.create_key("free")
    fake.reset()
    assert {**fake.export_state(), "epoch": 0} == before  # the same state in a new reset epoch
