"""Financials, dividends, segments and the next annual report follow the company's annual reports,
add up as the line-item dictionary nests them, and agree from one year to the next."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

import httpx
import pytest

from fakes.filings import FilingsFake
from fakes.filings.lineitems import BY_CODE


@pytest.fixture(scope="module")
def history() -> FilingsFake:
    return FilingsFake(seed=0, scale="120")  # 120 companies, each with years of filings


@pytest.fixture
def client(history: FilingsFake) -> Iterator[httpx.Client]:
    with history.client(headers=history.auth_headers()) as http:
        yield http


def values(period: dict) -> dict[str, Decimal]:
    return {item["code"]: Decimal(item["value"]) for statement in period["statements"]
            for item in statement["line_items"] if item["value"] is not None}


def test_statements_add_up_as_the_dictionary_nests_them(client: httpx.Client) -> None:
    for company in (3, 17, 44):
        body = client.get(f"/companies/{company}/financials/").json()
        assert body["period_count"] >= 10
        for period in body["periods"]:
            v = values(period)
            if "gross_profit" in v:
                assert v["gross_profit"] == v["revenue"] - v["cost_of_revenue"]
                assert v["operating_income"] == v["gross_profit"] - v["total_operating_expenses"]
            assert v["total_assets"] == v["total_current_assets"] + v["total_non_current_assets"]
            assert v["total_liabilities_and_equity"] == v["total_liabilities"] + v["total_equity"] == v["total_assets"]
            assert v["net_change_in_cash"] == (v["cash_from_operations"] + v["cash_from_investing"]
                                               + v["cash_from_financing"])
            assert v["net_income_loss"] == v["pretax_income"] - v["income_tax_expense"]
            parents: dict[str, Decimal] = {}
            for statement in period["statements"]:
                for item in statement["line_items"]:
                    definition = BY_CODE[item["code"]]
                    assert (item["depth"], item["parent_code"]) == (definition.depth, definition.parent_code)
                    if item["parent_code"] in ("total_current_assets", "total_non_current_assets"):
                        parents[item["parent_code"]] = parents.get(item["parent_code"], Decimal(0)) + v[item["code"]]
            assert parents["total_current_assets"] == v["total_current_assets"]
            assert parents["total_non_current_assets"] == v["total_non_current_assets"]


def test_years_agree_cash_carries_over_and_dividends_get_paid(client: httpx.Client) -> None:
    body = client.get("/companies/5/financials/").json()
    by_year = {period["fiscal_year"]: values(period) for period in body["periods"]}
    dividends = {int(d["evidence_quote"].rsplit(" ", 1)[1].rstrip(".")): d for d in
                 client.get("/companies/5/dividends/").json()["dividends"]}
    shares = next(iter(by_year.values()))["shares_outstanding"]
    for year in sorted(by_year)[1:]:
        if year - 1 not in by_year:
            continue
        this, last = by_year[year], by_year[year - 1]
        assert this["cash_and_equivalents"] - last["cash_and_equivalents"] == this["net_change_in_cash"]
        paid = dividends.get(year - 1)
        expected = -(Decimal(paid["amount"]) * shares / 1000).to_integral_value(rounding="ROUND_DOWN") * 1000 \
            if paid else Decimal(0)
        assert this["dividends_paid"] == expected


def test_a_year_appears_when_its_annual_report_is_released(history: FilingsFake, client: httpx.Client) -> None:
    reports = client.get("/filings/", params={"company": 8, "types": "10-K,10-K-ESEF", "page_size": 1,
                                              "view": "full"}).json()["results"]
    last = reports[0]
    released = last["release_datetime"]
    before = client.get("/companies/8/financials/", params={"as_of": "2000-01-01"}).json()
    assert before["period_count"] == 0
    known = client.get("/companies/8/financials/", params={"as_known_at": released}).json()
    newest = known["periods"][0]
    assert newest["fiscal_year"] == last["fiscal_year"]
    statement = newest["statements"][0]
    assert statement["source_filing"]["release_datetime"] == released
    assert any(source["is_selected"] and source["filing_id"] == statement["source_filing"]["id"]
               for source in statement["sources"])
    earlier = client.get("/companies/8/financials/", params={"as_known_at": "2000-01-01T00:00:00+0000"}).json()
    assert earlier["period_count"] == 0


def test_filters_and_refusals(client: httpx.Client) -> None:
    only = client.get("/companies/3/financials/", params={"statement_type": "BS", "line_items": "total_assets",
                                                          "fiscal_year_from": "2020", "fiscal_year_to": "2022"})
    body = only.json()
    assert {p["fiscal_year"] for p in body["periods"]} <= {2020, 2021, 2022} and body["periods"]
    assert all([i["code"] for s in p["statements"] for i in s["line_items"]] == ["total_assets"]
               for p in body["periods"])
    assert body["filters"]["line_items"] == ["total_assets"]
    assert client.get("/companies/3/financials/", params={"line_items": "nope"}).status_code == 400
    assert client.get("/companies/3/financials/", params={"include": "everything"}).status_code == 400
    assert client.get("/companies/3/financials/", params={"fiscal_period": "Q1"}).json()["periods"] == []
    revisions = client.get("/companies/3/financials/", params={"include": "revisions", "line_items": "revenue"})
    item = revisions.json()["periods"][0]["statements"][0]["line_items"][0]
    assert item["revisions"][0]["op"] == "insert"
    assert client.get("/companies/99999/financials/").status_code == 404


def test_financials_need_level_3(history: FilingsFake) -> None:
    with history.client(headers={"X-API-Key": history.create_key("level2")}) as level2:
        response = level2.get("/companies/3/financials/")
    assert response.status_code == 403 and "Level 3" in response.json()["detail"]


def test_next_annual_report_is_predicted_from_the_history(client: httpx.Client) -> None:
    reports = client.get("/filings/", params={"company": 11, "types": "10-K", "page_size": 100}).json()["results"]
    prediction = client.get("/companies/11/next-annual-report/").json()
    newest = max(r["release_datetime"] for r in reports)
    assert prediction["start_date"] > newest[:10]
    assert prediction["start_date"][:4] == str(int(newest[:4]) + 1)
    assert prediction["confidence"] >= 60 and prediction["is_overdue"] is False


def test_next_annual_report_needs_two_reports(fake: FilingsFake) -> None:
    company = fake.add_company(name="Newly Listed AG", country_code="DE")
    with fake.client(headers=fake.auth_headers()) as http:
        response = http.get(f"/companies/{company['id']}/next-annual-report/")
    assert response.status_code == 404


def test_segments_add_up_to_the_company(history: FilingsFake, client: httpx.Client) -> None:
    from fakes.filings.corporate import tags_segments
    tagged = next(cid for cid in range(1, 121) if tags_segments(history.model.core(cid)))  # type: ignore[arg-type]
    segments = client.get(f"/companies/{tagged}/segments/", params={"axis": "business", "metric": "revenue"}).json()
    financials = client.get(f"/companies/{tagged}/financials/", params={"line_items": "revenue"}).json()
    revenue = {p["fiscal_year"]: values(p)["revenue"] for p in financials["periods"]}
    totals: dict[int, Decimal] = {}
    for segment in segments["segments"]:
        for value in segment["values"]:
            year = int(value["period_end"][:4])
            totals[year] = totals.get(year, Decimal(0)) + Decimal(value["value"])
    assert totals and all(abs(totals[year] - revenue[year]) <= 3000 for year in totals)
    untagged = next(cid for cid in range(1, 121) if not tags_segments(history.model.core(cid)))  # type: ignore[arg-type]
    assert client.get(f"/companies/{untagged}/segments/").json()["segments"] == []
