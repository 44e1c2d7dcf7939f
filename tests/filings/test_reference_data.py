"""Reference data agrees with the catalogue: every value a company or filing shows is listed."""

from __future__ import annotations

import httpx
import pytest

from fakes.filings import FilingsFake
from fakes.filings.catalogue.identifiers import decode_figi


def every_row(client: httpx.Client, path: str, **params: str) -> list[dict]:
    rows, page = [], 1
    while True:
        body = client.get(path, params={**params, "page": page, "page_size": 100}).json()
        rows += body["results"]
        if not body["next"]:
            return rows
        page += 1


def test_every_company_country_filing_language_source_and_category_is_listed(enterprise: httpx.Client) -> None:
    countries = {row["alpha_2"] for row in every_row(enterprise, "/countries/")}
    languages = {row["code"]: row for row in every_row(enterprise, "/languages/")}
    sources = {row["id"]: row for row in every_row(enterprise, "/sources/")}
    categories = {row["id"]: row for row in every_row(enterprise, "/filing-categories/")}
    classes = {row["code"] for row in every_row(enterprise, "/isic-classes/")}
    assert len(countries) == 44
    for company in every_row(enterprise, "/companies/"):
        assert company["country_code"] in countries and company["sub_industry_code"] in classes
    for filing in every_row(enterprise, "/filings/", view="full", page_size="100")[:600]:
        assert languages[filing["language"]["code"]] == filing["language"]
        assert sources[filing["source"]["id"]] == filing["source"]
        assert categories[filing["filing_type"]["category"]["id"]] == filing["filing_type"]["category"]


def test_isic_levels_nest_and_filter(enterprise: httpx.Client) -> None:
    sections = every_row(enterprise, "/isic-sections/")
    divisions = every_row(enterprise, "/isic-divisions/")
    groups = every_row(enterprise, "/isic-groups/")
    classes = every_row(enterprise, "/isic-classes/")
    assert {d["sector"]["code"] for d in divisions} <= {s["code"] for s in sections}
    assert {g["industry_group"]["code"] for g in groups} <= {d["code"] for d in divisions}
    assert {c["industry"]["code"] for c in classes} <= {g["code"] for g in groups}
    for index, row in enumerate(classes, start=1):  # a detail's id is its place in the list
        assert enterprise.get(f"/isic-classes/{index}/").json() == row
    banks = enterprise.get("/isic-classes/", params={"industry_group_code": "64"}).json()["results"]
    assert banks and all(c["code"].startswith("64") for c in banks)
    assert [c["code"] for c in enterprise.get("/isic-classes/", params={"code__in": "6419,2910"}).json()[
        "results"]] == ["2910", "6419"]
    assert enterprise.get("/isic-sections/", params={"code__iexact": "k"}).json()["count"] == 1
    assert enterprise.get("/isic-sections/", params={"name__icontains": "FINANCIAL"}).json()["count"] == 1
    assert enterprise.get("/isic-sections/999/").status_code == 404


def test_isins_are_every_companys_and_resolve_back(enterprise: httpx.Client) -> None:
    companies = every_row(enterprise, "/companies/")
    isins = every_row(enterprise, "/isins/")
    assert [row["code"] for row in isins] == [isin for company in companies for isin in company["isins"]]
    primary = enterprise.get("/isins/", params={"is_primary": "true", "page_size": 100}).json()
    secondary = enterprise.get("/isins/", params={"is_primary": "false", "page_size": 100}).json()
    assert primary["count"] == len(companies) and primary["count"] + secondary["count"] == len(isins)
    assert all(not row["is_primary"] for row in secondary["results"])
    company = next(c for c in companies if len(c["isins"]) > 1)
    detail = enterprise.get(f"/isins/{company['isins'][1]}/").json()
    assert detail["company"]["id"] == company["id"] and not detail["is_primary"]
    assert decode_figi(detail["figi"]) == (company["id"], 1, 0)
    found = enterprise.get("/isins/", params={"search": company["isins"][0][2:8].lower()}).json()["results"]
    assert company["isins"][0] in [row["code"] for row in found]
    assert enterprise.get("/isins/", params={"codes": ",".join(company["isins"])}).json()["count"] == len(
        company["isins"])
    assert enterprise.get("/isins/XX0000000000/").status_code == 404


def test_security_listings_are_the_companies_listings(enterprise: httpx.Client) -> None:
    company = enterprise.get("/companies/9/").json()
    listing = enterprise.get("/security-listings/9/").json()
    assert (listing["mic"], listing["ticker"], listing["figi"]) == (
        company["listings"][0]["mic"], company["listings"][0]["ticker"], company["listings"][0]["figi"])
    by_figi = enterprise.get("/security-listings/", params={"figi": listing["figi"]}).json()["results"]
    assert [row["id"] for row in by_figi] == [9]
    pinned = enterprise.get("/security-listings/", params={"ticker": f"{listing['ticker']}.{company['country_code']}"})
    assert 9 in [row["id"] for row in pinned.json()["results"]]
    by_mic = enterprise.get("/security-listings/", params={"mic": listing["mic"], "ordering": "-ticker"}).json()
    tickers = [row["ticker"] for row in by_mic["results"]]
    assert tickers == sorted(tickers, reverse=True) and all(r["mic"] == listing["mic"] for r in by_mic["results"])
    assert enterprise.get("/security-listings/", params={"ordering": "nope"}).status_code == 200  # ignored


@pytest.mark.parametrize("path", ["/countries/", "/languages/", "/sources/", "/filing-categories/",
                                  "/isic-sections/", "/isins/", "/security-listings/", "/line-item-definitions/"])
def test_reference_data_needs_standard_access(fake: FilingsFake, path: str) -> None:
    with fake.client(headers={"X-API-Key": fake.create_key("free")}) as free:
        response = free.get(path)
    assert response.status_code == 403 and "Standard Access" in response.json()["detail"]


def test_line_item_definitions_form_a_tree(enterprise: httpx.Client) -> None:
    rows = every_row(enterprise, "/line-item-definitions/")
    codes = {row["code"]: row for row in rows}
    for row in rows:
        assert (row["parent_code"] is None) == (row["depth"] == 0)
        if row["parent_code"]:
            assert codes[row["parent_code"]]["statement_type"] == row["statement_type"]
    children = enterprise.get("/line-item-definitions/", params={"parent_code": "gross_profit"}).json()["results"]
    assert [c["code"] for c in children] == ["cost_of_revenue"]
    banks = enterprise.get("/line-item-definitions/", params={"template": "bank", "page_size": 100}).json()
    assert "total_deposits" in [r["code"] for r in banks["results"]]
    assert "gross_profit" not in [r["code"] for r in banks["results"]]
    assert enterprise.get("/line-item-definitions/nope/").status_code == 404
