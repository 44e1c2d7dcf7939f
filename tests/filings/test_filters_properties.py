"""Every filter and ordering, page by page through HTTP, equals a brute-force answer.

Hypothesis draws filters (company, ISIN, LEI, type by name/code/id, types, languages, countries,
release-date range, ordering, page size) over a small catalogue that also holds user-added
companies and filings (some published late, some in the future) with the clock moved past the
catalogue's start, so generated filings of the live feed take part too.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fakes.filings import FilingsFake
from fakes.filings.catalogue.filing_types import TYPES
from fakes.filings.catalogue.markets import MARKETS

from .brute import World, expected_company_ids, expected_filing_ids, world

SETTINGS = settings(max_examples=120, deadline=None, database=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def populate(fake: FilingsFake) -> None:
    """User companies and filings at several virtual times; clock ends two days past the start."""
    own = fake.add_company(name="Acme Widgets SE", country_code="DE", sub_industry_code="2930", ticker="ACM.W")
    other = fake.add_company(name="Nordlys Kraft ASA", country_code="NO", sub_industry_code="3510")
    fake.add_filing(company=own["id"], filing_type="10-K", language="en")
    fake.add_filing(company=5, filing_type="Press Release")
    fake.advance(3600 * 20)
    fake.add_filing(company=other["id"], filing_type="IR", language="no", release_datetime="2025-12-01T10:00:00Z")
    fake.add_filing(company=own["id"], filing_type="ADHOC")
    fake.add_filing(company=5, filing_type="DD", release_datetime="2026-03-01T00:00:00Z")  # not yet visible
    fake.advance(3600 * 28)


@pytest.fixture(scope="module")
def populated() -> Iterator[tuple[FilingsFake, World, httpx.Client]]:
    fake = FilingsFake(seed=3, scale="small")
    populate(fake)
    with fake.client(headers=fake.auth_headers()) as http:
        yield fake, world(fake), http


def instant(moment_s: int, as_date: bool) -> str:
    moment = dt.datetime.fromtimestamp(moment_s, tz=dt.UTC)
    return moment.strftime("%Y-%m-%d") if as_date else moment.strftime("%Y-%m-%dT%H:%M:%SZ")


@st.composite
def filing_queries(draw: st.DrawFn, w: World) -> dict[str, str]:
    params: dict[str, str] = {}
    company_ids = sorted(w.companies)
    if draw(st.booleans()) and draw(st.booleans()):
        params["company"] = str(draw(st.sampled_from([*company_ids, 999_999])))
    if draw(st.integers(0, 9)) == 0:
        params["company_isin"] = draw(st.sampled_from(w.companies[draw(st.sampled_from(company_ids))].isins))
    if draw(st.integers(0, 9)) == 0:
        params["lei"] = w.companies[draw(st.sampled_from(company_ids))].lei
    choice = draw(st.integers(0, 5))
    if choice == 1:
        t = draw(st.sampled_from(TYPES))
        params["filing_type"] = draw(st.sampled_from([t.name, t.code, str(t.id)]))
    elif choice == 2:
        params["type"] = draw(st.sampled_from(TYPES)).code
    elif choice == 3:
        params["types"] = ",".join(t.code for t in draw(st.lists(st.sampled_from(TYPES), min_size=1, max_size=3)))
    languages = ["en", "de", "fr", "sv", "no", "EN", "zz"]
    if draw(st.integers(0, 3)) == 0:
        params["language"] = draw(st.sampled_from(languages))
    elif draw(st.integers(0, 4)) == 0:
        params["languages"] = ",".join(draw(st.lists(st.sampled_from(languages), min_size=1, max_size=3)))
    if draw(st.integers(0, 3)) == 0:
        codes = [m.code for m in MARKETS] + ["US"]
        params["countries"] = ",".join(draw(st.lists(st.sampled_from(codes), min_size=1, max_size=4)))
    times = [r.release_s for r in w.filings]
    low, high = min(times) - 86_400, max(times) + 86_400
    for bound, end_of_day in (("release_datetime_from", False), ("release_datetime_to", True)):
        if draw(st.integers(0, 2)) == 0:
            moment = draw(st.integers(low, high))
            as_date = draw(st.booleans())
            params[bound] = instant(moment, as_date)
            start = int(dt.datetime.strptime(params[bound][:10], "%Y-%m-%d").replace(tzinfo=dt.UTC).timestamp())
            key = "_from_s" if bound.endswith("from") else "_to_s"
            params[key] = str((start + (86_399 if end_of_day else 0)) if as_date else moment)
    params["ordering"] = draw(st.sampled_from(["release_datetime", "-release_datetime", "id", "-id",
                                               "added_to_platform", "-added_to_platform"]))
    params["page_size"] = str(draw(st.sampled_from([1, 7, 50, 100])))
    return params


def page_through(http: httpx.Client, path: str, params: dict[str, str], limit_pages: int) -> tuple[int, list[Any]]:
    """Follow `next` links from page 1; returns (count, ids) - at most ``limit_pages`` pages."""
    query = {k: v for k, v in params.items() if not k.startswith("_")}
    response = http.get(path, params=query)
    assert response.status_code == 200, response.text
    body = response.json()
    count, ids, pages = body["count"], [item["id"] for item in body["results"]], 1
    assert body["previous"] is None
    while body["next"] and pages < limit_pages:
        url = body["next"]
        assert url.startswith("http://testserver" + path)
        for name, value in query.items():  # next keeps every other parameter
            assert httpx.URL(url).params.get(name) == value
        response = http.get(url)
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["count"] == count and body["previous"] is not None
        ids += [item["id"] for item in body["results"]]
        pages += 1
    return count, ids


def test_filing_filters_and_orderings_match_brute_force(populated: tuple[FilingsFake, World, httpx.Client]) -> None:
    _, w, http = populated

    @SETTINGS
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        params = data.draw(filing_queries(w))
        expected = expected_filing_ids(w, params)
        size = int(params["page_size"])
        pages = 12  # long walks cover the head only; their count is still exact
        count, ids = page_through(http, "/filings/", params, pages)
        assert count == len(expected)
        assert ids == expected[:pages * size]

    check()


def test_last_pages_match_brute_force(populated: tuple[FilingsFake, World, httpx.Client]) -> None:
    """Jumping straight to any page (the last one included) gives the brute-force slice."""
    _, w, http = populated

    @SETTINGS
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        params = data.draw(filing_queries(w))
        expected = expected_filing_ids(w, params)
        size = int(params["page_size"])
        last = max(1, -(-len(expected) // size))
        page = data.draw(st.sampled_from(sorted({1, last, max(1, last - 1), (last + 1) // 2})))
        query = {k: v for k, v in params.items() if not k.startswith("_")}
        body = http.get("/filings/", params={**query, "page": str(page)}).json()
        assert [item["id"] for item in body["results"]] == expected[(page - 1) * size:page * size]
        assert (body["next"] is None) == (page == last)
        assert http.get("/filings/", params={**query, "page": str(last + 1)}).status_code == 404

    check()


@st.composite
def company_queries(draw: st.DrawFn, w: World) -> dict[str, str]:
    from fakes.filings.catalogue.isic import CLASSES

    params: dict[str, str] = {}
    some = draw(st.sampled_from(sorted(w.companies)))
    core = w.companies[some]
    cls = CLASSES[core.class_index]
    if draw(st.integers(0, 2)) == 0:
        codes = [m.code for m in MARKETS] + ["us"]
        params["countries"] = ",".join(draw(st.lists(st.sampled_from(codes), min_size=1, max_size=3)))
    level = draw(st.integers(0, 5))
    if level == 1:
        params["sector"] = draw(st.sampled_from([cls.section, cls.section.lower(), "U"]))
    elif level == 2:
        params["industry_group"] = draw(st.sampled_from([cls.division, "99"]))
    elif level == 3:
        params["industry"] = cls.group
    elif level == 4:
        params["sub_industry"] = cls.code
    identifier = draw(st.integers(0, 8))
    if identifier == 0:
        params["isin"] = draw(st.sampled_from(core.isins)).lower()
    elif identifier == 1:
        params["lei"] = core.lei
    elif identifier == 2:
        params["ticker"] = core.ticker.lower()
    elif identifier == 3:
        params["search"] = draw(st.sampled_from([core.name.split()[0].lower(), core.lei, core.isins[0],
                                                 f"{core.name.split()[0]} zzz"]))
    params["ordering"] = draw(st.sampled_from(["id", "-id", "name", "-name", "date_ipo", "-date_ipo",
                                               "year_founded", "country_iso__name", "-country_iso__name"]))
    params["page_size"] = str(draw(st.sampled_from([3, 50, 100])))
    return params


def test_company_filters_and_orderings_match_brute_force(populated: tuple[FilingsFake, World, httpx.Client]) -> None:
    _, w, http = populated

    @SETTINGS
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        params = data.draw(company_queries(w))
        expected = expected_company_ids(w, params)
        count, ids = page_through(http, "/companies/", params, 100)
        assert count == len(expected)
        assert ids == expected

    check()
