"""The default, full-size catalogue: documented sizes, deep pages and filters (correctness here;
speed is the benchmark's)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import httpx
import pytest

from fakes.filings import FilingsFake
from fakes.filings.catalogue.generator import ANCHOR_S, FULL_COMPANIES, FULL_FILINGS, catalogue_for
from fakes.filings.catalogue.markets import MARKETS
from fakes.filings.catalogue.records import generated_record
from fakes.filings.query import FilingFilter, GeneratedSelection


@pytest.fixture(scope="module")
def full() -> Iterator[httpx.Client]:
    fake = FilingsFake(seed=0)  # scale "full" is the default
    with fake.client(headers=fake.auth_headers()) as http:
        yield http


def test_documented_sizes(full: httpx.Client) -> None:
    assert full.get("/filings/", params={"page_size": 1}).json()["count"] == FULL_FILINGS
    assert full.get("/companies/", params={"page_size": 1}).json()["count"] == FULL_COMPANIES
    catalogue = catalogue_for(0, "full")
    assert {MARKETS[m].code for m in set(catalogue.market)} == {m.code for m in MARKETS}


def test_last_page_of_all_filings_in_both_orders(full: httpx.Client) -> None:
    last = FULL_FILINGS // 100
    oldest_first = full.get("/filings/", params={"ordering": "release_datetime", "page_size": 100, "page": last})
    assert [f["id"] for f in oldest_first.json()["results"]] == list(range(FULL_FILINGS - 99, FULL_FILINGS + 1))
    assert oldest_first.json()["next"] is None
    newest_last = full.get("/filings/", params={"ordering": "-release_datetime", "page_size": 100, "page": last})
    assert [f["id"] for f in newest_last.json()["results"]] == list(range(100, 0, -1))
    assert full.get("/filings/", params={"page_size": 100, "page": last + 1}).status_code == 404


@pytest.mark.parametrize("params", [
    {"type": "10-K"}, {"language": "de"}, {"countries": "SE"}, {"company": "4242"},
    {"company": "4242", "types": "10-K,IR", "release_datetime_from": "2015-01-01", "release_datetime_to": "2020-12-31"},
    {"languages": "en,fr", "countries": "LU,BE", "filing_type": "Press Release"},
])
def test_deep_filtered_pages_are_consecutive_matches(full: httpx.Client, params: dict[str, str]) -> None:
    """Any page of a filtered list: every filing matches, in order, and none between two
    neighbours is skipped (checked with the arithmetic's own count, brute force on the gaps)."""
    first = full.get("/filings/", params={**params, "ordering": "release_datetime", "page_size": 100}).json()
    count = first["count"]
    assert count > 0
    page = max(1, (count // 100) // 2)
    body = full.get("/filings/", params={**params, "ordering": "release_datetime", "page_size": 100,
                                         "page": page}).json()
    ids = [f["id"] for f in body["results"]]
    assert ids == sorted(ids)
    for filing in body["results"]:
        if "type" in params:
            assert filing["filing_type"]["code"] == params["type"]
        if "language" in params:
            assert filing["language"]["code"] == params["language"]
        if "countries" in params:
            assert filing["company"]["country_code"] in params["countries"].split(",")
        if "company" in params:
            assert filing["company"]["id"] == int(params["company"])
    if "company" in params and "types" not in params:  # no other filing of the company near the gaps' ends
        catalogue = catalogue_for(0, "full")
        for low, high in itertools.pairwise(ids):  # ids are index + 1
            near = [*range(low, min(low + 150, high - 1)), *range(max(low, high - 151), high - 1)]
            assert all(catalogue.locate(index).company_id != int(params["company"]) for index in near)


def test_union_positioning_agrees_with_counting() -> None:
    catalogue = catalogue_for(0, "full")
    visible = catalogue.timeline.count_released_by(ANCHOR_S)
    selection = GeneratedSelection(catalogue, FilingFilter(language_indexes=frozenset({1, 2})), visible)
    for offset in (0, 1, 12_345, selection.count // 2, selection.count - 5):
        indexes = selection.indexes(offset, 5)
        for k, index in enumerate(indexes):
            assert selection.source.count_below(index) == offset + k  # exactly offset+k matches before it
            assert generated_record(catalogue, index).language_index in (1, 2)
