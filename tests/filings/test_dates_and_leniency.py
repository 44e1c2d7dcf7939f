"""Date filters in every form Django reads, DRF/django-filter leniency (a warning verdict), unknown
ids, and the filters issue 25 made real (fiscal_year, search, ...) against a brute force."""

from __future__ import annotations

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fakes.filings import FilingsFake
from fakes.filings.dates import instant_s

from .brute import expected_filing_ids, world

ZULU = "2025-12-15T12:00:00Z"


@pytest.mark.parametrize("form", ["2025-12-15T12:00:00+0000", "2025-12-15T12:00:00+00:00", "2025-12-15T12:00:00",
                                  "2025-12-15T12:00:00.000000+0000", "2025-12-15 12:00:00", "2025-12-15T12:00",
                                  "2025-12-15T13:00:00+0100", "2025-12-15T07:00:00-05:00", "2025-12-15 12:00Z",
                                  "12/15/2025 12:00:00", "2025-12-15T12:00:00+00"])
def test_every_django_date_time_form_selects_what_z_does(client: httpx.Client, form: str) -> None:
    for name in ("release_datetime_from", "release_datetime_to"):
        expected = client.get("/filings/", params={name: ZULU, "page_size": 3}).json()
        got = client.get("/filings/", params={name: form, "page_size": 3}).json()
        assert (got["count"], [f["id"] for f in got["results"]]) == (
            expected["count"], [f["id"] for f in expected["results"]]), form


def test_a_day_means_its_first_or_last_second() -> None:
    assert instant_s("2025-12-15", end_of_day=False) == instant_s("2025-12-15T00:00:00Z", end_of_day=False)
    assert instant_s("12/15/2025", end_of_day=True) == instant_s("2025-12-15T23:59:59Z", end_of_day=True)
    assert instant_s("Dec 15 2025", end_of_day=False) == instant_s("2025-12-15T00:00:00Z", end_of_day=False)
    assert instant_s("2025-12-15T00:00:00.5Z", end_of_day=False) == instant_s("2025-12-15T00:00:01Z",
                                                                                end_of_day=False)


@pytest.mark.parametrize("value", ["yesterday", "2025-13-01", "2025-12-15T25:00:00Z", "2025-12-15T12:00:00+24:00",
                                   "2025-12-15T12:00:00+0000 junk", "9" * 80])
def test_what_django_refuses_is_a_400(client: httpx.Client, value: str) -> None:
    response = client.get("/filings/", params={"release_datetime_from": value})
    assert response.status_code == 400 and "release_datetime_from" in response.json()["detail"]


def test_leniency_answers_as_drf_does_and_leaves_a_warning(fake: FilingsFake, client: httpx.Client) -> None:
    plain = client.get("/filings/", params={"page_size": 100}).json()
    lenient = client.get("/filings/", params={"company": "", "countries": "", "ordering": "-nope,-release_datetime",
                                              "page_size": "500"})
    assert lenient.status_code == 200
    assert [f["id"] for f in lenient.json()["results"]] == [f["id"] for f in plain["results"]]
    verdict = next(v for v in fake.verdicts() if v["id"] == "filings/lenient-input")
    assert verdict["severity"] == "warning" and verdict["count"] == 4
    unknown = client.get("/companies/", params={"ordering": "ticker"})  # no such field: the default order
    assert unknown.status_code == 200 and unknown.json()["results"][0]["id"] == 1
    assert client.get("/filings/", params={"page": ""}).status_code == 404  # DRF: an empty page is invalid


@pytest.mark.parametrize("path", ["/filings/-1/", "/filings/abc/", "/filings/0/", "/companies/-5/",
                                  "/filings/99999999999999999999999/"])
def test_anything_that_names_no_record_is_not_found(client: httpx.Client, path: str) -> None:
    response = client.get(path)
    assert (response.status_code, response.json()) == (404, {"detail": "Not found."})


@pytest.fixture(scope="module")
def deep() -> FilingsFake:
    return FilingsFake(seed=2, scale="60")  # 60 companies with years of history: many fiscal years


@pytest.fixture(scope="module")
def deep_world(deep: FilingsFake):  # type: ignore[no-untyped-def]
    return world(deep)


SEARCHES = ["annual", "annual report 2019", "holding", "9m", "q1 results", ": press", "ag:", "buyback 2021",
            "interim h1", "bank", "esef", "x", "report plc", "general meeting 2024"]


@settings(max_examples=40, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(params=st.fixed_dictionaries({}, optional={
    "fiscal_year": st.sampled_from(["2012", "2019", "2023", "2025"]),
    "fiscal_period": st.sampled_from(["FY", "Q1", "H1", "9M"]),
    "search": st.sampled_from(SEARCHES),
    "type": st.sampled_from(["10-K", "IR", "ER", "PR"]),
    "countries": st.sampled_from(["DE", "GB,FR", "SE"]),
    "company": st.integers(1, 60).map(str),
    "ordering": st.sampled_from(["-release_datetime", "release_datetime", "id"]),
}), page=st.integers(1, 3))
def test_new_filters_match_the_brute_force(deep: FilingsFake, deep_world, params: dict[str, str],  # type: ignore[no-untyped-def]
                                           page: int) -> None:
    expected = expected_filing_ids(deep_world, params)
    with deep.client(headers=deep.auth_headers()) as http:
        body = http.get("/filings/", params={**params, "page_size": 40, "page": page}).json()
    if page > 1 and (page - 1) * 40 >= len(expected):
        assert body == {"detail": "Invalid page."}
        return
    assert body["count"] == len(expected), params
    assert [f["id"] for f in body["results"]] == expected[(page - 1) * 40:page * 40], params


def test_search_matches_titles_and_company_names(deep: FilingsFake) -> None:
    with deep.client(headers=deep.auth_headers()) as http:
        name = http.get("/companies/7/").json()["name"]
        word = name.split()[0].lower()
        found = http.get("/filings/", params={"search": word, "page_size": 100}).json()
        assert found["count"] > 0
        assert all(word in f["title"].lower() or word in f["company"]["name"].lower() for f in found["results"])
        user = deep.add_filing(company=7, title="Quarterly dividend announcement", filing_type="PR")
        hits = http.get("/filings/", params={"search": f"{word} quarterly"}).json()["results"]
        assert [f["id"] for f in hits] == [user["id"]]  # one term in the company's name, one in the title


def test_many_companies_come_from_the_owner_arrays_alike() -> None:
    """The bulk path (a set of BULK_COMPANIES or more) selects what the companies' patterns do."""
    from fakes.filings.catalogue.generator import catalogue_for
    from fakes.filings.query import FilingFilter, _bulk_company_source, source_for

    catalogue = catalogue_for(0, "small")
    companies = frozenset(range(3, 220, 2))
    for types, languages, markets in ((None, None, None), (frozenset({0, 10}), None, None),
                                      (None, frozenset({0}), frozenset({1, 2, 3}))):
        by_pattern = source_for(catalogue, FilingFilter(company_ids=companies, type_indexes=types,
                                                        language_indexes=languages, market_indexes=markets))
        bulk = _bulk_company_source(catalogue, companies, types, languages, markets)
        stop = catalogue.round_size * 3 + 17
        assert bulk.count_below(stop) == by_pattern.count_below(stop) > 0
        assert bulk.take(5, 200, stop) == by_pattern.take(5, 200, stop)
